"""Runs that a verdict decides: the failing and errored runs of a case held to a gate or a
margin are reported to pytest as xfailed, so that only the verdicts decide the exit status
(``-x`` stops on a failing verdict, not on one of its runs). Errored runs too: the verdict
counts them, and a stopped case's exit status must be that of running every run.

Extensions call :func:`decide_runs` at collection for each case a verdict of theirs judges;
the wrapper is registered (as ``probability.decided``) the first time, so sessions without
such a case pay nothing per run. ``--runxfail`` keeps pytest's meaning.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

import pytest

from ..contracts.outcomes import ERROR, FAIL
from ..execution.bus import extract
from .collector import BenchRun

PLUGIN_NAME = "probability.decided"


@dataclass(frozen=True)
class Decision:
    """Why a case's failing runs are xfailed.

    :ivar reason: the xfail reason pytest shows (``gated case: its [gate] verdict decides``).
    :ivar partners: the verdict judges the case only when, besides the case, every case of
        one of these sets is selected too (a comparison margin judges an arm's case only
        with its input's baseline arm); ``None``: whenever the case is selected.
    """

    reason: str
    partners: tuple[frozenset[str], ...] | None = None


class DecidedRuns:
    """Reports the failing runs of decided cases as xfailed (``probability.decided``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        #: case key → the decisions asked for it, in the order they were asked
        self.asked: dict[str, list[Decision]] = {}
        #: case key → the decision that applies (the first reason), settled when collection
        #: is finished
        self.cases: dict[str, Decision] = {}

    def add(self, decision: Decision, key: str) -> None:
        """Let a verdict decide the runs of the case ``key``."""
        decisions = self.asked.setdefault(key, [])
        decisions.append(decision)
        self.cases[key] = decisions[0]

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Keep the decisions whose verdict will judge the case: a margin whose partner
        case ``-k``, ``-m`` or ``--deselect`` left out does not judge it, so its failing
        runs stay failures. Called once after collection (after deselection) in
        collecting processes."""
        selected = {item.case.key for item in session.items if isinstance(item, BenchRun)}
        self.cases = {
            key: settled
            for key, decisions in self.asked.items()
            if (settled := _settle(decisions, selected)) is not None
        }

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Turn a failed or errored run of a decided case into an xfail (unless
        ``--runxfail``). Wraps report creation in the executing process, outside the
        kernel's wrapper (so the run record keeps the real outcome); returns the report."""
        report = yield
        if not report.failed or not isinstance(item, BenchRun):
            return report
        decision = self.cases.get(item.case.key)
        if decision is None or self.config.getoption("runxfail", False):
            return report
        record = extract(report)
        outcome = record["outcome"] if record is not None else None
        if outcome in (FAIL, ERROR):
            report.outcome = "skipped"
            report.wasxfail = decision.reason  # type: ignore[attr-defined]
        return report


def _settle(decisions: list[Decision], selected: set[str]) -> Decision | None:
    """The first of the decisions whose partners are among the ``selected`` case keys."""
    for d in decisions:
        if d.partners is None or any(group <= selected for group in d.partners):
            return d
    return None


def decide_runs(
    config: pytest.Config,
    key: str,
    reason: str,
    *,
    partners: tuple[frozenset[str], ...] | None = None,
) -> None:
    """Let a verdict decide the runs of case ``key``: its failed and errored runs are
    reported as xfailed with ``reason`` — when ``partners`` is given, only if the cases of
    one of those sets are selected too. Call it at collection, in collecting processes (the
    processes that run the case)."""
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if not isinstance(found, DecidedRuns):
        found = DecidedRuns(config)
        config.pluginmanager.register(found, PLUGIN_NAME)
    found.add(Decision(reason, partners), key)
