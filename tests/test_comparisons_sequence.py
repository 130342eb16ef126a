"""The sequential comparison's statistics against references (issue 25).

* the mixture sequence for one input (statistics.mixture): its profile maximum against
  scipy's bounded optimiser, its mixture against scipy's log-Beta, its ends against the
  boundary condition, its time-uniform coverage by exact enumeration of every path;
* the empirical-Bernstein sequence for several inputs (statistics.bernstein): its
  closed-form ends against a root search of the supermartingale, against an independent
  pair-by-pair implementation of Waudby-Smith and Ramdas's Theorem 2, its supermartingale
  property and time-uniform coverage with unequal inputs by exact enumeration, its bounds
  on later looks;
* the rule (sequential.rule) and e-BH (sequential.outcome.e_bh) against their definitions.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
from pytest_probability.extensions.comparisons.sequential.rule import (
    ANYTIME,
    DIFFERENCE,
    FAIL,
    PASS,
    RESOLVED,
    UNDECIDED,
    MixtureLook,
    PairedRuns,
    RoundsLook,
    look_of,
    settle,
    summary,
)
from pytest_probability.extensions.comparisons.statistics import mixture
from pytest_probability.extensions.comparisons.statistics.bernstein import CAP, RoundSequence, psi

scipy_special = pytest.importorskip("scipy.special")
scipy_optimize = pytest.importorskip("scipy.optimize")


# -- one input: the mixture sequence ---------------------------------------------------------
def test_mixture_matches_scipy_log_beta() -> None:
    for xa, na, xb, nb in [(0, 0, 0, 0), (3, 7, 5, 9), (10, 10, 0, 10), (1, 40, 39, 40)]:
        expected = (
            scipy_special.betaln(0.5 + xa, 0.5 + na - xa)
            + scipy_special.betaln(0.5 + xb, 0.5 + nb - xb)
            - 2 * scipy_special.betaln(0.5, 0.5)
        )
        assert mixture.log_mixture(xa, na, xb, nb) == pytest.approx(expected, abs=1e-11)


def test_profile_maximum_matches_scipy() -> None:
    rng = random.Random(7)
    for _ in range(400):
        na, nb = rng.randint(1, 80), rng.randint(1, 80)
        xa, xb = rng.randint(0, na), rng.randint(0, nb)
        delta = rng.uniform(-0.99, 0.99)
        low, high = max(0.0, -delta), min(1.0, 1.0 - delta)

        def negative(pb: float, counts: tuple = (delta, xa, na, xb, nb)) -> float:
            shift, *rest = counts
            value = mixture.log_likelihood(pb + shift, pb, *rest)
            return 1e300 if value == -math.inf else -value

        found = scipy_optimize.minimize_scalar(
            negative, bounds=(low, high), method="bounded", options={"xatol": 1e-12}
        )
        best = min(found.fun, negative(low), negative(high))
        pa, pb = mixture.restricted_rates(delta, xa, na, xb, nb)
        assert pa - pb == pytest.approx(delta, abs=1e-12)
        assert negative(pb) <= best + 1e-7 * max(1.0, abs(best)), (xa, na, xb, nb, delta)


@pytest.mark.parametrize(
    "counts", [(14, 20, 8, 20), (10, 10, 8, 10), (5, 5, 0, 5), (0, 3, 3, 3), (30, 60, 29, 60)]
)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_ends_are_the_boundary(counts: tuple[int, int, int, int], level: float) -> None:
    """Each end is inside and the float beyond it outside (or the end is ±1), and the
    observed difference is inside."""
    xa, na, xb, nb = counts
    low, high = mixture.difference_sequence(xa, na, xb, nb, level)
    observed = xa / na - xb / nb
    assert low <= observed <= high
    assert not mixture.excludes(observed, xa, na, xb, nb, level)
    for end, beyond in ((low, math.nextafter(low, -2.0)), (high, math.nextafter(high, 2.0))):
        assert not mixture.excludes(end, xa, na, xb, nb, level)
        if abs(end) < 1.0:
            assert mixture.excludes(beyond, xa, na, xb, nb, level)
    for fraction in (0.1, 0.5, 0.9):  # an interval: every point between the ends is inside
        point = low + fraction * (high - low)
        assert not mixture.excludes(point, xa, na, xb, nb, level)


def test_no_runs_is_everything_and_perfect_separation_excludes_zero() -> None:
    assert mixture.difference_sequence(0, 0, 0, 0, 0.95) == (-1.0, 1.0)
    low, high = mixture.difference_sequence(5, 5, 0, 5, 0.95)
    assert low > 0.0 and high == 1.0


def _ever_excluded(pa: float, pb: float, pairs: int, level: float) -> float:
    """The exact chance that the sequence leaves out the true difference at some look
    ``1..pairs`` (every path of pass counts, followed with its probability)."""
    delta = pa - pb
    alive: dict[tuple[int, int], float] = {(0, 0): 1.0}
    ever = 0.0
    for n in range(1, pairs + 1):
        moved: dict[tuple[int, int], float] = {}
        for (xa, xb), chance in alive.items():
            for da, wa in ((1, pa), (0, 1 - pa)):
                for db, wb in ((1, pb), (0, 1 - pb)):
                    key = (xa + da, xb + db)
                    moved[key] = moved.get(key, 0.0) + chance * wa * wb
        alive = {}
        for (xa, xb), chance in moved.items():
            if mixture.excludes(delta, xa, n, xb, n, level):
                ever += chance
            else:
                alive[(xa, xb)] = chance
    return ever


@pytest.mark.parametrize(
    "rates", [(0.5, 0.5), (0.9, 0.9), (0.97, 0.5), (0.3, 0.7), (0.05, 0.6), (0.99, 0.99)]
)
def test_mixture_time_uniform_coverage_exact(rates: tuple[float, float]) -> None:
    """Continuous monitoring for 30 pairs: the chance the true difference is ever left out
    is at most α, computed exactly over every path."""
    assert _ever_excluded(*rates, pairs=30, level=0.95) <= 0.05


@pytest.mark.slow
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_mixture_time_uniform_coverage_exact_grid(level: float) -> None:
    for pa, pb in itertools.product((0.1, 0.5, 0.8, 0.95), repeat=2):
        assert _ever_excluded(pa, pb, 60, level) <= 1 - level, (pa, pb)


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_low_end_is_monotone_in_the_counts(level: float) -> None:
    """What ``MixtureLook.may_rise_above`` relies on: at every look, the set of counts whose
    low end is above a value grows with the arm's passes and shrinks with the baseline's
    (so the path on which every arm run passes and every baseline run fails has the highest
    low end at each later look); likewise, mirrored, for the high end."""
    for n in range(1, 16):
        for value in (-0.5, -0.1, 0.0, 0.2):
            for xa in range(n + 1):
                for xb in range(n + 1):
                    look = MixtureLook(xa, xb, n, 0, level)
                    if look.above(value):
                        if xa < n:
                            assert MixtureLook(xa + 1, xb, n, 0, level).above(value)
                        if xb > 0:
                            assert MixtureLook(xa, xb - 1, n, 0, level).above(value)
                    if look.below(value):
                        if xa > 0:
                            assert MixtureLook(xa - 1, xb, n, 0, level).below(value)
                        if xb < n:
                            assert MixtureLook(xa, xb + 1, n, 0, level).below(value)


def test_mixture_may_rise_above_covers_every_completion() -> None:
    """Whenever some completion of the remaining pairs reaches a low end above the value
    at some look, ``may_rise_above`` says so (every completion enumerated)."""
    level = 0.95
    for n, left in [(3, 3), (5, 4), (8, 3)]:
        for xa in range(n + 1):
            for xb in range(n + 1):
                look = MixtureLook(xa, xb, n, left, level)
                for value in (-0.3, 0.0, 0.3):
                    reached = look.above(value) or any(
                        MixtureLook(xa + a, xb + b, n + j, 0, level).above(value)
                        for j in range(1, left + 1)
                        for a in range(j + 1)
                        for b in range(j + 1)
                    )
                    if reached:
                        assert look.may_rise_above(value), (xa, xb, n, left, value)


# -- several inputs: the empirical-Bernstein sequence ----------------------------------------
def _independent(rounds: list[list[int]], inputs: int, level: float) -> tuple[float, float]:
    """Waudby-Smith and Ramdas's Theorem 2 written out pair by pair, with each round's bet
    and each input's centre fixed from earlier rounds (an independent implementation)."""
    threshold = math.log(2 / (1 - level))
    seen: list[list[float]] = [[] for _ in range(inputs)]
    residues: list[float] = []
    weighted = bets = penalty = 0.0
    for differences in rounds:
        pairs = sum(len(s) for s in seen)
        variance = (0.25 + sum(residues)) / (pairs + 1)
        bet = min(CAP, math.sqrt(2 * threshold / (variance * (pairs + 1) * math.log(pairs + 2))))
        everything = [x for s in seen for x in s]
        pooled = (0.5 + sum(everything)) / (1 + len(everything))
        fresh = []
        for index, d in enumerate(differences):
            x = (d + 1) / 2
            centre = (2.0 * pooled + sum(seen[index])) / (2.0 + len(seen[index]))
            fresh.append((index, x))
            weighted += bet * x
            bets += bet
            penalty += 4 * (x - centre) ** 2 * (-math.log(1 - bet) - bet) / 4
            residues.append((x - centre) ** 2)
        for index, x in fresh:
            seen[index].append(x)
    low = (weighted - penalty - threshold) / bets
    high = (weighted + penalty + threshold) / bets
    return max(-1.0, 2 * low - 1), min(1.0, 2 * high - 1)


def test_closed_form_matches_an_independent_implementation() -> None:
    rng = random.Random(11)
    for _ in range(50):
        inputs, count = rng.randint(2, 12), rng.randint(1, 15)
        rounds = [[rng.choice((-1, 0, 0, 1)) for _ in range(inputs)] for _ in range(count)]
        sequence = RoundSequence(inputs, 0.95)
        for differences in rounds:
            sequence.add_round(differences)
        expected = _independent(rounds, inputs, 0.95)
        assert sequence.interval() == pytest.approx(expected, abs=1e-12)


def test_ends_solve_the_supermartingale_boundary() -> None:
    """The low end is the root of ``S⁺(m) = log(2/α)`` (scipy's brentq), the high end of the
    mirrored one."""
    rng = random.Random(3)
    for _ in range(20):
        inputs = rng.randint(2, 8)
        sequence = RoundSequence(inputs, 0.95)
        for _ in range(rng.randint(2, 12)):
            sequence.add_round([rng.choice((-1, 0, 1, 1)) for _ in range(inputs)])
        s = sequence

        def upper(m: float, s: RoundSequence = s) -> float:
            return s.weighted - s.inputs * s.bets * m - s.penalty - s.threshold

        def lower(m: float, s: RoundSequence = s) -> float:
            return -(s.weighted - s.inputs * s.bets * m) - s.penalty - s.threshold

        low = scipy_optimize.brentq(upper, -10, 10, xtol=1e-14)
        high = scipy_optimize.brentq(lower, -10, 10, xtol=1e-14)
        expected = (max(-1.0, 2 * low - 1), min(1.0, 2 * high - 1))
        assert s.interval() == pytest.approx(expected, abs=1e-10)


def _paths(rates: list[tuple[float, float]], rounds: int):
    """Every sequence of rounds (each input's difference −1, 0 or 1) with its chance."""
    per_input = []
    for pa, pb in rates:
        per_input.append({1: pa * (1 - pb), -1: (1 - pa) * pb, 0: pa * pb + (1 - pa) * (1 - pb)})
    outcomes = list(itertools.product((-1, 0, 1), repeat=len(rates)))
    weights = [math.prod(per_input[i][d] for i, d in enumerate(outcome)) for outcome in outcomes]
    for path in itertools.product(range(len(outcomes)), repeat=rounds):
        yield [list(outcomes[j]) for j in path], math.prod(weights[j] for j in path)


@pytest.mark.parametrize(
    "rates",
    [
        [(0.5, 0.5), (0.5, 0.5)],
        [(0.9, 0.1), (0.1, 0.9)],  # Δ = 0 over inputs that differ by ±0.8
        [(0.8, 0.3), (0.6, 0.6), (0.2, 0.4)],  # unequal inputs, Δ = 0.1
    ],
    ids=["equal", "opposite", "mixed"],
)
def test_supermartingale_and_coverage_exact(rates: list[tuple[float, float]]) -> None:
    """With inputs of different means (time-varying means within a round), the e-process at
    the true mean has expectation at most 1 after every round, and the true mean is left out
    at some round end with chance at most α — both computed over every path."""
    level, rounds = 0.8, 4 if len(rates) == 2 else 3
    truth = sum(pa - pb for pa, pb in rates) / len(rates)
    expectation = [0.0] * rounds
    missed = 0.0
    for path, chance in _paths(rates, rounds):
        sequence = RoundSequence(len(rates), level)
        ever = False
        for k, differences in enumerate(path):
            sequence.add_round(differences)
            drift = sequence.weighted - len(rates) * sequence.bets * (truth + 1) / 2
            value = 0.5 * (math.exp(drift - sequence.penalty) + math.exp(-drift - sequence.penalty))
            expectation[k] += chance * value
            low, high = sequence.interval()
            ever = ever or not low <= truth <= high
        missed += chance * ever
    assert all(value <= 1 + 1e-12 for value in expectation), expectation
    assert missed <= 1 - level


def test_bounds_on_later_looks_hold_for_random_futures() -> None:
    rng = random.Random(5)
    for _ in range(200):
        inputs = rng.randint(2, 6)
        sequence = RoundSequence(inputs, 0.9)
        for _ in range(rng.randint(0, 5)):
            sequence.add_round([rng.choice((-1, 0, 1)) for _ in range(inputs)])
        left = rng.randint(1, 6)
        highest, lowest = sequence.highest_low(left), sequence.lowest_high(left)
        for _ in range(5):
            future = RoundSequence(inputs, 0.9)
            future.__dict__.update({k: v for k, v in sequence.__dict__.items() if k != "totals"})
            future.totals = list(sequence.totals)
            for _ in range(left):
                bias = rng.choice((-1, 1))
                future.add_round([rng.choice((bias, bias, 0)) for _ in range(inputs)])
                low, high = future.interval()
                assert low <= highest + 1e-12 and high >= lowest - 1e-12


def test_psi_is_the_fan_function() -> None:
    assert psi(0.5) == pytest.approx((-math.log(0.5) - 0.5) / 4)


# -- the rule ---------------------------------------------------------------------------------
def _rounds(arm: list[list[int]], base: list[list[int]], left: int = 0) -> list[PairedRuns]:
    return [
        PairedRuns(f"i{index}", tuple(a), tuple(b), left, left)
        for index, (a, b) in enumerate(zip(arm, base, strict=True))
    ]


def test_settle_exploratory_and_margins() -> None:
    clear = _rounds([[1] * 12] * 6, [[0] * 12] * 6, left=8)
    look = look_of(clear, 0.95, ANYTIME)
    assert isinstance(look, RoundsLook)
    assert settle(look, None, False, 0.05) == DIFFERENCE
    assert settle(look, 0.05, False, 0.05) == PASS
    assert settle(look, 0.05, True, 0.05) == FAIL  # far outside ±5 points
    worse = _rounds([[0] * 12] * 6, [[1] * 12] * 6, left=8)
    assert settle(look_of(worse, 0.95, ANYTIME), 0.05, False, 0.05) == FAIL
    early = _rounds([[1, 0]] * 3, [[0, 1]] * 3, left=30)
    assert settle(look_of(early, 0.95, ANYTIME), None, False, 0.05) is None
    assert settle(look_of(early, 0.95, ANYTIME), 0.05, False, 0.05) is None


def test_settle_undecided_once_no_look_can_decide() -> None:
    """Equal arms with one round left: neither side of a 2-point margin can be cleared."""
    even = _rounds([[1, 0, 1, 0]] * 4, [[1, 0, 1, 0]] * 4, left=1)
    assert settle(look_of(even, 0.95, ANYTIME), 0.02, False, 0.0) == UNDECIDED
    assert settle(look_of(even, 0.95, ANYTIME), 0.02, True, 0.0) == UNDECIDED
    assert (
        settle(look_of(even, 0.95, ANYTIME), None, False, 0.0) is None
    )  # exploratory: no third way


def test_settle_resolved_when_narrow() -> None:
    many = _rounds([[1, 0] * 400] * 30, [[1, 0] * 400] * 30)
    look = look_of(many, 0.95, ANYTIME)
    low, high = look.interval()
    assert high - low < 0.2
    assert settle(look, None, False, 0.2) == RESOLVED
    assert settle(look, None, False, 0.0) is None


def test_one_input_uses_the_mixture() -> None:
    look = look_of([PairedRuns("x", (1,) * 10, (0,) * 10, 5, 5)], 0.95, ANYTIME)
    assert isinstance(look, MixtureLook) and look.n == 10 and look.left == 5
    assert look.interval() == mixture.difference_sequence(10, 10, 0, 10, 0.95)


@pytest.mark.parametrize("inputs", [1, 4])
def test_p_is_at_most_alpha_whenever_the_interval_leaves_out_zero(inputs: int) -> None:
    rng = random.Random(inputs)
    for _ in range(60):
        rate = rng.uniform(0.3, 0.9)
        n = rng.randint(3, 25)
        arm = [[int(rng.random() < rate) for _ in range(n)] for _ in range(inputs)]
        base = [[int(rng.random() < 0.4) for _ in range(n)] for _ in range(inputs)]
        found = summary(_rounds(arm, base), 0.95, ANYTIME)
        if found["low"] > 0 or found["high"] < 0:
            assert found["p"] <= 0.05
        assert 0 < found["p"] <= 1 and found["e_value"] > 0


# -- e-BH ----------------------------------------------------------------------------------------
def _e_bh_rejects(e_values: list[float], alpha: float) -> set[int]:
    """Wang and Ramdas's e-BH at level α: reject the k* largest e-values, k* the largest k
    with e₍ₖ₎ ≥ m/(α k) (e-values sorted from the largest)."""
    m = len(e_values)
    order = sorted(range(m), key=lambda i: -e_values[i])
    best = 0
    for k in range(1, m + 1):
        if e_values[order[k - 1]] >= m / (alpha * k):
            best = k
    return set(order[:best])


def test_e_bh_adjusted_values_reject_as_e_bh_does() -> None:
    from dataclasses import dataclass, field

    from pytest_probability.extensions.comparisons.registry import TestOutcome
    from pytest_probability.extensions.comparisons.sequential.outcome import E_BH, e_bh

    @dataclass
    class Row:
        outcome: TestOutcome
        adjust: str = "none"
        p_adjusted: float | None = None
        extra: dict = field(default_factory=dict)

    rng = random.Random(2)
    for _ in range(200):
        m = rng.randint(1, 8)
        e_values = [math.exp(rng.uniform(-1, 6)) for _ in range(m)]
        rows = [
            Row(TestOutcome(0.0, None, None, 1.0, "sequence", {"e_value": e})) for e in e_values
        ]
        e_bh(rows)
        assert all(row.adjust == E_BH for row in rows)
        for alpha in (0.01, 0.05, 0.2):
            rejected = {i for i, row in enumerate(rows) if row.p_adjusted <= alpha}
            assert rejected == _e_bh_rejects(e_values, alpha), (e_values, alpha)
