"""What a run spent, as ``pytest_prob_run_spend`` answered it. Pure module: never imports
pytest. A budget fails closed: an answer that cannot be counted (text, NaN, a negative
amount, ``True``, an implementation that raises) is never read as "nothing spent".

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from decimal import Decimal
from numbers import Real
from typing import Any


class UncountableSpend(ValueError):
    """``pytest_prob_run_spend`` answered something that is not an amount (or raised)."""


def checked(answer: Any) -> float | None:
    """``answer`` as an amount: ``None`` (nothing recorded) or a real number ≥ 0 (``int``,
    ``float``, ``Decimal``, ``Fraction``, NumPy scalars) as a ``float``; positive infinity
    counts (the budget is reached), and so does an ``int`` beyond a float's range. Raises
    :class:`UncountableSpend` saying what was given otherwise."""
    if answer is None:
        return None
    if isinstance(answer, bool) or not isinstance(answer, (Real, Decimal)):
        raise UncountableSpend(f"gave {_shown(answer)}, not a number")
    try:
        amount = float(answer)
    except OverflowError:  # an int (or Fraction) beyond a float's range
        amount = math.inf if answer > 0 else -math.inf
    except (ValueError, TypeError):
        raise UncountableSpend(f"gave {_shown(answer)}, not a number") from None
    if math.isnan(amount) or amount < 0:
        raise UncountableSpend(f"gave {_shown(answer)}, not an amount of at least 0")
    return amount


def _shown(answer: Any) -> str:
    """A short repr of an answer (a huge int or string is cut)."""
    if isinstance(answer, int) and not isinstance(answer, bool) and answer.bit_length() > 100:
        return f"an int of about {int(answer.bit_length() * math.log10(2)) + 1:,} digits"
    try:
        shown = repr(answer)
    except Exception:  # a repr that raises is still an answer we can name by type
        shown = f"a {type(answer).__name__}"
    return shown if len(shown) <= 60 else shown[:57] + "..."
