"""Regression against a baseline: ``--prob-baseline``, ``--prob-margin``, ``[baseline]``
items, the ``probability: baseline`` section and JSON object, and ``--prob-save-baseline``.

Every case is paired with the same case in an earlier report (by node id, else by case id);
each function is then compared with its baseline like an arm with its baseline arm
(``now − baseline``), and ``--prob-margin`` makes that a non-inferiority gate, judged under
``--prob-stop=sequential`` (with the ``paired`` test) on the anytime-valid sequence. Cases
only in one of the two are listed, never compared.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import collections
import datetime
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    BenchRun,
    Case,
    CaseResult,
    CaseWarning,
    FunctionCases,
    ReportBuilder,
    Results,
    VerdictItem,
    VerdictRequest,
    claim_output,
    decide_runs,
    first_collector,
    function_key,
    note_written,
    options_of,
    plugin_version,
    results_of,
    warn_by_cause,
    write_failure,
)

from ..axis.collection import deferred_items, failing, gate_items, judge_line, judged_cases
from ..options import PAIRED, REGRESSION, tests_of
from ..registry import Pair, Side
from ..report import render
from ..sequential import outcome as sequential
from ..session import (
    compute,
    cost_reader,
    hide,
    margin_warning,
    setting,
    side_of,
    stop_reader,
    test_settings,
)
from ..statistics.engine import Comparison, cost_ratio, run_test
from .files import Baseline, BaselineCase, BaselineError, read_baseline, write_baseline_toml

KIND = "baseline"
#: why the failing runs of a case ``--prob-margin`` judges are xfailed
MARGIN_REASON = "case compared with the baseline: its [baseline] verdict decides"
#: the section's place among the report's sections
SECTION_ORDER = 130


@dataclass
class FunctionRegression:
    comparison: Comparison
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.comparison.to_json(), "new": self.new, "removed": self.removed}


class Regression:
    """Registered as ``probability.comparisons.baseline`` when one of its options is given."""

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
        #: the baseline's cases by displayed case id (read once, at collection)
        self._by_id: dict[str, BaselineCase] | None = None

    @property
    def gates(self) -> bool:
        return self.baseline is not None and self.margin is not None

    # -- collection -----------------------------------------------------------------------
    def requests(self, function: FunctionCases) -> list[VerdictRequest]:
        """A ``[baseline]`` item when ``--prob-margin`` makes the function a gate; the failing
        runs of its cases that pair with a baseline case are then xfailed, like a gated case's."""
        if not self.gates:
            return []
        for case in function.cases:
            if self.old_case(case) is not None:
                decide_runs(self.config, case.key, MARGIN_REASON)
        if not gate_items(self.config):
            return []
        rule = render.rule_cell(self.margin, False)
        return [VerdictRequest(KIND, self.judge_item, f"baseline: now − baseline {rule}")]

    def old_case(self, case: Case) -> BaselineCase | None:
        """The baseline case a collected case pairs with (by node id, else by case id), when
        it ran."""
        if self._by_id is None:
            self._by_id = self.baseline.by_case_id()
        old = (
            self.baseline.cases.get(case.key)
            or self._by_id.get(case.case_id)
            or self._by_id.get(f"{case.module}::{case.case_id}")
        )
        return old if old is not None and old.total > 0 else None

    def monitors(self, mark: Any) -> bool:
        """Whether a function with this mark is judged on the anytime-valid sequence."""
        return self.gates and sequential.monitored(self.config, mark)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Warn, at each bench function, when ``--prob-margin`` cannot pass because its
        selected cases pair with 2 to ``prob_min_inputs − 1`` baseline cases (no interval: always
        UNDECIDED). Called once after collection (after deselection) in collecting processes;
        under pytest-xdist only the first worker warns."""
        if not self.gates or not first_collector(self.config):
            return
        cases = {item.case.key: item.case for item in session.items if isinstance(item, BenchRun)}
        by_function: dict[str, list[Case]] = {}
        for case in cases.values():
            by_function.setdefault(function_key(case), []).append(case)
        seen = collections.Counter(case.case_id for case in cases.values())
        options = options_of(self.config)
        min_inputs = setting(self.config, "min_inputs")
        rule = f"{options.specs['baseline_margin'].cli}={self.margin:g}"
        by_key, by_id = self.baseline.cases, self.baseline.by_case_id()
        pending: dict[str, list[CaseWarning]] = {}
        for key, members in by_function.items():
            if options.case_value("compare_test", members[0].mark) != PAIRED:
                continue  # another test may have an interval with few inputs
            if self.monitors(members[0].mark):
                continue  # (the sequence has an interval with any number of inputs)
            used: set[str] = set()  # the baseline cases they pair with, as compare pairs them
            for case in members:
                shown = f"{case.module}::{case.case_id}" if seen[case.case_id] > 1 else case.case_id
                old = by_key.get(case.key) or by_id.get(shown)
                if old is not None and old.total > 0:
                    used.add(old.key)
            if 2 <= len(used) < min_inputs:
                name = f"{members[0].label} now − baseline"
                cause = options.source("baseline_margin")
                pending[key] = [margin_warning(name, len(used), rule, min_inputs, cause)]
        warn_by_cause(session, pending, function_key)

    def judge_item(self, item: VerdictItem) -> None:
        """A ``[baseline]`` item's body."""
        found, _ = self.compare(judged_cases(item))
        if not found or found[0].comparison.verdict is None:
            pytest.skip("no case of the function is in the baseline: there is nothing to judge")
        comparison = found[0].comparison
        judge_line(item, comparison, comparison.label, "now − baseline")

    # -- comparing ------------------------------------------------------------------------
    def compare(self, cases: list[CaseResult]) -> tuple[list[FunctionRegression], list[str]]:
        """Each function of ``cases`` against the baseline (a function whose cases are all new
        is still listed), and the baseline cases of functions that did not run."""
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
        for (module, label), members in functions.items():
            pairs: list[Pair] = []
            new: list[str] = []
            stopped = 0  # paired cases stopped early: what they compute is hidden
            olds: list[tuple[CaseResult, BaselineCase, str]] = []  # (for the sequence)
            for case in members:
                shown = case.display or case.case_id
                old = by_key.get(case.key) or by_id.get(shown)
                if old is None or old.total == 0 or old.key in used:
                    new.append(shown)
                    continue
                used.add(old.key)
                then = Side(old.key, old.passes, old.total, old.cost, old.total)
                pairs.append(Pair(shown, side_of(case, cost_of), then))
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
            key, what = f"test:{comparison.test}", f"comparison test {comparison.test!r}"
            if self.monitors(mark) and pairs:  # monitored on its sequence: never hidden
                compute(self.config, key, what, self.judge_on_sequence, comparison, olds)
                stopped = 0
            else:
                test = tests_of(self.config).get(comparison.test)
                compute(self.config, key, what, run_test, comparison, test, settings)
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

    def judge_on_sequence(
        self, comparison: Comparison, olds: list[tuple[CaseResult, BaselineCase, str]]
    ) -> None:
        """The sequence's outcome at the look it settled at, over the paired cases ``olds``
        (``(case, baseline case, shown id)``) in case-key order, the order the stopper read."""
        seed = setting(self.config, "seed")
        inputs = [
            sequential.paired_with_baseline(
                shown,
                case.records,
                case.planned,
                sequential.baseline_runs(old.key, old.passes, old.total, seed),
            )
            for case, old, shown in sorted(olds, key=lambda found: found[0].key)
        ]
        comparison.cost_ratio = cost_ratio(comparison.pairs)
        chosen = sequential.resolution(self.config)
        comparison.outcome = sequential.sequence_outcome(
            inputs,
            comparison.level,
            comparison.margin,
            False,
            chosen,
            sequential.design(self.config),
        )
        comparison.read = sequential.read_pairs(comparison.pairs, inputs, comparison.outcome)

    # -- hooks ----------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Compare with the baseline and save one; a failing ``--prob-margin`` verdict fails
        the session. Called once at the end, before the report, in the aggregating process only."""
        if hasattr(self.config, "workerinput"):
            return
        results = results_of(self.config)
        if self.baseline is not None:
            self.functions, self.not_run = self.compare(list(results.cases()))
        if self.save_path is not None:
            self.save(results)
        failed = any(failing(f.comparison, self.config) for f in self.functions)
        if (failed or self.save_error) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_prob_build_report(
        self, report: ReportBuilder, results: Results, config: pytest.Config
    ) -> None:
        """Contribute the ``probability: baseline`` section and the ``baseline`` JSON object.
        Called once in the aggregating process."""
        lines: list[str] = []
        if self.baseline is not None:
            rows = [
                render.comparison_cells(f.comparison, f.comparison.label, "now − baseline")
                for f in self.functions
            ]
            for line, function in zip(render.align(rows), self.functions, strict=True):
                lines.append(line)
                lines.extend(render.detail_lines(function.comparison))
                if function.new:
                    lines.append(f"      new (not compared): {', '.join(function.new)}")
                if function.removed:
                    lines.append(f"      removed (not compared): {', '.join(function.removed)}")
            if self.not_run:
                lines.append(
                    f"  {len(self.not_run)} baseline case(s) of functions that did not run: "
                    f"{', '.join(self.not_run)}"
                )
            deferred = deferred_items(self.config, f"[{KIND}]")
            if deferred:
                lines.append(
                    f"  {deferred} baseline item(s) skipped and judged at session end: their "
                    "runs ran in several processes (keep each function on one worker)"
                )
            report.set_json(
                "baseline",
                {
                    "path": self.baseline.path,
                    "format": self.baseline.format,
                    "margin": self.margin,
                    "settings": self.baseline.settings,
                    "functions": [f.to_json() for f in self.functions],
                    "not_run": self.not_run,
                },
            )
        if self.saved is not None:
            lines.append(f"  saved this session's baseline to {self.saved}")
        if self.save_error is not None:
            lines.append(f"  ERROR: {self.save_error}")
            report.warn(self.save_error)
        if lines:
            report.add_section("baseline", lines, order=SECTION_ORDER)

    def save(self, results: Results) -> None:
        """Write ``--prob-save-baseline``'s TOML baseline; a failure is an error line naming
        the file."""
        cost_of = cost_reader(self.config)
        cases = [
            BaselineCase(
                key=case.key,
                case=case.display or case.case_id,
                label=case.label,
                passes=case.passes,
                fails=case.fails,
                errors=case.errors,
                total=case.total,
                cost=cost_of(case),
            )
            for case in results.cases()
        ]
        options = options_of(self.config)
        settings = {
            "runs": options.session_value("runs"),
            "confidence": setting(self.config, "confidence"),
            "seed": setting(self.config, "seed"),
            "plugin_version": plugin_version,
            "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        if "method" in options.specs:
            settings["method"] = options.session_value("method")
        try:
            write_baseline_toml(self.save_file, cases, settings)
            self.saved = self.save_path
            note_written(self.config, "baseline", str(self.save_path), self.save_file)
        except OSError as exc:  # (its message names the file)
            self.save_error = f"--prob-save-baseline={self.save_path}: {exc}"
        except Exception as exc:  # any failure is one error line naming the file
            reason = write_failure("the baseline", self.save_file, exc)
            self.save_error = f"--prob-save-baseline={self.save_path}: {reason}"


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
    found = config.pluginmanager.get_plugin(REGRESSION)
    return found if isinstance(found, Regression) else None
