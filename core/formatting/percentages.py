"""Printing rules for rates and intervals (STATISTICS.md, "Printing"): half up on the
decimal value (:mod:`pytest_probability.formatting.rounding`). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from pytest_probability.formatting.rounding import percent_of

MINUS = "\u2212"


def _rounded_percent(fraction: float, places: int) -> Decimal:
    """``fraction`` in percent, half-up at ``places`` decimals on its decimal value
    (``0.4125`` → ``41.3``); only exact 0/1 print 0/100."""
    step = Decimal(1).scaleb(-places)
    value = percent_of(fraction, places)
    if value >= 100 and fraction < 1:
        value = Decimal(100) - step
    elif value <= 0 and fraction > 0:
        value = step
    elif value == 0:  # a negative change that rounds to nothing prints 0, never -0
        value = abs(value)
    return value


def percent(fraction: float) -> str:
    """Whole percent for row bounds: 0.3475 → ``35%``, 0.997 → ``99%``, 1 → ``100%``."""
    return f"{_rounded_percent(fraction, 0)}%"


def percent1(fraction: float) -> str:
    """One decimal for aggregates: 0.81 → ``81.0%``; ``100.0%`` only for exactly 1."""
    return f"{_rounded_percent(fraction, 1)}%"


def interval_cells(
    bounds: Mapping[str, tuple[float, float]], *, decimals: int = 0
) -> dict[str, str]:
    """``[35%,  93%]`` cells, each bound right-aligned to the column's widest."""
    fmt = percent if decimals == 0 else percent1
    texts = {key: (fmt(low), fmt(high)) for key, (low, high) in bounds.items()}
    low_width = max((len(low) for low, _ in texts.values()), default=0)
    high_width = max((len(high) for _, high in texts.values()), default=0)
    return {
        key: f"[{low.rjust(low_width)}, {high.rjust(high_width)}]"
        for key, (low, high) in texts.items()
    }


def signed_percent(change: float) -> str:
    """A relative change in whole percent with a real minus sign: ``−29%``, ``+4%``, ``0%``."""
    value = percent_of(change)
    if value == 0:
        return "0%"
    return f"{MINUS}{-value}%" if value < 0 else f"+{value}%"
