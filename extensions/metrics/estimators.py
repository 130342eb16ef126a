"""Unbiased per-case estimators of pass^k and pass@k from c passes in n runs.

STATISTICS.md, "pass^k and pass@k": ``pass^k = C(c,k)/C(n,k)`` (all k runs of the input
pass) and ``pass@k = 1 − C(n−c,k)/C(n,k)`` (at least one does), with exact integer
binomials; both are unbiased for independent runs with a common pass probability. Pure
module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from fractions import Fraction
from math import comb


def _check(passes: int, runs: int, k: int) -> None:
    for name, value in (("passes", passes), ("runs", runs), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= passes <= runs:
        raise ValueError(f"passes must be between 0 and runs ({runs}), got {passes}")
    if runs < k:
        raise ValueError(f"needs at least k={k} runs, got {runs}")


def pass_hat_k_exact(passes: int, runs: int, k: int) -> Fraction:
    """``C(c,k)/C(n,k)`` as an exact fraction."""
    _check(passes, runs, k)
    return Fraction(comb(passes, k), comb(runs, k))


def pass_at_k_exact(passes: int, runs: int, k: int) -> Fraction:
    """``1 − C(n−c,k)/C(n,k)`` as an exact fraction."""
    _check(passes, runs, k)
    return 1 - Fraction(comb(runs - passes, k), comb(runs, k))


def pass_hat_k(passes: int, runs: int, k: int) -> float:
    """pass^k of one case (the chance that k runs drawn without replacement all pass)."""
    return float(pass_hat_k_exact(passes, runs, k))


def pass_at_k(passes: int, runs: int, k: int) -> float:
    """pass@k of one case (the chance that at least one of k runs passes)."""
    return float(pass_at_k_exact(passes, runs, k))
