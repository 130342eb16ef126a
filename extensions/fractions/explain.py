"""Plain-language readings of ungated rows that did not all pass (for ``--prob-explain``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

from pytest_probability.api import Reading, ReportBuilder, Results, reading_percent


def interval_words(ci: dict[str, Any] | None) -> str:
    """`` With 95% confidence its pass rate is between 44% and 97%.`` (or nothing)."""
    if not ci or ci.get("low") is None:
        return ""
    level = reading_percent(ci["level"])
    return (
        f" With {level} confidence its pass rate is between {reading_percent(ci['low'])} and "
        f"{reading_percent(ci['high'])}, assuming its runs are independent repetitions."
    )


def _is_read(report: ReportBuilder, case: Any) -> bool:
    """Whether an ungated row with failures or errors gets a reading."""
    if case.total == 0 or (case.fails == 0 and case.errors == 0):
        return False
    return report.row_json.get(case.key, {}).get("gate") is None


def count(report: ReportBuilder, results: Results) -> int:
    """How many readings :func:`readings` gives (all notable), without building them."""
    return sum(1 for case in results.rows() if _is_read(report, case))


def readings(report: ReportBuilder, results: Results) -> list[Reading]:
    """A reading per ungated row with failures or errors."""
    found = []
    for case in results.rows():
        if not _is_read(report, case):
            continue
        row = report.row_json.setdefault(case.key, {})
        said = f"{case.passes} of {case.total} runs passed"
        if case.errors:
            said += f" and {case.errors} errored (an exception other than a failed check)"
        text = said + "." + interval_words(row.get("ci"))
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
