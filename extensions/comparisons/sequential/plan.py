"""What sequential stopping does to a comparison, for ``--prob-plan``: the pairs it runs on
average and the chance of each reading, when the arm's runs pass with one assumed rate and
the baseline's with another.

Seeded simulation of whole sessions through the stopper's own rule (:func:`.rule.settle`):
after every pair with one input (the decision of a state is remembered, since it depends
only on the counts), after every round with several. An exact programme, like the one for
a gated case, would follow every state of every input at once, which grows with the
inputs' count as a power. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..statistics.bernstein import RoundSequence
from .rule import (
    ANYTIME,
    DIFFERENCE,
    FAIL,
    HORIZON,
    PASS,
    UNDECIDED,
    HorizonLook,
    Look,
    MixtureLook,
    RoundsLook,
    settle,
)

#: simulated sessions per comparison
SESSIONS = 1000
#: the reading of an exploratory comparison that never settled: no difference found
NONE_FOUND = "none found"
#: a difference found on the wrong side of zero
WRONG_SIDE = "wrong side"


@dataclass(frozen=True)
class Rule:
    """How the comparison is read (``margin`` ``None``: exploratory)."""

    level: float
    margin: float | None = None
    equivalence: bool = False
    resolution: float = 0.05
    design: str = HORIZON


@dataclass
class ComparisonOutcome:
    """What the rule does to a comparison of ``inputs`` inputs with ``planned`` pairs each:
    the pairs it runs on average (a pair is one run of each arm), each reading's chance
    (``pass``/``fail``/``undecided`` with a margin; ``difference``, ``wrong side``,
    ``resolved``, ``none found`` without) and the reading the assumed difference makes right."""

    inputs: int
    planned: int
    expected_pairs: float
    chances: dict[str, float]
    right: str

    @property
    def planned_pairs(self) -> int:
        return self.inputs * self.planned

    @property
    def right_chance(self) -> float:
        return self.chances.get(self.right, 0.0)


def right_reading(difference: float, rule: Rule) -> str:
    """The reading the true ``difference`` makes right: the margin verdict it implies
    (UNDECIDED on the margin itself, where PASS and FAIL are both wrong), or, without a
    margin, a difference found on its side of zero (none found when it is zero)."""
    if rule.margin is None:
        return NONE_FOUND if difference == 0 else DIFFERENCE
    # below 0 inside the margin, above it outside
    gap = abs(difference) - rule.margin if rule.equivalence else -rule.margin - difference
    return UNDECIDED if gap == 0 else PASS if gap < 0 else FAIL


def simulate(
    inputs: int,
    planned: int,
    arm_rate: float,
    base_rate: float,
    rule: Rule,
    *,
    sessions: int = SESSIONS,
    seed: int = 0,
) -> ComparisonOutcome:
    """``sessions`` sessions of a comparison whose every input makes at most ``planned``
    pairs, arm runs passing with ``arm_rate`` and baseline runs with ``base_rate``."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    used = 0
    run = (_one_input if inputs == 1 else _rounds) if rule.design == ANYTIME else _horizon
    for _ in range(sessions):
        pairs, reading = run(rng, inputs, planned, arm_rate, base_rate, rule)
        if reading in (DIFFERENCE + "+", DIFFERENCE + "-"):
            better = reading.endswith("+")
            reading = DIFFERENCE if better == (arm_rate > base_rate) else WRONG_SIDE
        used += pairs
        counts[reading] = counts.get(reading, 0) + 1
    chances = {reading: count / sessions for reading, count in counts.items()}
    right = right_reading(arm_rate - base_rate, rule)
    return ComparisonOutcome(inputs, planned, used / sessions, chances, right)


_DECIDED: dict[tuple[object, ...], str | None] = {}


def _side(look: Look, reading: str) -> str:
    """A found difference with its side: ``difference+`` (the arm better) or
    ``difference-``."""
    if reading != DIFFERENCE:
        return reading
    return DIFFERENCE + ("+" if look.above(0.0) else "-")


def _one_input(
    rng: random.Random, inputs: int, planned: int, arm: float, base: float, rule: Rule
) -> tuple[int, str]:
    """One session of a one-input comparison: ``(pairs, reading)``."""
    xa = xb = 0
    for n in range(1, planned + 1):
        xa += rng.random() < arm
        xb += rng.random() < base
        key = (xa, xb, n, planned, rule)
        if key not in _DECIDED:
            if len(_DECIDED) > 200_000:
                _DECIDED.clear()
            look = MixtureLook(xa, xb, n, planned - n, rule.level)
            found = settle(look, rule.margin, rule.equivalence, rule.resolution)
            _DECIDED[key] = None if found is None else _side(look, found)
        decided = _DECIDED[key]
        if decided is not None:
            return n, decided
    return planned, _unsettled(rule)


def _horizon(
    rng: random.Random, inputs: int, planned: int, arm: float, base: float, rule: Rule
) -> tuple[int, str]:
    """One session under the ``horizon`` design: a look after every round (every pair with
    one input) on the pooled counts (the decision of a state is remembered)."""
    xa = xb = 0
    for k in range(1, planned + 1):
        xa += sum(rng.random() < arm for _ in range(inputs))
        xb += sum(rng.random() < base for _ in range(inputs))
        key = (HORIZON, xa, xb, k, inputs, planned, rule)
        if key not in _DECIDED:
            if len(_DECIDED) > 200_000:
                _DECIDED.clear()
            look = HorizonLook(xa, xb, k * inputs, inputs, k, planned - k, rule.level)
            found = settle(look, rule.margin, rule.equivalence, rule.resolution)
            _DECIDED[key] = None if found is None else _side(look, found)
        decided = _DECIDED[key]
        if decided is not None:
            return k * inputs, decided
    return planned * inputs, _unsettled(rule)


def _rounds(
    rng: random.Random, inputs: int, planned: int, arm: float, base: float, rule: Rule
) -> tuple[int, str]:
    """One session of a comparison over several inputs, looked at after every round."""
    sequence = RoundSequence(inputs, rule.level)
    for k in range(1, planned + 1):
        differences = [(rng.random() < arm) - (rng.random() < base) for _ in range(inputs)]
        sequence.add_round(differences)
        look = RoundsLook(sequence, planned - k)
        found = settle(look, rule.margin, rule.equivalence, rule.resolution)
        if found is not None:
            return k * inputs, _side(look, found)
    return planned * inputs, _unsettled(rule)


def _unsettled(rule: Rule) -> str:
    """With a margin the rule always settles at the last look, so only an exploratory
    comparison gets here."""
    return NONE_FOUND if rule.margin is None else UNDECIDED
