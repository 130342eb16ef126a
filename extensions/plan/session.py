"""The planning session ``--prob-plan`` registers: plans every selected case, prints the
plan and runs nothing. Imported only when ``--prob-plan`` is given.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from pytest_probability.api import (
    BenchRun,
    Case,
    OptionError,
    ReportBuilder,
    Results,
    Thresholds,
    call_first,
    call_hook,
    claim_output,
    describe_exception,
    escape_surrogates,
    money,
    note_written,
    options_of,
    worst_verdict,
    write_atomic,
)

from .power import catch_chance, pass_chance, runs_for_power, runs_to_catch
from .rows import PlanRow, comparison_lines, percent_as_written, render

SECTION_ORDER = 50
#: Why the plan's total shows ``overflow``.
OVERFLOW_REASON = (
    "the projected costs add up to more than the largest number a float holds, about 1.8e308"
)
#: The report's warning when it does (the JSON writes the total as ``null``).
OVERFLOW_NOTE = (
    f"the plan's projected cost overflowed: {OVERFLOW_REASON}; it is shown as 'overflow' and "
    "written as null (inf in the plan file)"
)


#: the fields of a planned comparison the plan's table reads, with the numbers among them
COMPARISON_FIELDS = ("label", "axis", "arm", "baseline", "inputs", "sessions", "seed")
COMPARISON_NUMBERS = ("planned_pairs", "expected_pairs", "right_chance")


def _not_costs(answer: Any) -> str | None:
    """What is wrong with a ``pytest_prob_plan_costs`` answer (``None``: nothing)."""
    if isinstance(answer, dict) and all(
        isinstance(key, str) and isinstance(cost, (int, float)) and not isinstance(cost, bool)
        for key, cost in answer.items()
    ):
        return None
    return f"answered {answer!r:.200}, not costs per run by case"


def _not_comparisons(answer: Any) -> str | None:
    """What is wrong with a ``pytest_prob_plan_comparisons`` answer (``None``: nothing)."""
    for plan in answer if isinstance(answer, (list, tuple)) else [answer]:
        if not isinstance(plan, dict) or not all(key in plan for key in COMPARISON_FIELDS):
            return f"answered {answer!r:.200}, not a list of planned comparisons"
        numbers = [plan.get(key) for key in COMPARISON_NUMBERS]
        if not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers):
            return f"answered {plan!r:.200}: {', '.join(COMPARISON_NUMBERS)} must be numbers"
    return None


class PlanSession:
    """Collects, plans every selected case, prints the plan and runs nothing."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        options = options_of(config)
        self.assume: float = options.session_value("plan_assume")
        self.difference: float = options.session_value("plan_assume_diff")
        self.comparisons: list[dict[str, Any]] = []
        self.flakes: tuple[float, ...] = options.session_value("plan_flake")
        self.report_path: str | None = options.session_value("plan_report")
        self.write_path: str | None = options.session_value("plan_write")
        self.write_file: Path | None = None  # checked now: a bad path is a usage error
        if self.write_path is not None:
            target = claim_output(config, "--prob-plan-write", self.write_path, "the plan")
            self.write_file = target.path
        #: the cost per run of each case of ``--prob-plan-report``, by case key and case id
        self.costs: dict[str, float] = {}
        if self.report_path is not None:
            found = call_first(
                config,
                "pytest_prob_plan_costs",
                check=_not_costs,
                path=self.report_path,
                config=config,
            )
            if found is None:
                raise pytest.UsageError(
                    f"--prob-plan-report={self.report_path}: reading a report needs the "
                    "comparisons extension (enabled unless -p no:probability.comparisons)"
                )
            self.costs = found
        self.rows: list[PlanRow] = []
        self.write_error: str | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Plan every selected case, and each compared arm under sequential stopping. Called
        once after collection."""
        seen: dict[str, Case] = {}
        for item in items:
            if isinstance(item, BenchRun):
                seen.setdefault(item.case.key, item.case)
        cases = list(seen.values())
        self.rows = [self.plan(case) for case in cases]
        try:
            found = call_hook(
                self.config,
                "pytest_prob_plan_comparisons",
                check=_not_comparisons,
                passing=(ValueError,),
                cases=cases,
                assume=self.assume,
                difference=self.difference,
                config=self.config,
            )
        except ValueError as exc:  # the difference does not fit the assumed rate
            raise pytest.UsageError(f"--prob-plan-assume-diff={self.difference:g}: {exc}") from None
        self.comparisons = [comparison for each in found for comparison in each]

    def plan(self, case: Case) -> PlanRow:
        """One case's plan."""
        row = PlanRow(case.key, case.case_id, case.runs)
        row.catch = {flake: catch_chance(case.runs, flake) for flake in self.flakes}
        per_run = self.costs.get(case.key, self.costs.get(case.case_id))
        if per_run is not None:
            row.cost = per_run * case.runs
        self._plan_gate(case, row)
        call_hook(self.config, "pytest_prob_plan_case", case=case, row=row, config=self.config)
        return row

    def _plan_gate(self, case: Case, row: PlanRow) -> None:
        """Fill the gate columns from every gate that judges the pass count (a rate gate,
        a count gate, or both): the case passes only when each of them does, so the numbers
        are those of their combined verdict, the worst of theirs: of running every run (the
        ``stopping`` extension replaces them with its rule's, in ``pytest_prob_plan_case``)."""
        gates = (
            call_first(
                self.config,
                "pytest_prob_case_gates",
                check=_not_gates,
                passing=(OptionError,),
                case=case,
                config=self.config,
            )
            or []
        )
        planned = [(k, s) for k, s in gates if k.decides_runs and k.verdict_at is not None]
        if not planned:
            return
        config = self.config
        judges = [(kind.verdict_at, spec) for kind, spec in planned]

        def verdict(passes: int, n: int) -> str:
            return worst_verdict([judge(spec, passes, n, config) for judge, spec in judges])  # type: ignore[misc]

        thresholds = Thresholds(verdict)
        minimums = [
            kind.minimum_runs(spec, config) if kind.minimum_runs else None for kind, spec in planned
        ]
        if all(found is not None for found in minimums):
            row.min_runs = max(found for found in minimums if found is not None)
        row.gate = " & ".join(self._gate_text(kind, spec, case) for kind, spec in planned)
        row.power_runs = runs_for_power(thresholds, self.assume, start=row.min_runs or 1)
        row.pass_chance = pass_chance(thresholds, case.runs, self.assume)

    @staticmethod
    def _gate_text(kind: Any, spec: Any, case: Case) -> str:
        """A gate as the plan shows it: ``≥90%``, ``≥19/20``, or the kind's own words."""
        if kind.name == "rate":
            return f"≥{percent_as_written(spec.min_rate)}"
        if kind.name == "count":
            return f"≥{spec.min_passes}/{case.runs}"
        return str(kind.describe(spec))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        """Run nothing: a plan is printed instead. Called once; returns ``True`` (a
        collection error still interrupts the session, as pytest does)."""
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted(
                f"{session.testsfailed} error{'s' if session.testsfailed != 1 else ''} "
                "during collection"
            )
        return True

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write ``--prob-plan-write``. Called once at the end; returns nothing."""
        if self.write_file is not None:
            try:
                write_toml(self.write_file, self.document())
                note_written(session.config, "plan", str(self.write_path), self.write_file)
            except Exception as exc:  # any failure is one error line naming the file
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else None
                self.write_error = (
                    f"--prob-plan-write={self.write_path}: cannot write the plan: "
                    f"{reason or describe_exception(exc)}"
                )
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def document(self) -> dict[str, Any]:
        """The plan as data (JSON ``plan``, and the TOML of ``--prob-plan-write``)."""
        return {
            "assume": self.assume,
            "flakes": list(self.flakes),
            "runs_to_catch": {percent_as_written(f): runs_to_catch(f) for f in self.flakes},
            "total_runs": sum(row.runs for row in self.rows),
            "total_cost": self.total_cost(),
            "cases": [row.to_json() for row in self.rows],
            "assume_diff": self.difference,
            "comparisons": self.comparisons,
        }

    def total_cost(self) -> float | None:
        """The projected cost of every planned run; ``None`` when no case's is known, and
        ``math.inf`` when the projections add up to more than the largest float."""
        costs = [row.cost for row in self.rows if row.cost is not None]
        if not costs:
            return None
        try:
            return math.fsum(costs)
        except OverflowError:  # ("intermediate overflow in fsum")
            return math.inf

    def pytest_prob_build_report(
        self, report: ReportBuilder, results: Results, config: pytest.Config
    ) -> None:
        """Contribute the ``probability: plan`` section and the ``plan`` JSON object.
        Called once; returns nothing."""
        options = options_of(config)
        lines = [f"  assuming each run passes with probability {self.assume:g}; nothing ran"]
        lines += render(self.rows, self.flakes, money)
        catches = ", ".join(
            f"{runs_to_catch(f)} runs catch a {percent_as_written(f)} flake" for f in self.flakes
        )
        lines.append(f"  with 95% probability: {catches}")
        sequential = "stop" in options.specs and options.session_value("stop") == "sequential"
        lines += comparison_lines(self.comparisons, self.difference, self.assume, sequential)
        runs = sum(row.runs for row in self.rows)
        total = f"  {runs} run{'' if runs == 1 else 's'} planned"
        cost = self.total_cost()
        if cost is not None:
            total += f", about {money(cost)} at the cost per run of {self.report_path}"
            if not math.isfinite(cost):
                total += f" ({OVERFLOW_REASON})"
                report.warn(OVERFLOW_NOTE)
        budget = options.session_value("budget") if "budget" in options.specs else None
        if budget is not None and cost is not None:
            over = f" by {money(cost - budget)}" if math.isfinite(cost) else ""
            total += (
                f"; within the budget of {money(budget)}"
                if cost <= budget
                else f"; over the budget of {money(budget)}{over}"
            )
        elif budget is not None:
            total += (
                f"; no cost per run known (--prob-plan-report) to check the {money(budget)} budget"
            )
        lines.append(total)
        if self.write_error is not None:
            lines.append(f"  ERROR: {self.write_error}")
        report.add_section("plan", lines, order=SECTION_ORDER)
        report.set_json("plan", self.document())


# -- the plan file (--prob-plan-write): numbers are written as people read them, every float
# to 15 significant digits, the precision a float holds for certain (the rule the cost
# extension applies to its sums), so a projected cost of 0.0045 / 6 * 10 is cost = 0.0075, not
# 0.007499999999999999. Only the binary noise of the arithmetic goes.
#: Significant digits of every float the plan file holds.
SIGNIFICANT = 15


def toml_values(value: Any) -> Any:
    """``value`` ready for TOML: floats to :data:`SIGNIFICANT` digits, the ``None`` fields of every
    table left out (TOML has no null), and a lone surrogate in any text (from a file name
    that is not UTF-8) written as its escape, the text ``\\udcff``."""
    if isinstance(value, dict):
        return {
            escape_surrogates(str(key)): toml_values(item)
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, (list, tuple)):
        return [toml_values(item) for item in value]
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}") + 0.0  # (-0.0 becomes 0.0)
    if isinstance(value, str):
        return escape_surrogates(value)
    return value


def write_toml(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` as TOML (atomically, missing directories created); raises
    ``OSError`` when the file cannot be written."""
    import tomli_w

    write_atomic(path, tomli_w.dumps(toml_values(document)))


def _not_gates(answer: Any) -> str | None:
    """What is wrong with a ``pytest_prob_case_gates`` answer (``None``: nothing)."""
    if isinstance(answer, (list, tuple)) and all(
        isinstance(gate, tuple) and len(gate) == 2 and hasattr(gate[0], "verdict_at")
        for gate in answer
    ):
        return None
    return f"answered {answer!r:.200}, not a list of (gate kind, spec) pairs"
