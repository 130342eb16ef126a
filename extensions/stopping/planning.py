"""How ``--prob-plan`` models early stopping: exactly the rule the runtime applies (this
extension's ``pytest_prob_plan_case``).

Under ``--prob-stop=sequential`` a case's ``P(pass)``, ``80% power`` and ``seq E[runs]``
come from following every path (:func:`.paths.follow`) through the stopper's own decision
function (:func:`.rules.sequential_decision`) and the same readers
(:func:`.service.case_stopping`): a case a margin reads is kept running, and is planned so.
Without it, ``seq E[runs]`` says what the rule would do to a case whose one gate is a rate
gate.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from pytest_probability.api import (
    FAIL,
    PASS,
    UNDECIDED,
    Case,
    StopContext,
    Thresholds,
    options_of,
    worst_verdict,
)

from .paths import StopOutcome, follow, runs_for_power
from .rules import RATE, sequential_decision
from .sequence import sequence_end
from .service import CANNOT_SAY, case_stopping, gate_thresholds

SEQUENTIAL = "sequential"
#: the chance of passing the power column asks for
POWER = 0.8
#: the most planned runs the 80%-power search under ``sequential`` follows
MOST_RUNS = 20_000
#: the most planned runs scanned one by one when a reader with a verdict takes part
MOST_SCANNED = 1_000
#: the most path states (about n²/2 for n planned runs) that scan follows for one case, in
#: all: a programme per count costs the cube of the counts scanned, and a case whose power
#: is out of reach would otherwise be scanned to MOST_SCANNED (minutes for one case)
MOST_SCANNED_STATES = 500_000


#: per config: (kind name, spec) or the sequence's (bar, level) → the shared thresholds
_THRESHOLDS = pytest.StashKey[dict[Any, Any]]()


def model_stopping(config: pytest.Config, case: Case, row: Any, rate: float) -> None:
    """Fill ``row.sequential_runs`` (a :class:`~pytest_probability.extensions.plan.rows.PlanRow`)
    and, under ``--prob-stop=sequential``, the stopped case's ``pass_chance`` and
    ``power_runs``, when the case has a gate a stopping rule decides on (replacing the
    fixed-run numbers the plan filled)."""
    seen = case_stopping(config, case)
    if seen is None or not seen.gates:  # (a case only readers stop has no gate to plan)
        return
    kinds = tuple(kind.name for kind, _ in seen.gates)
    options = options_of(config)  # (no "stop" with -p no:probability.stopping)
    sequential = "stop" in options.specs and options.session_value("stop") == SEQUENTIAL
    if not sequential and kinds != (RATE,):
        return  # the column is about a lone rate gate under the sequential rule
    if seen.always_runs:  # a verdict reading it keeps it running: every run, fixed-run odds
        row.sequential_runs = float(case.runs)
        others = seen.readers[seen.own :]
        why = "; ".join(f"{r.name} {CANNOT_SAY}" for r in others if r.settled is None)
        row.notes.append(f"--prob-stop=sequential runs every run: {why}")
        return
    shared = config.stash.setdefault(_THRESHOLDS, {})
    if sequential:
        gates = tuple(gate_thresholds(shared, config, kind, spec) for kind, spec in seen.gates)
    else:  # the case's rate gate as the rule would judge it: on the sequence
        spec = seen.gates[0][1]
        key = ("seq", spec.min_rate, spec.interval.level)
        if key not in shared:
            shared[key] = Thresholds(sequence_verdict(spec.min_rate, spec.interval.level))
        gates = (shared[key],)

    @functools.cache
    def outcome_at(planned: int) -> StopOutcome:
        """The case under the runtime's rule, its readers asked at every state where the
        rule would stop (with a hypothetical context)."""

        def decide(x: int, n: int, left: int) -> str | None:
            verdict = sequential_decision(gates, kinds, x, n, left)
            if verdict is None or not seen.readers:
                return verdict
            context = StopContext(case, x, n, left, planned, gates, kinds)
            return None if seen.holding(verdict, context) else verdict

        def final(x: int, n: int) -> str:
            return worst_verdict([thresholds.at(x, n) for thresholds in gates])

        return follow(decide, final, planned, rate)

    row.sequential_runs = outcome_at(case.runs).expected_runs
    if not sequential:
        return
    row.pass_chance = outcome_at(case.runs).pass_chance
    start = row.min_runs or 1
    if kinds == (RATE,) and not seen.readers:
        # a rate at or below the bar passes with chance at most 1 − level (the sequence
        # would have to exclude the true rate): no run count reaches 80% when that is less
        spec = seen.gates[0][1]
        hopeless = rate <= spec.min_rate and 1.0 - spec.interval.level < POWER
        row.power_runs = None if hopeless else runs_for_power(outcome_at, POWER, start, MOST_RUNS)
    elif seen.readers:  # a reader may hold a PASS until it is gone: one programme per count
        row.power_runs, searched = scan_for_power(outcome_at, start)
        if row.power_runs is None and searched < MOST_SCANNED:
            row.notes.append(
                f"80% power: not reached with up to {searched} planned runs; the search stops "
                "there (a verdict reader makes every count a programme of its own)"
            )
    # other gates are only curtailed: their verdict, hence the power, is that of running
    # every run (the fixed-run number the caller fills in)


def scan_for_power(outcome_at: Callable[[int], StopOutcome], start: int) -> tuple[int | None, int]:
    """The fewest planned runs from ``start`` whose case ends PASS with chance
    :data:`POWER`, scanned one count at a time (a reader that holds a PASS makes the chance
    rise and fall with the count), and the most runs searched: the scan ends at
    :data:`MOST_SCANNED` runs or once it followed :data:`MOST_SCANNED_STATES` states."""
    states = 0
    for planned in range(start, MOST_SCANNED + 1):
        states += planned * (planned + 1) // 2
        if states > MOST_SCANNED_STATES:
            return None, planned - 1
        if outcome_at(planned).pass_chance >= POWER:
            return planned, planned
    return None, MOST_SCANNED


def sequence_verdict(bar: float, level: float) -> Callable[[int, int], str]:
    """A rate gate's verdict judged on the confidence sequence (the ``seq`` interval): PASS
    iff its low end is above ``bar``, FAIL iff its high end is below, else (and with no
    runs) UNDECIDED — what the gate says of a case under ``--prob-stop=sequential``."""

    def verdict(passes: int, n: int) -> str:
        # the interval holds x/n, so only the end on the bar's side can decide: the same
        # floats as computing both, half the work
        if n == 0 or passes / n == bar:
            return UNDECIDED
        if passes / n > bar:
            return PASS if sequence_end(passes, n, level, "low") > bar else UNDECIDED
        return FAIL if sequence_end(passes, n, level, "high") < bar else UNDECIDED

    return verdict


def sequential_outcome(thresholds: Thresholds, planned: int, rate: float) -> StopOutcome:
    """What ``--prob-stop=sequential`` does to a case whose one gate is a rate gate with
    these thresholds: the runtime's own decision function (:func:`.rules.sequential_decision`)
    followed over every path (:func:`.paths.follow`)."""
    gates = (thresholds,)
    return follow(
        lambda x, n, left: sequential_decision(gates, (RATE,), x, n, left),
        thresholds.at,
        planned,
        rate,
    )


def expected_runs_sequential(bar: float, level: float, planned: int, rate: float) -> float:
    """The expected runs of a rate gate (``bar``, ``level``) under
    ``--prob-stop=sequential`` at ``rate``: the runtime's rule — stop at the first run
    after which the confidence sequence lies wholly above or below ``bar``, or once no
    remaining run can change the verdict (an UNDECIDED that can no longer resolve), else
    run all ``planned`` — followed exactly (:func:`sequential_outcome`)."""
    thresholds = Thresholds(sequence_verdict(bar, level))
    return sequential_outcome(thresholds, planned, rate).expected_runs
