"""Rounding for printing: half up, on the number as written (STATISTICS.md, "Printing").

``0.4125`` is stored as ``0.41249999999999997…``: rounding that prints ``41.2%`` where
people read ``41.3%``. So everything printed is rounded from the float's shortest decimal
representation (``repr``), half up. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def decimal_of(value: float) -> Decimal:
    """The float as written: its shortest round-tripping decimal (``0.4125``, not
    ``0.41249999999999997…``)."""
    return Decimal(repr(float(value)))


def half_up(value: Decimal, places: int) -> Decimal:
    """``value`` rounded half up (away from zero on a tie) to ``places`` decimals."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def percent_of(fraction: float, places: int = 0) -> Decimal:
    """A fraction in percent (or percentage points), half up at ``places`` decimals on its
    decimal value: ``0.4125`` → ``41.3`` at one place, ``0.045`` → ``5``, ``−0.125`` →
    ``−13``."""
    return half_up(decimal_of(fraction) * 100, places)


def ratio_percent(part: int, whole: int, places: int = 0) -> Decimal:
    """``part/whole`` in percent, half up, computed exactly (``1/8`` → ``13``): for shares
    of counts, which have no float to misread."""
    return half_up(Decimal(100 * part) / Decimal(whole), places)
