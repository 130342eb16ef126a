"""Run records: classifying a run phase and describing it as a JSON-able dict.

The record is built in the executing process and travels to the aggregating process on the
call report (see :mod:`pytest_probability.execution.bus`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import Any

import pytest

from ..collection.cases import BENCH_PREFIX, Case, case_id, function_label
from ..collection.collector import ELAPSED_KEY, STEP_RECORDS_KEY, STEPS_KEY, BenchRun
from ..contracts.outcomes import ERROR, FAIL, PASS, SKIP
from .steps import INVALID_STEP, StepErrored, StepFailed, read_steps, step_record, truncate
from .user_values import UnreadableValue, read_text, safe_str


def default_classify(call: pytest.CallInfo[None]) -> str:
    """pass / fail / error / skip from a phase's exception (the kernel's default)."""
    excinfo = call.excinfo
    if excinfo is None:
        return PASS
    value = excinfo.value
    if isinstance(value, pytest.skip.Exception):
        return SKIP
    if isinstance(value, pytest.fail.Exception) and _is_timeout(value):
        return ERROR  # pytest-timeout: the run did not finish, it did not fail a check
    if isinstance(value, (AssertionError, pytest.fail.Exception)):
        return FAIL if call.when == "call" else ERROR
    return ERROR


def _is_timeout(value: BaseException) -> bool:
    """pytest-timeout's ``pytest.fail("Timeout (>1.0s) from pytest-timeout.")``."""
    message = safe_str(getattr(value, "msg", "") or "")
    return message.startswith("Timeout") and "pytest-timeout" in message


def make_record(
    item: BenchRun,
    call: pytest.CallInfo[None],
    report: pytest.TestReport,
    outcome: str,
    order: int,
    warning: str | None = None,
    warning_error: str | None = None,
) -> dict[str, Any]:
    """The JSON-able record of one run phase (see the JSON report's ``records``).

    An exception whose ``str()`` raises or a step that cannot be read make the run an
    ``error`` naming the problem. ``warning`` is the warning about a classifier that failed
    (the run's ``outcome`` is then ``error``), ``warning_error`` its error type."""
    case: Case = item.case
    try:
        message, error = _describe(call, outcome)
    except UnreadableValue as exc:
        name = type(call.excinfo.value).__name__ if call.excinfo is not None else "Error"
        outcome, message, error = ERROR, truncate(f"{name}: {exc}"), name
    if warning is not None:
        message, error = message or warning, error or warning_error
    elapsed = item.stash.get(ELAPSED_KEY, None) if call.when == "call" else None
    steps: list[dict[str, Any]] = []
    if call.when == "call":
        read = item.stash.get(STEP_RECORDS_KEY, None)
        if read is None:  # the body raised: its steps were not read yet
            read, problem = read_steps(item.stash.get(STEPS_KEY, []))
            if problem is not None and outcome != SKIP:
                outcome, error = ERROR, error or INVALID_STEP
        steps = list(read)
    from_steps = isinstance(getattr(call.excinfo, "value", None), (StepFailed, StepErrored))
    if outcome != SKIP and not from_steps and (not steps or outcome != PASS):
        # no steps, or the body raised after its steps: the exception is a step of its own
        failed = error if outcome == ERROR else None
        steps.append(step_record(case.label, outcome == PASS, elapsed, failed, message))
    worker = getattr(item.config, "workerinput", {}).get("workerid")
    record = {
        "case": case.case_id,
        "label": case.label,
        "run": item.run,
        "nodeid": item.nodeid,
        "outcome": outcome,
        "phase": call.when,
        "elapsed": elapsed,
        "message": message,
        "error": error,
        "xfail": hasattr(report, "wasxfail"),
        "worker": worker,
        "steps": steps,
        "key": case.key,
        "order": order,
        "runs": case.runs,
        "module": case.module,
        "mark": case.mark,  # shared by the case's runs; read-only
    }
    if warning is not None:
        record["warnings"] = [warning]
    return record


def _describe(call: pytest.CallInfo[None], outcome: str) -> tuple[str | None, str | None]:
    """The compact message and error type of a run phase; raises
    :class:`~.user_values.UnreadableValue` when the exception's message cannot be read."""
    excinfo = call.excinfo
    if excinfo is None:
        return None, None
    value = excinfo.value
    what = "its message"
    if outcome == SKIP:
        return truncate(read_text(getattr(value, "msg", value), what)), None
    if isinstance(value, pytest.fail.Exception):
        return truncate(read_text(value.msg, what)), "Timeout" if outcome == ERROR else None
    if isinstance(value, StepErrored):
        return truncate(read_text(value, what)), value.error
    name = type(value).__name__
    text = read_text(value, what)
    if outcome == FAIL:
        return truncate(text or name), None
    return truncate(f"{name}: {text}" if text else name), name


_RUN_SUFFIX = re.compile(r"\[run(\d+)\]$")


def crash_record_of(
    report: Any, results: Any, patterns: tuple[str, ...], collected: Sequence[str]
) -> dict[str, Any] | None:
    """:func:`crash_record` for pytest-xdist's report of an item whose worker died
    (``results``: the session's :class:`~pytest_probability.report.results.Results`)."""
    known = results.get(report.nodeid.rsplit("[run", 1)[0])
    return crash_record(
        report.nodeid, str(report.longrepr), known, patterns, len(results), collected
    )


def crash_record(
    nodeid: str,
    message: str,
    known: Any,
    patterns: tuple[str, ...],
    order: int,
    collected: Sequence[str] = (),
) -> dict[str, Any] | None:
    """The record of a run whose process died before reporting it (a pytest-xdist worker
    crash): an ERROR naming the crash, built from the node id and from the case's other runs
    when any arrived (``known``: the case's :class:`~pytest_probability.report.results.CaseResult`
    or ``None``; else its planned runs are counted in the ``collected`` node ids). ``None``
    when the node id is not a bench run (a verdict item, a test)."""
    path = nodeid.split("::", 1)[0]
    if not any(fnmatch.fnmatch(path.rsplit("/", 1)[-1], p) for p in patterns):
        return None
    match = _RUN_SUFFIX.search(nodeid)
    tail = nodeid.rsplit("[", 1)[-1].rstrip("]") if nodeid.endswith("]") else ""
    if match is None and tail.split(":", 1)[0] in ("gate", "compare", "baseline"):
        return None  # a verdict item, not a run
    run = int(match.group(1)) if match else 1
    key = nodeid[: match.start()] if match else nodeid
    parts = key.split("::")
    if len(parts) < 2 or not parts[1].startswith(BENCH_PREFIX):
        return None
    label = function_label(parts[1])
    param = parts[2] if len(parts) > 2 else None
    planned = sum(1 for other in collected if other.startswith(f"{key}[run"))
    runs = max(run, planned)
    base = dict(case=case_id(parts[1], param), label=label, module=path, runs=runs, mark={})
    base["order"] = order
    if known is not None and known.records:  # the case's own fields, as its runs have them
        sample = next(iter(known.records.values()))
        base.update({k: sample[k] for k in base})
    return {
        **base,
        "run": run,
        "nodeid": nodeid,
        "outcome": ERROR,
        "phase": "call",
        "elapsed": None,
        "message": truncate(message),
        "error": "WorkerCrashed",
        "xfail": False,
        "worker": None,
        "steps": [step_record(label, False, None, "WorkerCrashed", truncate(message))],
        "key": key,
    }
