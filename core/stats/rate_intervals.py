"""Intervals for a pass rate: Clopper–Pearson, Wilson and Bayes (equal-tailed), for ``passes``
of ``total`` runs at a two-sided ``level``, inside ``[0, 1]`` (``total == 0`` gives
``Interval(0.0, 1.0)``); see STATISTICS.md, "Row intervals". Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .special_functions import beta_ppf, norm_ppf


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[low, high]`` for a rate."""

    low: float
    high: float


def _check(passes: int, total: int, level: float) -> float:
    """Validate the common arguments; return ``α = 1 − level``."""
    for name, value in (("passes", passes), ("total", total)):
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if total < 0:
        raise ValueError(f"total must be >= 0, got {total}")
    if not 0 <= passes <= total:
        raise ValueError(f"passes must be between 0 and total ({total}), got {passes}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    return 1.0 - level


def clopper_pearson(passes: int, total: int, level: float) -> Interval:
    """Exact (Clopper–Pearson) interval: Beta quantiles ``α/2`` of Beta(x, n−x+1) and
    ``1−α/2`` of Beta(x+1, n−x); 0 when ``x = 0``, 1 when ``x = n``.

    7 of 10 at 0.95 → [0.3475, 0.9333]; 10 of 10 → low ``(α/2)^(1/n)`` = 0.6915.
    """
    alpha = _check(passes, total, level)
    if total == 0:
        return Interval(0.0, 1.0)
    x, n = passes, total
    low = 0.0 if x == 0 else beta_ppf(alpha / 2.0, x, n - x + 1)
    high = 1.0 if x == n else beta_ppf(1.0 - alpha / 2.0, x + 1, n - x)
    return Interval(low, high)


def wilson(passes: int, total: int, level: float) -> Interval:
    """Wilson score interval with ``z = Φ⁻¹(1 − α/2)``, clipped to ``[0, 1]``; exactly 0 at
    ``x = 0`` and 1 at ``x = n``.
    """
    alpha = _check(passes, total, level)
    if total == 0:
        return Interval(0.0, 1.0)
    x, n = passes, total
    z = norm_ppf(1.0 - alpha / 2.0)
    z2 = z * z
    center = (x + z2 / 2.0) / (n + z2)
    half = z / (n + z2) * math.sqrt(x * (n - x) / n + z2 / 4.0)
    low = 0.0 if x == 0 else max(0.0, center - half)
    high = 1.0 if x == n else min(1.0, center + half)
    return Interval(low, high)


def bayes(
    passes: int, total: int, level: float, prior: tuple[float, float] = (1.0, 1.0)
) -> Interval:
    """Equal-tailed credible interval of the posterior Beta(a + x, b + n − x) for the prior
    Beta(a, b) (default uniform): its ``α/2`` and ``1 − α/2`` quantiles.
    """
    alpha = _check(passes, total, level)
    try:
        a, b = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise ValueError(f"prior must be a pair of numbers (a, b), got {prior!r}") from None
    if not (a > 0.0 and b > 0.0 and math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"prior parameters must be finite and > 0, got {prior!r}")
    if total == 0:
        return Interval(0.0, 1.0)
    post_a = a + passes
    post_b = b + total - passes
    return Interval(
        beta_ppf(alpha / 2.0, post_a, post_b), beta_ppf(1.0 - alpha / 2.0, post_a, post_b)
    )


#: an interval method's ``compute(passes, total, level, prior) -> (low, high)``
IntervalCompute = Callable[[int, int, float, tuple[float, float]], tuple[float, float]]


class RegisterIntervalMethod(Protocol):
    """The ``register`` callback of ``pytest_prob_register_interval_methods``."""

    def __call__(
        self,
        name: str,
        compute: IntervalCompute,
        *,
        description: str = "",
        uses_prior: bool = False,
        tag: str = "",
    ) -> None: ...
