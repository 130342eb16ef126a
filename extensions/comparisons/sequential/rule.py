"""When a sequential comparison is settled: the one rule the stopper (:mod:`.runtime`),
the report and ``--prob-plan`` (:mod:`.plan`) ask.

A comparison is looked at after every completed pair of runs (arm run against baseline run
of one input) with one paired input, at the end of every round with several. Two designs
(``prob_compare_sequential``):

* ``horizon`` (the default): a group-sequential test whose looks end at the planned pairs —
  repeated confidence intervals on the score statistic of the pairs' pooled counts, with
  Lan–DeMets α-spending boundaries (Kim and DeMets's ``α t²``) (:mod:`..statistics.groupseq`),
  exact by dynamic programming up to :data:`~..statistics.groupseq.EXACT_PAIRS` pairs;
* ``anytime``: the confidence sequences valid at every look however long the runs go on —
  the mixture sequence of :mod:`..statistics.mixture` with one input, the
  empirical-Bernstein sequence of :mod:`..statistics.bernstein` with several.

Pure module: never imports pytest.

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

from ..statistics import groupseq, mixture
from ..statistics.bernstein import RoundSequence

#: the readings :func:`settle` returns besides the margin verdicts
DIFFERENCE, RESOLVED = "difference", "resolved"
#: the methods, as the report names them
MIXTURE = "mixture"
BERNSTEIN = "empirical-bernstein"
GROUP_SEQUENTIAL = "group-sequential"
#: the designs (``prob_compare_sequential``)
HORIZON, ANYTIME = "horizon", "anytime"
DESIGNS = (HORIZON, ANYTIME)


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


def score(delta: float, xa: int, xb: int, n: int) -> float:
    """The score statistic for ``pa − pb = δ`` with ``xa`` and ``xb`` passes of ``n`` runs
    each: ``(xa/n − xb/n − δ)/√((p̃a(1−p̃a) + p̃b(1−p̃b))/n)`` at the rates of largest
    likelihood with that difference (Miettinen and Nurminen 1985); at ``δ = 0`` it is
    :func:`..statistics.groupseq.score_z`."""
    if n == 0:
        return 0.0
    gap = (xa - xb) / n - delta
    pa, pb = mixture.restricted_rates(delta, xa, n, xb, n)
    spread = (pa * (1.0 - pa) + pb * (1.0 - pb)) / n
    if spread <= 0.0:
        return 0.0 if abs(gap) < 1e-12 else math.copysign(math.inf, gap)
    return gap / math.sqrt(spread)


@dataclass(frozen=True)
class HorizonLook:
    """The group-sequential design at one look: ``xa`` and ``xb`` passes over the ``n``
    pairs used (every input's, pooled), each look adding ``per_look`` pairs (one per input),
    ``done`` looks made and at most ``left`` to come. The interval is the repeated confidence
    interval ``{δ : |score(δ)| < b}`` with ``b`` the design's boundary at this look (every
    ``δ`` — no look yet, or a look the design does not stop at)."""

    xa: int
    xb: int
    n: int
    per_look: int
    done: int
    left: int
    level: float
    method: str = GROUP_SEQUENTIAL

    @property
    def estimate(self) -> float:
        return (self.xa - self.xb) / self.n if self.n else 0.0

    @property
    def horizon(self) -> int:
        return self.done + self.left

    def design(self) -> tuple[Mapping[int, float], tuple[float, ...], tuple[float, ...], bool]:
        return groupseq.design_boundaries(self.per_look, self.horizon, 1.0 - self.level)

    def bound(self, look: int | None = None) -> float:
        look = self.done if look is None else look
        if look <= 0 or self.horizon <= 0:
            return math.inf
        return self.design()[0].get(look, math.inf)

    def _above(self, xa: int, xb: int, look: int, value: float) -> bool:
        b = self.bound(look)
        n = look * self.per_look
        return b < math.inf and n > 0 and score(value, xa, xb, n) >= b

    def _below(self, xa: int, xb: int, look: int, value: float) -> bool:
        b = self.bound(look)
        n = look * self.per_look
        return b < math.inf and n > 0 and score(value, xa, xb, n) <= -b

    def above(self, value: float) -> bool:
        return self._above(self.xa, self.xb, self.done, value)

    def below(self, value: float) -> bool:
        return self._below(self.xa, self.xb, self.done, value)

    def interval(self) -> tuple[float, float]:
        b = self.bound()
        if b == math.inf or not self.n:
            return -1.0, 1.0
        centre = self.estimate

        def inside(delta: float) -> bool:
            return abs(score(delta, self.xa, self.xb, self.n)) < b

        return (
            mixture.interval_end(inside, centre, -1.0),
            mixture.interval_end(inside, centre, 1.0),
        )

    def may_rise_above(self, value: float) -> bool:
        """Along the most favourable path (every later arm run passes, every later baseline
        run fails), which gives the highest low end at each later look."""
        k = self.per_look
        return any(
            self._above(self.xa + (j - self.done) * k, self.xb, j, value)
            for j in range(self.horizon, self.done - 1, -1)
        )

    def may_fall_below(self, value: float) -> bool:
        k = self.per_look
        return any(
            self._below(self.xa, self.xb + (j - self.done) * k, j, value)
            for j in range(self.horizon, self.done - 1, -1)
        )


#: the sequence at one look, as :func:`settle` asks it
Look = MixtureLook | RoundsLook | HorizonLook


def rounds_of(inputs: Sequence[PairedRuns]) -> list[list[int]]:
    """Round ``k`` has every input's ``k``-th pair difference."""
    count = min(item.pairs for item in inputs) if inputs else 0
    return [[item.arm[k] - item.base[k] for item in inputs] for k in range(count)]


def looks(inputs: Sequence[PairedRuns], level: float, design: str = HORIZON) -> Iterator[Look]:
    """The look before any pair, then after each pair (one input) or round (several)."""
    if design == HORIZON:
        count = len(inputs)
        most = min(item.most_pairs for item in inputs) if inputs else 0
        xa = xb = 0
        rounds = min(item.pairs for item in inputs) if inputs else 0
        yield HorizonLook(0, 0, 0, count, 0, max(0, most), level)
        for k in range(rounds):
            xa += sum(item.arm[k] for item in inputs)
            xb += sum(item.base[k] for item in inputs)
            yield HorizonLook(xa, xb, (k + 1) * count, count, k + 1, max(0, most - k - 1), level)
        return
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


def look_of(inputs: Sequence[PairedRuns], level: float, design: str = HORIZON) -> Look:
    """The look after the inputs' complete pairs (one input) or rounds (several)."""
    return collections.deque(looks(inputs, level, design), maxlen=1)[0]


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


def summary(
    inputs: Sequence[PairedRuns],
    level: float,
    design: str = HORIZON,
    null: float | None = None,
) -> dict[str, Any]:
    """What the report prints: the estimate over the pairs used, the interval at the last
    look, the p-value and an e-value (for e-BH).

    ``horizon``: the repeated confidence interval, the stagewise-ordering p-value (exact for
    the exact design), ``e = 1/(2√p)``, and — when ``null`` is the value whose boundary the
    comparison crossed before its horizon — the median-unbiased estimate as ``adjusted``.
    ``anytime``: the always-valid p-value (``1 /`` the largest e-value over every look) and
    the e-value at the last look."""
    if design == HORIZON:
        return _horizon_summary(look_of(inputs, level, HORIZON), null)
    every = list(looks(inputs, level, ANYTIME))
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


def _horizon_summary(look: Any, null: float | None) -> dict[str, Any]:
    low, high = look.interval()
    found: dict[str, Any] = {
        "method": look.method,
        "estimate": look.estimate,
        "adjusted": None,
        "low": low,
        "high": high,
        "p": 1.0,
        "e_value": 1.0,
        "pairs": look.n,
        "rounds": look.done,
    }
    if not look.n or look.horizon <= 0:
        return found
    where, fractions, bounds, exact = look.design()
    positions = sorted(where)
    index = sum(1 for position in positions if position <= look.done)
    if index == 0:
        return found
    z = groupseq.score_z(look.xa, look.xb, look.n)
    if exact:
        p = groupseq.exact_stagewise_p(look.per_look, look.horizon, bounds, index, z)
    else:
        p = groupseq.stagewise_p(fractions, bounds, index, z)
    found["p"] = p
    found["e_value"] = 1e300 if p <= 0.0 else min(1e300, 1.0 / (2.0 * math.sqrt(p)))
    if null is not None and look.left > 0 and look.done in where:
        shifted = score(null, look.xa, look.xb, look.n)
        if math.isfinite(shifted) and shifted:
            se = (look.estimate - null) / shifted
            eta = groupseq.median_unbiased(fractions, bounds, index, shifted)
            adjusted = null + eta * se * math.sqrt(fractions[index - 1])
            found["adjusted"] = min(max(adjusted, low), high)
    return found
