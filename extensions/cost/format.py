"""Printing money and token counts (STATISTICS.md, "Printing"). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import int_text, money, visible

from .usage import rounded


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
