"""When a sequential comparison is settled: the one rule the stopper (:mod:`.runtime`),
the report and ``--prob-plan`` (:mod:`.plan`) ask.

A comparison is looked at after every completed pair of runs (arm run against baseline run
of one input): with one paired input on the mixture sequence of
:mod:`..statistics.mixture`, with several at the end of every round on the
empirical-Bernstein sequence of :mod:`..statistics.bernstein`. Pure module: never imports
pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import collections
import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import FAIL, PASS, SKIP, UNDECIDED

from ..statistics import mixture
from ..statistics.bernstein import RoundSequence

#: the readings :func:`settle` returns besides the margin verdicts
DIFFERENCE, RESOLVED = "difference", "resolved"
#: the methods, as the report names them
MIXTURE = "mixture"
BERNSTEIN = "empirical-bernstein"


@dataclass(frozen=True)
class PairedRuns:
    """One paired input: each side's judged outcomes in run order (1 pass, 0 fail or error)
    and the runs it has not made yet."""

    input: str
    arm: tuple[int, ...]
    base: tuple[int, ...]
    arm_left: int = 0
    base_left: int = 0

    @property
    def pairs(self) -> int:
        return min(len(self.arm), len(self.base))

    @property
    def most_pairs(self) -> int:
        """The pairs once every planned run is made (and judged)."""
        return min(len(self.arm) + self.arm_left, len(self.base) + self.base_left)


def outcomes(records: Mapping[int, Mapping[str, Any]]) -> tuple[int, ...]:
    """A case's judged runs in run order: 1 for a pass, 0 for a failure or an error."""
    return tuple(
        int(records[run]["outcome"] == PASS)
        for run in sorted(records)
        if records[run]["outcome"] != SKIP
    )


@dataclass(frozen=True)
class MixtureLook:
    """One input: ``xa`` of ``n`` arm runs against ``xb`` of ``n`` baseline runs, with at
    most ``left`` more pairs to come."""

    xa: int
    xb: int
    n: int
    left: int
    level: float
    method: str = MIXTURE

    @property
    def estimate(self) -> float:
        return (self.xa - self.xb) / self.n if self.n else 0.0

    def _above(self, xa: int, xb: int, n: int, value: float) -> bool:
        centre = (xa - xb) / n if n else 0.0
        return centre > value and mixture.excludes(value, xa, n, xb, n, self.level)

    def _below(self, xa: int, xb: int, n: int, value: float) -> bool:
        centre = (xa - xb) / n if n else 0.0
        return centre < value and mixture.excludes(value, xa, n, xb, n, self.level)

    def above(self, value: float) -> bool:
        return self._above(self.xa, self.xb, self.n, value)

    def below(self, value: float) -> bool:
        return self._below(self.xa, self.xb, self.n, value)

    def interval(self) -> tuple[float, float]:
        return mixture.difference_sequence(self.xa, self.n, self.xb, self.n, self.level)

    def may_rise_above(self, value: float) -> bool:
        """Along the most favourable path (every arm run passes, every baseline run fails),
        which gives the highest low end at each later look."""
        return any(
            self._above(self.xa + j, self.xb, self.n + j, value) for j in range(self.left, -1, -1)
        )

    def may_fall_below(self, value: float) -> bool:
        return any(
            self._below(self.xa, self.xb + j, self.n + j, value) for j in range(self.left, -1, -1)
        )


@dataclass(frozen=True)
class RoundsLook:
    """Several inputs: the sequence after its complete rounds, with at most ``left`` more."""

    sequence: RoundSequence
    left: int
    method: str = BERNSTEIN

    @property
    def estimate(self) -> float:
        s = self.sequence
        return 2.0 * s.weighted / (s.inputs * s.bets) - 1.0 if s.bets else 0.0

    @functools.cached_property
    def ends(self) -> tuple[float, float]:
        return self.sequence.interval()

    def above(self, value: float) -> bool:
        return self.sequence.rounds > 0 and self.ends[0] > value

    def below(self, value: float) -> bool:
        return self.sequence.rounds > 0 and self.ends[1] < value

    def interval(self) -> tuple[float, float]:
        return self.ends

    def may_rise_above(self, value: float) -> bool:
        return self.sequence.highest_low(self.left) > value

    def may_fall_below(self, value: float) -> bool:
        return self.sequence.lowest_high(self.left) < value


#: the sequence at one look, as :func:`settle` asks it
Look = MixtureLook | RoundsLook


def rounds_of(inputs: Sequence[PairedRuns]) -> list[list[int]]:
    """Round ``k`` has every input's ``k``-th pair difference."""
    count = min(item.pairs for item in inputs) if inputs else 0
    return [[item.arm[k] - item.base[k] for item in inputs] for k in range(count)]


def looks(inputs: Sequence[PairedRuns], level: float) -> Iterator[Look]:
    """The look before any pair, then after each pair (one input) or round (several)."""
    if len(inputs) == 1:
        (item,) = inputs
        xa = xb = 0
        for n in range(item.pairs + 1):
            if n:
                xa, xb = xa + item.arm[n - 1], xb + item.base[n - 1]
            yield MixtureLook(xa, xb, n, max(0, item.most_pairs - n), level)
        return
    most = min(item.most_pairs for item in inputs)
    sequence = RoundSequence(len(inputs), level)
    yield RoundsLook(sequence, max(0, most))
    for differences in rounds_of(inputs):
        sequence.add_round(differences)
        yield RoundsLook(sequence, max(0, most - sequence.rounds))


def look_of(inputs: Sequence[PairedRuns], level: float) -> Look:
    """The look after the inputs' complete pairs (one input) or rounds (several)."""
    return collections.deque(looks(inputs, level), maxlen=1)[0]


def settle(look: Look, margin: float | None, equivalence: bool, resolution: float) -> str | None:
    """The comparison's settled reading at ``look``, or ``None`` to make more pairs.

    * no margin (exploratory): :data:`DIFFERENCE` once the sequence leaves out 0, or
      :data:`RESOLVED` once it is narrower than ``resolution`` (0: never);
    * a margin ``M`` (non-inferiority): PASS once the low end is above ``−M``, FAIL once the
      high end is below it, UNDECIDED once no look up to the cap can do either;
    * equivalence within ``±M``: PASS once the interval lies inside ``(−M, M)``, FAIL once it
      lies wholly beyond one end, UNDECIDED once no later look can do either."""
    if margin is None:
        if look.above(0.0) or look.below(0.0):
            return DIFFERENCE
        if resolution > 0.0 and _narrower(look, resolution):
            return RESOLVED
        return None
    if not equivalence:
        if look.above(-margin):
            return PASS
        if look.below(-margin):
            return FAIL
        if not look.may_rise_above(-margin) and not look.may_fall_below(-margin):
            return UNDECIDED
        return None
    if look.below(-margin) or look.above(margin):
        return FAIL
    if look.above(-margin) and look.below(margin):
        return PASS
    can_pass = look.may_rise_above(-margin) and look.may_fall_below(margin)
    can_fail = look.may_fall_below(-margin) or look.may_rise_above(margin)
    return None if can_pass or can_fail else UNDECIDED


def _narrower(look: Look, resolution: float) -> bool:
    """The ends are computed only when both points ``resolution`` away from the estimate are
    outside the interval."""
    centre = look.estimate
    if not (look.above(centre - resolution) and look.below(centre + resolution)):
        return False
    low, high = look.interval()
    return high - low < resolution


def summary(inputs: Sequence[PairedRuns], level: float) -> dict[str, Any]:
    """What the report prints: the estimate over the pairs used, the interval at the last
    look, the always-valid p-value (``1 /`` the largest e-value over every look) and the
    e-value at the last look (for e-BH)."""
    every = list(looks(inputs, level))
    look = every[-1]
    low, high = look.interval()
    if isinstance(look, MixtureLook):
        logs = [mixture.log_e_value(at.xa, at.n, at.xb, at.n) for at in every[1:]]
        best = max([0.0, *logs])
        last = logs[-1] if logs else 0.0
        pairs, rounds = look.n, look.n
        estimate = look.estimate
    else:
        sequence = look.sequence
        best, last = sequence.best_log_e, sequence.log_e
        pairs, rounds = sequence.pairs, sequence.rounds
        estimate = (
            sum(sum(r) for r in rounds_of(inputs)) / pairs if pairs else 0.0
        )  # the plain mean difference over the pairs used
    return {
        "method": look.method,
        "estimate": estimate,
        "low": low,
        "high": high,
        "p": min(1.0, math.exp(-best)),
        "e_value": math.exp(min(last, 700.0)),
        "pairs": pairs,
        "rounds": rounds,
    }
