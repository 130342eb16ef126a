"""One paired input's margin gate: the verdict of a non-inferiority or equivalence margin on
the interval for a difference of two pass rates (Newcombe's, ``newcombe_interval`` of the
public API; its p-value is ``fisher_exact_p``'s). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math

from pytest_probability.api import fisher_exact_p as fisher_two_sided
from pytest_probability.api import newcombe_interval as newcombe_difference

__all__ = ["fisher_two_sided", "margin_verdict", "newcombe_difference"]


def margin_verdict(low: float | None, high: float | None, margin: float, equivalence: bool) -> str:
    """The verdict of a margin gate on the interval ``[low, high]`` for ``p_arm − p_base``
    (``"undecided"`` when either end is missing): non-inferiority passes when ``low > −margin``
    and fails when ``high < −margin``; equivalence passes inside ``(−margin, margin)`` and
    fails wholly beyond either end."""
    if isinstance(margin, bool) or not isinstance(margin, int | float):
        raise ValueError(f"margin must be a number, got {margin!r}")
    if not 0.0 <= margin <= 1.0:
        raise ValueError(f"margin must be in [0, 1], got {margin!r}")
    if low is None or high is None:
        return "undecided"
    if math.isnan(low) or math.isnan(high):
        raise ValueError(f"interval ends must not be NaN, got ({low!r}, {high!r})")
    if low > high:
        raise ValueError(f"interval low must not exceed high, got ({low!r}, {high!r})")
    if -margin < low and (high < margin or not equivalence):
        return "pass"
    return "fail" if high < -margin or (equivalence and low > margin) else "undecided"
