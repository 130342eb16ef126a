"""The statistics engine against reference implementations (STATISTICS.md: "tests compare
against scipy/statsmodels to 1e-9 where those have the same method").

* ``special``: betainc/betaincc, beta_ppf, binomial pmf/cdf/sf, Φ⁻¹ and Φ against scipy, and
  against exact rational arithmetic (``fractions``) where scipy itself is the weaker side;
* ``methods``: Clopper–Pearson, Wilson and Jeffreys against statsmodels' ``proportion_confint``,
  other Beta priors against ``scipy.stats.beta.ppf``, over n = 1…2000 (every n ≤ 60, then a
  spread), x = 0 … n, levels 0.5 … 0.999, and n = 100,000 at the extremes;
* the digits printed in the spec and STATISTICS.md.

Grids are sampled so that the whole file runs in a few seconds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest
from pytest_probability.stats.rate_intervals import (
    Interval,
    bayes,
    clopper_pearson,
    wilson,
)
from pytest_probability.stats.special_functions import (
    beta_ppf,
    betainc,
    betaincc,
    binom_cdf,
    binom_pmf,
    binom_sf,
    log_beta,
    norm_ppf,
)
from scipy import special as sp
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)
SHAPES = (0.5, 1.0, 2.5, 7.0, 10.0, 33.3, 100.0, 1000.0, 12345.0, 100_000.0)
TOL = 1e-9


def close(mine: float, ref: float, tol: float = TOL, floor: float = 1e-6) -> bool:
    """``|mine − ref| ≤ tol · max(min(|ref|, 1), floor)``: relative for small values down to
    ``floor``, absolute (``tol``) for values of order 1 such as interval bounds."""
    return abs(mine - ref) <= tol * max(min(abs(ref), 1.0), floor)


def exact_tolerance(exact: Fraction) -> Fraction:
    """Relative accuracy of a value computed as ``exp(ln v)``: ~``(10 + |ln v|) · 2e-15``."""
    return Fraction(2e-15) * (10 + abs(math.log(exact))) * exact


def shape_pairs() -> Iterator[tuple[float, float]]:
    """Every (a, b) of SHAPES × SHAPES."""
    for a in SHAPES:
        for b in SHAPES:
            yield a, b


def x_points(a: float, b: float) -> list[float]:
    """Fixed points plus points around the mean (in sd units, both tails)."""
    mean = a / (a + b)
    sd = math.sqrt(a * b / (a + b + 1.0)) / (a + b)
    points = {1e-10, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0 - 1e-10}
    for k in (-8.0, -3.0, -1.0, 0.0, 1.0, 3.0, 8.0):
        x = mean + k * sd
        if 0.0 < x < 1.0:
            points.add(x)
    return sorted(points)


# ---------------------------------------------------------------------------------------------
# incomplete beta


def test_betainc_and_complement_match_scipy() -> None:
    worst = 0.0
    for a, b in shape_pairs():
        for x in x_points(a, b):
            for mine, ref in ((betainc(a, b, x), sp.betainc(a, b, x)),
                              (betaincc(a, b, x), sp.betaincc(a, b, x))):  # fmt: skip
                # scipy loses accuracy below ~1e-250 for large a, b; compare above 1e-200
                assert close(mine, ref, floor=1e-200), (a, b, x, mine, ref)
                if ref > 1e-200:
                    worst = max(worst, abs(mine - ref) / ref)
    assert worst < 1e-11


def test_betainc_plus_complement_is_one() -> None:
    rng = random.Random(7)
    for _ in range(500):
        a = math.exp(rng.uniform(math.log(0.1), math.log(1e5)))
        b = math.exp(rng.uniform(math.log(0.1), math.log(1e5)))
        x = rng.random()
        assert betainc(a, b, x) + betaincc(a, b, x) == pytest.approx(1.0, abs=1e-14)


def exact_ibeta(a: int, b: int, x: Fraction) -> Fraction:
    """I_x(a, b) for integer a, b: P[Binomial(a + b − 1, x) ≥ a], in exact arithmetic
    (one integer sum over the common denominator)."""
    n = a + b - 1
    num, den = x.numerator, x.denominator
    rest = den - num
    total = sum(math.comb(n, j) * num**j * rest ** (n - j) for j in range(a, n + 1))
    return Fraction(total, den**n)


@pytest.mark.parametrize("x", [1e-300, 1e-12, 1e-5, 0.013, 0.25, 0.5, 0.61, 0.9, 1 - 2**-40])
def test_betainc_matches_exact_rational_values(x: float) -> None:
    """Relative accuracy ~(10 + |ln I|)·2e-15 against the exact value, in both tails."""
    xf = Fraction(x)
    for a in (1, 2, 3, 7, 20, 41):
        for b in (1, 2, 5, 13, 40):
            lower = exact_ibeta(a, b, xf)
            upper = 1 - lower
            for mine, exact in ((betainc(a, b, x), lower), (betaincc(a, b, x), upper)):
                if exact < Fraction(1, 10**290):
                    continue
                assert abs(Fraction(mine) - exact) <= exact_tolerance(exact), (a, b, x)


@pytest.mark.parametrize(
    ("a", "b", "x"),
    [
        (1.0, 100_000.0, 2.5e-7),
        (1.0, 100_000.0, 1e-4),
        (50_000.0, 50_001.0, 0.4969),
        (50_000.0, 50_001.0, 0.5),
        (50_000.0, 50_001.0, 0.503),
        (99_999.0, 2.0, 0.99995),
        (100_000.0, 1.0, 0.9999997),
        (2.0, 99_999.0, 5e-6),
        (100_000.0, 100_000.0, 0.4955),
        (100_000.0, 100_000.0, 0.5),
        (0.5, 100_000.5, 1e-6),
        (1e5 + 0.5, 0.5, 1 - 1e-6),
    ],
)
def test_betainc_extreme_arguments(a: float, b: float, x: float) -> None:
    assert close(betainc(a, b, x), sp.betainc(a, b, x))
    assert close(betaincc(a, b, x), sp.betaincc(a, b, x))


def test_log_beta_matches_scipy() -> None:
    for a, b in shape_pairs():
        assert close(log_beta(a, b), sp.betaln(a, b)), (a, b)


@pytest.mark.parametrize(
    ("a", "b"), [(1, 1), (1, 7), (3, 4), (9, 12), (10, 10), (2, 40_000), (25, 99_975), (777, 1_500)]
)
def test_log_beta_exact_for_integers(a: int, b: int) -> None:
    """B(a, b) = 1 / ((a + b − 1) · C(a + b − 2, a − 1)); ``math.log`` of the exact integer."""
    exact = -math.log(a + b - 1) - math.log(math.comb(a + b - 2, a - 1))
    assert log_beta(a, b) == pytest.approx(exact, rel=1e-15, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# inverse incomplete beta

QS = (1e-12, 0.0005, 0.025, 0.1, 0.5, 0.9, 0.975, 0.9995, 1 - 1e-12)


def test_beta_ppf_matches_scipy() -> None:
    for a, b in shape_pairs():
        for q in QS:
            mine = beta_ppf(q, a, b)
            ref = stats.beta.ppf(q, a, b)
            assert close(mine, ref), (q, a, b, mine, ref)


def test_beta_ppf_inverts_betainc() -> None:
    """Round trip in the smaller tail, to 1e-11 relative (the limit is the conditioning)."""
    rng = random.Random(11)
    for _ in range(300):
        a = math.exp(rng.uniform(math.log(0.5), math.log(1e5)))
        b = math.exp(rng.uniform(math.log(0.5), math.log(1e5)))
        q = rng.choice([10 ** rng.uniform(-100, -1), rng.random(), 1 - 10 ** rng.uniform(-12, -1)])
        x = beta_ppf(q, a, b)
        if x > 0.5 and 1 - x < 1e-4:
            continue  # 1 − x is too coarse next to 1 for a 1e-11 round trip
        if q <= 0.5:
            assert betainc(a, b, x) == pytest.approx(q, rel=1e-11), (q, a, b)
        else:
            assert betaincc(a, b, x) == pytest.approx(1 - q, rel=1e-11), (q, a, b)


@pytest.mark.parametrize("q", [0.0005, 0.025, 0.5, 0.975, 0.9995])
@pytest.mark.parametrize(
    ("a", "b"), [(1, 100_000), (2, 99_999), (50_000, 50_001), (99_999, 2), (100_000, 1)]
)
def test_beta_ppf_extreme_arguments(q: float, a: int, b: int) -> None:
    assert close(beta_ppf(q, a, b), stats.beta.ppf(q, a, b))


def test_beta_ppf_endpoints() -> None:
    assert beta_ppf(0.0, 3, 4) == 0.0
    assert beta_ppf(1.0, 3, 4) == 1.0
    assert beta_ppf(0.5, 5, 5) == pytest.approx(0.5, rel=1e-15)
    assert beta_ppf(0.5, 1e5, 1e5) == pytest.approx(0.5, rel=1e-15)
    assert beta_ppf(0.3, 1, 1) == pytest.approx(0.3, rel=1e-15)


# ---------------------------------------------------------------------------------------------
# binomial distribution

NS = (0, 1, 2, 3, 5, 10, 17, 30, 60, 100, 1000, 10_000, 100_000)
PS = (0.0, 1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6, 1.0)


def k_points(n: int, p: float) -> list[int]:
    """Every k for small n; else the edges and points around the mean, in sd units."""
    if n <= 60:
        return list(range(-1, n + 2))
    mean = n * p
    sd = math.sqrt(n * p * (1 - p))
    ks = {-1, 0, 1, 2, n - 2, n - 1, n, n + 1}
    for d in (0, 1, 2, 5, 10, 30):
        ks.update((math.floor(mean - d * sd), math.ceil(mean + d * sd)))
    return sorted(k for k in ks if -1 <= k <= n + 1)


def test_binomial_matches_scipy() -> None:
    for n in NS:
        for p in PS:
            for k in k_points(n, p):
                for mine, ref in (
                    (binom_pmf(k, n, p), stats.binom.pmf(k, n, p)),
                    (binom_cdf(k, n, p), stats.binom.cdf(k, n, p)),
                    (binom_sf(k, n, p), stats.binom.sf(k, n, p)),
                ):
                    assert close(mine, ref, floor=1e-250), (k, n, p, mine, ref)


@pytest.mark.parametrize("p", [1e-9, 0.03, 0.5, 0.77, 1 - 2**-30])
def test_binomial_matches_exact_rational_values(p: float) -> None:
    pf = Fraction(p)
    for n in (1, 7, 40):
        terms = [math.comb(n, k) * pf**k * (1 - pf) ** (n - k) for k in range(n + 1)]
        for k in range(n + 1):
            cdf = sum(terms[: k + 1], Fraction(0))
            for mine, exact in (
                (binom_pmf(k, n, p), terms[k]),
                (binom_cdf(k, n, p), cdf),
                (binom_sf(k, n, p), 1 - cdf),
            ):
                if exact > Fraction(1, 10**290):
                    assert abs(Fraction(mine) - exact) <= exact_tolerance(exact), (k, n, p)


def test_binomial_edges() -> None:
    assert binom_pmf(0, 0, 0.3) == 1.0
    assert binom_cdf(-1, 5, 0.3) == 0.0
    assert binom_sf(-1, 5, 0.3) == 1.0
    assert binom_cdf(5, 5, 0.3) == 1.0
    assert binom_sf(5, 5, 0.3) == 0.0
    assert binom_cdf(0, 5, 0.0) == 1.0
    assert binom_sf(0, 5, 0.0) == 0.0
    assert binom_cdf(4, 5, 1.0) == 0.0
    assert binom_pmf(5, 5, 1.0) == 1.0
    assert binom_pmf(6, 5, 0.5) == 0.0
    assert binom_pmf(-1, 5, 0.5) == 0.0


# ---------------------------------------------------------------------------------------------
# normal distribution


@pytest.mark.parametrize(
    "q", [1e-300, 1e-100, 1e-10, 1e-5, 0.001, 0.025, 0.3, 0.5, 0.6, 0.975, 0.999, 1 - 1e-10]
)
def test_norm_ppf_matches_scipy(q: float) -> None:
    mine = norm_ppf(q)
    ref = stats.norm.ppf(q)
    assert mine == pytest.approx(ref, rel=1e-13, abs=1e-300)
    if q == 0.5:
        assert mine == 0.0


def test_norm_ppf_dense_grid() -> None:
    qs = np.random.default_rng(5).random(2000)
    for q in qs:
        assert norm_ppf(float(q)) == pytest.approx(stats.norm.ppf(q), rel=1e-13, abs=1e-15)
    assert norm_ppf(0.0) == -math.inf
    assert norm_ppf(1.0) == math.inf
    assert norm_ppf(0.975) == pytest.approx(1.959963984540054, rel=1e-15)


# ---------------------------------------------------------------------------------------------
# argument checks


@pytest.mark.parametrize(
    "call",
    [
        lambda: betainc(0.0, 1.0, 0.5),
        lambda: betainc(1.0, -1.0, 0.5),
        lambda: betainc(1.0, 1.0, 1.5),
        lambda: betaincc(1.0, 1.0, -0.1),
        lambda: betainc(1.0, 1.0, math.nan),
        lambda: beta_ppf(1.2, 1.0, 1.0),
        lambda: beta_ppf(0.5, 0.0, 1.0),
        lambda: norm_ppf(-0.5),
        lambda: log_beta(-1.0, 2.0),
        lambda: binom_cdf(1, -1, 0.5),
        lambda: binom_pmf(1, 3, 1.5),
        lambda: clopper_pearson(4, 3, 0.95),
        lambda: clopper_pearson(-1, 3, 0.95),
        lambda: wilson(1, 3, 1.0),
        lambda: wilson(1, 3, 0.0),
        lambda: bayes(1, 3, 0.95, prior=(0.0, 1.0)),
        lambda: bayes(1, 3, 0.95, prior=(1.0, -2.0)),
    ],
)
def test_invalid_arguments_raise_value_error(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


# ---------------------------------------------------------------------------------------------
# interval methods against statsmodels


def method_grid() -> list[tuple[int, int, float]]:
    """(x, n, level): every x of every n ≤ 60 (levels cycled), then a spread of n to 2000 with
    x at the edges, the middle and a few seeded random values, at every level."""
    grid = []
    for n in range(1, 61):
        for x in range(n + 1):
            grid.append((x, n, LEVELS[(x + n) % len(LEVELS)]))
    rng = random.Random(3)
    for n in (61, 75, 99, 100, 128, 200, 333, 500, 750, 999, 1000, 1500, 1999, 2000):
        xs = {0, 1, 2, 3, n // 10, n // 3, n // 2, n - 3, n - 2, n - 1, n}
        xs.update(rng.randrange(n + 1) for _ in range(3))
        for x in sorted(xs):
            for level in LEVELS:
                grid.append((x, n, level))
    return grid


GRID = method_grid()


def reference_intervals(method: str) -> dict[tuple[int, int, float], tuple[float, float]]:
    """statsmodels' interval for every point of GRID (one vectorised call per level)."""
    out = {}
    for level in LEVELS:
        rows = [(x, n) for x, n, lv in GRID if lv == level]
        xs = np.array([x for x, _ in rows])
        ns = np.array([n for _, n in rows])
        low, high = proportion_confint(xs, ns, alpha=1 - level, method=method)
        for (x, n), lo, hi in zip(rows, low, high, strict=True):
            out[(x, n, level)] = (float(lo), float(hi))
    return out


@pytest.mark.parametrize(
    ("method", "statsmodels_name"),
    [("exact", "beta"), ("wilson", "wilson"), ("jeffreys", "jeffreys")],
)
def test_intervals_match_statsmodels(method: str, statsmodels_name: str) -> None:
    reference = reference_intervals(statsmodels_name)
    for x, n, level in GRID:
        if method == "exact":
            got = clopper_pearson(x, n, level)
        elif method == "wilson":
            got = wilson(x, n, level)
        else:
            got = bayes(x, n, level, prior=(0.5, 0.5))
        low, high = reference[(x, n, level)]
        assert close(got.low, low), (method, x, n, level, got, low)
        assert close(got.high, high), (method, x, n, level, got, high)
        assert 0.0 <= got.low <= got.high <= 1.0


@pytest.mark.parametrize("prior", [(1.0, 1.0), (2.0, 3.0), (0.5, 10.0), (10.0, 10.0), (10.0, 0.5)])
def test_bayes_other_priors_match_scipy(prior: tuple[float, float]) -> None:
    a, b = prior
    for x, n, level in GRID[::7]:
        got = bayes(x, n, level, prior=prior)
        alpha = 1 - level
        low = stats.beta.ppf(alpha / 2, a + x, b + n - x)
        high = stats.beta.ppf(1 - alpha / 2, a + x, b + n - x)
        assert close(got.low, low), (prior, x, n, level)
        assert close(got.high, high), (prior, x, n, level)


@pytest.mark.parametrize("x", [0, 1, 2, 50_000, 99_998, 99_999, 100_000])
@pytest.mark.parametrize("level", [0.5, 0.95, 0.999])
def test_clopper_pearson_extreme_n(x: int, level: float) -> None:
    n = 100_000
    got = clopper_pearson(x, n, level)
    low, high = proportion_confint(x, n, alpha=1 - level, method="beta")
    assert close(got.low, low)
    assert close(got.high, high)


def test_exact_endpoints_at_zero_and_all() -> None:
    for n in (1, 2, 10, 500):
        for level in LEVELS:
            alpha = 1 - level
            for method in (clopper_pearson, wilson):
                assert method(0, n, level).low == 0.0
                assert method(n, n, level).high == 1.0
            assert clopper_pearson(n, n, level).low == pytest.approx(
                (alpha / 2) ** (1 / n), rel=1e-13
            )
            assert clopper_pearson(0, n, level).high == pytest.approx(
                1 - (alpha / 2) ** (1 / n), rel=1e-12
            )


def test_no_runs_gives_the_whole_unit_interval() -> None:
    assert clopper_pearson(0, 0, 0.95) == Interval(0.0, 1.0)
    assert wilson(0, 0, 0.95) == Interval(0.0, 1.0)
    assert bayes(0, 0, 0.95) == Interval(0.0, 1.0)


# ---------------------------------------------------------------------------------------------
# the spec's digits


def test_spec_digits() -> None:
    seven = clopper_pearson(7, 10, 0.95)
    assert round(seven.low, 4) == 0.3475
    assert round(seven.high, 4) == 0.9333
    assert round(clopper_pearson(10, 10, 0.95).low, 4) == 0.6915
    assert round(clopper_pearson(0, 10, 0.95).high, 4) == 0.3085
    # the spec's rows: 8/10 → [44%, 97%], 37/40 → [80%, 98%], 3/40 → [2%, 20%]
    for (x, n), (low, high) in {(8, 10): (44, 97), (37, 40): (80, 98), (3, 40): (2, 20)}.items():
        got = clopper_pearson(x, n, 0.95)
        assert (round(100 * got.low), round(100 * got.high)) == (low, high)


def test_feasibility_counts_from_statistics_md() -> None:
    """Fewest all-pass runs whose exact 95% interval lies above the bar."""
    for bar, expected in ((0.8, 17), (0.9, 36), (0.95, 72), (0.99, 368)):
        assert clopper_pearson(expected, expected, 0.95).low > bar
        assert not clopper_pearson(expected - 1, expected - 1, 0.95).low > bar
