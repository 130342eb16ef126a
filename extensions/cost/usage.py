"""Token usage and cost values (checked when recorded): reading duck-typed usage, summing
amounts, merging per model, printing money and token counts (STATISTICS.md, "Printing").
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from pytest_probability.api import TokenUsage, int_text, money, visible

#: the token counts of a usage entry, in the order the reports write them
COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens")


def add_counts(first: int | str, second: int | str) -> int | str:
    """The sum of two token counts: their ``int`` sum, or text in scientific notation when
    either is a count kept as text (:func:`check_tokens`)."""
    if type(first) is int and type(second) is int:
        return first + second
    return f"{Decimal(first) + Decimal(second):.6e}"


def _get(source: Any, name: str) -> Any:
    return source.get(name) if isinstance(source, Mapping) else getattr(source, name, None)


def _first(source: Any, *names: str) -> Any:
    return next((value for name in names if (value := _get(source, name)) is not None), None)


#: Field names the default reader recognizes (ours, OpenAI chat and responses, Anthropic).
KNOWN_NAMES = (
    "model",
    "cost",
    *COUNTS,
    "prompt_tokens",
    "completion_tokens",
    "prompt_tokens_details",
    "input_tokens_details",
    "cache_read_input_tokens",
)


def read_usage(source: Any) -> TokenUsage | None:
    """A usage-like value (a :class:`TokenUsage`, a mapping, an object) read by our names,
    OpenAI's (chat completions and responses) and Anthropic's (:data:`KNOWN_NAMES`):
    ``None`` when it carries none of them; ``ValueError`` for a recognized field holding an
    invalid value."""
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
    cached = _get(details, "cached_tokens") if cached is None else cached
    cached = _get(source, "cache_read_input_tokens") if cached is None else cached
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
    return TokenUsage(**{name: _get(source, name) for name in ("model", *COUNTS, "cost")})


def total_cost(amounts: Iterable[float | None]) -> float | None:
    """The sum of the known amounts, ``None`` when none is known: exact (``math.fsum``) and
    rounded once to 15 significant digits, the precision a float holds for certain (thirty
    runs of ``0.0002`` total ``0.006``, never ``0.006000000000000001``). A sum beyond the
    largest float is ``math.inf``, which the reports call an overflow."""
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
    """Per-model totals of usage entries (``TokenUsage.to_json`` shapes)."""
    return merge_usage_maps({entry["model"]: entry} for entry in entries)


def merge_usage_maps(maps: Iterable[Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Merge per-model usage maps (``records[].usage`` shapes) into one, models in order of
    first appearance; each model's known costs summed once, by :func:`total_cost`."""
    merged: dict[str, dict[str, Any]] = {}
    costs: dict[str, list[float]] = {}
    for usage in maps:
        for model, entry in usage.items():
            totals = merged.get(model)
            if totals is None:
                merged[model] = {name: entry[name] for name in COUNTS}
                costs[model] = []
            else:
                for name in COUNTS:
                    totals[name] = add_counts(totals[name], entry[name])
            if entry["cost"] is not None:
                costs[model].append(entry["cost"])
    for model, known in costs.items():
        merged[model]["cost"] = known[0] if len(known) == 1 else total_cost(known)
    return merged


def tokens(totals: Mapping[str, Any]) -> str:
    """``1,200 in / 80 out / 640 cached`` (the cached part only when non-zero); a count too
    long for decimal text in scientific notation."""
    text = f"{_count(totals['input_tokens'])} in / {_count(totals['output_tokens'])} out"
    if totals["cached_input_tokens"]:
        text += f" / {_count(totals['cached_input_tokens'])} cached"
    return text


def _count(value: Any) -> str:
    return int_text(value, grouped=True) if isinstance(value, int) else str(value)


def token_lines(usage: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ``Tokens:`` block (``usage`` not empty): one aligned line per model, its cost
    right-aligned after. Model names (given by users and servers) have control and escape
    sequences made visible."""
    names = [visible(str(name)) for name in usage]
    texts = [tokens(totals) for totals in usage.values()]
    costs = ["" if t["cost"] is None else money(t["cost"]) for t in usage.values()]
    width = [max(map(len, column)) for column in (names, texts, costs)]
    return [
        f"{name.ljust(width[0])}  {text.ljust(width[1])}  {cost.rjust(width[2])}".rstrip()
        for name, text, cost in zip(names, texts, costs, strict=True)
    ]


def round_record(record: dict[str, Any]) -> None:
    """A record finisher (``ReportBuilder.add_record_finisher``): the run record as the
    reports write it, its ``cost``, per-model usage costs and steps' costs rounded to 15
    significant digits (:func:`~.usage.rounded`), so that amounts add up as written
    (``0.0015``, not ``0.0015000000000000002``). Runs keep plain float sums until then
    (rounding every run as it ends would cost more than recording does). ``record`` is the
    report's shallow copy: its nested maps and steps (the session's) are replaced, not changed.
    """
    cost = record.get("cost")
    if type(cost) is float:
        record["cost"] = rounded(cost)
    usage = record.get("usage")
    if usage and type(usage) is dict:
        record["usage"] = {model: _rounded_cost(totals) for model, totals in usage.items()}
    steps = record.get("steps")
    if steps and type(steps) is list:
        record["steps"] = [_rounded_cost(step) for step in steps]


def _rounded_cost(fields: Any) -> Any:
    """``fields`` (a copy) with its ``cost`` rounded, or itself when there is none to round."""
    if type(fields) is not dict or type(fields.get("cost")) is not float:
        return fields
    return {**fields, "cost": rounded(fields["cost"])}
