"""Formatting of fractions and rates. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from decimal import Decimal

from pytest_probability.formatting.rounding import ratio_percent


def whole_percent(passes: int, total: int) -> str:
    """``80/120`` → ``67%``: half-up whole percent computed exactly (no float ties).

    ``0%`` and ``100%`` only for exactly none or all: 199/200 prints ``99%``, 1/201 ``1%``.
    """
    if total == 0:
        return "—"
    value = ratio_percent(passes, total)
    if value == 100 and passes < total:
        value = Decimal(99)
    elif value == 0 and passes > 0:
        value = Decimal(1)
    return f"{value}%"


def fraction(passes: int, total: int) -> str:
    """``7/10``."""
    return f"{passes}/{total}"
