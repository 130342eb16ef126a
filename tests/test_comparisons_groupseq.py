"""The group-sequential design of ``prob_compare_sequential=horizon`` (issue 36) against its
references: published boundary tables, brute-force enumeration of every path, and exact
dynamic programming through the stopper's own rule."""

from __future__ import annotations

import itertools
import math

import pytest
from pytest_probability.extensions.comparisons.sequential.rule import (
    DIFFERENCE,
    FAIL,
    PASS,
    HorizonLook,
    settle,
)
from pytest_probability.extensions.comparisons.statistics import groupseq

ALPHA = 0.05


@pytest.fixture
def fine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finer lattice, for the published digits."""
    monkeypatch.setattr(groupseq, "RESOLUTION", 16)
    groupseq.spending_boundaries.cache_clear()
    yield
    groupseq.spending_boundaries.cache_clear()


def test_constant_boundaries_match_jennison_and_turnbull(fine: None) -> None:
    """K = 5 equally spaced looks, two-sided α = 0.05: O'Brien–Fleming C = 2.040 (its final
    z), Pocock C = 2.413 (Jennison and Turnbull 2000, Tables 2.1 and 2.3)."""
    assert round(groupseq.constant_boundary(5, ALPHA, groupseq.OBRIEN_FLEMING), 3) == 2.040
    assert round(groupseq.constant_boundary(5, ALPHA, groupseq.POCOCK), 3) == 2.413


def test_spending_boundaries_match_the_published_lan_demets_values(fine: None) -> None:
    """Lan–DeMets spending, K = 5 equally spaced looks, two-sided α = 0.05 (each side α/2):
    O'Brien–Fleming-type 4.877, 3.357, 2.680, 2.290, 2.031; Pocock-type 2.438, 2.427, 2.410,
    2.397, 2.386 (Jennison and Turnbull 2000, §7.2; gsDesign's sfLDOF and sfLDPocock)."""
    fractions = tuple(k / 5 for k in range(1, 6))
    obf = groupseq.spending_boundaries(fractions, ALPHA, groupseq.OBRIEN_FLEMING)
    assert [round(b, 3) for b in obf] == [4.877, 3.357, 2.680, 2.290, 2.031]
    pocock = groupseq.spending_boundaries(fractions, ALPHA, groupseq.POCOCK)
    assert [round(b, 3) for b in pocock] == [2.438, 2.427, 2.410, 2.397, 2.386]


@pytest.mark.parametrize("spending", sorted(groupseq.SPENDING))
def test_the_recursion_spends_what_the_spending_function_says(spending: str) -> None:
    fractions = tuple(k / 10 for k in range(1, 11))
    bounds = groupseq.spending_boundaries(fractions, ALPHA, spending)
    found = groupseq.crossings(fractions, bounds)
    total = 0.0
    for t, (up, low) in zip(fractions, found, strict=True):
        total += up + low
        assert total == pytest.approx(groupseq.SPENDING[spending](t, ALPHA), abs=2e-5)
    assert groupseq.stagewise_p(fractions, bounds, 10, bounds[-1]) == pytest.approx(ALPHA, abs=1e-4)


@pytest.mark.parametrize("spending", [groupseq.QUADRATIC, groupseq.OBRIEN_FLEMING])
def test_the_spending_against_scipy_multivariate_normal(fine: None, spending: str) -> None:
    """The comparisons' spending (α·t², and O'Brien–Fleming-type), five equally spaced
    looks: the first boundary in closed form (``P(|Z₁| ≥ b₁) = α(0.2)``, for α·t² α/25), and
    at every look the chance of no crossing so far, as scipy's multivariate normal rectangle
    probability of the looks' z (correlation ``√(t_i/t_j)``), is ``1 − α(t_k)`` — a
    reference independent of the recursion."""
    stats = pytest.importorskip("scipy.stats")
    np = pytest.importorskip("numpy")
    assert groupseq.DEFAULT_SPENDING == groupseq.QUADRATIC
    spend = groupseq.SPENDING[spending]
    fractions = tuple(k / 5 for k in range(1, 6))
    bounds = groupseq.spending_boundaries(fractions, ALPHA, spending)
    assert bounds[0] == pytest.approx(stats.norm.isf(spend(0.2, ALPHA) / 2), abs=1e-6)
    if spending == groupseq.QUADRATIC:  # (these boundaries, as docs/statistics.rst gives them)
        assert bounds == pytest.approx([3.090, 2.715, 2.473, 2.280, 2.114], abs=1e-3)
    for k in range(1, 6):
        t = np.array(fractions[:k])
        correlation = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
        normal = stats.multivariate_normal(
            mean=np.zeros(k), cov=correlation, abseps=1e-8, releps=1e-8, maxpts=10**7, seed=1
        )
        inside = normal.cdf(np.array(bounds[:k]), lower_limit=-np.array(bounds[:k]))
        assert 1.0 - inside == pytest.approx(spend(fractions[k - 1], ALPHA), abs=5e-5)


def _brute_force(per_look: int, looks: int, bounds: tuple[float, ...], p: float) -> float:
    """The chance of ever crossing, summed over every one of the 4^n paths."""
    n = per_look * looks
    total = 0.0
    for path in itertools.product((0, 1), repeat=2 * n):
        arm, base = path[:n], path[n:]
        chance = math.prod(p if r else 1 - p for r in path)
        for k in range(1, looks + 1):
            m = k * per_look
            if abs(groupseq.score_z(sum(arm[:m]), sum(base[:m]), m)) >= bounds[k - 1] - 1e-12:
                total += chance
                break
    return total


@pytest.mark.parametrize(("per_look", "looks"), [(1, 5), (2, 3), (1, 7)])
def test_exact_boundaries_against_brute_force_enumeration(per_look: int, looks: int) -> None:
    """Small horizons at a loose α (so that the boundaries can be crossed): the dynamic
    programme's attained level equals the brute-force sum over every path at its worst rate,
    and no rate of a finer grid exceeds α."""
    alpha = 0.3
    bounds, level = groupseq.exact_boundaries(per_look, looks, alpha)
    assert level <= alpha
    assert any(b < math.inf for b in bounds)
    worst = max(_brute_force(per_look, looks, bounds, p) for p in groupseq.NUISANCE)
    assert worst == pytest.approx(level, rel=1e-9)
    finer = [_brute_force(per_look, looks, bounds, k / 400) for k in range(1, 201, 7)]
    assert max(finer) <= alpha + 1e-3


def _exact_rule_error(
    runs: int, arm: float, base: float, margin: float | None, equivalence: bool, wrong: set[str]
) -> tuple[float, float]:
    """Exact dynamic programming over both binomial paths of one input, stopping where the
    stopper's rule (:func:`settle` on :class:`HorizonLook`) settles: the chance of a reading
    in ``wrong``, and the expected pairs."""
    level = 1 - ALPHA
    mass = {(0, 0): 1.0}
    bad = pairs = 0.0
    for n in range(1, runs + 1):
        grown: dict[tuple[int, int], float] = {}
        for (xa, xb), m in mass.items():
            for da, pa in ((1, arm), (0, 1 - arm)):
                for db, pb in ((1, base), (0, 1 - base)):
                    key = (xa + da, xb + db)
                    grown[key] = grown.get(key, 0.0) + m * pa * pb
        mass = {}
        for (xa, xb), m in grown.items():
            look = HorizonLook(xa, xb, n, 1, n, runs - n, level)
            found = settle(look, margin, equivalence, 0.0)
            if found is None:
                mass[(xa, xb)] = m
                continue
            pairs += n * m
            if found == DIFFERENCE:
                found += "+" if look.above(0.0) else "-"
            if found in wrong:
                bad += m
    pairs += runs * sum(mass.values())
    return bad, pairs


@pytest.mark.parametrize("runs", [20, 40])
@pytest.mark.parametrize("rate", [0.5, 0.8])
def test_one_input_false_difference_is_exactly_at_most_alpha(runs: int, rate: float) -> None:
    """Equal arms, looked at after every pair through the stopper's rule: the exact chance
    of claiming a difference is at most α, and equals the design's DP at that rate."""
    bad, _ = _exact_rule_error(runs, rate, rate, None, False, {DIFFERENCE + "+", DIFFERENCE + "-"})
    assert bad <= ALPHA
    _, level = groupseq.exact_boundaries(1, runs, ALPHA)
    assert level <= ALPHA and bad <= level + 1e-9
    assert bad >= 0.6 * ALPHA  # (not far below: the exact design spends what discreteness allows)


@pytest.mark.parametrize("equivalence", [False, True], ids=["non-inferiority", "equivalence"])
def test_one_input_wrong_verdict_at_the_margin_boundary_exactly(equivalence: bool) -> None:
    """At the margin's boundary (−10 points against a 10-point non-inferiority margin, +10
    against ±10 points of equivalence) PASS and FAIL are both wrong: exactly at most α."""
    difference = 0.1 if equivalence else -0.1
    for runs in (20, 40):
        bad, _ = _exact_rule_error(runs, 0.6 + difference, 0.6, 0.1, equivalence, {PASS, FAIL})
        assert bad <= ALPHA, (runs, bad)


@pytest.mark.parametrize(("looks", "stop"), [(5, 4), (30, 9), (30, 15), (100, 40)])
def test_the_tilted_recursion_equals_one_recursion_per_drift(looks: int, stop: int) -> None:
    """The median-unbiased estimate reweights one recursion under no drift by the
    likelihood ratio ``exp(θS − θ²t/2)``: at every drift it equals the direct recursion
    under that drift (:func:`stagewise_upper`), and the estimate it bisects for is the drift
    at which the direct recursion's upper tail is ½."""
    _, fractions, bounds, _ = groupseq.design_boundaries(1, looks, ALPHA)
    z = bounds[stop - 1] + 0.05
    tilted = groupseq._tilted_upper(fractions, bounds, stop, z, 25.0)
    for theta in (-4.0, -1.0, 0.0, 0.5, 2.0, 6.0, 12.0):
        direct = groupseq.stagewise_upper(fractions, bounds, stop, z, theta)
        assert tilted(theta) == pytest.approx(direct, rel=1e-9, abs=1e-15)
    estimate = groupseq.median_unbiased(fractions, bounds, stop, z)
    assert groupseq.stagewise_upper(fractions, bounds, stop, z, estimate) == pytest.approx(
        0.5, abs=1e-4
    )
    # the winner's curse: after a stop on the upper side the estimate is below the naive
    # z/√t when an earlier look could have stopped, and equals it when none could
    naive = z / math.sqrt(fractions[stop - 1])
    if any(b < math.inf for b in bounds[: stop - 1]):
        assert estimate < naive - 1e-3
    else:
        assert estimate == pytest.approx(naive, abs=1e-3)
