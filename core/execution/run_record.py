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

from ..contracts.outcomes import ERROR
from ..loader import BUNDLED_NAMES
from ..report.json_report import jsonable
from ..report.safe_calls import ProbabilityExtensionWarning, call_each
from .records import (
    CLASSIFIER_FAILED,
    UNKNOWN_OUTCOME,
    checked_outcome,
    classifier_of,
    failed_classifier,
    make_record,
    unknown_outcome,
)

if TYPE_CHECKING:
    from ..kernel import Kernel


def make_run_record(
    kernel: Kernel, item: Any, call: pytest.CallInfo[None], report: pytest.TestReport
) -> dict[str, Any]:
    """The record of the run ``item`` (a ``BenchRun``) whose ``call`` made ``report``:
    classified, given to every ``pytest_prob_run_finished`` implementation, and made
    JSON-able when an extension outside the bundled ones may have added to it."""
    unknown_error = UNKNOWN_OUTCOME
    try:
        answer = item.ihook.pytest_prob_classify_outcome(item=item, call=call) or ERROR
    except Exception as exc:  # a third party's bug: the run is an error, not the session
        outcome, unknown_error = None, CLASSIFIER_FAILED
        unknown = _warn_classifier(kernel, classifier_of(item, call), failed_classifier, exc)
    else:
        outcome = checked_outcome(answer)
        unknown = None
        if outcome is None:
            name = classifier_of(item, call)
            unknown = _warn_classifier(kernel, name, unknown_outcome, answer)
    order = kernel.case_order.get(item.case.key, 0)
    record = make_record(item, call, report, outcome or ERROR, order, unknown, unknown_error)
    plan = kernel.plans.plan(item.config, "pytest_prob_run_finished")
    if plan:
        arguments = {"item": item, "record": record}
        failures = call_each(item.config, "pytest_prob_run_finished", arguments, kernel.plans)
        if failures:
            messages = kernel.failures.add("pytest_prob_run_finished", failures)
            record.setdefault("warnings", []).extend(messages)
        if kernel.foreign_run_data is None:
            found = (impl.plugin_name not in BUNDLED_NAMES for _, _, impl in plan)
            kernel.foreign_run_data = any(found)
        if kernel.foreign_run_data:  # a third party may have added anything: make it travel
            record = jsonable(record)
    return record


def _warn_classifier(kernel: Kernel, name: str, describe: Any, detail: Any) -> str:
    """The message for a classifier's answer that is not an outcome word, or for a
    classifier that raised; warned about once per extension
    (:class:`~pytest_probability.report.safe_calls.ProbabilityExtensionWarning`) and listed in the
    report's warnings."""
    message: str = describe(name, detail)
    if kernel.failures.first(name, "pytest_prob_classify_outcome"):
        kernel.failures.messages.append(message)  # (the report's warnings too)
        warnings.warn(ProbabilityExtensionWarning(message), stacklevel=3)
    return message
