"""The plugin that adds the gate kind ``max_errors``: a case fails when more of its runs
errored than ``--example-max-errors`` allows.

A rate gate with ``prob_errors = exclude`` judges only the runs that got through, so a case
that errors half the time can pass it; this kind closes that hole. Registered by
:mod:`.plugin` as ``probability.example.gate`` only in a session that sets the limit, so that
the others never fill the registry of gate kinds early on its account.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_probability.api import FAIL, PASS, GateResult, option_value

from .settings import MAX_ERRORS

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import CaseResult, RegisterGate

#: the gate kind's name (``rows[].gate.checks[].kind`` in the JSON report)
KIND = "max_errors"


def pytest_prob_register_gates(register: RegisterGate, config: pytest.Config) -> None:
    """Register the gate kind ``max_errors``.

    Called by the ``gates`` extension through its historic hook, once per session and
    process (the only one, the xdist controller and each worker): when gate kinds are first
    needed (the first bench case collected; in the xdist controller, the end of the session),
    or as soon as this plugin is registered if they were needed already. Returns nothing.
    """
    register(
        KIND,
        configure=configure,
        judge=judge,
        describe=describe,
        decides_runs=False,  # errors only: a failing assert still fails its run
        render=render,
    )


def configure(mark: Mapping[str, Any], config: pytest.Config) -> int | None:
    """The gate of one case: the session's limit (``None`` would mean no gate).

    ``mark`` holds the case's ``probability(...)`` mark arguments; this kind has no mark key:
    a mark key would be listed among the valid ones in every session, asked for or not."""
    limit: int | None = option_value(config, MAX_ERRORS)
    return limit


def judge(limit: int, case: CaseResult, config: pytest.Config) -> GateResult:
    """FAIL when more than ``limit`` of the case's runs errored, else PASS."""
    verdict = FAIL if case.errors > limit else PASS
    line = f"{case.errors} errored of {case.total}  ≤{limit}  {verdict.upper()}"
    return GateResult(KIND, verdict, line, {"max_errors": limit, "errors": case.errors})


def describe(limit: int) -> str:
    """The rule as the user wrote it, for the gates' warnings and notes."""
    return f"--example-max-errors={limit}"


def render(rows: list[tuple[str, GateResult]]) -> list[str]:
    """The kind's lines of the ``probability: gates`` section, case ids aligned:
    ``  api::us  3 errored of 20  ≤1  FAIL``."""
    width = max(len(case_id) for case_id, _ in rows)
    return [f"  {case_id.ljust(width)}  {result.line}" for case_id, result in rows]
