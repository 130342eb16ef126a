"""Plain-language readings of latency quantiles (for ``--prob-explain``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

from pytest_probability.api import (
    Reading,
    ReportBuilder,
    Results,
    duration,
    limit,
    quantile_label,
)

from .quantiles import min_runs_for_upper


def _read_rows(
    report: ReportBuilder, results: Results, show_all: bool
) -> list[tuple[Any, dict[str, Any]]]:
    """The cases that get a reading, with their latency data: every gated latency row (and
    every timed row with ``--prob-latency``)."""
    found = []
    for case in results.rows():
        data = report.row_json.get(case.key, {}).get("latency")
        if data and (data.get("max_latency") is not None or show_all):
            found.append((case, data))
    return found


def count(report: ReportBuilder, results: Results, show_all: bool) -> int:
    """How many readings :func:`readings` gives (all notable), without building them."""
    return len(_read_rows(report, results, show_all))


def readings(report: ReportBuilder, results: Results, show_all: bool) -> list[Reading]:
    """A reading per gated latency row (and every timed row with ``--prob-latency``)."""
    found = []
    for case, data in _read_rows(report, results, show_all):
        label = quantile_label(data["quantile"])
        share = f"{data['quantile'] * 100:g}%"
        text = (
            f"{label} is {duration(data['estimate'])}: {share} of its {data['n']} runs "
            f"finished within about that."
        )
        if data["low"] is not None and data["high"] is not None:
            text += (
                f" With {data['level'] * 100:g}% confidence the true {label} is between "
                f"{duration(data['low'])} and {duration(data['high'])} (distribution-free: it "
                "assumes only independent runs)."
            )
        elif data["high"] is None:
            needed = min_runs_for_upper(data["quantile"], data["level"])
            text += (
                f" With {data['n']} runs its interval has no upper end: {needed} runs are "
                f"needed before a gate on {label} can pass."
            )
        verdict = data.get("verdict")
        if verdict is not None:
            bound = limit(data["max_latency"])
            text += {
                "pass": f" All of it is below the {bound} limit: PASS.",
                "fail": f" All of it is above the {bound} limit: FAIL — it is too slow.",
                "undecided": f" It reaches across the {bound} limit: UNDECIDED; more runs "
                "narrow it.",
            }[verdict]
        found.append(Reading(case.display, text, ("quantile", "interval"), data, order=600))
    return found
