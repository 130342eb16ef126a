"""The session's budget, registered as ``probability.budget.session`` only when a budget is
set: the tally, the skips, the report. Under pytest-xdist the controller keeps the tally and
shares it through a file the workers read before each run (:class:`Tally`), and hands out no
more runs to be made once the budget is reached (:mod:`.scheduling`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    OVERFLOW,
    OVERFLOW_REASON,
    SKIP,
    UNDECIDED,
    ProbabilityWarning,
    call_first,
    describe_exception,
    money,
    option_value,
    options_of,
    results_of,
    runs_in_flight,
)

from .scheduling import Dealing, run_case, wrap

if TYPE_CHECKING:
    from pytest_probability.api import Case, ReportBuilder, Results

#: the extension's plugin (whose ``pytest_prob_run_spend`` is the bundled default)
PLUGIN = "probability.budget"
#: the stopping extension's per-session plugin (registered only while --prob-stop is on)
STOPPER = "probability.stopping.runs"
SUMMARY_ORDER = 170
COLUMN_ORDER = 960
#: the ``Workers:`` line's place (where the kernel puts its own)
WORKERS_ORDER = 900
WORKER_KEY = "prob_budget_tally"
REASON = "budget of "
#: the ``error`` of the record of a run whose pytest-xdist worker died before reporting it
CRASHED = "WorkerCrashed"
RUN_MAJOR = "runs dealt in run-major order (--prob-transpose with a budget): an even cut"


# -- the session's spend, shared with pytest-xdist workers through a small file (rewritten
# atomically by the aggregating process after every run; read by a worker before each run,
# when it changed). A worker that can read it leaves a mark beside it (reader_mark).
@dataclass
class Tally:
    """Spend and runs so far."""

    spent: float = 0.0
    runs: int = 0

    def add(self, amount: float | None) -> None:
        self.runs += 1
        if amount is not None:
            self.spent += amount

    def write(self, path: Path) -> None:
        handle, temporary = tempfile.mkstemp(prefix=".tally.", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump({"spent": self.spent, "runs": self.runs}, stream)
        os.replace(temporary, path)


def reader_mark(path: Path, worker: str) -> Path:
    """The file a worker that reads the tally at ``path`` leaves beside it."""
    return path.parent / f"reader-{worker}"


class TallyReader:
    """A worker's view of the controller's tally (re-read only when the file changed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: tuple[int, int, int] | None = None
        self.tally = Tally()

    def read(self) -> Tally:
        try:
            status = self.path.stat()
        except OSError:
            return self.tally
        # each write replaces the file (a new inode): two writes within the file system's
        # clock tick have the same modification time
        stamp = (status.st_ino, status.st_mtime_ns, status.st_size)
        if stamp != self.seen:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                self.tally = Tally(float(data["spent"]), int(data["runs"]))
                self.seen = stamp
            except (OSError, ValueError, KeyError):
                pass  # a partial read between writes: keep the last good tally
        return self.tally


class BudgetWarning(ProbabilityWarning, pytest.PytestWarning):
    """The budget could not count a run's spend, or could not share its tally through the
    file: it went on enforcing from the aggregating process's own count."""


# -- what a run spent, as pytest_prob_run_spend answered it: a budget fails closed, an answer
# that cannot be counted (text, NaN, a negative amount, True, a raise) is never "nothing"
class UncountableSpend(ValueError):
    """``pytest_prob_run_spend`` answered something that is not an amount (or raised)."""


def checked(answer: Any) -> float | None:
    """``answer`` as an amount: ``None`` (nothing recorded) or a real number ≥ 0 (``int``,
    ``float``, ``Decimal``, ``Fraction``, NumPy scalars) as a ``float``; positive infinity
    counts (the budget is reached), and so does an ``int`` beyond a float's range. Raises
    :class:`UncountableSpend` saying what was given otherwise."""
    if answer is None:
        return None
    if isinstance(answer, bool) or not isinstance(answer, (Real, Decimal)):
        raise UncountableSpend(f"gave {_shown(answer)}, not a number")
    try:
        amount = float(answer)
    except OverflowError:  # an int (or Fraction) beyond a float's range
        amount = math.inf if answer > 0 else -math.inf
    except (ValueError, TypeError):
        raise UncountableSpend(f"gave {_shown(answer)}, not a number") from None
    if math.isnan(amount) or amount < 0:
        raise UncountableSpend(f"gave {_shown(answer)}, not an amount of at least 0")
    return amount


def _shown(answer: Any) -> str:
    """A short repr of an answer (a huge int or string is cut)."""
    if isinstance(answer, int) and not isinstance(answer, bool) and answer.bit_length() > 100:
        return f"an int of about {int(answer.bit_length() * math.log10(2)) + 1:,} digits"
    try:
        shown = repr(answer)
    except Exception:  # a repr that raises is still an answer we can name by type
        shown = f"a {type(answer).__name__}"
    return shown if len(shown) <= 60 else shown[:57] + "..."


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
        #: whether the tally file was written every time (the controller)
        self.sharing = True
        #: the controller's hand in pytest-xdist's scheduling (under ``-n``)
        self.dealing: Dealing | None = None
        #: the ``Workers:`` note (runs dealt run-major)
        self.distribution: str | None = None
        #: runs whose spend could not be counted (each counted as the rest of the budget)
        self.uncounted = 0
        #: runs whose worker died before reporting them: made, their spend unknown
        self.crashed = 0
        #: notes for the ``Budget:`` line (an uncountable spend, an unwritable tally file)
        self.notes: list[str] = []
        if workerinput is not None and workerinput.get(WORKER_KEY):
            path = Path(workerinput[WORKER_KEY])
            if path.exists():  # (not on another machine: ssh=, socket=)
                self.reader = TallyReader(path)
                # tell the controller this worker reads the tally (when it cannot, it counts
                # as a worker that does not: it gets fewer runs at a time)
                with contextlib.suppress(OSError):
                    reader_mark(path, str(workerinput.get("workerid"))).touch()
        elif workerinput is None and (
            getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None)
        ):
            self.shared = Path(tempfile.mkdtemp(prefix="prob-budget-")) / "tally.json"
            self.tally.write(self.shared)

    # -- under pytest-xdist: the controller tells the workers where the tally is ---------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Give a pytest-xdist worker the tally's path. Called on the controller per worker."""
        if self.shared is not None:
            node.workerinput[WORKER_KEY] = str(self.shared)

    def pytest_prob_deals_runs_apart(self, config: pytest.Config) -> bool | None:
        """A worker that cannot read the tally file gets runs only as the budget allows, not
        a case's runs together. Called once on a pytest-xdist worker whose runs may
        overlap; returns ``True`` there, else ``None`` (a worker reading the tally gets
        every run, as without a budget)."""
        workerinput = getattr(config, "workerinput", None)
        dealt = workerinput is not None and workerinput.get(WORKER_KEY) and self.reader is None
        return True if dealt else None

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """With ``--prob-transpose``, deal the runs out run-major (pytest-xdist's own load
        scheduling) rather than case by case, so the budget cuts every case evenly on
        workers too. Called once by pytest-xdist on the controller; returns the scheduler, or
        ``None`` (the kernel's case-aware one) for another ``--dist`` or with ``--prob-stop``
        (which needs a case's runs together). Either is wrapped (the next hook)."""
        if (
            config.getvalue("dist") not in ("load", "worksteal")
            or not option_value(config, "transpose")
            or config.pluginmanager.has_plugin(STOPPER)
        ):
            return None
        from xdist.scheduler import LoadScheduling

        self.distribution = RUN_MAJOR
        return LoadScheduling(config, log)

    @pytest.hookimpl(wrapper=True, optionalhook=True, specname="pytest_xdist_make_scheduler")
    def pytest_xdist_make_scheduler_dealt(self, config: pytest.Config, log: Any) -> Any:
        """Wrap the scheduler chosen in a :class:`.scheduling.Dealing` under ``-n`` (a name
        pytest takes for ``pytest_xdist_make_scheduler``: one hook, two roles). Called
        once by pytest-xdist on the controller; returns the wrapped scheduler (``None`` when
        none was chosen)."""
        inner = yield
        if inner is None or self.shared is None:
            return inner
        reads, sharing = self.reads, lambda: self.sharing
        self.dealing = wrap(inner, reached=self.reached, sharing=sharing, reads=reads)
        return self.dealing

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Note whether a worker finished or died. Called by pytest-xdist on the controller
        when a worker goes down, before it leaves the scheduler."""
        if self.dealing is not None:
            self.dealing.down(node, error)

    def reached(self) -> bool:
        """Whether the controller's tally reached the budget."""
        return self.limit_reached(self.tally) is not None

    def reads(self, node: Any) -> bool:
        """Whether a pytest-xdist worker reads the tally file (it left its mark beside it)."""
        if self.shared is None:
            return False
        try:
            return reader_mark(self.shared, str(node.gateway.id)).exists()
        except (AttributeError, OSError):
            return False

    def shown(self) -> str:
        """The budget as written: ``$5.00`` (cents when whole cents), or ``1,000 runs``."""
        if self.amount is None:
            return f"{self.runs_limit:,} runs"
        if abs(self.amount * 100 - round(self.amount * 100)) < 1e-9:
            return f"${self.amount:,.2f}"
        return money(self.amount)

    def limit_reached(self, tally: Tally) -> str | None:
        """The limit ``tally`` reached (the amount first) as :meth:`shown` writes it."""
        if self.amount is not None and tally.spent >= self.amount:
            return self.shown()
        if self.runs_limit is not None and tally.runs >= self.runs_limit:
            return f"{self.runs_limit:,} runs"
        return None

    def pytest_prob_skip_run(self, item: pytest.Item, case: Case) -> str | None:
        """Skip the run once the budget is reached. Called before every run in the
        executing process; returns the skip reason or ``None``."""
        tally = self.tally  # this process's own (a worker aggregates nothing)
        if self.reader is not None:  # a pytest-xdist worker: the controller's, from the file
            read = self.reader.read()
            tally = Tally(max(read.spent, tally.spent), max(read.runs, tally.runs))
        flying = runs_in_flight(self.config)
        if flying:  # (--prob-concurrency) they will be made: count each at the mean spend
            mean = tally.spent / tally.runs if tally.runs else 0.0
            tally = Tally(tally.spent + flying * mean, tally.runs + flying)
        limit = self.limit_reached(tally)
        if limit is None:
            return None
        self.cut.add(item.nodeid)
        return f"{REASON}{limit} reached"

    def pytest_prob_run_finished(self, item: pytest.Item, record: dict[str, Any]) -> None:
        """Mark a run this budget skipped (``budget_skipped``), so the report counts exactly
        those. Called in the executing process once per run."""
        if item.nodeid in self.cut:
            record["budget_skipped"] = True

    def pytest_prob_logrecord(self, record: dict[str, Any], config: pytest.Config) -> None:
        """Add a finished run to the tally and share it with the workers through the file.
        A spend that cannot be counted counts as the rest of the budget, with a warning.
        Called in the aggregating process per arriving record."""
        if record.get("outcome") == SKIP:
            return
        problem = spend = None
        if record.get("error") == CRASHED:  # (nothing of its usage reached us)
            self.crashed += 1
        else:
            failures: list[str] = []

            def failed(name: str, exc: BaseException) -> None:
                failures.append(f"raised {describe_exception(exc)}")

            # (an implementation's bug must not switch the budget off: one that fails is
            # named, and the run is uncountable, not the next implementation's answer)
            answer = call_first(
                config, "pytest_prob_run_spend", failed=failed, record=record, config=config
            )
            if failures:
                problem = failures[0]
            else:
                try:
                    spend = checked(answer)
                except UncountableSpend as exc:
                    problem = str(exc)
        self.tally.add(spend)
        if problem is not None:
            self.uncounted += 1
            if self.amount is not None:  # fail closed: nothing of the budget is left
                self.tally.spent = max(self.tally.spent, self.amount)
        if self.reached_at is None and self.reached():
            self.reached_at = Tally(self.tally.spent, self.tally.runs)
        if self.shared is not None:
            self.share()
        if problem is not None and self.uncounted == 1:
            self.warn(self.uncountable(record, problem, config))

    def uncountable(self, record: dict[str, Any], problem: str, config: pytest.Config) -> str:
        """The warning (and ``Budget:`` note) for a run whose spend could not be counted."""
        names = [
            config.pluginmanager.get_name(impl.plugin) or "?"
            for impl in config.hook.pytest_prob_run_spend.get_hookimpls()
            if impl.plugin_name != PLUGIN  # (not the bundled default)
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
        removed); after a failure, warned about once, no worker counts as reading it: the
        controller hands out no more runs once the budget is reached."""
        assert self.shared is not None
        try:
            try:
                self.tally.write(self.shared)
            except FileNotFoundError:  # the temporary directory was cleaned away
                self.shared.parent.mkdir(parents=True, exist_ok=True)
                self.tally.write(self.shared)
        except OSError as exc:
            self.sharing = False
            if not any(note.startswith("the tally file") for note in self.notes):
                self.warn(
                    f"the tally file {self.shared} could not be written "
                    f"({exc.strerror or exc}): the controller hands the workers no more "
                    "runs once the budget is reached"
                )

    def warn(self, message: str) -> None:
        """Warn once about ``message`` and keep it for the ``Budget:`` line."""
        self.notes.append(message)
        warnings.warn(BudgetWarning(message), stacklevel=2)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A session cut by its budget fails unless ``--prob-budget-ok``. Called once in the
        aggregating process before the report."""
        if hasattr(self.config, "workerinput"):
            return
        cut, unseen = self.cuts(results_of(self.config))
        skipped = sum(cut.values()) + unseen
        if skipped and not self.ok and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Remove the shared tally. Called once per process at the end."""
        if self.shared is not None:
            shutil.rmtree(self.shared.parent, ignore_errors=True)

    def cuts(self, results: Results) -> tuple[dict[str, int], int]:
        """The runs of each case the budget skipped or never handed out (under pytest-xdist:
        each run once, and none that another worker made, ``--dist each``), and the runs
        never handed out of cases that have no record at all."""
        nodeids = set(self.dealing.withheld) if self.dealing is not None else set()
        for case in results.cases():
            nodeids.difference_update(record.get("nodeid") for record in case.records.values())
        withheld = Counter(run_case(nodeid) or nodeid for nodeid in nodeids)
        cut = {
            case.key: withheld.pop(case.key, 0)
            + sum(1 for record in case.records.values() if record.get("budget_skipped"))
            for case in results.cases()
        }
        return cut, sum(withheld.values())

    def pytest_prob_build_report(
        self, report: ReportBuilder, results: Results, config: pytest.Config
    ) -> None:
        """Contribute the ``Budget:`` line, ``cut short`` cells and the ``budget`` JSON.
        Called once in the aggregating process."""
        if self.distribution is not None:
            report.add_summary("Workers:", self.distribution, order=WORKERS_ORDER)
        cut, unseen = self.cuts(results)
        planned = sum(case.planned for case in results.cases()) + unseen
        skipped = sum(cut.values()) + unseen
        cells = {}
        for case in results.cases():
            if cut[case.key]:
                cells[case.key] = f"cut short ({case.total}/{case.planned})"
            report.add_row_json(case.key, {"budget_skipped": cut[case.key]})
        if cells:
            report.add_column("budget", cells, order=COLUMN_ORDER, align="free")
        limit, spent, runs = self.shown(), self.tally.spent, self.tally.runs
        if skipped:
            hit = self.limit_reached(self.tally) or limit
            text = f"{hit} reached after {runs:,} of {planned:,} runs; {skipped:,} skipped"
        elif self.amount is not None:
            text = f"{money(spent)} of {limit} spent; no run skipped"
            if not math.isfinite(spent):  # (reached by the last run: nothing left)
                text = f"{limit} reached by the last run; no run skipped"
        else:
            text = f"{runs:,} of {limit}; no run skipped"
        lines = [text]
        overshoot = None
        if self.amount is not None and spent > self.amount:
            overshoot = spent - self.amount
            in_flight = runs - (self.reached_at.runs if self.reached_at else 0)
            why = "by the run that reached it (a run is not stopped half-way)"
            if in_flight:
                why = f"from {in_flight} run(s) already running when the budget was reached"
            if math.isfinite(spent):
                lines.append(f"spent {money(spent)}: {money(overshoot)} over, {why}")
            else:  # the budget still stopped the session: the sum is only too large to show
                lines.append(f"spent: {OVERFLOW} ({OVERFLOW_REASON}), {why}")
        undecided = [
            case.display
            for case in results.cases()
            if case.key in cells
            and call_first(
                config, "pytest_prob_case_verdict", check=_not_a_verdict, case=case, config=config
            )
            == UNDECIDED
        ]
        if undecided:
            cut_gates = f"{len(undecided)} gate(s) UNDECIDED after the budget cut their runs"
            lines.append(f"{cut_gates}: {', '.join(undecided)}")
        lines += self.notes
        if self.uncounted > 1:
            lines.append(f"{self.uncounted - 1:,} more run(s) whose spend could not be counted")
        if self.crashed:
            lines.append(f"{self.crashed:,} run(s) crashed with their worker: spend unknown")
        if skipped and not self.ok:
            lines.append("a session cut by its budget fails (--prob-budget-ok accepts a cut)")
        report.add_summary("Budget:", lines, order=SUMMARY_ORDER)
        report.set_json(
            "budget",
            {
                "amount": self.amount,
                "runs_limit": self.runs_limit,
                "spent": spent,
                "runs": runs,
                "planned": planned,
                "skipped": skipped,
                "reached": bool(skipped) or self.reached_at is not None,
                "overshoot": overshoot,
                "ok": self.ok,
                "uncounted": self.uncounted,
                "crashed": self.crashed,
            },
        )


def _not_a_verdict(answer: Any) -> str | None:
    if isinstance(answer, str) and answer in ("pass", "fail", "undecided"):
        return None
    return f"answered {answer!r:.200}, not a verdict ('pass', 'fail' or 'undecided')"
