"""Whether most of a case's runs passed. Pure module: never imports pytest."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_probability.api import MetricCase


def is_majority(passes: int, runs: int) -> bool:
    """More than half of ``runs`` passed (a tie is not a majority)."""
    return 2 * passes > runs


def majority(case: MetricCase, parameter: int | None) -> float:
    """The ``majority`` metric of one case: 1.0 when more than half its judged runs passed,
    else 0.0. Averaged over cases by the ``metrics`` extension, it is the share of cases that
    pass more often than not. ``parameter`` is always ``None`` (a fixed name, not a family)."""
    return 1.0 if is_majority(case.passes, case.runs) else 0.0
