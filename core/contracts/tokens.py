"""Token usage values (the ``TokenUsage`` a bench body records and a pricing hook returns) and
the checks every count and amount passes before it reaches a report, so that a report never
holds NaN, a negative amount or 1.9 tokens truncated to 1. In the kernel so that bench code,
the ``cost`` extension and third parties share it. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..execution.user_values import int_text, is_huge_int
from ..formatting.terminal_text import ProbabilityWarning


class CostWarning(ProbabilityWarning):
    """Recorded cost or usage that could not be counted, or a price that could not be used."""


UNKNOWN_MODEL = "unknown"
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")
_ENTRY_KEYS = ("model", *TOKEN_FIELDS, "cost")
#: Counts from here on are checked for being too long to write (:func:`check_tokens`).
BIG_COUNT = 1 << 2000


@dataclass(frozen=True)
class TokenUsage:
    """The usage of one model call (or several calls to one model).

    :ivar model: the model name entries aggregate under (``"unknown"`` when not given).
    :ivar input_tokens: prompt tokens.
    :ivar output_tokens: completion tokens.
    :ivar cached_input_tokens: prompt tokens served from a cache, reported as given (whether
        they are part of ``input_tokens`` depends on the provider).
    :ivar cost: what the call cost, in the unit you report everywhere; ``None`` when unknown
        (a ``pytest_prob_price_usage`` implementation may price it).

    Construction validates every field: ``ValueError`` (or ``TypeError``) naming the field
    and the value given.
    """

    model: str = UNKNOWN_MODEL
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cost: float | None = None

    def __post_init__(self) -> None:
        entry = usage_entry(
            self.model, self.input_tokens, self.output_tokens, self.cached_input_tokens, self.cost
        )
        for name, value in entry.items():
            object.__setattr__(self, name, value)

    def to_json(self) -> dict[str, Any]:
        """``{"model", "input_tokens", "output_tokens", "cached_input_tokens", "cost"}``."""
        return {key: getattr(self, key) for key in _ENTRY_KEYS}


def usage_entry(
    model: Any, input_tokens: Any, output_tokens: Any, cached_input_tokens: Any, cost: Any
) -> dict[str, Any]:
    """A validated usage entry in its JSON form (what records and steps carry)."""
    if (  # the common case, fast: a model name and plain counts (bool is not int here)
        type(model) is str
        and type(input_tokens) is int
        and type(output_tokens) is int
        and type(cached_input_tokens) is int
        and 0 <= input_tokens < BIG_COUNT
        and 0 <= output_tokens < BIG_COUNT
        and 0 <= cached_input_tokens < BIG_COUNT
        and (cost is None or (type(cost) is float and 0.0 <= cost < math.inf))
        and model
        and not model[0].isspace()
        and not model[-1].isspace()
    ):
        counts = (input_tokens, output_tokens, cached_input_tokens)
        return dict(zip(_ENTRY_KEYS, (model, *counts, cost), strict=True))
    return {
        "model": check_model(model),
        "input_tokens": check_tokens(input_tokens, "input_tokens"),
        "output_tokens": check_tokens(output_tokens, "output_tokens"),
        "cached_input_tokens": check_tokens(cached_input_tokens, "cached_input_tokens"),
        "cost": None if cost is None else check_cost(cost, "cost"),
    }


def _describe(value: Any) -> str:
    return f"{value!r} (a {type(value).__name__})" if isinstance(value, str) else repr(value)


def check_cost(value: Any, name: str = "cost") -> float:
    """A finite amount ≥ 0 as a float; ``ValueError`` naming ``name`` and the value."""
    if type(value) is float and 0.0 <= value < math.inf:  # the common case, fast
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal, Fraction)):
        raise ValueError(f"{name} must be a finite number >= 0, got {_describe(value)}")
    try:
        amount = float(value)
    except OverflowError:  # an int beyond a float's range (its repr may be too long to show)
        raise ValueError(
            f"{name} must be a finite number >= 0, got an int too large for a float "
            f"({int(value).bit_length()} bits)"
        ) from None
    if not math.isfinite(amount) or amount < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return amount


def check_tokens(value: Any, name: str) -> int | str:
    """A whole token count ≥ 0 (``None`` is 0); ``ValueError`` naming ``name`` and the value.

    ``3.0`` is accepted as 3; ``1.9`` is an error, never truncated. A count too long for
    decimal text (``10**5000``, past Python's 4,300-digit limit: no report could hold it,
    no worker could send it) is kept as text in scientific notation (``"1.000000e+5000"``),
    with a ``CostWarning``; sums that meet one stay text (:func:`add_counts`).
    """
    if type(value) is int and 0 <= value < BIG_COUNT:  # the common case, fast
        return value
    if value is None:
        return 0
    count = None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        count = int(value)
    elif isinstance(value, (numbers.Real, Decimal)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and number == int(number):
            count = int(number)
    if count is None or count < 0:
        shown = _describe(value) if count is None else int_text(count)
        raise ValueError(f"{name} must be a whole number >= 0, got {shown}")
    return _as_text(count, name) if is_huge_int(count) else count


def _as_text(count: int, name: str) -> str:
    """A count too long for decimal text, as text, with a ``CostWarning``."""
    text = int_text(count)
    digits = int(count.bit_length() * math.log10(2)) + 1
    warnings.warn(
        CostWarning(
            f"{name} is too long to write as a number (about {digits:,} digits): recorded "
            f"as the text {text!r}"
        ),
        stacklevel=6,  # (the bench's record_usage call)
    )
    return text


def check_model(value: Any) -> str:
    """The model name as text (``"unknown"`` for ``None`` or blank)."""
    if value is None:
        return UNKNOWN_MODEL
    text = (value if type(value) is str else str(value)).strip()
    return text or UNKNOWN_MODEL
