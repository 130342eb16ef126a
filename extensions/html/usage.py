"""The cost section (the session's cost, tokens per model, the costliest cases), early
stopping and the run plan (``stopping``, ``plan``).

Costs are in whatever unit the benchmarks record (shown with a ``$`` like the terminal).
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_probability.api import count_text, integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .fmt import case_id
from .markup import Markup, escape, table
from .svg import value_bar

#: Most cases listed by cost.
COST_CASES = 20
#: Most stopped cases listed.
STOPPED_CASES = 200


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
    if not usage:
        return None
    models = {text(name): obj(totals) for name, totals in usage.items()}
    sizes = {
        name: _token_size(t.get("input_tokens")) + _token_size(t.get("output_tokens"))
        for name, t in models.items()
    }
    largest = max(sizes.values()) or 1.0
    rows = []
    for name, t in models.items():
        # a count too long for decimal text as the report keeps it (1.000000e+5000)
        kinds = ("input", "output", "cached_input")
        counts = [count_text(t.get(f"{kind}_tokens")) or fmt.MISSING for kind in kinds]
        share = 1.0 if sizes[name] == largest else sizes[name] / largest  # (also when infinite)
        rows.append([name, *counts, fmt.money(t.get("cost"), ""), value_bar(share, "tok")])
    headers = ["Model", "Input", "Output", "Cached input", "Cost", "Tokens"]
    return table(headers, rows, caption="Tokens per model", class_="numbers")


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
        runs = _runs(row, "total")
        per_run = fmt.money_per_run(cost / runs) if runs else fmt.MISSING
        bar = value_bar(cost / largest if largest > 0 else 0.0, "cost")
        lines.append([case_id(text(row.get("case"))), fmt.money(cost), per_run, bar])
    caption = "Cost per case" if len(costed) == len(shown) else f"The {len(shown)} costliest cases"
    result = table(["Case", "Cost", "Per run", ""], lines, caption=caption, class_="numbers")
    if len(costed) == len(shown):
        return result
    return Markup(
        result + f'<p class="muted">{len(costed) - len(shown):,} more cases recorded a '
        "cost; sort the case table by Cost to see them all.</p>"
    )


def _runs(counts: Mapping[str, Any], key: str) -> int:
    """The runs behind a cost: those counted under ``key`` and the skipped ones."""
    return (integer(counts.get(key)) or 0) + (integer(counts.get("skipped")) or 0)


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
        runs = _runs(totals, "count")
        per_run = f" ({fmt.money_per_run(cost / runs)} per run over {runs:,} runs)" if runs else ""
        parts.append(f"<p><strong>Cost:</strong> {fmt.money(cost)}{escape(per_run)}</p>")
    parts += [part for part in (_tokens(usage), _costly_cases(rows)) if part]
    return Markup("".join(parts))


def render_stopping(document: Mapping[str, Any]) -> Markup | None:
    """The ``Stopped:`` numbers and the cases stopped early."""
    stopping = obj(document.get("stopping"))
    if not stopping:
        return None
    saved, planned = integer(stopping.get("runs_saved")) or 0, integer(stopping.get("runs_planned"))
    share = f" ({saved / planned:.0%})" if planned else ""
    facts = [
        f"rule {text(stopping.get('mode'), '?')}",
        f"{fmt.plural(integer(stopping.get('stopped_cases')) or 0, 'case')} stopped early",
        f"{saved:,} of {fmt.count(planned)} planned runs saved{share}",
    ]
    if num(stopping.get("cost_avoided")) is not None:
        facts.append(f"about {fmt.money(stopping.get('cost_avoided'))} not spent")
    parts = [f"<p><strong>Stopped:</strong> {escape('; '.join(facts))}.</p>"]
    spread = integer(stopping.get("spread_cases"))
    if spread:
        parts.append(
            f'<p class="muted">{fmt.plural(spread, "case")} ran on several xdist workers and '
            "could only partly stop.</p>"
        )
    found = [(row, obj(row.get("stopped"))) for row in objects(document.get("rows"))]
    rows = [
        [
            text(row.get("case")),
            text(info.get("verdict")).upper(),
            f"{info.get('after')}/{info.get('planned')}",
            fmt.count(info.get("skipped")),
        ]
        for row, info in [pair for pair in found if pair[1]][:STOPPED_CASES]
    ]
    if rows:
        headers = ["Case", "Verdict", "Decided after", "Runs saved"]
        parts.append(table(headers, rows, class_="numbers"))
    return Markup("".join(parts))


def _chance(value: Any) -> str:
    number = num(value)
    return fmt.MISSING if number is None else f"{number:.1%}"


def render_plan(document: Mapping[str, Any]) -> Markup | None:
    """The run budget of a ``--prob-plan`` session."""
    plan = obj(document.get("plan"))
    if not plan:
        return None
    flakes = ", ".join(f"{num(f) or 0:.3g}" for f in json_array(plan.get("flakes")))
    catch = ", ".join(
        f"{escape(key)}: {fmt.count(value)} runs"
        for key, value in obj(plan.get("runs_to_catch")).items()
    )
    facts = [
        f"assuming a pass rate of {_chance(plan.get('assume'))}",
        f"{fmt.count(plan.get('total_runs'))} runs planned",
    ]
    if num(plan.get("total_cost")) is not None:
        facts.append(f"projected cost {fmt.money(plan.get('total_cost'))}")
    parts = [f"<p><strong>Plan:</strong> {escape('; '.join(facts))}.</p>"]
    if catch:
        parts.append(f"<p>Runs that catch a flake with 95% probability: {catch}.</p>")
    cases = objects(plan.get("cases"))
    if cases:
        rows = []
        for case in cases:
            catches = "; ".join(
                f"{num(c.get('flake')) or 0:.3g}: {_chance(c.get('chance'))}"
                for c in objects(case.get("catch"))
            )
            notes = "; ".join(text(note) for note in json_array(case.get("notes")))
            sequential = num(case.get("sequential_runs"))
            rows.append(
                [
                    text(case.get("case")),
                    fmt.count(case.get("runs")),
                    text(case.get("gate"), ""),
                    fmt.count(case.get("min_runs")) if case.get("min_runs") is not None else "",
                    fmt.count(case.get("power_runs")) if case.get("power_runs") is not None else "",
                    _chance(case.get("pass_chance")) if case.get("pass_chance") is not None else "",
                    f"{sequential:.0f}" if sequential is not None else "",
                    catches,
                    fmt.money(case.get("cost"), ""),
                    notes,
                ]
            )
        headers = ["Case", "Runs", "Gate", "Min runs", "Runs for 80% power", "Pass chance"]
        headers += ["Sequential runs", f"Catch chance ({flakes})", "Cost", "Notes"]
        parts.append(table(headers, rows, class_="numbers"))
    return Markup("".join(parts))
