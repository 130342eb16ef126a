"""The ``probability: comparisons`` section and the comparisons' JSON, and (under
``--prob-stop=sequential``) what stopping saved, counting the monitored ``--prob-margin``
comparisons with a baseline report with the axis ones (a pair is then one run now against
one of the baseline's).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pytest_probability.api import ReportBuilder, Results, money, ratio_percent

from ..axis.collection import NOT_COMPARED, deferred_items
from ..baseline.regression import regression_of
from ..sequential.outcome import REGIME
from ..session import RECORD_FIELD, cost_reader, state_of, stop_reader, tagged
from ..statistics.engine import Comparison
from . import render

SECTION_ORDER = 120
#: right after the stopping extension's ``Stopped:`` lines (order 160)
SUMMARY_ORDER = 161


def contribute(report: ReportBuilder, results: Results, config: pytest.Config) -> None:
    """The section, ``comparisons[]``, ``not_compared``, ``rows[].comparison`` and the
    ``Stopped:`` continuation."""
    state = state_of(config)
    for case in results.cases():
        if (data := tagged(case, RECORD_FIELD)) is not None:
            report.add_row_json(case.key, {"comparison": data})
    comparisons = state.comparisons
    regression = regression_of(config)
    baseline = [f.comparison for f in regression.functions] if regression is not None else []
    contribute_saved(report, [*comparisons, *baseline], results, config)
    not_compared = _not_compared(results)
    if not_compared:
        report.set_json("not_compared", not_compared)
    if not comparisons and not not_compared:
        return
    lines = section_lines(comparisons, deferred_items(config, "[compare:")) if comparisons else []
    by_axis: dict[str, list[str]] = {}
    for function in not_compared:
        shown = f"{function['label']} ({', '.join(function['values'])})"
        by_axis.setdefault(function["axis"], []).append(shown)
    lines.extend(
        f"  not compared (one value of {axis}): {', '.join(shown)}"
        for axis, shown in by_axis.items()
    )
    if comparisons:
        report.set_json("comparisons", [c.to_json() for c in comparisons])
    report.add_section("comparisons", lines, order=SECTION_ORDER)


def _not_compared(results: Results) -> list[dict[str, Any]]:
    """The functions a session-wide axis did not compare (they have one value of it), in
    collection order, from their runs' records."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for case in results.cases():
        note = tagged(case, NOT_COMPARED) if (case.module, case.label) not in found else None
        if note is not None:
            function = f"{case.module}::bench_{case.label}"
            found[(case.module, case.label)] = {"function": function, "label": case.label, **note}
    return list(found.values())


def section_lines(comparisons: list[Comparison], deferred: int) -> list[str]:
    rows = [
        render.comparison_cells(c, f"{c.label}[{c.axis}]", f"{c.arm} − {c.baseline}")
        for c in comparisons
    ]
    lines: list[str] = []
    for line, comparison in zip(render.align(rows), comparisons, strict=True):
        lines.append(line)
        lines.extend(render.detail_lines(comparison))
    family = [c for c in comparisons if c.outcome is not None and c.outcome.p is not None]
    adjust = comparisons[0].adjust
    if adjust != "none" and family:
        lines.append(f"  p adjusted with {adjust} over {len(family)} comparisons")
    elif len(family) > 1:
        lines.append(
            f"  {len(family)} comparisons, p not adjusted for multiplicity: treat them as "
            "exploratory (--prob-adjust=holm adjusts them)"
        )
    if deferred:
        lines.append(
            f"  {deferred} compare item(s) skipped and judged at session end: their runs ran "
            "in several processes (keep each function on one pytest-xdist worker)"
        )
    return lines


def contribute_saved(
    report: ReportBuilder, comparisons: Sequence[Comparison], results: Results, config: Any
) -> None:
    """The ``Stopped:`` continuation line and ``comparisons_stopped``: what the sequential
    comparisons some of whose cases were stopped saved (nothing when none was)."""
    is_stopped = stop_reader(config)

    def some_stopped(comparison: Comparison) -> bool:
        keys = {side.key for pair in comparison.pairs for side in (pair.arm, pair.base)}
        return any(is_stopped(case) for key in keys if (case := results.get(key)) is not None)

    stopped = [
        c
        for c in comparisons
        if c.outcome is not None and c.outcome.regime == REGIME and some_stopped(c)
    ]
    if not stopped:
        return
    planned = sum(int(c.outcome.detail["planned_pairs"]) for c in stopped if c.outcome)
    made = sum(min(p.arm.total, p.base.total) for c in stopped for p in c.pairs)
    saved = max(0, planned - made)
    cost_of = cost_reader(config)
    avoided: float | None = None
    keys = {side.key for c in stopped for p in c.pairs for side in (p.arm, p.base)}
    for key in sorted(keys):
        case = results.get(key)
        if case is None:
            continue
        skipped = sum(1 for r in case.records.values() if r.get("stopped"))
        spent, runs = cost_of(case), len(case.records) - skipped
        if skipped and spent is not None and runs > 0:
            avoided = (avoided or 0.0) + spent / runs * skipped
    share = f"{ratio_percent(saved, planned)}%" if planned else "0%"
    text = (
        f"{len(stopped)} comparison{'' if len(stopped) == 1 else 's'} settled early (seq), "
        f"saving {saved} of {planned} pairs ({share})"
    )
    if avoided is not None and saved:
        text += f", about {money(avoided)} not spent"
    report.add_summary("", text, order=SUMMARY_ORDER)
    found = {
        "comparisons": len(stopped),
        "pairs_saved": saved,
        "pairs_planned": planned,
        "cost_avoided": avoided,
    }
    report.set_json("comparisons_stopped", found)
