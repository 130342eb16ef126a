"""Early stopping and the run plan (``stopping``, ``plan``). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .markup import Markup, escape, table

#: Most stopped cases listed.
STOPPED_CASES = 200


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
    stopped = [
        (row, obj(row.get("stopped")))
        for row in objects(document.get("rows"))
        if obj(row.get("stopped"))
    ]
    if stopped:
        rows = [
            [
                text(row.get("case")),
                text(info.get("verdict")).upper(),
                f"{info.get('after')}/{info.get('planned')}",
                fmt.count(info.get("skipped")),
            ]
            for row, info in stopped[:STOPPED_CASES]
        ]
        parts.append(
            table(["Case", "Verdict", "Decided after", "Runs saved"], rows, class_="numbers")
        )
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
                    fmt.money(case.get("cost")) if num(case.get("cost")) is not None else "",
                    notes,
                ]
            )
        parts.append(
            table(
                [
                    "Case",
                    "Runs",
                    "Gate",
                    "Min runs",
                    "Runs for 80% power",
                    "Pass chance",
                    "Sequential runs",
                    f"Catch chance ({flakes})",
                    "Cost",
                    "Notes",
                ],
                rows,
                class_="numbers",
            )
        )
    return Markup("".join(parts))
