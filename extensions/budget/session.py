"""The session's budget, registered as ``probability.budget.session`` only when a budget is
set (``--prob-budget``, ``--prob-budget-runs``): the tally, the skips, the report.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    SKIP,
    UNDECIDED,
    describe_exception,
    option_value,
    options_of,
    results_of,
)
from pytest_probability.kernel import kernel_of  # (the API cannot set the Workers: line)

from .plugin import (
    COLUMN_ORDER,
    COMMAND,
    REASON,
    STOPPER,
    SUMMARY_ORDER,
    WORKER_KEY,
    BudgetWarning,
    pytest_prob_run_spend,
)
from .spend import UncountableSpend, checked
from .tally import Tally, TallyReader

if TYPE_CHECKING:
    from pytest_probability.api import Case, ReportBuilder, Results


def listen_to_controller(config: pytest.Config, budget: Budget) -> bool:
    """Make a pytest-xdist worker take the controller's ``COMMAND`` messages into
    ``budget.tally``. Returns whether it could (it wraps the worker's command handler,
    which pytest-xdist installs when its run loop starts, after this)."""
    for plugin in config.pluginmanager.get_plugins():
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(plugin, "handle_command"):
            handle = plugin.handle_command

            def handle_command(command: Any, _handle: Any = handle) -> None:
                if isinstance(command, tuple) and len(command) == 2 and command[0] == COMMAND:
                    told = command[1]
                    budget.tally = Tally(float(told["spent"]), int(told["runs"]))
                    return
                _handle(command)

            plugin.handle_command = handle_command
            return True
    return False


class Budget:
    """The session's budget: the tally, the skips, the report."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        options = options_of(config)
        self.amount: float | None = options.session_value("budget")
        self.runs_limit: int | None = options.session_value("budget_runs")
        self.ok: bool = options.session_value("budget_ok")
        self.tally = Tally()
        self.reached_at: Tally | None = None
        #: node ids of the runs this process skipped for the budget
        self.cut: set[str] = set()
        workerinput = getattr(config, "workerinput", None)
        self.reader: TallyReader | None = None
        self.shared: Path | None = None
        #: the controller's pytest-xdist workers, told the tally after every record
        self.nodes: list[Any] = []
        #: runs whose spend could not be counted (each counted as the rest of the budget)
        self.uncounted = 0
        #: notes for the ``Budget:`` line (an uncountable spend, an unwritable tally file)
        self.notes: list[str] = []
        if workerinput is not None and workerinput.get(WORKER_KEY):
            if Path(workerinput[WORKER_KEY]).exists():
                self.reader = TallyReader(Path(workerinput[WORKER_KEY]))
            # the controller's messages too: the only source on another machine (ssh=,
            # socket=), and the one left if the file disappears in the middle of a session
            listen_to_controller(config, self)
        elif workerinput is None and (
            getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None)
        ):
            self.directory = tempfile.mkdtemp(prefix="prob-budget-")
            self.shared = Path(self.directory) / "tally.json"
            self.tally.write(self.shared)

    # -- the controller tells the workers where the tally is ----------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Give a pytest-xdist worker the tally's path. Called on the controller per worker;
        returns nothing."""
        if self.shared is not None:
            node.workerinput[WORKER_KEY] = str(self.shared)

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """With ``--prob-transpose``, deal the runs out in their run-major order (pytest-xdist's
        own load scheduling) rather than case by case, so the budget cuts every case evenly
        on workers too. Called once by pytest-xdist on the controller; returns the scheduler,
        or ``None`` (the kernel's case-aware one) without ``--prob-transpose``, with
        ``--prob-stop`` (which needs a case's runs together) or for another ``--dist``."""
        if config.getvalue("dist") not in ("load", "worksteal"):
            return None
        if not option_value(config, "transpose"):
            return None
        if config.pluginmanager.has_plugin(STOPPER):
            return None
        from xdist.scheduler import LoadScheduling

        kernel_of(
            config
        ).distribution = (
            "runs dealt in run-major order (--prob-transpose with a budget): an even cut"
        )
        return LoadScheduling(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodeready(self, node: Any) -> None:
        """Remember a worker to tell the tally to. Called on the pytest-xdist controller
        when a worker is ready; returns nothing."""
        if self.shared is not None:
            self.nodes.append(node)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Forget a worker that finished or crashed. Called on the pytest-xdist controller;
        returns nothing."""
        if node in self.nodes:
            self.nodes.remove(node)

    def tell_workers(self) -> None:
        """Send the tally to every worker (those that cannot read the tally file need it)."""
        for node in list(self.nodes):
            try:
                node.sendcommand(COMMAND, spent=self.tally.spent, runs=self.tally.runs)
            except Exception:  # a worker shutting down: it runs nothing more
                self.nodes.remove(node)

    def shown(self) -> str:
        """The budget as written: ``$5.00`` (cents when whole cents), or ``1,000 runs``."""
        if self.amount is None:
            return f"{self.runs_limit:,} runs"
        if abs(self.amount * 100 - round(self.amount * 100)) < 1e-9:
            return f"${self.amount:,.2f}"
        from pytest_probability.api import money

        return money(self.amount)

    def reason(self, tally: Tally) -> str | None:
        if self.amount is not None and tally.spent >= self.amount:
            return f"{REASON}{self.shown()} reached"
        if self.runs_limit is not None and tally.runs >= self.runs_limit:
            return f"{REASON}{self.runs_limit:,} runs reached"
        return None

    def hit(self) -> str:
        """Which limit was reached: the amount, or the run count."""
        if self.amount is not None and self.tally.spent >= self.amount:
            return self.shown()
        return f"{self.runs_limit:,} runs" if self.runs_limit is not None else self.shown()

    def pytest_prob_skip_run(self, item: pytest.Item, case: Case) -> str | None:
        """Skip the run once the budget is reached. Called before every run in the
        executing process; returns the skip reason or ``None``."""
        tally = self.tally  # as last told by the controller (or this process's own)
        if self.reader is not None:
            read = self.reader.read()
            tally = Tally(max(read.spent, tally.spent), max(read.runs, tally.runs))
        found = self.reason(tally)
        if found is not None:
            self.cut.add(item.nodeid)
        return found

    def pytest_prob_run_finished(self, item: pytest.Item, record: dict[str, Any]) -> None:
        """Mark a run this budget skipped (``budget_skipped``), so the report counts exactly
        those. Called in the executing process once per run; returns nothing."""
        if item.nodeid in self.cut:
            record["budget_skipped"] = True

    def pytest_prob_logrecord(self, record: dict[str, Any], config: pytest.Config) -> None:
        """Add a finished run to the tally and share it with the workers: by message first,
        then through the tally file, whose failure is a warning (the messages and this
        process's own count keep the budget enforced). A spend that cannot be counted counts
        as the rest of the budget, with a warning. Called in the aggregating process per
        arriving record; returns nothing."""
        if record.get("outcome") == SKIP:
            return
        problem = None
        try:
            spend = checked(config.hook.pytest_prob_run_spend(record=record, config=config))
        except UncountableSpend as exc:
            spend, problem = None, str(exc)
        except Exception as exc:  # an implementation's bug must not switch the budget off
            spend, problem = None, f"raised {describe_exception(exc)}"
        self.tally.add(spend)
        if problem is not None:
            self.uncounted += 1
            if self.amount is not None:  # fail closed: nothing of the budget is left
                self.tally.spent = max(self.tally.spent, self.amount)
        if self.reached_at is None and self.reason(self.tally) is not None:
            self.reached_at = Tally(self.tally.spent, self.tally.runs)
        if self.shared is not None:
            self.tell_workers()
            self.share()
        if problem is not None and self.uncounted == 1:
            self.warn(self.uncountable(record, problem, config))

    def uncountable(self, record: dict[str, Any], problem: str, config: pytest.Config) -> str:
        """The warning (and ``Budget:`` note) for a run whose spend could not be counted."""
        names = [
            config.pluginmanager.get_name(impl.plugin) or "?"
            for impl in config.hook.pytest_prob_run_spend.get_hookimpls()
            if impl.function is not pytest_prob_run_spend
        ]
        source = f"implemented by {', '.join(names)}" if names else "the bundled default: the cost"
        run = f"run {record.get('run')} of {record.get('case')}"
        if self.amount is None:
            what = "it counts toward the run budget only"
        else:
            what = f"counted as all that was left of the budget of {self.shown()}"
        return f"pytest_prob_run_spend ({source}) {problem} for {run}: {what}"

    def share(self) -> None:
        """Rewrite the tally file for the workers (its directory made again if it was
        removed); a failure is warned about once, the messages carry the tally."""
        assert self.shared is not None
        try:
            try:
                self.tally.write(self.shared)
            except FileNotFoundError:  # the temporary directory was cleaned away
                self.shared.parent.mkdir(parents=True, exist_ok=True)
                self.tally.write(self.shared)
        except OSError as exc:
            if not any(note.startswith("the tally file") for note in self.notes):
                self.warn(
                    f"the tally file {self.shared} could not be written "
                    f"({exc.strerror or exc}): the workers learn the tally from the "
                    "controller's messages"
                )

    def warn(self, message: str) -> None:
        """Warn once about ``message`` and keep it for the ``Budget:`` line."""
        self.notes.append(message)
        warnings.warn(BudgetWarning(message), stacklevel=2)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A session cut by its budget fails unless ``--prob-budget-ok``. Called once in the
        aggregating process before the report; returns nothing."""
        if hasattr(self.config, "workerinput"):
            return
        skipped = self.skipped(results_of(self.config))
        if skipped and not self.ok and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Remove the shared tally. Called once per process at the end; returns nothing."""
        if self.shared is not None:
            shutil.rmtree(self.shared.parent, ignore_errors=True)

    @staticmethod
    def cut_runs(case: Any) -> int:
        """The runs of a case the budget skipped."""
        return sum(1 for record in case.records.values() if record.get("budget_skipped"))

    def skipped(self, results: Results) -> int:
        return sum(self.cut_runs(case) for case in results.cases())

    def pytest_prob_build_report(
        self, report: ReportBuilder, results: Results, config: pytest.Config
    ) -> None:
        """Contribute the ``Budget:`` line, ``cut short`` cells and the ``budget`` JSON.
        Called once in the aggregating process; returns nothing."""
        from pytest_probability.api import OVERFLOW, OVERFLOW_REASON, money

        planned = sum(case.planned for case in results.cases())
        skipped = self.skipped(results)
        cells = {}
        for case in results.cases():
            cut = self.cut_runs(case)
            if cut:
                cells[case.key] = f"cut short ({case.total}/{case.planned})"
            report.add_row_json(case.key, {"budget_skipped": cut})
        if cells:
            report.add_column("budget", cells, order=COLUMN_ORDER, align="free")
        limit = self.shown()
        if skipped:
            text = (
                f"{self.hit()} reached after {self.tally.runs:,} of {planned:,} runs; "
                f"{skipped:,} skipped"
            )
        elif self.amount is not None:
            text = f"{money(self.tally.spent)} of {limit} spent; no run skipped"
            if not math.isfinite(self.tally.spent):  # (reached by the last run: nothing left)
                text = f"{limit} reached by the last run; no run skipped"
        else:
            text = f"{self.tally.runs:,} of {limit}; no run skipped"
        lines = [text]
        overshoot = None
        if self.amount is not None and self.tally.spent > self.amount:
            overshoot = self.tally.spent - self.amount
            in_flight = self.tally.runs - (self.reached_at.runs if self.reached_at else 0)
            why = (
                f"from {in_flight} run(s) already running when the budget was reached"
                if in_flight
                else "by the run that reached it (a run is not stopped half-way)"
            )
            if math.isfinite(self.tally.spent):
                lines.append(f"spent {money(self.tally.spent)}: {money(overshoot)} over, {why}")
            else:  # the budget still stopped the session: the sum is only too large to show
                lines.append(f"spent: {OVERFLOW} ({OVERFLOW_REASON}), {why}")
        verdicts = {}
        if config.pluginmanager.get_plugin("probability.gates") is not None:
            from pytest_probability.extensions.gates.service import state_of

            verdicts = state_of(config).verdicts
        undecided = [
            case.display
            for case in results.cases()
            if case.key in cells and getattr(verdicts.get(case.key), "verdict", None) == UNDECIDED
        ]
        if undecided:
            lines.append(
                f"{len(undecided)} gate(s) UNDECIDED after the budget cut their runs: "
                + ", ".join(undecided)
            )
        lines += self.notes
        if self.uncounted > 1:
            lines.append(f"{self.uncounted - 1:,} more run(s) whose spend could not be counted")
        if skipped and not self.ok:
            lines.append("a session cut by its budget fails (--prob-budget-ok accepts a cut)")
        report.add_summary("Budget:", lines, order=SUMMARY_ORDER)
        report.set_json(
            "budget",
            {
                "amount": self.amount,
                "runs_limit": self.runs_limit,
                "spent": self.tally.spent,
                "runs": self.tally.runs,
                "planned": planned,
                "skipped": skipped,
                "reached": bool(skipped) or self.reached_at is not None,
                "overshoot": overshoot,
                "ok": self.ok,
                "uncounted": self.uncounted,
            },
        )
