"""Token usage and cost values: validation, reading duck-typed usage, merging per model.

Pure module: never imports pytest. Every number that reaches a report passes through
:func:`check_cost` or :func:`check_tokens`, so a report never holds NaN, a negative amount
or 1.9 tokens silently truncated to 1.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from pytest_probability.untrusted import int_text, is_huge_int

UNKNOWN_MODEL = "unknown"
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")
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
        return {
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cost": self.cost,
        }


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
        return {
            "model": model,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cached_input_tokens": cached_input_tokens,
            "cost": cost,
        }
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
    kind = type(value)
    if kind is float and 0.0 <= value < math.inf:  # the common case, fast
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
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    if isinstance(value, numbers.Integral):
        count = int(value)
    elif isinstance(value, (numbers.Real, Decimal)):
        number = float(value)
        if not math.isfinite(number) or number != int(number):
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
        count = int(number)
    else:
        raise ValueError(f"{name} must be a whole number >= 0, got {_describe(value)}")
    if count < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {int_text(count)}")
    if is_huge_int(count):
        return _as_text(count, name)
    return count


def _as_text(count: int, name: str) -> str:
    """A count too long for decimal text, as text, with a ``CostWarning``."""
    import warnings

    from .recording import CostWarning  # (recording imports this module)

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


def add_entry_counts(totals: dict[str, Any], entry: Mapping[str, Any]) -> None:
    """Add ``entry``'s three token counts into ``totals`` (:func:`add_counts` when one of
    them is text)."""
    try:
        inputs = totals["input_tokens"] + entry["input_tokens"]
        outputs = totals["output_tokens"] + entry["output_tokens"]
        cached = totals["cached_input_tokens"] + entry["cached_input_tokens"]
    except TypeError:  # a count kept as text (too long to write)
        inputs = add_counts(totals["input_tokens"], entry["input_tokens"])
        outputs = add_counts(totals["output_tokens"], entry["output_tokens"])
        cached = add_counts(totals["cached_input_tokens"], entry["cached_input_tokens"])
    totals["input_tokens"] = inputs
    totals["output_tokens"] = outputs
    totals["cached_input_tokens"] = cached


def add_counts(first: int | str, second: int | str) -> int | str:
    """The sum of two token counts: their ``int`` sum, or text in scientific notation when
    either is a count kept as text (:func:`check_tokens`)."""
    if type(first) is int and type(second) is int:
        return first + second
    total = Decimal(first) + Decimal(second)
    return f"{total:.6e}"


def check_model(value: Any) -> str:
    """The model name as text (``"unknown"`` for ``None`` or blank)."""
    if value is None:
        return UNKNOWN_MODEL
    text = (value if type(value) is str else str(value)).strip()
    return text or UNKNOWN_MODEL


def _get(source: Any, name: str) -> Any:
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def _first(source: Any, *names: str) -> Any:
    for name in names:
        value = _get(source, name)
        if value is not None:
            return value
    return None


#: Field names the default reader recognizes (ours, OpenAI chat and responses, Anthropic).
KNOWN_NAMES = (
    "model",
    "cost",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "prompt_tokens",
    "completion_tokens",
    "prompt_tokens_details",
    "input_tokens_details",
    "cache_read_input_tokens",
)


def read_usage(source: Any) -> TokenUsage | None:
    """Read a usage-like value: a :class:`TokenUsage`, a mapping, or an object.

    Recognized names: ours (``model``, ``input_tokens``, ``output_tokens``,
    ``cached_input_tokens``, ``cost``); OpenAI chat completions (``prompt_tokens``,
    ``completion_tokens``, ``prompt_tokens_details.cached_tokens``); OpenAI responses
    (``input_tokens_details.cached_tokens``); Anthropic (``cache_read_input_tokens``).
    Returns ``None`` when ``source`` carries none of them; raises ``ValueError`` for a
    recognized field holding an invalid value.
    """
    if isinstance(source, TokenUsage):
        return source
    if source is None or isinstance(source, (str, bytes, numbers.Number)):
        return None
    if isinstance(source, Mapping):
        if not any(name in source for name in KNOWN_NAMES):
            return None
    elif not any(getattr(source, name, None) is not None for name in KNOWN_NAMES):
        return None
    details = _first(source, "prompt_tokens_details", "input_tokens_details")
    cached = _get(source, "cached_input_tokens")
    if cached is None and details is not None:
        cached = _get(details, "cached_tokens")
    if cached is None:
        cached = _get(source, "cache_read_input_tokens")
    return TokenUsage(
        model=_get(source, "model"),
        input_tokens=_first(source, "input_tokens", "prompt_tokens"),
        output_tokens=_first(source, "output_tokens", "completion_tokens"),
        cached_input_tokens=cached,
        cost=_get(source, "cost"),
    )


def usage_from_fields(source: Any) -> TokenUsage:
    """A :class:`TokenUsage` from a value with exactly our field names (what a
    ``pytest_prob_normalize_usage`` implementation may return instead of a ``TokenUsage``)."""
    if isinstance(source, TokenUsage):
        return source
    return TokenUsage(
        model=_get(source, "model"),
        input_tokens=_get(source, "input_tokens"),
        output_tokens=_get(source, "output_tokens"),
        cached_input_tokens=_get(source, "cached_input_tokens"),
        cost=_get(source, "cost"),
    )


def total_cost(amounts: Iterable[float | None]) -> float | None:
    """The sum of the known amounts, ``None`` when none is known.

    Summed exactly (``math.fsum``) and rounded once to 15 significant digits, the precision
    a float holds for certain: thirty runs of ``0.0002`` total ``0.006``, never
    ``0.006000000000000001``. A sum beyond the largest float (two ``record_cost(1.7e308)``)
    is ``math.inf``: the reports call it an overflow (:func:`pytest_probability.money.money`).
    """
    known = [amount for amount in amounts if amount is not None]
    if not known:
        return None
    try:
        return rounded(math.fsum(known))
    except OverflowError:  # ("intermediate overflow in fsum")
        return math.inf


def rounded(amount: float) -> float:
    """``amount`` to 15 significant digits (sums of amounts as written come out as written);
    a recorded ``-0.0`` comes out as ``0.0``."""
    return float(f"{amount:.15g}") + 0.0


def merge_usage(entries: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-model totals of usage entries (``TokenUsage.to_json`` shapes, or per-model totals
    with a ``model`` key), models in order of first appearance."""
    merged: dict[str, dict[str, Any]] = {}
    costs: dict[str, list[float]] = {}
    for entry in entries:
        model = entry["model"]
        totals = merged.get(model)
        if totals is None:
            merged[model] = {
                "input_tokens": entry["input_tokens"],
                "output_tokens": entry["output_tokens"],
                "cached_input_tokens": entry["cached_input_tokens"],
                "cost": None,
            }
            costs[model] = []
        else:
            add_entry_counts(totals, entry)
        if entry["cost"] is not None:
            costs[model].append(entry["cost"])
    for model, known in costs.items():
        if known:
            merged[model]["cost"] = known[0] if len(known) == 1 else total_cost(known)
    return merged


def merge_usage_maps(maps: Iterable[Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Merge per-model usage maps (``records[].usage`` shapes) into one."""
    return merge_usage(
        {"model": model, **totals} for usage in maps for model, totals in usage.items()
    )
