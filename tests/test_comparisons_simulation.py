"""Properties of the comparison statistics that only show over many simulated sessions.

1. The sign-flip test holds its level when the two arms are equally good on every input.
2. The paired bootstrap interval covers the population mean difference near the nominal rate.

Every simulation is seeded, so each outcome is fixed; the tolerances are several standard
errors wide so that the seeded outcome would also pass for nearly every other seed.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from pytest_probability.extensions.comparisons.statistics.signflip import (
    bootstrap_difference,
    sign_flip_test,
)
from pytest_probability.extensions.intervals.sampling import binomial_variate


@pytest.mark.slow
@pytest.mark.parametrize("mixed_runs", [False, True], ids=["k=10", "k=5-10"])
def test_sign_flip_type_one_error_under_equal_arms(mixed_runs: bool) -> None:
    """20 inputs, each with its own true pass rate (spread over 0.05–0.95) shared by both arms,
    10 runs per arm (or 5–10, differing between the arms, which makes the differences
    multiples of 1/2520); 2000 sessions. The test is exact under this null, and
    conservative because of its discreteness, so the rejection rate at α = 0.05 must not
    exceed 0.05 by more than three binomial standard errors (0.0146). It is not
    pathologically conservative either: over several seeds the rate is ~0.035–0.04 with 10
    runs per arm (few distinct differences, so the attainable p-values are coarse) and
    ~0.045 with mixed run counts.
    """
    rng = random.Random(20240611 + mixed_runs)
    rates = [0.05 + 0.9 * i / 19 for i in range(20)]
    sessions = 2000
    alpha = 0.05
    rejections = 0
    for _ in range(sessions):
        differences = []
        for rate in rates:
            n_arm = rng.randint(5, 10) if mixed_runs else 10
            n_base = rng.randint(5, 10) if mixed_runs else 10
            x_arm = binomial_variate(rng, n_arm, rate)
            x_base = binomial_variate(rng, n_base, rate)
            differences.append(Fraction(x_arm, n_arm) - Fraction(x_base, n_base))
        result = sign_flip_test(differences, resamples=2000, seed=0)
        assert result.exact
        rejections += result.p <= alpha
    rate = rejections / sessions
    se = math.sqrt(alpha * (1 - alpha) / sessions)
    assert rate <= alpha + 3 * se, rate
    assert rate >= 0.02, rate


@pytest.mark.slow
def test_sign_flip_monte_carlo_type_one_error() -> None:
    """The Monte Carlo p ``(1 + hits)/(1 + B)`` is a valid p-value too: forced onto that path
    (B = 199), 1000 null sessions of 20 inputs reject at most ~α (measured 0.037)."""
    rng = random.Random(77)
    rates = [0.1 + 0.8 * i / 19 for i in range(20)]
    sessions = 1000
    rejections = 0
    for session in range(sessions):
        differences = [
            Fraction(binomial_variate(rng, 10, rate), 10)
            - Fraction(binomial_variate(rng, 10, rate), 10)
            for rate in rates
        ]
        result = sign_flip_test(differences, resamples=199, seed=session, exact_budget=0)
        rejections += result.p <= 0.05
    assert rejections / sessions <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / sessions)


@pytest.mark.slow
def test_paired_bootstrap_covers_the_mean_difference() -> None:
    """30 inputs drawn from a population: base rate ~ U(0.2, 0.7), arm rate = base rate + δ
    with δ ~ U(−0.1, 0.3) (so the true mean difference is 0.1), 10 runs per arm; 1000
    sessions of the 95% interval with B = 1000. The percentile bootstrap of a mean is only
    first-order accurate and a little narrow at N = 30 (measured 0.937–0.944 over 2000
    sessions for three seeds); with 1000 sessions the standard error is ~0.008, so we
    require 0.90–0.98.
    """
    rng = random.Random(99)
    true_difference = 0.1
    sessions = 1000
    hits = 0
    for session in range(sessions):
        differences = []
        for _ in range(30):
            base = rng.uniform(0.2, 0.7)
            arm = base + rng.uniform(-0.1, 0.3)
            differences.append(
                Fraction(binomial_variate(rng, 10, arm), 10)
                - Fraction(binomial_variate(rng, 10, base), 10)
            )
        low, high = bootstrap_difference(differences, 0.95, 1000, session)
        hits += low <= true_difference <= high
    coverage = hits / sessions
    assert 0.90 <= coverage <= 0.98, coverage
