"""Printing money and token counts (STATISTICS.md, "Printing"). Pure module."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any


def money(amount: float) -> str:
    """``$0.0400``: four decimals, half-up on the amount as written, thousands separated."""
    value = Decimal(repr(float(amount))).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    return f"${value:,}"


def tokens(totals: Mapping[str, Any]) -> str:
    """``1,200 in / 80 out / 640 cached`` (the cached part only when non-zero)."""
    text = f"{totals['input_tokens']:,} in / {totals['output_tokens']:,} out"
    if totals["cached_input_tokens"]:
        text += f" / {totals['cached_input_tokens']:,} cached"
    return text


def token_lines(usage: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The ``Tokens:`` block: one aligned line per model, its cost right-aligned after."""
    if not usage:
        return []
    names = list(usage)
    texts = [tokens(usage[name]) for name in names]
    costs = ["" if usage[n]["cost"] is None else money(usage[n]["cost"]) for n in names]
    name_width = max(len(name) for name in names)
    text_width = max(len(text) for text in texts)
    cost_width = max(len(cost) for cost in costs)
    return [
        f"{name.ljust(name_width)}  {text.ljust(text_width)}  {cost.rjust(cost_width)}".rstrip()
        for name, text, cost in zip(names, texts, costs, strict=True)
    ]
