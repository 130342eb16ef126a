"""What a session says about its sequential comparisons besides their lines: the pairs the
stopped ones saved (a line under ``Stopped:``) and ``comparisons_stopped`` in the JSON. The
comparisons with a baseline report monitored under ``--prob-margin`` count with the axis
comparisons (a pair is then one run now against one of the baseline's).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_probability.api import ReportBuilder, Results, ratio_percent

from ..session import cost_reader, stop_reader
from .outcome import REGIME

#: right after the stopping extension's ``Stopped:`` lines (order 160)
SUMMARY_ORDER = 161


def saved(comparisons: Sequence[Any], results: Results, config: Any) -> dict[str, Any] | None:
    """``{"comparisons", "pairs_saved", "pairs_planned", "cost_avoided"}`` over the
    sequential comparisons some of whose cases were stopped, or ``None`` when none was."""

    is_stopped = stop_reader(config)

    def some_stopped(comparison: Any) -> bool:
        keys = {side.key for pair in comparison.pairs for side in (pair.arm, pair.base)}
        return any(is_stopped(case) for key in keys if (case := results.get(key)) is not None)

    stopped = [
        c
        for c in comparisons
        if c.outcome is not None and c.outcome.regime == REGIME and some_stopped(c)
    ]
    if not stopped:
        return None
    planned = sum(int(c.outcome.detail["planned_pairs"]) for c in stopped)
    made = sum(min(p.arm.total, p.base.total) for c in stopped for p in c.pairs)
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
    return {
        "comparisons": len(stopped),
        "pairs_saved": max(0, planned - made),
        "pairs_planned": planned,
        "cost_avoided": avoided,
    }


def contribute(
    report: ReportBuilder, comparisons: Sequence[Any], results: Results, config: Any
) -> None:
    """Add the ``Stopped:`` continuation line and ``comparisons_stopped`` to the JSON."""
    found = saved(comparisons, results, config)
    if found is None:
        return
    count = found["comparisons"]
    share = (
        f"{ratio_percent(found['pairs_saved'], found['pairs_planned'])}%"
        if found["pairs_planned"]
        else "0%"
    )
    text = (
        f"{count} comparison{'' if count == 1 else 's'} settled early (seq), saving "
        f"{found['pairs_saved']} of {found['pairs_planned']} pairs ({share})"
    )
    if found["cost_avoided"] is not None and found["pairs_saved"]:
        from pytest_probability.api import money

        text += f", about {money(found['cost_avoided'])} not spent"
    report.add_summary("", text, order=SUMMARY_ORDER)
    report.set_json("comparisons_stopped", found)
