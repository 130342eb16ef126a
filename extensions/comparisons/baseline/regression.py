"""Regression against a baseline: ``--prob-baseline``, ``--prob-margin``, ``[baseline]``
items, and ``--prob-save-baseline``.

Every case is paired with the same case in an earlier report (by node id, else by case id);
each function is then compared with its baseline exactly like an arm with its baseline
(``now − baseline``), and ``--prob-margin`` makes that a non-inferiority gate. Cases only in
one of the two are listed, never compared. Under ``--prob-stop=sequential`` a
``--prob-margin`` of the ``paired`` test is judged on the anytime-valid sequence, and its
cases stop once it is settled (:mod:`..sequential.baseline`, :mod:`..sequential.runtime`).
The section and the saved file are written by :mod:`.report`.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    BenchRun,
    Case,
    CaseResult,
    FunctionCases,
    ReportBuilder,
    Results,
    VerdictItem,
    VerdictRequest,
    claim_output,
    decide_runs,
    first_collector,
    function_key,
    options_of,
    results_of,
    warn_at_selected,
)

from ..axis.items import failing  # one rule for axis and baseline margins
from ..options import PAIRED
from ..registrations import registries_of
from ..registry import Pair, Side
from ..report import render
from ..session import (
    cost_reader,
    hide,
    margin_warning,
    runs_made,
    setting,
    state_of,
    stop_reader,
    test_settings,
)
from ..statistics.engine import Comparison, run_test
from .files import Baseline, BaselineCase, BaselineError, read_baseline
from .options import PLUGIN_NAME

KIND = "baseline"

DEFERRED = "judged at session end"
#: why the failing runs of a case ``--prob-margin`` judges are xfailed
MARGIN_REASON = "case compared with the baseline: its [baseline] verdict decides"


@dataclass
class FunctionRegression:
    """One function against the baseline."""

    comparison: Comparison
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.comparison.to_json(), "new": self.new, "removed": self.removed}


class Regression:
    """The session's baseline comparison (``probability.comparisons.baseline``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        options = options_of(config)
        self.path: str | None = options.session_value("baseline_report")
        self.margin: float | None = options.session_value("baseline_margin")
        self.save_path: str | None = options.session_value("save_baseline")
        self.save_file: str | None = None  # checked now: a path that cannot take it is an error
        if self.save_path is not None:
            target = claim_output(config, "--prob-save-baseline", self.save_path, "the baseline")
            self.save_file = str(target.path)
        self.baseline: Baseline | None = None
        if self.margin is not None and self.path is None:
            raise pytest.UsageError(
                f"--prob-margin={self.margin:g} needs --prob-baseline=PATH (what to compare with)"
            )
        if self.path is not None:
            try:
                self.baseline = read_baseline(self.path)
            except BaselineError as exc:
                raise pytest.UsageError(f"--prob-baseline={exc}") from None
        self.functions: list[FunctionRegression] = []
        self.not_run: list[str] = []
        self.save_error: str | None = None
        self.saved: str | None = None
        self.item_outcomes: dict[str, str] = {}
        #: the baseline's cases by displayed case id (read once, at collection)
        self._by_id: dict[str, BaselineCase] | None = None

    # -- collection -----------------------------------------------------------------------
    def requests(self, function: FunctionCases) -> list[VerdictRequest]:
        """A ``[baseline]`` item for the function when ``--prob-margin`` makes it a gate."""
        if self.baseline is None or self.margin is None:
            return []
        self.decide_runs(function)
        options = options_of(self.config)
        if "gate_items" in options.specs and not options.session_value("gate_items"):
            return []  # --prob-no-gate-items: the verdicts still set the exit status
        rule = render.rule_cell(self.margin, False)
        return [VerdictRequest(KIND, self.judge_item, f"baseline: now − baseline {rule}")]

    def decide_runs(self, function: FunctionCases) -> None:
        """``--prob-margin`` makes the comparison a gate: the failing runs of the function's
        cases that pair with a case of the baseline are reported as xfailed, like a gated
        case's, so that the ``[baseline]`` verdict decides the exit status."""
        for case in function.cases:
            if self.old_case(case) is not None:
                decide_runs(self.config, case.key, MARGIN_REASON)

    def old_case(self, case: Case) -> BaselineCase | None:
        """The baseline's case a collected case pairs with (by node id, else by case id),
        when it ran; ``None`` otherwise."""
        assert self.baseline is not None
        if self._by_id is None:
            self._by_id = self.baseline.by_case_id()
        old = (
            self.baseline.cases.get(case.key)
            or self._by_id.get(case.case_id)
            or self._by_id.get(f"{case.module}::{case.case_id}")
        )
        return old if old is not None and old.total > 0 else None

    def monitors(self, mark: Any) -> bool:
        """Whether a function with this mark is judged on the anytime-valid sequence: a
        ``--prob-margin`` with ``--prob-stop=sequential`` and the ``paired`` test
        (:mod:`..sequential.baseline`)."""
        from ..sequential.outcome import monitored

        return (
            self.baseline is not None and self.margin is not None and monitored(self.config, mark)
        )

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Warn, at each bench function, when ``--prob-margin`` cannot pass because the
        function's selected cases pair with 2 to ``prob_min_inputs − 1`` cases of the
        baseline (no interval: the verdict is always UNDECIDED).

        Called once after collection (after deselection) in collecting processes; under
        pytest-xdist only the first worker warns. Returns nothing.
        """
        if self.baseline is None or self.margin is None or not first_collector(self.config):
            return
        cases: dict[str, Case] = {}
        for item in session.items:
            if isinstance(item, BenchRun):
                cases.setdefault(item.case.key, item.case)
        by_function: dict[str, list[Case]] = {}
        for case in cases.values():
            by_function.setdefault(function_key(case), []).append(case)
        seen: dict[str, int] = {}
        for case in cases.values():
            seen[case.case_id] = seen.get(case.case_id, 0) + 1
        options = options_of(self.config)
        min_inputs = setting(self.config, "min_inputs")
        rule = f"{options.specs['baseline_margin'].cli}={self.margin:g}"
        pending: dict[str, list[Warning]] = {}
        for key, members in by_function.items():
            if options.case_value("compare_test", members[0].mark) != PAIRED:
                continue  # another test may have an interval with few inputs
            if self.monitors(members[0].mark):
                continue  # (the sequence has an interval with any number of inputs)
            shown = [
                f"{case.module}::{case.case_id}" if seen[case.case_id] > 1 else case.case_id
                for case in members
            ]
            paired = self.paired_count(members, shown)
            if 2 <= paired < min_inputs:
                name = f"{members[0].label} now − baseline"
                pending[key] = [margin_warning(name, paired, rule, min_inputs)]
        warn_at_selected(session, pending, function_key)

    def paired_count(self, cases: list[Case], shown: list[str]) -> int:
        """How many of a function's ``cases`` (displayed as ``shown``) pair with a case of
        the baseline that ran, the way :meth:`compare` pairs them."""
        assert self.baseline is not None
        by_key = self.baseline.cases
        by_id = self.baseline.by_case_id()
        used: set[str] = set()
        for case, display in zip(cases, shown, strict=True):
            old = by_key.get(case.key) or by_id.get(display)
            if old is not None and old.total > 0 and old.key not in used:
                used.add(old.key)
        return len(used)

    def judge_item(self, item: VerdictItem) -> None:
        """A ``[baseline]`` item's body: judge the function from this process's runs."""
        results = results_of(self.config)
        # the runs the session selected (all, unless --deselect/-k kept only some of them)
        here, total = item.selected_runs_here(results)
        if here < total:
            pytest.skip(
                f"{DEFERRED}: this process ran {here} of the function's {total} selected runs "
                "(under pytest-xdist, the default -n scheduling keeps a function on one worker)"
            )
        selected = item.selected_run_numbers()
        cases = [c for key in selected if (c := results.get(key)) is not None]
        found, _ = self.compare(cases)
        if not found or found[0].comparison.verdict is None:
            pytest.skip("no case of the function is in the baseline: there is nothing to judge")
        comparison = found[0].comparison
        cells = render.comparison_cells(comparison, comparison.label, "now − baseline")
        line = "  ".join(cell for cell in cells if cell)
        item.user_properties.extend(render.comparison_properties(comparison, line))
        if failing(comparison, self.config):
            raise AssertionError(line)

    # -- comparing ------------------------------------------------------------------------
    def compare(self, cases: list[CaseResult]) -> tuple[list[FunctionRegression], list[str]]:
        """Each function of ``cases`` against the baseline, and the baseline cases of
        functions that did not run. A function whose cases are all new is still listed."""
        assert self.baseline is not None
        by_key = self.baseline.cases
        by_id = self.baseline.by_case_id()
        functions: dict[tuple[str, str], list[CaseResult]] = {}
        for case in cases:
            if case.total > 0:
                functions.setdefault((case.module, case.label), []).append(case)
        used: set[str] = set()
        cost_of = cost_reader(self.config)
        is_stopped = stop_reader(self.config)
        found: dict[tuple[str, str], FunctionRegression] = {}
        state = state_of(self.config)
        for (module, label), members in functions.items():
            pairs: list[Pair] = []
            new: list[str] = []
            stopped = 0  # paired cases stopped early: what they compute is hidden
            sequenced = self.monitors(members[0].mark)
            olds: list[tuple[CaseResult, BaselineCase, str]] = []  # (for the sequence)
            for case in members:
                shown = case.display or case.case_id
                old = by_key.get(case.key) or by_id.get(shown)
                if old is None or old.total == 0 or old.key in used:
                    new.append(shown)
                    continue
                used.add(old.key)
                now = Side(case.key, case.passes, case.total, cost_of(case), runs_made(case))
                then = Side(old.key, old.passes, old.total, old.cost, old.total)
                pairs.append(Pair(shown, now, then))
                stopped += is_stopped(case)
                olds.append((case, old, shown))
            mark = members[0].mark
            settings = test_settings(self.config, mark)
            comparison = Comparison(
                function=f"{module}::bench_{label}",
                label=label,
                axis="baseline",
                arm="now",
                baseline="baseline",
                pairs=pairs,
                unpaired=[],
                test=options_of(self.config).case_value("compare_test", mark),
                level=settings.level,
                margin=self.margin,
            )
            try:
                if sequenced and pairs:  # monitored on its sequence: never hidden
                    from ..sequential.baseline import judge_on_sequence

                    judge_on_sequence(self.config, comparison, olds, settings.level)
                    stopped = 0
                else:
                    tests = registries_of(self.config).tests()
                    run_test(comparison, tests.get(comparison.test), settings)
            except Exception as exc:
                comparison.error = f"{type(exc).__name__}: {exc}"
                state.warn_once(
                    f"test:{comparison.test}",
                    f"comparison test {comparison.test!r} failed: {comparison.error}",
                )
            if stopped and comparison.outcome is not None:
                hide(comparison, stopped)
            comparison.judge()
            found[(module, label)] = FunctionRegression(comparison, new)
        not_run: list[str] = []
        for old in self.baseline.cases.values():
            if old.key in used:
                continue
            owner = _owner(found, old)
            if owner is not None:
                owner.removed.append(old.case)
            else:
                not_run.append(old.case)
        return list(found.values()), not_run

    def finish(self, results: Results) -> None:
        """Compare the whole session and save a baseline (aggregating process, at session
        end)."""
        if self.baseline is not None:
            self.functions, self.not_run = self.compare(list(results.cases()))
        if self.save_path is not None:
            self.save(results)

    def save(self, results: Results) -> None:
        """Write this session's baseline (:func:`.report.save_baseline`)."""
        from .report import save_baseline

        save_baseline(self, results)

    # -- hooks ----------------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep how each ``[baseline]`` item ended. Called for every report; returns
        nothing."""
        if f"[{KIND}]" not in report.nodeid or hasattr(self.config, "workerinput"):
            return
        if report.when == "call" or not report.passed:
            deferred = report.skipped and DEFERRED in str(report.longrepr)
            self.item_outcomes[report.nodeid] = "deferred" if deferred else report.outcome

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Compare with the baseline and save one; a failing ``--prob-margin`` verdict fails
        the session. Called once at the end, before the report, in the aggregating process
        only; returns nothing."""
        if hasattr(self.config, "workerinput"):
            return
        self.finish(results_of(self.config))
        failed = any(failing(f.comparison, self.config) for f in self.functions)
        if (failed or self.save_error) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_prob_build_report(
        self, report: ReportBuilder, results: Results, config: pytest.Config
    ) -> None:
        """Contribute the ``probability: baseline`` section and the ``baseline`` JSON object.
        Called once in the aggregating process; returns nothing."""
        self.contribute(report)

    # -- report ---------------------------------------------------------------------------
    def contribute(self, report: ReportBuilder) -> None:
        """The section and the JSON object (:func:`.report.contribute`)."""
        from .report import contribute

        contribute(self, report)


def _owner(
    found: dict[tuple[str, str], FunctionRegression], old: BaselineCase
) -> FunctionRegression | None:
    """The function that ran and owns an unpaired baseline case: by file and label, or by
    label alone (when one function has it) for a case whose row had no node id."""
    if old.module is not None:
        return found.get((old.module, old.label))
    owners = [function for (_, label), function in found.items() if label == old.label]
    return owners[0] if len(owners) == 1 else None


def regression_of(config: pytest.Config) -> Regression | None:
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    return found if isinstance(found, Regression) else None


def requests(config: pytest.Config, function: FunctionCases) -> list[VerdictRequest]:
    """The ``[baseline]`` verdict requests of a function (none without a regression)."""
    found = regression_of(config)
    return found.requests(function) if found is not None else []


def configure(config: pytest.Config) -> None:
    """Register the regression plugin when ``--prob-baseline``, ``--prob-margin`` or
    ``--prob-save-baseline`` is given (reading the baseline now: a bad one is a usage
    error before anything runs)."""
    options = options_of(config)
    wanted = any(
        options.session_value(name) is not None
        for name in ("baseline_report", "baseline_margin", "save_baseline")
    )
    if wanted and regression_of(config) is None:
        config.pluginmanager.register(Regression(config), PLUGIN_NAME)
