"""The resampling tools of the function-level and Overall intervals, kept here for code that
imports them from this module: they live in the kernel (``pytest_probability.sampling``),
shared with the metric lines and the comparisons, and are published by the public API
(:mod:`pytest_probability.api`: ``binomial_variate``, ``bootstrap_mean_interval``,
``bootstrap_means``, ``case_bootstrap_interval``, ``case_mean``, ``quantile_type7``), where
extensions take them.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from pytest_probability.api import (
    binomial_variate,
    bootstrap_mean_interval,
    bootstrap_means,
    case_bootstrap_interval,
    case_mean,
    quantile_type7,
)

__all__ = [
    "binomial_variate",
    "bootstrap_mean_interval",
    "bootstrap_means",
    "case_bootstrap_interval",
    "case_mean",
    "quantile_type7",
]
