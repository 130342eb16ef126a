"""The cost section: the session's cost, tokens per model, and the costliest cases.

Costs are in whatever unit the benchmarks record (shown with a ``$`` like the terminal).
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_probability.api import count_text, integer, num, obj, objects, text

from . import fmt
from .ids import case_id
from .markup import Markup, escape, table
from .svg import value_bar

#: Most cases listed by cost.
COST_CASES = 20


def _token_count(value: Any) -> str:
    """A token count's cell: ``1,200``; a count too long for decimal text as the report
    keeps it (``1.000000e+5000``); ``—`` if absent."""
    return count_text(value) or fmt.MISSING


def _token_size(value: Any) -> float:
    """A token count as a float for the bars (a count kept as text is infinite)."""
    number = integer(value)
    if number is None:
        return math.inf if count_text(value) is not None else 0.0
    try:
        return float(number)
    except OverflowError:
        return math.inf


def _tokens(usage: Mapping[str, Any]) -> Markup | None:
    models = [(text(name), obj(totals)) for name, totals in usage.items()]
    if not models:
        return None
    total_tokens = {
        name: _token_size(t.get("input_tokens")) + _token_size(t.get("output_tokens"))
        for name, t in models
    }
    largest = max(total_tokens.values(), default=0.0) or 1.0

    def share(total: float) -> float:  # (the largest is a full bar, also when infinite)
        return 1.0 if total == largest else total / largest

    rows = [
        [
            name,
            _token_count(t.get("input_tokens")),
            _token_count(t.get("output_tokens")),
            _token_count(t.get("cached_input_tokens")),
            fmt.money(t.get("cost")) if num(t.get("cost")) is not None else "",
            value_bar(share(total_tokens[name]), "tok"),
        ]
        for name, t in models
    ]
    return table(
        ["Model", "Input", "Output", "Cached input", "Cost", "Tokens"],
        rows,
        caption="Tokens per model",
        class_="numbers",
    )


def _costly_cases(rows: list[Mapping[str, Any]]) -> Markup | None:
    costed = [row for row in rows if num(row.get("cost")) is not None]
    if not costed:
        return None
    costed.sort(key=lambda row: -(num(row.get("cost")) or 0.0))
    shown = costed[:COST_CASES]
    largest = num(shown[0].get("cost")) or 1.0
    lines = []
    for row in shown:
        cost = num(row.get("cost")) or 0.0
        runs = (integer(row.get("total")) or 0) + (integer(row.get("skipped")) or 0)
        lines.append(
            [
                case_id(text(row.get("case"))),
                fmt.money(cost),
                fmt.money_per_run(cost / runs) if runs else fmt.MISSING,
                value_bar(cost / largest if largest > 0 else 0.0, "cost"),
            ]
        )
    caption = "Cost per case" if len(costed) == len(shown) else f"The {len(shown)} costliest cases"
    result = table(["Case", "Cost", "Per run", ""], lines, caption=caption, class_="numbers")
    if len(costed) > len(shown):
        result = Markup(
            result + f'<p class="muted">{len(costed) - len(shown):,} more cases recorded a '
            "cost; sort the case table by Cost to see them all.</p>"
        )
    return result


def render_cost(document: Mapping[str, Any]) -> Markup | None:
    """The cost section, or ``None`` when nothing recorded a cost or token usage."""
    totals = obj(document.get("totals"))
    rows = objects(document.get("rows"))
    cost = num(totals.get("cost"))
    usage = obj(totals.get("usage"))
    if cost is None and not usage and not any(num(r.get("cost")) is not None for r in rows):
        return None
    parts = []
    if cost is not None:
        runs = (integer(totals.get("count")) or 0) + (integer(totals.get("skipped")) or 0)
        per_run = f" ({fmt.money_per_run(cost / runs)} per run over {runs:,} runs)" if runs else ""
        parts.append(f"<p><strong>Cost:</strong> {fmt.money(cost)}{escape(per_run)}</p>")
    tokens = _tokens(usage)
    if tokens:
        parts.append(tokens)
    cases = _costly_cases(rows)
    if cases:
        parts.append(cases)
    return Markup("".join(parts))
