"""The latency extension's pure modules: quantile ranks, coverage, verdicts and printing."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from helpers import count_work
from pytest_probability.extensions.latency.quantiles import (
    TAIL_TOLERANCE,
    LatencyQuantile,
    coverage,
    estimate_rank,
    interval_ranks,
    latency_quantile,
    latency_verdict,
    min_runs_for_lower,
    min_runs_for_upper,
)
from pytest_probability.formatting.durations import duration, limit, quantile_label
from scipy import stats

# -- reference implementations ---------------------------------------------------------------


def reference_ranks(n: int, q: float, level: float) -> tuple[int | None, int | None]:
    """Brute force over every rank with scipy's binomial tails (same documented tolerance)."""
    half_alpha = float((1 - Fraction(repr(level))) / 2) * (1 + TAIL_TOLERANCE)
    k = np.arange(n + 1)
    at_most = stats.binom.cdf(k, n, q)  # P(B <= k)
    at_least = stats.binom.sf(k - 1, n, q)  # P(B >= k)
    lows = [r for r in range(1, n + 1) if at_most[r - 1] <= half_alpha]
    highs = [s for s in range(1, n + 1) if at_least[s] <= half_alpha]
    return (max(lows) if lows else None, min(highs) if highs else None)


def exact_pmf(n: int, q: Fraction) -> list[Fraction]:
    return [math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)]


def exact_ranks(n: int, q: float, level: float) -> tuple[int | None, int | None]:
    """The ranks in exact rational arithmetic (no tolerance at all)."""
    qq = Fraction(repr(q))
    half_alpha = (1 - Fraction(repr(level))) / 2
    pmf = exact_pmf(n, qq)
    lows = [r for r in range(1, n + 1) if sum(pmf[:r]) <= half_alpha]
    highs = [s for s in range(1, n + 1) if sum(pmf[s:]) <= half_alpha]
    return (max(lows) if lows else None, min(highs) if highs else None)


def reference_coverage(n: int, q: float, r: int | None, s: int | None) -> float:
    first = 0 if r is None else r
    last = n if s is None else s - 1
    return math.fsum(stats.binom.pmf(k, n, q) for k in range(first, last + 1))


# -- minimum runs ----------------------------------------------------------------------------


@pytest.mark.parametrize(("q", "runs"), [(0.5, 6), (0.9, 36), (0.95, 72), (0.99, 368)])
def test_minimum_runs_for_an_upper_end(q: float, runs: int) -> None:
    assert min_runs_for_upper(q, 0.95) == runs
    assert interval_ranks(runs, q, 0.95)[1] is not None
    assert interval_ranks(runs - 1, q, 0.95)[1] is None
    # the documented figures: q^n <= 2.5% first at n = runs
    assert q**runs <= 0.025 < q ** (runs - 1)


@pytest.mark.parametrize(("q", "runs"), [(0.5, 6), (0.9, 2), (0.95, 2), (0.99, 1), (0.1, 36)])
def test_minimum_runs_for_a_lower_end(q: float, runs: int) -> None:
    assert min_runs_for_lower(q, 0.95) == runs
    assert interval_ranks(runs, q, 0.95)[0] is not None
    if runs > 1:
        assert interval_ranks(runs - 1, q, 0.95)[0] is None


@pytest.mark.parametrize("q", [0.05, 0.3, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_minimum_runs_agree_with_the_ranks(q: float, level: float) -> None:
    upper = min_runs_for_upper(q, level)
    lower = min_runs_for_lower(q, level)
    assert interval_ranks(upper, q, level)[1] is not None
    assert upper == 1 or interval_ranks(upper - 1, q, level)[1] is None
    assert interval_ranks(lower, q, level)[0] is not None
    assert lower == 1 or interval_ranks(lower - 1, q, level)[0] is None


def test_exact_ties_count_as_at_most_alpha_half() -> None:
    # 0.5^3 = 0.125 = (1 - 0.75)/2 exactly: both ends first exist at n = 3
    assert min_runs_for_upper(0.5, 0.75) == 3
    assert min_runs_for_lower(0.5, 0.75) == 3
    assert interval_ranks(3, 0.5, 0.75) == (1, 3) == exact_ranks(3, 0.5, 0.75)
    assert interval_ranks(2, 0.5, 0.75) == (None, None)
    # the binomial tails carry rounding (0.5^3 comes out as 0.12500000000000008): ties at
    # 1/16 (level 0.875), 1/4 (0.5) and 1/32 (0.9375) too, checked in exact arithmetic
    assert min_runs_for_upper(0.5, 0.875) == 4
    for n in range(1, 30):
        for level in (0.75, 0.875, 0.5, 0.9375):
            assert interval_ranks(n, 0.5, level) == exact_ranks(n, 0.5, level), (n, level)


# -- ranks against brute force ---------------------------------------------------------------

QUANTILES = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]
LEVELS = [0.8, 0.9, 0.95, 0.99]


@pytest.mark.parametrize("q", QUANTILES)
def test_ranks_against_brute_force(q: float) -> None:
    for level in LEVELS:
        for n in [*range(1, 121), *range(121, 401, 7), 400]:
            assert interval_ranks(n, q, level) == reference_ranks(n, q, level), (n, q, level)


@pytest.mark.parametrize("q", [0.2, 0.5, 0.9, 0.95])
def test_ranks_in_exact_arithmetic(q: float) -> None:
    for level in (0.9, 0.95):
        for n in range(0, 61):
            assert interval_ranks(n, q, level) == exact_ranks(n, q, level), (n, q, level)


def test_ranks_for_large_n_against_brute_force() -> None:
    for n, q, level in [(5000, 0.95, 0.95), (20000, 0.99, 0.9), (100000, 0.5, 0.99)]:
        assert interval_ranks(n, q, level) == reference_ranks(n, q, level)


def test_ranks_have_the_documented_shape() -> None:
    assert interval_ranks(0, 0.95, 0.95) == (None, None)
    low, high = interval_ranks(100, 0.95, 0.95)
    assert (estimate_rank(100, 0.95), low, high) == (95, 90, 100)
    assert interval_ranks(71, 0.95, 0.95) == (63, None)
    assert interval_ranks(72, 0.95, 0.95) == (64, 72)
    for n in range(1, 300):
        r, s = interval_ranks(n, 0.9, 0.95)
        if r is not None and s is not None:
            assert r < s
            assert r <= estimate_rank(n, 0.9) <= s


@pytest.mark.parametrize(
    "call",
    [
        lambda: interval_ranks(-1, 0.5, 0.95),
        lambda: interval_ranks(10, 0.0, 0.95),
        lambda: interval_ranks(10, 1.0, 0.95),
        lambda: interval_ranks(10, 0.5, 1.0),
        lambda: interval_ranks(10, 0.5, 0.0),
        lambda: interval_ranks(True, 0.5, 0.95),
        lambda: estimate_rank(2.5, 0.5),
        lambda: coverage(10, 0.5, 0, 5),
        lambda: coverage(10, 0.5, 3, 11),
        lambda: coverage(10, 0.5, 6, 5),
        lambda: latency_quantile([1.0, float("nan")], 0.5, 0.95),
    ],
)
def test_bad_arguments_are_refused(call: object) -> None:
    with pytest.raises(ValueError):
        call()  # type: ignore[operator]


# -- coverage --------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9, 0.95, 0.99])
def test_coverage_against_brute_force(q: float) -> None:
    for level in (0.8, 0.95, 0.99):
        for n in [*range(1, 80), *range(80, 401, 11)]:
            r, s = interval_ranks(n, q, level)
            value = coverage(n, q, r, s)
            assert value == pytest.approx(reference_coverage(n, q, r, s), abs=1e-12)
            if r is not None and s is not None:
                assert value >= level - 1e-12
            elif r is None and s is None:
                assert value == 1.0


def test_coverage_of_one_sided_and_degenerate_intervals() -> None:
    n, q = 50, 0.9
    assert coverage(n, q, 40, None) == pytest.approx(stats.binom.sf(39, n, q), abs=1e-15)
    assert coverage(n, q, None, 48) == pytest.approx(stats.binom.cdf(47, n, q), abs=1e-15)
    assert coverage(n, q, None, None) == 1.0
    assert coverage(n, q, 30, 30) == 0.0
    # each end alone misses with at most α/2
    r, s = interval_ranks(n, q, 0.95)
    assert coverage(n, q, r, None) >= 0.975 - 1e-12
    assert coverage(n, q, None, s) >= 0.975 - 1e-12


def test_coverage_in_exact_arithmetic() -> None:
    n, q = 100, 0.95
    pmf = exact_pmf(n, Fraction(95, 100))
    assert coverage(n, q, 90, 100) == pytest.approx(float(sum(pmf[90:100])), abs=1e-15)


# -- the estimate rank -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "q", "rank"),
    [
        (100, 0.95, 95),
        (20, 0.95, 19),
        (21, 0.95, 20),
        (10, 0.5, 5),
        (11, 0.5, 6),
        (1, 0.99, 1),
        (100, 0.07, 7),  # 100 * 0.07 == 7.000000000000001 in floating point
        (1000, 0.999, 999),
        (100, 0.29, 29),  # 100 * 0.29 == 28.999999999999996
        (3, 0.1, 1),
        (0, 0.5, 0),
    ],
)
def test_estimate_rank(n: int, q: float, rank: int) -> None:
    assert estimate_rank(n, q) == rank


# -- latency_quantile and the verdict --------------------------------------------------------


def spec_search_times() -> list[float]:
    """100 times whose 90th, 95th and 100th smallest are the spec's 600ms, 769ms, 933ms."""
    times = [0.1 + 0.005 * i for i in range(89)]  # below 600ms
    times += [0.6, 0.62, 0.65, 0.7, 0.72, 0.769, 0.8, 0.85, 0.9, 0.91, 0.933]
    random.Random(1).shuffle(times)
    return times


def test_latency_quantile_of_the_spec_example() -> None:
    result = latency_quantile(spec_search_times(), 0.95, 0.95)
    assert (result.n, result.rank, result.low_rank, result.high_rank) == (100, 95, 90, 100)
    assert (result.estimate, result.low, result.high) == (0.769, 0.6, 0.933)
    assert result.coverage == pytest.approx(0.9826070607121812, abs=1e-12)
    assert latency_verdict(result, 2.0) == "pass"
    shown = [quantile_label(result.q), duration(result.estimate)]
    shown += [duration(result.low), duration(result.high), limit(2.0)]
    assert shown == ["p95", "769ms", "600ms", "933ms", "2s"]
    assert result.to_json() == {
        "quantile": 0.95,
        "level": 0.95,
        "n": 100,
        "estimate": 0.769,
        "low": 0.6,
        "high": 0.933,
        "rank": 95,
        "low_rank": 90,
        "high_rank": 100,
        "coverage": result.coverage,
    }


def test_latency_quantile_with_too_few_runs_has_an_open_end() -> None:
    times = [0.01 * (i + 1) for i in range(71)]
    result = latency_quantile(times, 0.95, 0.95)
    assert result.high is None and result.high_rank is None
    assert result.low == times[62] and result.estimate == times[67]
    assert latency_verdict(result, 100.0) == "undecided"  # can't pass without an upper end
    assert latency_verdict(result, 0.001) == "fail"
    assert [duration(result.low), duration(result.high)] == ["630ms", "—"]


def test_latency_quantile_of_no_runs() -> None:
    result = latency_quantile([], 0.95, 0.95)
    assert result.to_json() == {
        "quantile": 0.95,
        "level": 0.95,
        "n": 0,
        "estimate": None,
        "low": None,
        "high": None,
        "rank": None,
        "low_rank": None,
        "high_rank": None,
        "coverage": 1.0,
    }
    assert latency_verdict(result, 2.0) == "undecided"


def make(low: float | None, high: float | None) -> LatencyQuantile:
    return LatencyQuantile(0.95, 0.95, 100, 1.0, low, high, 95, 90, 100, 0.98)


@pytest.mark.parametrize(
    ("low", "high", "limit_", "verdict"),
    [
        (0.6, 0.933, 2.0, "pass"),  # api::search
        (1.71, 4.84, 2.0, "undecided"),  # api::summarize
        (2.60, 3.25, 2.0, "fail"),  # api::translate
        (0.6, 2.0, 2.0, "undecided"),  # the upper end must be strictly below
        (2.0, 3.0, 2.0, "undecided"),  # the lower end must be strictly above
        (0.6, None, 2.0, "undecided"),  # no upper end: can't pass
        (2.6, None, 2.0, "fail"),
        (None, 0.9, 2.0, "pass"),
        (None, 3.0, 2.0, "undecided"),
        (None, None, 2.0, "undecided"),
    ],
)
def test_latency_verdict(
    low: float | None, high: float | None, limit_: float, verdict: str
) -> None:
    assert latency_verdict(make(low, high), limit_) == verdict


def test_large_samples_are_fast() -> None:
    rng = random.Random(7)
    times = [rng.expovariate(1.0) for _ in range(100_000)]
    work = count_work(latency_quantile, times, 0.99, 0.95)
    result = work.result
    # one check per time and one sort; the rank search bisects (a few hundred logarithms for
    # 100,000 runs), it does not walk the binomial distribution term by term
    assert work.lines <= 6 * len(times) + 2000, work.lines
    assert work.calls["log"] <= 400, work.calls["log"]
    assert result.rank == 99_000
    assert (result.low_rank, result.high_rank) == reference_ranks(100_000, 0.99, 0.95)
    assert result.low <= result.estimate <= result.high  # type: ignore[operator]


# -- simulation ------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "q"), [(20, 0.5), (72, 0.95), (100, 0.95), (400, 0.99)])
def test_interval_covers_the_exponential_quantile(n: int, q: float) -> None:
    level, reps = 0.95, 4000
    truth = -math.log1p(-q)  # the q-quantile of Exponential(1)
    r, s = interval_ranks(n, q, level)
    assert r is not None and s is not None
    rng = random.Random(20260707 + n)
    covered = 0
    for rep in range(reps):
        times = [rng.expovariate(1.0) for _ in range(n)]
        if rep < 20:  # the full function on a few samples: same ranks, same ends
            result = latency_quantile(times, q, level)
            ordered = sorted(times)
            assert (result.low, result.high) == (ordered[r - 1], ordered[s - 1])
            covered += result.low <= truth <= result.high  # type: ignore[operator]
        else:
            ordered = sorted(times)
            covered += ordered[r - 1] <= truth <= ordered[s - 1]
    exact = coverage(n, q, r, s)
    assert exact >= level
    # at least the nominal frequency: not significantly below the level (one-sided, 0.1%) ...
    assert stats.binom.cdf(covered, reps, level) > 0.001
    # ... and in line with the exact coverage
    assert abs(covered / reps - exact) < 4 * math.sqrt(exact * (1 - exact) / reps)


# -- printing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        # the spec's latency table
        (0.769, "769ms"),
        (0.6, "600ms"),
        (0.933, "933ms"),
        (2.0, "2.00s"),
        (1.71, "1.71s"),
        (4.84, "4.84s"),
        (3.0, "3.00s"),
        (2.6, "2.60s"),
        (3.25, "3.25s"),
        # units, rounding and carries
        (0.0123, "12.3ms"),
        (0.00095, "950µs"),
        (12.345, "12.3s"),  # half-up on the decimal value as written
        (0.01225, "12.3ms"),
        (0.0125, "12.5ms"),
        (123.4, "123s"),
        (2, "2.00s"),
        (0.99951, "1.00s"),  # rounding carries into the next unit, never "1000ms"
        (0.9994, "999ms"),
        (0.0009996, "1.00ms"),
        (9.996, "10.0s"),
        (99.96, "100s"),
        (1234.5, "1235s"),
        (0.000123, "123µs"),
        (0.0000005, "0.500µs"),
        (0, "0s"),
        (None, "\u2014"),
    ],
)
def test_duration(seconds: float | None, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), True])
def test_duration_refuses_non_durations(bad: float) -> None:
    with pytest.raises(ValueError):
        duration(bad)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (2.0, "2s"),
        (2, "2s"),
        (1.5, "1.5s"),
        (0.5, "500ms"),
        (0.25, "250ms"),
        (0.0005, "500µs"),
        (0.0015, "1.5ms"),
        (0.1234, "123.4ms"),
        (1500, "1500s"),
        (0.0000005, "0.5µs"),
        (0, "0s"),
    ],
)
def test_limit(seconds: float, text: str) -> None:
    assert limit(seconds) == text


@pytest.mark.parametrize(
    ("q", "text"),
    [(0.95, "p95"), (0.5, "p50"), (0.99, "p99"), (0.999, "p99.9"), (0.9, "p90"), (0.05, "p5")],
)
def test_quantile_label(q: float, text: str) -> None:
    assert quantile_label(q) == text


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -0.1])
def test_quantile_label_refuses_non_quantiles(bad: float) -> None:
    with pytest.raises(ValueError):
        quantile_label(bad)
