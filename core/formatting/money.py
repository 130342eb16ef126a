"""Printing money (STATISTICS.md, "Printing"): amounts, and sums that overflowed. Pure
module, shared by every extension that prints a cost.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math

from .rounding import decimal_of, half_up

#: What an amount beyond the largest float (a sum that overflowed) is shown as.
OVERFLOW = "overflow"
#: From this amount on, money is shown in scientific notation (``$1.7e+308``).
LARGE = 1e15


def money(amount: float) -> str:
    """``$0.0400``: four decimals, half-up on the amount as written, thousands separated;
    ``$1.7e+308`` from :data:`LARGE` on; :data:`OVERFLOW` for an infinite sum."""
    number = float(amount)
    if not math.isfinite(number):
        return OVERFLOW
    if abs(number) >= LARGE:
        return f"${number:.4g}"
    return f"${half_up(decimal_of(number), 4):,}"


def is_overflow(amount: float | None) -> bool:
    """Whether a cost sum overflowed (``math.inf``: the cost extension's ``total_cost``)."""
    return amount is not None and not math.isfinite(amount)


#: Why a sum shows :data:`OVERFLOW`.
OVERFLOW_REASON = (
    "the recorded amounts add up to more than the largest number a float holds, about 1.8e308"
)


def overflow_note(what: str) -> str:
    """The report's warning for ``what`` (``"the session's cost"``) when its sum overflowed."""
    return f"{what} overflowed: {OVERFLOW_REASON}; it is shown as {OVERFLOW!r} and written as null"
