"""Formatting of fractions and rates. Pure module: never imports pytest."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def whole_percent(passes: int, total: int) -> str:
    """``80/120`` → ``67%``: half-up whole percent computed exactly (no float ties)."""
    if total == 0:
        return "—"
    value = (Decimal(100) * passes / Decimal(total)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return f"{value}%"


def fraction(passes: int, total: int) -> str:
    """``7/10``."""
    return f"{passes}/{total}"
