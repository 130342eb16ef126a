"""Properties of the statistics engine that only show over many outcomes.

1. Exact coverage (no simulation): Clopper–Pearson covers every p with at least the nominal
   probability; Wilson's coverage is near nominal on average over p.
2. The case bootstrap, simulated: its 95% percentile interval covers the population mean.
3. ``binomial_variate`` has the binomial distribution (chi-square goodness of fit).
4. The multinomial counts ``bootstrap_means`` draws sum to n with the right marginal means and distributions.
5. ``bootstrap_means`` is deterministic per seed and distributed like a brute-force bootstrap.

Every random test is seeded, so each outcome is fixed; the tolerances are chosen so that the
seeded outcome would also pass for nearly every other seed (several standard errors).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from pytest_probability.stats.rate_intervals import Interval, clopper_pearson, wilson
from pytest_probability.stats.resampling import (
    _conditional_probabilities,
    _multinomial,
    binomial_variate,
    bootstrap_mean_interval,
    bootstrap_means,
    quantile_type7,
)
from scipy import stats

#: 200 values of p strictly inside (0, 1)
P_GRID = (np.arange(200) + 0.5) / 200


def coverage(method: Callable[[int, int, float], Interval], n: int, level: float) -> np.ndarray:
    """Exact coverage Σₓ P[X = x] · 1[p ∈ CI(x)] at every p of the grid."""
    intervals = [method(x, n, level) for x in range(n + 1)]
    low = np.array([ci.low for ci in intervals])
    high = np.array([ci.high for ci in intervals])
    xs = np.arange(n + 1)
    pmf = stats.binom.pmf(xs[None, :], n, P_GRID[:, None])  # (p, x)
    inside = (low[None, :] <= P_GRID[:, None]) & (P_GRID[:, None] <= high[None, :])
    return (pmf * inside).sum(axis=1)


# ---------------------------------------------------------------------------------------------
# 1. exact coverage


@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize("n", [*range(1, 31), 50, 100, 500])
def test_clopper_pearson_coverage_is_at_least_nominal(n: int, level: float) -> None:
    cover = coverage(clopper_pearson, n, level)
    assert cover.min() >= level - 1e-12, (n, level, P_GRID[cover.argmin()], cover.min())


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_wilson_coverage_is_near_nominal_on_average(level: float) -> None:
    """Wilson is not exact: its coverage dips well below nominal for some p (near 0 and 1,
    down to ~0.84 at 0.95 for n = 10), but averaged over p it is close to nominal — within
    0.02 for n ≥ 10 and within 0.006 for n ≥ 50 (Brown, Cai & DasGupta 2001)."""
    for n in (10, 20, 30, 50, 100, 500):
        mean = coverage(wilson, n, level).mean()
        tolerance = 0.02 if n < 50 else 0.006
        assert abs(mean - level) <= tolerance, (n, level, mean)


# ---------------------------------------------------------------------------------------------
# 2. the case bootstrap, simulated


@pytest.mark.slow
@pytest.mark.parametrize("population", [(4.0, 1.0), (1.0, 1.0)])
def test_case_bootstrap_covers_population_mean(population: tuple[float, float]) -> None:
    """N = 40 cases, k = 10 runs each; per-case true rates from Beta(a, b); 300 repetitions
    of the 95% percentile interval with B = 1000.

    A percentile bootstrap of a mean is only first-order accurate: it is a little too narrow
    (it resamples from the empirical distribution, whose variance is (N−1)/N of the sample
    variance) and ignores skewness, so at N = 40 its coverage is typically ~0.93–0.95 rather
    than 0.95 (about 0.94 for both populations here, measured over 2000 repetitions). With 300
    repetitions the binomial standard error of the estimate is ~0.013, so we require 0.90–0.99.
    """
    a, b = population
    population_mean = a / (a + b)
    rng = random.Random(20240607)
    repetitions = 300
    hits = 0
    for rep in range(repetitions):
        fractions = []
        for _ in range(40):
            rate = rng.betavariate(a, b)
            fractions.append(sum(rng.random() < rate for _ in range(10)) / 10)
        low, high = bootstrap_mean_interval(fractions, resamples=1000, seed=rep, level=0.95)
        hits += low <= population_mean <= high
    assert 0.90 <= hits / repetitions <= 0.99, hits / repetitions


# ---------------------------------------------------------------------------------------------
# 3. the binomial sampler


def chi_square_p_value(draws: Sequence[int], n: int, p: float) -> float:
    """Pearson chi-square against Binomial(n, p), tails pooled until each bin expects ≥ 5."""
    counts = np.bincount(np.asarray(draws), minlength=n + 1).astype(float)
    expected = stats.binom.pmf(np.arange(n + 1), n, p) * len(draws)
    low = int(np.argmax(np.cumsum(expected) >= 5))
    high = n - int(np.argmax(np.cumsum(expected[::-1]) >= 5))
    observed = np.concatenate(
        [[counts[: low + 1].sum()], counts[low + 1 : high], [counts[high:].sum()]]
    )
    wanted = np.concatenate(
        [[expected[: low + 1].sum()], expected[low + 1 : high], [expected[high:].sum()]]
    )
    wanted *= observed.sum() / wanted.sum()
    return float(stats.chisquare(observed, wanted).pvalue)


@pytest.mark.parametrize(
    ("n", "p"),
    [
        (5, 0.3),  # inversion
        (40, 0.1),  # inversion (n·p = 4)
        (20, 0.5),  # BTRS at its threshold n·p = 10
        (100, 0.5),  # BTRS
        (1000, 0.02),  # BTRS (n·p = 20)
        (10_000, 0.7),  # BTRS by symmetry
        (1000, 0.995),  # inversion by symmetry
        (200_000, 0.3),  # BTRS, large n
    ],
)
def test_binomial_variate_has_the_binomial_distribution(n: int, p: float) -> None:
    rng = random.Random(1000 * n + round(1000 * p))
    draws = [binomial_variate(rng, n, p) for _ in range(40_000)]
    assert all(0 <= d <= n for d in draws)
    assert chi_square_p_value(draws, n, p) > 1e-3
    mean = float(np.mean(draws))
    assert abs(mean - n * p) <= 5 * np.sqrt(n * p * (1 - p) / len(draws))


def test_binomial_variate_edges() -> None:
    rng = random.Random(0)
    assert binomial_variate(rng, 0, 0.5) == 0
    assert binomial_variate(rng, 10, 0.0) == 0
    assert binomial_variate(rng, 10, 1.0) == 10
    with pytest.raises(ValueError):
        binomial_variate(rng, -1, 0.5)
    with pytest.raises(ValueError):
        binomial_variate(rng, 5, 1.5)


# ---------------------------------------------------------------------------------------------
# 4. multinomial counts


def multinomial_counts(rng: random.Random, n: int, sizes: Sequence[int]) -> list[int]:
    return _multinomial(rng.random, n, _conditional_probabilities(sizes))


def test_multinomial_counts_sum_and_means() -> None:
    rng = random.Random(99)
    sizes = [3, 0, 120, 7, 50, 1, 19]
    total = sum(sizes)
    n, reps = 1000, 4000
    sums = np.zeros(len(sizes))
    third = []
    for _ in range(reps):
        counts = multinomial_counts(rng, n, sizes)
        assert sum(counts) == n
        assert counts[1] == 0
        sums += counts
        third.append(counts[3])
    for size, got in zip(sizes, sums / reps, strict=True):
        p = size / total
        assert abs(got - n * p) <= 5 * np.sqrt(n * p * (1 - p) / reps) + 1e-12
    # a later category's marginal is Binomial(n, size/total), not just its mean
    assert chi_square_p_value(third, n, sizes[3] / total) > 1e-3


def test_multinomial_counts_edges() -> None:
    rng = random.Random(1)
    assert multinomial_counts(rng, 0, [1, 2]) == [0, 0]
    assert multinomial_counts(rng, 5, [0, 4, 0]) == [0, 5, 0]


# ---------------------------------------------------------------------------------------------
# 5. the bootstrap of a mean


def brute_force_bootstrap(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    """The textbook case bootstrap: N random indices per resample."""
    rng = random.Random(seed)
    n = len(values)
    return [sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples)]


FEW_DISTINCT = [x / 10 for x in (10, 10, 9, 7, 10, 0, 3, 10, 8, 10, 6, 10, 10, 2, 9, 10) * 2]
_RNG = random.Random(4)
MANY_DISTINCT = [round(_RNG.random(), 6) for _ in range(30)]


@pytest.mark.parametrize("values", [FEW_DISTINCT, MANY_DISTINCT], ids=["grouped", "indices"])
def test_bootstrap_means_deterministic_per_seed(values: list[float]) -> None:
    first = bootstrap_means(values, 200, seed=3)
    assert first == bootstrap_means(values, 200, seed=3)
    assert first != bootstrap_means(values, 200, seed=4)
    assert len(first) == 200
    assert bootstrap_mean_interval(values, resamples=300, seed=8, level=0.9) == (
        bootstrap_mean_interval(values, resamples=300, seed=8, level=0.9)
    )


@pytest.mark.slow
@pytest.mark.parametrize("values", [FEW_DISTINCT, MANY_DISTINCT], ids=["grouped", "indices"])
def test_bootstrap_means_match_brute_force_in_distribution(values: list[float]) -> None:
    """Quantiles of 20,000 grouped (multinomial) resample means against 20,000 brute-force
    index-drawing ones. In units of the bootstrap sd σ the Monte Carlo standard error of
    a difference of two such quantiles is at most ~0.03σ (at the 2.5% and 97.5% points), and
    the means lie on a lattice of step ≈ 0.06σ for the grouped values, so we allow 0.15σ;
    the means agree to 0.05σ and the sds to 3%."""
    resamples = 20_000
    mine = np.array(bootstrap_means(values, resamples, seed=12))
    brute = np.array(brute_force_bootstrap(values, resamples, seed=34))
    sd = float(brute.std())
    for q in (0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975):
        assert abs(np.quantile(mine, q) - np.quantile(brute, q)) <= 0.15 * sd, q
    assert abs(mine.mean() - brute.mean()) <= 0.05 * sd
    assert abs(mine.std() / sd - 1) <= 0.03
    # and both agree with the theoretical sd of the bootstrap mean, σ̂ / √N
    theory = float(np.std(values) / np.sqrt(len(values)))
    assert abs(sd / theory - 1) <= 0.03


# ---------------------------------------------------------------------------------------------
# unit tests of the quantile and the interval


@pytest.mark.parametrize("size", [1, 2, 3, 10, 101, 1000])
def test_quantile_type7_matches_numpy(size: int) -> None:
    rng = random.Random(size)
    values = sorted(rng.uniform(-5, 5) for _ in range(size))
    for q in (0.0, 0.001, 0.025, 0.1, 0.25, 0.3333, 0.5, 0.9, 0.975, 0.999, 1.0):
        ref = float(np.quantile(values, q, method="linear"))
        assert quantile_type7(values, q) == pytest.approx(ref, rel=1e-14, abs=1e-14)


def test_quantile_type7_ties_and_errors() -> None:
    assert quantile_type7([2.0, 2.0, 2.0], 0.37) == 2.0
    assert quantile_type7([0.0, 1.0], 0.25) == 0.25
    with pytest.raises(ValueError):
        quantile_type7([], 0.5)
    with pytest.raises(ValueError):
        quantile_type7([1.0], 1.5)


@pytest.mark.parametrize("constant", [0.0, 0.1, 0.7, 1.0, 1 / 3])
def test_bootstrap_interval_of_constant_values(constant: float) -> None:
    assert bootstrap_mean_interval([constant] * 25, resamples=500, seed=0, level=0.95) == (
        constant,
        constant,
    )


def test_bootstrap_interval_contains_the_mean_and_checks_arguments() -> None:
    low, high = bootstrap_mean_interval(FEW_DISTINCT, resamples=2000, seed=0, level=0.95)
    mean = sum(FEW_DISTINCT) / len(FEW_DISTINCT)
    assert 0.0 <= low < mean < high <= 1.0
    with pytest.raises(ValueError):
        bootstrap_mean_interval([], resamples=10, seed=0, level=0.95)
    with pytest.raises(ValueError):
        bootstrap_mean_interval([0.5, 1.0], resamples=10, seed=0, level=1.0)
    with pytest.raises(ValueError):
        bootstrap_means([0.5, 1.0], 0, seed=0)
