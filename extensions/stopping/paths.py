"""What a stopping rule does to a case, worked out exactly: the chance it ends PASS, FAIL or
UNDECIDED and the runs it uses on average, when each run passes with an assumed rate.

A dynamic programme over the pass count of the paths still running: before each run after
the first (the stopper decides from the runs made, so it always makes one) it asks the
rule's decision function — the very function the runtime's stopper calls
(:mod:`pytest_probability.extensions.stopping.rules`) — whether a path with ``x`` passes of
``n`` runs and ``planned − n`` left stops; a path that stops ends with the
verdict on its runs, one that never stops with the verdict on all ``planned`` runs. Paths
whose chance falls below :data:`NEGLIGIBLE` are dropped (their total is kept in
``dropped``). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_probability.api import FAIL, PASS, UNDECIDED

#: a path less likely than this is not followed
NEGLIGIBLE = 1e-15

#: ``decide(passes, judged, remaining)``: the settled verdict (stop), or ``None`` (run on)
Decide = Callable[[int, int, int], "str | None"]
#: ``final(passes, judged)``: the verdict on the runs a case made
Final = Callable[[int, int], str]


@dataclass
class StopOutcome:
    """What a rule does to a case with ``planned`` runs at an assumed pass rate.

    :ivar chances: verdict (``"pass"``, ``"fail"``, ``"undecided"``) → its chance.
    :ivar expected_runs: the runs the case makes on average.
    :ivar pass_by: ``pass_by[n]``: the chance that the case has ended PASS within ``n``
        runs (``n`` from 0 to ``planned``).
    :ivar running: the chance that a path is still undecided after ``planned`` runs (it
        ends with the verdict on them).
    :ivar dropped: the total chance of the paths not followed.
    """

    chances: dict[str, float] = field(default_factory=dict)
    expected_runs: float = 0.0
    pass_by: list[float] = field(default_factory=list)
    running: float = 0.0
    dropped: float = 0.0

    @property
    def pass_chance(self) -> float:
        return self.chances.get(PASS, 0.0)


def follow(decide: Decide, final: Final, planned: int, rate: float) -> StopOutcome:
    """Follow every path of a case with ``planned`` runs, each passing with ``rate``,
    through the rule ``decide``; see the module docstring."""
    if planned < 0:
        raise ValueError(f"planned runs must be >= 0, got {planned}")
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must be between 0 and 1, got {rate!r}")
    ended = {PASS: 0.0, FAIL: 0.0, UNDECIDED: 0.0}
    outcome = StopOutcome()
    alive: dict[int, float] = {0: 1.0}
    made: list[float] = []  # per path and run, the chance the run is made
    for n in range(planned):
        moved: dict[int, float] = {}
        for x, chance in alive.items():
            # the stopper decides from the runs made: never before the first
            if n and decide(x, n, planned - n) is not None:  # it stops with n runs made
                ended[final(x, n)] += chance
                continue
            made.append(chance)
            moved[x + 1] = moved.get(x + 1, 0.0) + chance * rate
            moved[x] = moved.get(x, 0.0) + chance * (1.0 - rate)
        outcome.pass_by.append(ended[PASS])
        alive = {}
        for x, chance in moved.items():
            if chance >= NEGLIGIBLE:
                alive[x] = chance
            else:
                outcome.dropped += chance
    for x, chance in alive.items():  # every planned run made
        end = final(x, planned)
        ended[end] += chance
        outcome.running += chance if end == UNDECIDED else 0.0
    outcome.pass_by.append(ended[PASS])
    outcome.chances = ended
    outcome.expected_runs = math.fsum(made)
    return outcome


def runs_for_power(
    outcome_at: Callable[[int], StopOutcome],
    target: float = 0.8,
    start: int = 1,
    most: int = 100_000,
) -> int | None:
    """The fewest planned runs (from ``start``) with which a case ends PASS with chance
    ``target``, for a rule under which that chance only grows with the planned runs (a
    rule that stops at PASS or FAIL as soon as the runs so far show it, such as
    ``sequential`` for rate gates). ``outcome_at(planned)`` is :func:`follow` for that
    many runs; ``None`` when ``most`` runs do not get there.

    One programme for ``H`` planned runs gives the chance of ending PASS within every
    ``n ≤ H`` (``pass_by``), so ``H`` doubles until it reaches the target, and the first
    ``n`` that does is checked with a programme of its own. Paths that ended PASS or FAIL
    end so with more runs too, so once PASS and UNDECIDED together fall short of the
    target, no run count reaches it.
    """
    horizon = max(start, 1)
    while True:
        found = outcome_at(horizon)
        if found.pass_by[horizon] >= target:
            break
        if horizon >= most or found.pass_by[horizon] + found.chances[UNDECIDED] < target:
            return None  # (paths that ended PASS or FAIL stay so with more runs)
        horizon = min(horizon * 2, most)
    n = next(n for n in range(max(start, 0), horizon + 1) if found.pass_by[n] >= target)
    while n < horizon and outcome_at(n).pass_chance < target:  # (never, for such a rule)
        n += 1
    return n
