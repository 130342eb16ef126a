"""Run records: classifying a run phase and describing it as a JSON-able dict.

The record is built in the executing process and travels to the aggregating process on the
call report (see :mod:`pytest_probability.bus`).
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

import pytest

from .cases import BENCH_PREFIX, Case, case_id, function_label
from .collect import ELAPSED_KEY, STEPS_KEY, BenchRun
from .results import ERROR, FAIL, PASS, SKIP
from .steps import StepErrored, StepFailed, step_to_json, truncate


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
    message = str(getattr(value, "msg", "") or "")
    return message.startswith("Timeout") and "pytest-timeout" in message


def make_record(
    item: BenchRun,
    call: pytest.CallInfo[None],
    report: pytest.TestReport,
    outcome: str,
    order: int,
) -> dict[str, Any]:
    """The JSON-able record of one run phase (see the JSON report's ``records``)."""
    case: Case = item.case
    message, error = _describe(call, outcome)
    elapsed = item.stash.get(ELAPSED_KEY, None) if call.when == "call" else None
    raw_steps = item.stash.get(STEPS_KEY, []) if call.when == "call" else []
    steps = [step_to_json(s) for s in raw_steps]
    from_steps = call.excinfo is not None and isinstance(
        call.excinfo.value, (StepFailed, StepErrored)
    )
    if outcome != SKIP and not from_steps and (not steps or outcome != PASS):
        # no steps, or the body raised after its steps: the exception is a step of its own
        steps += [
            {
                "label": case.label,
                "passed": outcome == PASS,
                "elapsed": elapsed,
                "error": error if outcome == ERROR else None,
                "message": message,
            }
        ]
    worker = getattr(item.config, "workerinput", {}).get("workerid")
    return {
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


def _describe(call: pytest.CallInfo[None], outcome: str) -> tuple[str | None, str | None]:
    """The compact message and error type of a run phase."""
    excinfo = call.excinfo
    if excinfo is None:
        return None, None
    value = excinfo.value
    if outcome == SKIP:
        return truncate(str(getattr(value, "msg", value))), None
    if isinstance(value, pytest.fail.Exception):
        return truncate(str(value.msg)), "Timeout" if outcome == ERROR else None
    if isinstance(value, StepErrored):
        return truncate(str(value)), value.error
    if outcome == FAIL:
        text = str(value)
        return truncate(text or type(value).__name__), None
    name = type(value).__name__
    text = str(value)
    return truncate(f"{name}: {text}" if text else name), name


_RUN_SUFFIX = re.compile(r"\[run(\d+)\]$")


def crash_record(
    nodeid: str, message: str, known: Any, patterns: tuple[str, ...], order: int
) -> dict[str, Any] | None:
    """The record of a run whose process died before reporting it (a pytest-xdist worker
    crash): an ERROR naming the crash, built from the node id and from the case's other runs
    when any arrived (``known``: the case's :class:`~pytest_probability.results.CaseResult`
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
    base = {
        "case": case_id(parts[1], param),
        "label": label,
        "module": path,
        "runs": run,
        "mark": {},
        "order": order,
    }
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
        "steps": [
            {
                "label": label,
                "passed": False,
                "elapsed": None,
                "error": "WorkerCrashed",
                "message": truncate(message),
            }
        ],
        "key": key,
    }
