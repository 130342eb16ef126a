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
from decimal import Decimal
from typing import Any

from pytest_probability.api import TokenUsage


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
