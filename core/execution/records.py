"""Run records: classifying a run phase and describing it as a JSON-able dict.

The record is built in the executing process and travels to the aggregating process on the
call report (see :mod:`pytest_probability.execution.bus`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

import pytest

from ..collection.cases import BENCH_PREFIX, Case, case_id, function_label
from ..collection.collector import ELAPSED_KEY, STEP_RECORDS_KEY, STEPS_KEY, BenchRun
from ..contracts.outcomes import ERROR, FAIL, PASS, SKIP
from .steps import INVALID_STEP, StepErrored, StepFailed, read_steps, step_record, truncate
from .user_values import UnreadableValue, describe, read_text, safe_str, short_repr

#: The outcome words of a run.
OUTCOMES = (PASS, FAIL, ERROR, SKIP)
#: The ``error`` of a run whose classifier answered with something else.
UNKNOWN_OUTCOME = "UnknownOutcome"
#: The ``error`` of a run whose classifier raised.
CLASSIFIER_FAILED = "ClassifierError"


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
    unknown_outcome: str | None = None,
    unknown_error: str = UNKNOWN_OUTCOME,
) -> dict[str, Any]:
    """The JSON-able record of one run phase (see the JSON report's ``records``).

    An exception whose ``str()`` raises or a step that cannot be read make the run an
    ``error`` naming the problem. ``unknown_outcome`` is the warning about a classifier
    (:func:`unknown_outcome`, :func:`failed_classifier`): the run is then an ``error`` too,
    ``unknown_error`` its error type."""
    case: Case = item.case
    if unknown_outcome is not None:
        outcome = ERROR
    try:
        message, error = _describe(call, outcome)
    except UnreadableValue as exc:
        name = type(call.excinfo.value).__name__ if call.excinfo is not None else "Error"
        outcome, message, error = ERROR, truncate(f"{name}: {exc}"), name
    if unknown_outcome is not None:
        message, error = message or unknown_outcome, error or unknown_error
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
    if unknown_outcome is not None:
        record["warnings"] = [unknown_outcome]
    return record


def _describe(call: pytest.CallInfo[None], outcome: str) -> tuple[str | None, str | None]:
    """The compact message and error type of a run phase; raises
    :class:`~.untrusted.UnreadableValue` when the exception's message cannot be read."""
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


def checked_outcome(outcome: Any) -> str | None:
    """``outcome`` as a plain outcome word when it is one of :data:`OUTCOMES` (a ``str``
    subclass such as a ``StrEnum`` member is made plain), else ``None``."""
    if isinstance(outcome, str) and outcome in OUTCOMES:
        return str(outcome)
    return None


def classifier_of(item: pytest.Item, call: pytest.CallInfo[None]) -> str:
    """The name of the extension whose ``pytest_prob_classify_outcome`` answers for this
    run, or raises (asked again, in pluggy's order, on this rare path only): its plugin name
    as registered, ``"?"`` when none can be found."""
    hook = item.ihook.pytest_prob_classify_outcome
    manager = item.config.pluginmanager
    kwargs = {"item": item, "call": call}
    for impl in reversed(hook.get_hookimpls()):
        if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
            continue
        try:
            if impl.function(*[kwargs[name] for name in impl.argnames]) is None:
                continue
        except Exception:  # (raising is answering)
            pass
        return manager.get_name(impl.plugin) or impl.plugin_name
    return "?"


def failed_classifier(name: str, exc: BaseException) -> str:
    """The warning for a classifier that raised (:func:`~.untrusted.describe` reads the
    exception without trusting its ``str()``)."""
    return (
        f"extension {name!r} failed in pytest_prob_classify_outcome: {describe(exc)}: its "
        "runs are recorded as errors"
    )


def unknown_outcome(name: str, answer: Any) -> str:
    """The warning for a classifier's answer that is not an outcome word."""
    return (
        f"extension {name!r} returned {short_repr(answer)} from pytest_prob_classify_outcome, "
        "which is not an outcome (expected 'pass', 'fail', 'error' or 'skip'): its runs are "
        "recorded as errors"
    )


_RUN_SUFFIX = re.compile(r"\[run(\d+)\]$")


def crash_record(
    nodeid: str, message: str, known: Any, patterns: tuple[str, ...], order: int
) -> dict[str, Any] | None:
    """The record of a run whose process died before reporting it (a pytest-xdist worker
    crash): an ERROR naming the crash, built from the node id and from the case's other runs
    when any arrived (``known``: the case's :class:`~pytest_probability.report.results.CaseResult`
    or ``None``). ``None`` when the node id is not a bench run (a verdict item, a test)."""
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
    base = dict(case=case_id(parts[1], param), label=label, module=path, runs=run, mark={})
    base["order"] = order
    if known is not None and known.records:
        sample = next(iter(known.records.values()))
        base.update({k: sample[k] for k in ("case", "label", "module", "runs", "mark", "order")})
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
