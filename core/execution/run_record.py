"""A run's record, made in the executing process with its call report (or a failed or skipped
setup report): classified by an extension, built (:mod:`.records`), and completed by the
extensions in ``pytest_prob_run_finished``. A classifier or an extension that fails makes
the run an error or a warning on its record, never the session's failure.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import pytest

from ..contracts.outcomes import ERROR, FAIL, PASS, SKIP
from ..loader import BUNDLED_NAMES
from ..report.json_report import jsonable
from ..report.safe_calls import ProbabilityExtensionWarning, answering_plugin, call_each
from .records import make_record
from .user_values import describe, short_repr

if TYPE_CHECKING:
    from ..kernel import Kernel

HOOK = "pytest_prob_classify_outcome"


def make_run_record(
    kernel: Kernel, item: Any, call: pytest.CallInfo[None], report: pytest.TestReport
) -> dict[str, Any]:
    """The record of the run ``item`` (a ``BenchRun``) whose ``call`` made ``report``:
    classified, given to every ``pytest_prob_run_finished`` implementation, and made
    JSON-able when an extension outside the bundled ones may have added to it."""
    outcome, warning, error = ERROR, None, None
    try:
        answer = item.ihook.pytest_prob_classify_outcome(item=item, call=call) or ERROR
    except (Exception, SystemExit) as exc:  # a third party's bug: the run is an error
        error, problem = "ClassifierError", f"failed in {HOOK}: {describe(exc)}"
    else:
        if isinstance(answer, str) and answer in (PASS, FAIL, ERROR, SKIP):
            outcome = str(answer)  # (a ``str`` subclass such as a ``StrEnum`` member made plain)
        else:
            error = "UnknownOutcome"
            problem = (
                f"returned {short_repr(answer)} from {HOOK}, which is not an outcome "
                "(expected 'pass', 'fail', 'error' or 'skip')"
            )
    if error is not None:
        name = answering_plugin(
            item.config, item.ihook.pytest_prob_classify_outcome, {"item": item, "call": call}
        )
        warning = f"extension {name!r} {problem}: its runs are recorded as errors"
        if kernel.failures.first(name, HOOK):  # warned about once per extension
            kernel.failures.messages.append(warning)  # (the report's warnings too)
            warnings.warn(ProbabilityExtensionWarning(warning), stacklevel=2)
    order = kernel.case_order.get(item.case.key, 0)
    record = make_record(item, call, report, outcome, order, warning, error)
    plan = kernel.plans.plan(item.config, "pytest_prob_run_finished")
    if plan:
        if kernel.foreign_run_data is None:
            found = (impl.plugin_name not in BUNDLED_NAMES for _, _, impl in plan)
            kernel.foreign_run_data = any(found)
        made = dict(record) if kernel.foreign_run_data else {}
        arguments = {"item": item, "record": record}
        failures = call_each(item.config, "pytest_prob_run_finished", arguments, kernel.plans)
        if failures:
            messages = kernel.failures.add("pytest_prob_run_finished", failures)
            record.setdefault("warnings", []).extend(messages)
        for key, value in made.items():  # extensions add fields; a third party's removing
            record.setdefault(key, value)  # one the kernel made cannot break the session
        if kernel.foreign_run_data:  # a third party may have added anything: make it travel
            record = jsonable(record)
    return record
