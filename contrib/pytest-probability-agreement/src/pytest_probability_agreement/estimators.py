"""Unbiased per-case estimators of run-to-run agreement from c passes in n judged runs.

Drawing ``k`` of the ``n`` runs without replacement, the chance that they all have the same
outcome is ``(C(c,k) + C(n−c,k)) / C(n,k)``: all ``k`` pass, or all ``k`` do not. For
independent runs with a common pass probability ``p`` it is an unbiased estimate of
``p^k + (1−p)^k`` (each term is the unbiased pass^k estimator, of passes and of non-passes).
``k = 2`` is ``agreement``. Pure module: never imports pytest.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

#: The fewest runs that can agree or disagree: one run always agrees with itself.
MIN_K = 2


def _check(passes: int, runs: int, k: int) -> None:
    for name, value in (("passes", passes), ("runs", runs), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be a whole number, got {value!r}")
    if k < MIN_K:
        raise ValueError(f"k must be at least {MIN_K}, got {k}")
    if not 0 <= passes <= runs:
        raise ValueError(f"passes must be between 0 and runs ({runs}), got {passes}")
    if runs < k:
        raise ValueError(f"needs at least k={k} runs, got {runs}")


def agreement_exact(passes: int, runs: int, k: int = 2) -> Fraction:
    """``(C(c,k) + C(n−c,k)) / C(n,k)`` as an exact fraction (``k ≥ 2``, ``n ≥ k``)."""
    _check(passes, runs, k)
    return Fraction(comb(passes, k) + comb(runs - passes, k), comb(runs, k))


def agreement(passes: int, runs: int, k: int = 2) -> float:
    """The chance that ``k`` runs drawn without replacement all have the same outcome."""
    return float(agreement_exact(passes, runs, k))
