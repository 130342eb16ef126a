"""Registers ``agresti-coull`` with pytest-probability's interval methods."""

from __future__ import annotations

import math

import pytest
from pytest_probability.api import RegisterIntervalMethod, norm_ppf


def agresti_coull(passes: int, total: int, level: float) -> tuple[float, float]:
    """The Agresti–Coull interval for ``passes`` of ``total`` at two-sided ``level``."""
    if total == 0:
        return 0.0, 1.0
    z = norm_ppf(1 - (1 - level) / 2)
    adjusted_total = total + z * z
    centre = (passes + z * z / 2) / adjusted_total
    half = z * math.sqrt(centre * (1 - centre) / adjusted_total)
    return max(0.0, centre - half), min(1.0, centre + half)


def pytest_prob_register_interval_methods(
    register: RegisterIntervalMethod, config: pytest.Config
) -> None:
    """Register the method. Called once per session by pytest-probability (historic hook),
    in every process; returns nothing."""
    register(
        "agresti-coull",
        lambda passes, total, level, prior: agresti_coull(passes, total, level),
        description="Agresti-Coull adjusted Wald interval",
    )
