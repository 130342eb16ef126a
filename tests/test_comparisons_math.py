"""The comparisons extension's pure modules: the Newcombe interval, Fisher's exact test, margin
verdicts, the sign-flip test, the paired bootstrap and the p-value adjustments, checked
against scipy / statsmodels and brute force."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from helpers import count_work
from pytest_probability.extensions.comparisons.statistics.adjust import (
    adjust_p,
    benjamini_hochberg,
    bonferroni,
    holm,
)
from pytest_probability.extensions.comparisons.statistics.paired import (
    fisher_two_sided,
    margin_verdict,
    newcombe_difference,
)
from pytest_probability.extensions.comparisons.statistics.signflip import (
    EXACT_BUDGET,
    SignFlipResult,
    bootstrap_difference,
    sign_flip_test,
)
from pytest_probability.extensions.intervals.sampling import bootstrap_mean_interval
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep

# -- the spec's example ----------------------------------------------------------------------


def test_spec_example_one_paired_input() -> None:
    """10/10 against 8/10: +20 pp [−11, +51], p = 0.47."""
    low, high = newcombe_difference(10, 10, 8, 10, 0.95)
    assert low == pytest.approx(-0.112353, abs=1e-6)
    assert high == pytest.approx(0.509838, abs=1e-6)
    assert (round(100 * low), round(100 * high)) == (-11, 51)
    p = fisher_two_sided(10, 10, 8, 10)
    assert p == pytest.approx(9 / 19, abs=1e-15)  # 0.4737
    assert f"{p:.2f}" == "0.47"


# -- Newcombe --------------------------------------------------------------------------------


def newcombe_grid() -> list[tuple[int, int, int, int]]:
    cells = []
    for n_arm, n_base in [(1, 1), (1, 5), (3, 7), (10, 10), (12, 5)]:
        cells += [(x, n_arm, y, n_base) for x in range(n_arm + 1) for y in range(n_base + 1)]
    cells += [(0, 200, 0, 150), (200, 200, 150, 150), (37, 500, 61, 480), (999, 1000, 3, 1000)]
    return cells


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_newcombe_matches_statsmodels(level: float) -> None:
    for x_arm, n_arm, x_base, n_base in newcombe_grid():
        ours = newcombe_difference(x_arm, n_arm, x_base, n_base, level)
        ref = confint_proportions_2indep(
            x_arm, n_arm, x_base, n_base, method="newcomb", compare="diff", alpha=1 - level
        )
        assert ours == pytest.approx(tuple(map(float, ref)), abs=1e-9), (x_arm, n_arm, x_base)
        assert -1.0 <= ours[0] <= x_arm / n_arm - x_base / n_base <= ours[1] <= 1.0


def test_newcombe_extremes_and_levels() -> None:
    assert newcombe_difference(0, 5, 5, 5, 0.95)[0] == pytest.approx(-1.0, abs=1e-12)
    assert newcombe_difference(5, 5, 0, 5, 0.95)[1] == pytest.approx(1.0, abs=1e-12)
    same = newcombe_difference(4, 8, 4, 8, 0.95)
    assert same[0] == pytest.approx(-same[1], abs=1e-12)
    widths = [
        (lambda ci: ci[1] - ci[0])(newcombe_difference(7, 10, 5, 10, lv))
        for lv in (0.9, 0.95, 0.99)
    ]
    assert widths == sorted(widths)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((11, 10, 8, 10, 0.95), "x_arm must be between 0 and n_arm"),
        ((1, 10, -1, 10, 0.95), "x_base must be between 0 and n_base"),
        ((0, 0, 8, 10, 0.95), "n_arm must be >= 1"),
        ((1.5, 10, 8, 10, 0.95), "x_arm must be an integer"),
        ((True, 10, 8, 10, 0.95), "x_arm must be an integer"),
        ((1, 10, 8, 10, 1.0), "level must be strictly between 0 and 1"),
        ((1, 10, 8, 10, 0.0), "level must be strictly between 0 and 1"),
    ],
)
def test_newcombe_rejects_bad_arguments(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        newcombe_difference(*args)


# -- Fisher ----------------------------------------------------------------------------------


def scipy_fisher(x_arm: int, n_arm: int, x_base: int, n_base: int) -> float:
    table = [[x_arm, n_arm - x_arm], [x_base, n_base - x_base]]
    return float(stats.fisher_exact(table, alternative="two-sided").pvalue)


@pytest.mark.parametrize(("n_arm", "n_base"), [(1, 1), (1, 4), (5, 5), (10, 10), (7, 13), (20, 3)])
def test_fisher_matches_scipy_on_every_table(n_arm: int, n_base: int) -> None:
    for x_arm in range(n_arm + 1):
        for x_base in range(n_base + 1):
            ours = fisher_two_sided(x_arm, n_arm, x_base, n_base)
            assert ours == pytest.approx(scipy_fisher(x_arm, n_arm, x_base, n_base), abs=1e-9)
            assert 0.0 < ours <= 1.0


def test_fisher_matches_scipy_on_large_tables() -> None:
    rng = random.Random(5)
    for _ in range(40):
        n_arm, n_base = rng.randint(50, 3000), rng.randint(50, 3000)
        x_arm, x_base = rng.randint(0, n_arm), rng.randint(0, n_base)
        ours = fisher_two_sided(x_arm, n_arm, x_base, n_base)
        ref = scipy_fisher(x_arm, n_arm, x_base, n_base)
        assert ours == pytest.approx(ref, abs=1e-9, rel=1e-9), (x_arm, n_arm, x_base, n_base)


def test_fisher_ties_and_symmetry() -> None:
    # equal margins make the table and its mirror equally likely: both tails count
    assert fisher_two_sided(3, 10, 7, 10) == pytest.approx(scipy_fisher(3, 10, 7, 10), abs=1e-12)
    assert fisher_two_sided(3, 10, 7, 10) == fisher_two_sided(7, 10, 3, 10)
    assert fisher_two_sided(5, 10, 5, 10) == 1.0
    assert fisher_two_sided(0, 10, 0, 7) == 1.0  # no passes at all: one possible table
    assert fisher_two_sided(10, 10, 7, 7) == 1.0
    assert fisher_two_sided(0, 1, 1, 1) == 1.0


def test_fisher_is_fast_for_thousands_of_runs() -> None:
    # work counted, not timed: one ratio step per possible table (4,901 of them) and three
    # binomial coefficients in all, never one C(n, a) per table
    work = count_work(fisher_two_sided, 2600, 5000, 2500, 5000)
    p = work.result
    assert work.calls["comb"] == 3
    assert work.lines <= 5 * 4901 + 100, work.lines
    assert p == pytest.approx(scipy_fisher(2600, 5000, 2500, 5000), rel=1e-9)
    # tiny tails are exact (scipy's floating-point pmf is good to ~1e-14 relative here)
    assert fisher_two_sided(500, 500, 0, 500) == pytest.approx(2 / math.comb(1000, 500), rel=1e-15)
    assert fisher_two_sided(500, 500, 0, 500) == pytest.approx(
        scipy_fisher(500, 500, 0, 500), rel=1e-12
    )
    assert fisher_two_sided(5000, 5000, 0, 5000) == 0.0  # 2/C(10000, 5000) ≈ 1e-3008 underflows


def test_fisher_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="n_base must be >= 1"):
        fisher_two_sided(1, 2, 0, 0)
    with pytest.raises(ValueError, match="x_arm must be between 0 and n_arm"):
        fisher_two_sided(3, 2, 0, 1)


# -- margin verdicts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "equivalence", "verdict"),
    [
        (-0.01, 0.10, False, "pass"),
        (-0.02, 0.10, False, "undecided"),  # low must be strictly above −margin
        (-0.10, -0.03, False, "fail"),
        (-0.10, -0.02, False, "undecided"),
        (-0.05, 0.05, False, "undecided"),
        (-0.01, 0.01, True, "pass"),
        (-0.01, 0.02, True, "undecided"),
        (-0.01, 0.05, True, "undecided"),
        (0.03, 0.05, True, "fail"),
        (-0.05, -0.03, True, "fail"),
        (-0.05, 0.05, True, "undecided"),
        (None, 0.05, False, "undecided"),
        (-0.01, None, True, "undecided"),
        (None, None, False, "undecided"),
    ],
)
def test_margin_verdict(
    low: float | None, high: float | None, equivalence: bool, verdict: str
) -> None:
    assert margin_verdict(low, high, 0.02, equivalence) == verdict


def test_margin_verdict_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"margin must be in \[0, 1\]"):
        margin_verdict(-0.1, 0.1, -0.02, False)
    with pytest.raises(ValueError, match="margin must be a number"):
        margin_verdict(-0.1, 0.1, "0.02", False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="low must not exceed high"):
        margin_verdict(0.2, 0.1, 0.02, True)
    with pytest.raises(ValueError, match="must not be NaN"):
        margin_verdict(math.nan, 0.1, 0.02, True)


# -- sign-flip test --------------------------------------------------------------------------


def brute_force_p(differences: list[Fraction]) -> Fraction:
    nonzero = [d for d in differences if d != 0]
    observed = abs(sum(differences, Fraction(0)))
    hits = sum(
        abs(sum((s * d for s, d in zip(signs, nonzero, strict=True)), Fraction(0))) >= observed
        for signs in itertools.product((1, -1), repeat=len(nonzero))
    )
    return Fraction(hits, 2 ** len(nonzero))


def random_differences(rng: random.Random, m: int, max_den: int = 10) -> list[Fraction]:
    out = []
    for _ in range(m):
        n_arm, n_base = rng.randint(1, max_den), rng.randint(1, max_den)
        out.append(
            Fraction(rng.randint(0, n_arm), n_arm) - Fraction(rng.randint(0, n_base), n_base)
        )
    return out


@pytest.mark.parametrize("m", range(13))
def test_sign_flip_exact_matches_brute_force(m: int) -> None:
    rng = random.Random(1000 + m)
    for _ in range(12 if m > 9 else 40):
        differences = random_differences(rng, m)
        result = sign_flip_test(differences, resamples=100, seed=0)
        assert result.exact and result.resamples is None
        assert result.p == float(brute_force_p(differences)), differences
        assert result.statistic == sum(differences, Fraction(0))
        assert result.nonzero == sum(d != 0 for d in differences)


def test_sign_flip_exact_ties_on_a_lattice() -> None:
    # many equal |d| and exact ties of the observed sum with other patterns
    differences = [Fraction(1, 2)] * 5 + [Fraction(-1, 2)] * 3 + [Fraction(1)] * 2 + [Fraction(-1)]
    result = sign_flip_test(differences, resamples=10, seed=0)
    assert result.p == float(brute_force_p(differences))


@pytest.mark.parametrize(
    ("b", "c"), [(0, 1), (3, 7), (0, 5), (10, 10), (1, 20), (40, 55), (300, 250)]
)
def test_sign_flip_with_one_run_per_arm_is_mcnemar(b: int, c: int) -> None:
    differences = [Fraction(1)] * b + [Fraction(-1)] * c + [Fraction(0)] * 6
    result = sign_flip_test(differences, resamples=10, seed=0)
    assert result.exact
    assert result.nonzero == b + c
    assert result.p == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


@pytest.mark.parametrize("differences", [[], [Fraction(0)] * 7, [Fraction(1, 3), Fraction(-1, 3)]])
def test_sign_flip_no_evidence_gives_one(differences: list[Fraction]) -> None:
    result = sign_flip_test(differences, resamples=10, seed=0)
    assert result == SignFlipResult(1.0, True, None, Fraction(0), sum(d != 0 for d in differences))


def test_sign_flip_single_difference() -> None:
    assert sign_flip_test([Fraction(3, 10)], resamples=10, seed=0).p == 1.0
    assert sign_flip_test([Fraction(3, 10)] * 2, resamples=10, seed=0).p == 0.5


def test_sign_flip_monte_carlo_within_its_error_of_exact() -> None:
    rng = random.Random(7)
    resamples = 4000
    for m in (8, 15, 40, 120):
        differences = random_differences(rng, m)
        # shift a little so that p is neither 1 nor tiny
        differences += [Fraction(1, 5)] * (m // 8)
        exact = sign_flip_test(differences, resamples=resamples, seed=1)
        mc = sign_flip_test(differences, resamples=resamples, seed=1, exact_budget=0)
        assert exact.exact and not mc.exact and mc.resamples == resamples
        se = math.sqrt(max(exact.p * (1 - exact.p), 1e-4) / resamples)
        assert abs(mc.p - exact.p) <= 4 * se + 1 / resamples, (m, exact.p, mc.p)


def test_sign_flip_monte_carlo_with_large_groups() -> None:
    # the binomial-per-value path: few distinct |d|, many copies each
    differences = [Fraction(1, 10)] * 60 + [Fraction(-1, 10)] * 45 + [Fraction(3, 10)] * 30
    differences += [Fraction(-3, 10)] * 25 + [Fraction(7, 10)] * 3
    exact = sign_flip_test(differences, resamples=4000, seed=3)
    mc = sign_flip_test(differences, resamples=4000, seed=3, exact_budget=0)
    se = math.sqrt(exact.p * (1 - exact.p) / 4000)
    assert abs(mc.p - exact.p) <= 4 * se, (exact.p, mc.p)


def test_sign_flip_monte_carlo_is_deterministic_and_order_free() -> None:
    differences = random_differences(random.Random(11), 60)
    first = sign_flip_test(differences, resamples=500, seed=42, exact_budget=0)
    again = sign_flip_test(list(reversed(differences)), resamples=500, seed=42, exact_budget=0)
    other = sign_flip_test(differences, resamples=500, seed=43, exact_budget=0)
    assert first == again
    assert first.p != other.p or first.p == 1.0
    assert 1 / 501 <= first.p <= 1.0


def test_sign_flip_500_inputs_stay_exact_and_fast() -> None:
    rng = random.Random(3)
    differences = []
    for _ in range(500):
        rate = rng.random()
        x_arm = sum(rng.random() < min(1.0, rate + 0.03) for _ in range(10))
        x_base = sum(rng.random() < rate for _ in range(10))
        differences.append(Fraction(x_arm, 10) - Fraction(x_base, 10))
    work = count_work(sign_flip_test, differences, resamples=5000, seed=0)
    result = work.result
    assert result.exact
    # the dynamic programme is a few big-integer operations per input, not per flip pattern
    assert work.lines <= 60 * len(differences), work.lines
    # the worst case for 10 runs per arm: every difference ±1 — still within the budget
    worst = [Fraction(1)] * 260 + [Fraction(-1)] * 240
    assert EXACT_BUDGET >= 500 * (2500 + 1) * 501
    assert sign_flip_test(worst, resamples=10, seed=0).p == pytest.approx(
        stats.binomtest(260, 500, 0.5).pvalue, rel=1e-12
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"differences": [0.5]}, "differences must be Fractions"),
        ({"differences": [True]}, "differences must be Fractions"),
        ({"differences": [Fraction(1, 2)], "resamples": 0}, "resamples must be an integer >= 1"),
        ({"differences": [Fraction(1, 2)], "resamples": 2.5}, "resamples must be an integer >= 1"),
        ({"differences": [Fraction(1, 2)], "seed": "x"}, "seed must be an integer"),
        ({"differences": [Fraction(1, 2)], "exact_budget": 1.0}, "exact_budget must be an integer"),
    ],
)
def test_sign_flip_rejects_bad_arguments(kwargs: dict, message: str) -> None:
    arguments = {"resamples": 10, "seed": 0, **kwargs}
    differences = arguments.pop("differences")
    with pytest.raises(ValueError, match=message):
        sign_flip_test(differences, **arguments)


# -- paired bootstrap ------------------------------------------------------------------------


def test_bootstrap_difference_is_the_case_bootstrap_of_the_differences() -> None:
    differences = random_differences(random.Random(2), 40)
    ours = bootstrap_difference(differences, 0.95, 2000, 9)
    ref = bootstrap_mean_interval(
        [float(d) for d in differences], resamples=2000, seed=9, level=0.95
    )
    assert ours == ref
    assert ours == bootstrap_difference(differences, 0.95, 2000, 9)
    assert ours != bootstrap_difference(differences, 0.95, 2000, 10)
    mean = float(sum(differences, Fraction(0)) / len(differences))
    assert ours[0] <= mean <= ours[1]
    narrower = bootstrap_difference(differences, 0.9, 2000, 9)
    wider = bootstrap_difference(differences, 0.99, 2000, 9)
    assert wider[0] <= ours[0] <= narrower[0] <= narrower[1] <= ours[1] <= wider[1]


def test_bootstrap_difference_edge_cases() -> None:
    assert bootstrap_difference([Fraction(1, 5)] * 12, 0.95, 100, 0) == (0.2, 0.2)
    assert bootstrap_difference([Fraction(-1, 2)], 0.95, 100, 0) == (-0.5, -0.5)
    assert bootstrap_difference([0.25, -0.25], 0.95, 100, 0)[0] >= -0.25
    with pytest.raises(ValueError, match="at least one difference"):
        bootstrap_difference([], 0.95, 100, 0)
    with pytest.raises(ValueError, match="level must be strictly between 0 and 1"):
        bootstrap_difference([Fraction(1, 2)], 1.5, 100, 0)
    with pytest.raises(ValueError, match="resamples must be an integer >= 1"):
        bootstrap_difference([Fraction(1, 2)], 0.95, 0, 0)
    with pytest.raises(ValueError, match="differences must be finite"):
        bootstrap_difference([math.inf], 0.95, 10, 0)
    with pytest.raises(ValueError, match="differences must be numbers"):
        bootstrap_difference(["0.1"], 0.95, 10, 0)  # type: ignore[list-item]


# -- adjustments -----------------------------------------------------------------------------

STATSMODELS = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh"}


def random_p_values(rng: random.Random, m: int) -> list[float]:
    pool = [rng.random() ** 3 for _ in range(max(1, m // 2))] + [0.0, 1.0, 0.05]
    # draws from a small pool give ties
    return [rng.choice(pool) if rng.random() < 0.4 else rng.random() ** 2 for _ in range(m)]


@pytest.mark.parametrize(("method", "seed"), [("bonferroni", 1), ("holm", 2), ("bh", 3)])
def test_adjustments_match_statsmodels(method: str, seed: int) -> None:
    rng = random.Random(seed)
    for m in [1, 2, 3, 5, 10, 17, 50, 200]:
        for _ in range(5):  # statsmodels' Holm takes ~45 ms a call, whatever m
            ps = random_p_values(rng, m)
            ours = adjust_p(ps, method)
            ref = multipletests(ps, method=STATSMODELS[method])[1]
            assert ours == pytest.approx(list(ref), abs=1e-12), ps
            assert all(p <= q <= 1.0 for p, q in zip(ps, ours, strict=True))


def test_adjustment_functions_and_orders() -> None:
    ps = [0.04, 0.01, 0.03, 0.01, 0.5]
    assert bonferroni(ps) == pytest.approx([0.2, 0.05, 0.15, 0.05, 1.0])
    assert holm(ps) == pytest.approx([0.09, 0.05, 0.09, 0.05, 0.5])
    assert benjamini_hochberg(ps) == pytest.approx([0.05, 0.025, 0.05, 0.025, 0.5])
    assert adjust_p(ps, "none") == ps
    for method in ("none", "bonferroni", "holm", "bh"):
        assert adjust_p([], method) == []
        assert adjust_p([0.3], method) == [0.3]
    # Bonferroni ≥ Holm ≥ BH, all ≥ the raw p
    rng = random.Random(0)
    ps = [rng.random() ** 4 for _ in range(30)]
    for raw, b, h, f in zip(ps, bonferroni(ps), holm(ps), benjamini_hochberg(ps), strict=True):
        assert b >= h >= f >= raw


def test_adjustments_reject_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown adjustment method 'sidak'"):
        adjust_p([0.1], "sidak")
    with pytest.raises(ValueError, match=r"p-values must be in \[0, 1\]"):
        holm([0.1, 1.2])
    with pytest.raises(ValueError, match=r"p-values must be in \[0, 1\]"):
        benjamini_hochberg([math.nan])
    with pytest.raises(ValueError, match="p-values must be numbers"):
        bonferroni(["0.1"])  # type: ignore[list-item]
