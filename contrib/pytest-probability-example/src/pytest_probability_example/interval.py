"""The Jeffreys interval for a pass rate. Pure module: never imports pytest."""

from __future__ import annotations

from pytest_probability.api import beta_ppf


def jeffreys(passes: int, total: int, level: float) -> tuple[float, float]:
    """The equal-tailed Jeffreys interval for ``passes`` of ``total`` at two-sided ``level``.

    The ``α/2`` and ``1 − α/2`` quantiles of the posterior Beta(passes + ½, total − passes + ½)
    under the Jeffreys prior Beta(½, ½), with the usual endpoint conventions: the lower end is
    0 when nothing passed and the upper end 1 when everything passed (the interval then
    contains the rate that was observed). No runs say nothing: ``(0.0, 1.0)``.
    """
    if total == 0:
        return 0.0, 1.0
    alpha = 1.0 - level
    a = passes + 0.5
    b = total - passes + 0.5
    low = 0.0 if passes == 0 else beta_ppf(alpha / 2.0, a, b)
    high = 1.0 if passes == total else beta_ppf(1.0 - alpha / 2.0, a, b)
    return low, high
