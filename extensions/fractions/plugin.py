"""The ``fractions`` extension's pytest hooks (stateless).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_probability.api import CaseResult, ReportBuilder, Results

FRACTION_ORDER = 100
STATUS_ORDER = 900
SUBSET_ORDER = 950
OVERALL_ORDER = 100


@pytest.hookimpl(trylast=True)
def pytest_prob_row_status(case: CaseResult, config: pytest.Config) -> tuple[str, str]:
    """Default row status from the three outcome counts, in the aggregating process."""
    from pytest_probability.api import row_status

    word, key = row_status(case.passes, case.fails, case.errors)
    if case.xfail and word:
        word = f"{word} (xfail)"
    return word, key


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``k/N`` column, the status column, the ``Overall:`` line and JSON
    ``status`` fields. Called once in the aggregating process; returns nothing."""
    from pytest_probability.api import fraction_text, whole_percent

    rows = results.rows()
    report.add_column(
        "fraction", {c.key: fraction_text(c.passes, c.total) for c in rows}, order=FRACTION_ORDER
    )
    words: dict[str, str] = {}
    for case in results.cases():
        word, key = config.hook.pytest_prob_row_status(case=case, config=config)
        words[case.key] = word
        report.add_row_json(case.key, {"status": key})
    report.add_column("status", words, order=STATUS_ORDER, align="free")
    _subset_notes(report, results, config)
    totals = results.totals()
    if totals.count:
        report.add_summary(
            "Overall:",
            f"{totals.passes}/{totals.count} passed ({whole_percent(totals.passes, totals.count)})",
            order=OVERALL_ORDER,
        )


def _subset_notes(report: ReportBuilder, results: Results, config: pytest.Config) -> None:
    """Say which rows were built from fewer runs than planned (``--lf``, ``-k``,
    ``--deselect`` picked some runs; ``-x`` or Ctrl-C ended the session), so that such a row
    never reads as a measurement of the whole case: ``of 40 planned, selected subset``, and
    the JSON row field ``subset`` (``"selected"``, ``"stopped"`` or ``null``)."""
    from pytest_probability.api import stopped_early

    reason = "stopped" if stopped_early(config) else "selected"
    words = {"selected": "selected subset", "stopped": "session stopped early"}
    notes: dict[str, str] = {}
    for case in results.cases():
        partial = len(case.records) < case.planned
        report.add_row_json(case.key, {"subset": reason if partial else None})
        if partial:
            notes[case.key] = f"of {case.planned} planned, {words[reason]}"
    if notes:
        report.add_column("subset", notes, order=SUBSET_ORDER, align="free")


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read ungated rows that did not all pass. Called once in the aggregating process by
    the explain extension; returns the readings."""
    from .explain import readings

    return readings(report, results)


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without
    ``--prob-explain``; returns the count."""
    from .explain import count

    return count(report, results)
