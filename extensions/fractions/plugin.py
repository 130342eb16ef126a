"""The ``fractions`` extension's pytest hooks (stateless).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.api import (
    CaseResult,
    Reading,
    ReportBuilder,
    Results,
    call_first,
    fraction_text,
    reading_percent,
    row_status,
    stopped_early,
    whole_percent,
)

FRACTION_ORDER = 100
STATUS_ORDER = 900
SUBSET_ORDER = 950
OVERALL_ORDER = 100
SUBSET_WORDS = {"selected": "selected subset", "stopped": "session stopped early"}


@pytest.hookimpl(trylast=True)
def pytest_prob_row_status(case: CaseResult, config: pytest.Config) -> tuple[str, str]:
    """Default row status from the three outcome counts, in the aggregating process."""
    word, key = row_status(case.passes, case.fails, case.errors)
    if case.xfail and word:
        word = f"{word} (xfail)"
    return word, key


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``k/N`` column, the status column, the ``Overall:`` line and JSON
    ``status`` fields, and the ``subset`` column and row field. Called once in the
    aggregating process."""
    rows = results.rows()
    report.add_column(
        "fraction", {c.key: fraction_text(c.passes, c.total) for c in rows}, order=FRACTION_ORDER
    )
    # a row built from fewer runs than planned (``--lf``, ``-k``, ``--deselect`` picked some
    # runs; ``-x`` or Ctrl-C ended the session) says so, so that it never reads as a
    # measurement of the whole case: ``of 40 planned, selected subset``, and the JSON row
    # field ``subset`` (``"selected"``, ``"stopped"`` or ``null``)
    reason = "stopped" if stopped_early(config) else "selected"
    words: dict[str, str] = {}
    notes: dict[str, str] = {}
    for case in results.cases():
        word, key = call_first(
            config, "pytest_prob_row_status", check=_not_a_status, case=case, config=config
        )
        words[case.key] = word
        partial = len(case.records) < case.planned
        report.add_row_json(case.key, {"status": key, "subset": reason if partial else None})
        if partial:
            notes[case.key] = f"of {case.planned} planned, {SUBSET_WORDS[reason]}"
    report.add_column("status", words, order=STATUS_ORDER, align="free")
    if notes:
        report.add_column("subset", notes, order=SUBSET_ORDER, align="free")
    totals = results.totals()
    if totals.count:
        report.add_summary(
            "Overall:",
            f"{totals.passes}/{totals.count} passed ({whole_percent(totals.passes, totals.count)})",
            order=OVERALL_ORDER,
        )


def _read(report: ReportBuilder, results: Results) -> list[CaseResult]:
    """The ungated rows with failures or errors: each gets a reading."""
    return [
        case
        for case in results.rows()
        if case.total
        and (case.fails or case.errors)
        and report.row_json.get(case.key, {}).get("gate") is None
    ]


def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    """Read ungated rows that did not all pass. Called once in the aggregating process by
    the explain extension."""
    found = []
    for case in _read(report, results):
        row = report.row_json.setdefault(case.key, {})
        text = f"{case.passes} of {case.total} runs passed"
        if case.errors:
            text += f" and {case.errors} errored (an exception other than a failed check)"
        text += "."
        ci = row.get("ci")
        if ci and ci.get("low") is not None:
            text += (
                f" With {reading_percent(ci['level'])} confidence its pass rate is between "
                f"{reading_percent(ci['low'])} and {reading_percent(ci['high'])}, assuming "
                "its runs are independent repetitions."
            )
        if case.passes and case.fails:
            text += (
                " It is flaky: every failing run fails the session. To hold it to a pass "
                "rate instead, gate it (min_rate=…) and let the verdict decide."
            )
        elif case.passes:  # passes and errors only (``N ERRORED``): not flaky answers
            text += (
                " No run failed a check, so this is not flakiness in the answers: the errored "
                "runs raised an exception (the harness, a timeout, a dropped connection). "
                "Every errored run fails the session; fix the cause before reading the rate."
            )
        elif case.errors and not case.fails:
            text += " Every run errored: fix the cause before reading any rate."
        else:
            text += " It never passed: this is a failure to fix, not noise."
        found.append(Reading(case.display, text, ("pass rate", "interval", "gate"), row, order=100))
    return found


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without ``--prob-explain``."""
    return len(_read(report, results))


def _not_a_status(answer: Any) -> str | None:
    """What is wrong with a ``pytest_prob_row_status`` answer (``None``: nothing)."""
    if isinstance(answer, tuple) and len(answer) == 2 and all(isinstance(a, str) for a in answer):
        return None
    return f"answered {answer!r:.200}, not a (word, key) pair of texts"
