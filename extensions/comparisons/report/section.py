"""The ``probability: comparisons`` section and the comparisons' JSON: the aligned lines,
the family note, the functions a session-wide axis did not compare, and (under
``--prob-stop=sequential``) what stopping saved.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import ReportBuilder, Results

from ..axis.collection import NOT_COMPARED
from ..baseline.options import PLUGIN_NAME as REGRESSION
from ..session import RECORD_FIELD, state_of

if TYPE_CHECKING:
    from ..statistics.engine import Comparison

SECTION_ORDER = 120


def contribute(report: ReportBuilder, results: Results, config: pytest.Config) -> None:
    """Add the section, ``comparisons[]``, ``not_compared``, ``rows[].comparison`` and
    (through :mod:`..sequential.report`) the ``Stopped:`` continuation."""
    state = state_of(config)
    for case in results.cases():
        for record in case.records.values():
            if record.get(RECORD_FIELD):
                report.add_row_json(case.key, {"comparison": record[RECORD_FIELD]})
                break
    comparisons = state.comparisons
    from ..sequential.report import contribute as contribute_saved

    contribute_saved(report, [*comparisons, *_against_baseline(config)], results, config)
    not_compared = _not_compared(results)
    if not_compared:
        report.set_json("not_compared", not_compared)
    if not comparisons and not not_compared:
        return
    lines = section_lines(comparisons, state.item_outcomes) if comparisons else []
    lines.extend(not_compared_lines(not_compared))
    if comparisons:
        report.set_json("comparisons", [c.to_json() for c in comparisons])
    report.add_section("comparisons", lines, order=SECTION_ORDER)


def _against_baseline(config: pytest.Config) -> list[Any]:
    """The session's comparisons with the baseline report (``--prob-baseline``; the
    regression plugin is asked for them only when it is registered)."""
    regression = config.pluginmanager.get_plugin(REGRESSION)
    return [f.comparison for f in getattr(regression, "functions", None) or ()]


def _not_compared(results: Results) -> list[dict[str, Any]]:
    """The functions a session-wide axis (``--prob-compare``) did not compare because they
    have one value of it, in collection order, from their runs' records."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for case in results.cases():
        if (case.module, case.label) in found:
            continue
        for record in case.records.values():
            note = record.get(NOT_COMPARED)
            if note:
                found[(case.module, case.label)] = {
                    "function": f"{case.module}::bench_{case.label}",
                    "label": case.label,
                    **note,
                }
                break
    return list(found.values())


def not_compared_lines(functions: list[dict[str, Any]]) -> list[str]:
    """``  not compared (one value of style): one (terse)``, one line per axis."""
    by_axis: dict[str, list[str]] = {}
    for function in functions:
        shown = f"{function['label']} ({', '.join(function['values'])})"
        by_axis.setdefault(function["axis"], []).append(shown)
    return [
        f"  not compared (one value of {axis}): {', '.join(shown)}"
        for axis, shown in by_axis.items()
    ]


def section_lines(comparisons: list[Comparison], item_outcomes: dict[str, str]) -> list[str]:
    """The aligned comparison lines, each followed by its details, then the notes."""
    from . import render

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
    deferred = sum(1 for ended in item_outcomes.values() if ended == "deferred")
    if deferred:
        lines.append(
            f"  {deferred} compare item(s) skipped and judged at session end: their runs ran "
            "in several processes (keep each function on one pytest-xdist worker)"
        )
    return lines
