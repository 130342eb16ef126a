"""The kernel: one instance per pytest config, registered as ``probability.kernel``.

It owns collection hand-over, run records, the record bus, the results model, ordering,
throttling and the report (terminal and JSON). Everything else is an extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Generator
from pathlib import Path
from time import sleep
from typing import Any

import pytest

from . import bus, jsonreport, signals, writing
from .collect import (
    CONTEXT_KEY,
    ELAPSED_KEY,
    STEP_RECORDS_KEY,
    STEPS_KEY,
    BenchModule,
    BenchRun,
    VerdictItem,
)
from .context import RunContext, enter_run, leave_run
from .distribution import REPLACED, make_scheduler
from .loader import BUNDLED_NAMES
from .options import OptionRegistry
from .ordering import transposed, verdicts_after_runs, with_verdict_runs
from .outputs import claim_output
from .records import (
    CLASSIFIER_FAILED,
    UNKNOWN_OUTCOME,
    checked_outcome,
    classifier_of,
    crash_record,
    default_classify,
    failed_classifier,
    make_record,
    unknown_outcome,
)
from .report import ReportBuilder, render_main
from .results import ERROR, Results
from .safecall import (
    FailureLog,
    HookPlans,
    ProbabilityExtensionWarning,
    build_report,
    call_each,
)
from .steps import truncate
from .values import (
    parse_bool,
    parse_delay,
    parse_patterns,
    parse_runs,
    parse_text,
)

KERNEL_NAME = "probability.kernel"
TOKEN_KEY = pytest.StashKey[object]()
MARKER_HELP = (
    "probability(**kwargs): pytest-probability settings for a bench function or case "
    "(runs=N; extensions add gates, comparisons and latency keys)"
)


def kernel_of(config: pytest.Config) -> Kernel:
    """The kernel of a config (raises when the plugin is not active)."""
    kernel = config.pluginmanager.get_plugin(KERNEL_NAME)
    if kernel is None:
        raise RuntimeError("pytest-probability is not active in this session")
    return kernel


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class Kernel:
    """Hook implementations of the kernel, with the per-session state they share."""

    def __init__(self) -> None:
        self.options: OptionRegistry = OptionRegistry()
        self.config: pytest.Config | None = None
        self.results = Results()
        self.case_order: dict[str, int] = {}
        self._case_sequence = 0
        #: whether this kernel paused the garbage collector at the end of the run loop
        self.collector_paused = False
        self.runs_started = 0
        self.builder: ReportBuilder | None = None
        self.json_error: str | None = None
        #: ``--prob-json`` as given and as resolved at start (a test may change directory)
        self.json_path: tuple[Path, Path] | None = None
        self.patterns: tuple[str, ...] = ()
        self.failures = FailureLog()
        #: whether an implementation outside the bundled extensions adds to run records
        #: (their values are then made JSON-able; bundled extensions add JSON values only)
        self.foreign_run_data: bool | None = None
        self.plans = HookPlans()
        #: how pytest-xdist distributed the runs (controller), for the report
        self.distribution: str | None = None
        #: whether the session ended before running everything it selected (``-x``,
        #: ``--maxfail``, Ctrl-C), known at ``pytest_sessionfinish`` in the aggregating process
        self.stopped_early = False

    def pytest_plugin_registered(self, plugin: object, manager: pytest.PytestPluginManager) -> None:
        """Forget the cached hook implementation lists (a conftest or an extension arrived).

        Called for every plugin registered after the kernel, in every process; returns
        nothing.
        """
        self.plans.clear()
        self.foreign_run_data = None

    # -- options ---------------------------------------------------------------------------
    def pytest_addoption(
        self, parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager
    ) -> None:
        """Create the option registry and ask every extension for its settings.

        Called once when the kernel registers (``pytest_addoption`` is historic), in every
        process. Calls ``pytest_prob_addoption`` historically. Returns nothing.
        """
        self.options = OptionRegistry(parser)
        pluginmanager.hook.pytest_prob_addoption.call_historic(kwargs={"options": self.options})

    @pytest.hookimpl(tryfirst=True)
    def pytest_prob_addoption(self, options: OptionRegistry) -> None:
        """Declare the kernel's settings. Called by the historic hook; returns nothing."""
        options.add(
            "runs",
            parse=parse_runs,
            default=1,
            cli="--prob-runs",
            ini="prob_runs",
            mark=True,
            metavar="N",
            help="run every case N times (default: ini prob_runs or 1)",
        )
        options.add(
            "json",
            parse=parse_text,
            cli="--prob-json",
            metavar="PATH",
            help="write a JSON report to PATH",
        )
        options.add(
            "delay",
            parse=parse_delay,
            default=0.0,
            cli="--prob-delay",
            ini="prob_delay",
            metavar="SECONDS",
            help="sleep between run executions, never before the first (per xdist worker)",
        )
        options.add(
            "transpose",
            parse=parse_bool,
            default=False,
            cli="--prob-transpose",
            ini="prob_transpose",
            flag_value=True,
            help="run-major order: run 1 of every case, then run 2, ...",
        )
        options.add(
            "pattern",
            parse=parse_patterns,
            default=("bench_*.py",),
            ini="prob_pattern",
            help="glob(s) for benchmark files (default bench_*.py)",
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """Validate every setting, register the marker and the bench file glob.

        Called once per process before collection; raises :class:`pytest.UsageError` for a
        bad CLI or ini value, or an unwritable ``--prob-json`` path. In the aggregating
        process it also installs the SIGTERM handler (:mod:`pytest_probability.signals`).
        Returns nothing.
        """
        self.config = config
        self.options.resolve(config)
        config.addinivalue_line("markers", MARKER_HELP)
        self.patterns = self.options.session_value("pattern")
        for pattern in self.patterns:
            config.addinivalue_line("python_files", pattern)
        path = self.options.session_value("json")
        if path is not None and not _is_worker(config):
            target = claim_output(config, "--prob-json", path)
            self.json_path = (Path(target.shown), target.path)
        if not _is_worker(config):  # SIGTERM ends the session as Ctrl-C does: with a report
            signals.install(config, self.has_report)

    def has_report(self) -> bool:
        """Whether the session has something to report: records, collected cases, or a
        ``--prob-json`` path (written even for an empty session)."""
        return bool(len(self.results) or self.case_order or self.json_path is not None)

    # -- collection ------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(self, module_path: Path, parent: pytest.Collector) -> Any:
        """Take over files matching ``prob_pattern``.

        Called while collecting, in collecting processes; returns a ``BenchModule`` (first
        result wins) or ``None`` for other files.
        """
        if any(module_path.match(pattern) for pattern in self.patterns):
            return BenchModule.from_parent(parent, path=module_path)
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Fix the case order (after ``-k``/``-m``) and apply ``--prob-transpose``.

        Called once after collection in collecting processes; reorders ``items`` in place.
        """
        self.case_order = {}
        for item in items:
            if isinstance(item, (BenchRun, VerdictItem)):
                self.case_order.setdefault(item.case.key, len(self.case_order))
        if self.options.session_value("transpose"):
            items[:] = transposed(items, self.case_order)
        else:  # a reordering plugin (pytest-randomly) may have put a verdict before its runs
            items[:] = verdicts_after_runs(items)

    def next_case_sequence(self) -> int:
        """The collection position of the next case collected in this process."""
        self._case_sequence += 1
        return self._case_sequence

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Put back the runs of verdict items selected without any of their runs, move every
        verdict item after its runs (again: ``--ff``, ``--nf`` and other reordering plugins
        act after the kernel's ``pytest_collection_modifyitems``), and look up the run items'
        hook proxies again, once per file (every conftest is known now).

        Called once after collection in collecting processes, before pytest-xdist reports
        the collection to the controller; changes ``session.items`` in place, returns
        nothing.
        """
        # after every plugin's reordering (--ff, --nf, pytest-randomly wrap or follow
        # pytest_collection_modifyitems): a verdict item always runs after its runs
        session.items[:] = verdicts_after_runs(with_verdict_runs(session.items, session.config))
        # rows follow definition order (of the selected cases, and of the runs a verdict
        # brought back), not the order a plugin such as pytest-randomly runs them in
        sequence: dict[str, int] = {}
        for item in session.items:
            if isinstance(item, (BenchRun, VerdictItem)):
                sequence.setdefault(item.case.key, item.case.sequence)
        ordered = sorted(sequence, key=sequence.__getitem__)
        self.case_order = {key: index for index, key in enumerate(ordered)}
        self.foreign_run_data = None  # conftests registered while collecting count too
        proxies: dict[str, Any] = {}
        for item in session.items:
            if isinstance(item, BenchRun):
                proxy = proxies.get(item.case.module)
                if proxy is None:
                    proxy = proxies[item.case.module] = session.gethookproxy(item.path)
                item.ihook = proxy

    # -- running ---------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Skip runs an extension rules out, then throttle with ``--prob-delay``.

        Called before every item's setup in the executing process; returns nothing.
        """
        if not isinstance(item, BenchRun):
            return
        item.stash[CONTEXT_KEY] = RunContext(
            case_id=item.case.case_id, run=item.run, config=item.config
        )
        if self.config is not None and self.config.hook.pytest_prob_skip_run.get_hookimpls():
            reason = item.ihook.pytest_prob_skip_run(item=item, case=item.case)
            if reason:
                raise pytest.skip.Exception(str(reason), _use_item_location=True)
        delay = self.options.session_value("delay")
        if delay and self.runs_started:
            sleep(delay)
        self.runs_started += 1
        # current from fixture setup through the body to fixture teardown
        item.stash[TOKEN_KEY] = enter_run(item.stash[CONTEXT_KEY])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        """Leave the run context after the run's fixtures were finalized (so fixture code
        after ``yield`` still sees ``current_run()``).

        Wraps every item's teardown in the executing process; returns nothing.
        """
        try:
            return (yield)
        finally:
            token = item.stash.get(TOKEN_KEY, None)
            if token is not None:
                del item.stash[TOKEN_KEY]
                leave_run(token)
            if CONTEXT_KEY in item.stash:  # keep no per-run objects alive past the run
                del item.stash[CONTEXT_KEY]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the run record to the call report (or a failed/skipped setup report).

        Wraps report creation in the executing process; returns the report unchanged
        except for one ``user_properties`` entry carrying the record.
        """
        report = yield
        if isinstance(item, BenchRun) and (
            call.when == "call" or (call.when == "setup" and not report.passed)
        ):
            unknown_error = UNKNOWN_OUTCOME
            try:
                answer = item.ihook.pytest_prob_classify_outcome(item=item, call=call) or ERROR
            except Exception as exc:  # a third party's bug: the run is an error, not the session
                outcome, unknown_error = None, CLASSIFIER_FAILED
                unknown = self._classifier_failed(item, call, exc)
            else:
                outcome = checked_outcome(answer)
                unknown = None if outcome is not None else self._unknown_outcome(item, call, answer)
            record = make_record(
                item,
                call,
                report,
                outcome or ERROR,
                self.case_order.get(item.case.key, 0),
                unknown,
                unknown_error,
            )
            plan = self.plans.plan(item.config, "pytest_prob_run_finished")
            if plan:
                failures = call_each(
                    item.config,
                    "pytest_prob_run_finished",
                    {"item": item, "record": record},
                    self.plans,
                )
                if failures:
                    messages = self.failures.add("pytest_prob_run_finished", failures)
                    record.setdefault("warnings", []).extend(messages)
                if self.foreign_run_data is None:
                    self.foreign_run_data = any(
                        impl.plugin_name not in BUNDLED_NAMES for _, _, impl in plan
                    )
                if self.foreign_run_data:
                    # a third party may have added anything: make it fit to travel
                    record = jsonreport.jsonable(record)
            bus.attach(report, record)
            for key in (STEPS_KEY, STEP_RECORDS_KEY, ELAPSED_KEY):  # keep no per-run objects
                if key in item.stash:
                    del item.stash[key]
        return report

    def _unknown_outcome(self, item: pytest.Item, call: pytest.CallInfo[None], answer: Any) -> str:
        """The message for a classifier's answer that is not an outcome word, warned about
        once per extension (:class:`ProbabilityExtensionWarning`)."""
        return self._warn_classifier(classifier_of(item, call), unknown_outcome, answer)

    def _classifier_failed(
        self, item: pytest.Item, call: pytest.CallInfo[None], exc: Exception
    ) -> str:
        """The message for a classifier that raised, warned about once per extension
        (:class:`ProbabilityExtensionWarning`)."""
        return self._warn_classifier(classifier_of(item, call), failed_classifier, exc)

    def _warn_classifier(self, name: str, describe: Any, detail: Any) -> str:
        message: str = describe(name, detail)
        if self.failures.first(name, "pytest_prob_classify_outcome"):
            self.failures.messages.append(message)  # (the report's warnings too)
            warnings.warn(ProbabilityExtensionWarning(message), stacklevel=3)
        return message

    @pytest.hookimpl(trylast=True)
    def pytest_prob_classify_outcome(self, item: pytest.Item, call: pytest.CallInfo[None]) -> str:
        """The default classification (see :func:`default_classify`).

        Called in the executing process after each bench run phase; returns the outcome word.
        """
        return default_classify(call)

    # -- distribution (the xdist controller) ------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep every run of a case (of a function, for function-level verdict items) on one
        worker: called once by pytest-xdist on the controller; returns the case-aware
        scheduler for ``--dist load`` (the default), ``loadgroup`` and ``worksteal``, else
        ``None`` (xdist's own scheduler)."""
        dist = config.getvalue("dist")
        if dist not in REPLACED:
            return None
        if dist != "load":  # a mode the user chose: say once what was done instead
            self.distribution = (
                f"each case's runs kept on one worker (case-aware scheduling instead of "
                f"--dist {dist})"
            )
        return make_scheduler(config, log)

    # -- aggregating -----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Feed arriving records into the results.

        Called for every report. The aggregating process (the only process, or the xdist
        controller) also calls ``pytest_prob_logrecord``; an xdist worker only keeps its own
        runs, so that verdict items it executes can see them. Returns nothing.
        """
        if self.config is None:
            return
        record = bus.extract(report)
        if record is not None:
            self.results.add(record)
            if _is_worker(self.config):
                return
            # the results hold it now: one copy per session, freed with the results
            bus.detach(report)
            failures = call_each(
                self.config,
                "pytest_prob_logrecord",
                {"record": record, "config": self.config},
                self.plans,
            )
            if failures:
                self.failures.add("pytest_prob_logrecord", failures)
        elif report.when == "???" and report.failed and not _is_worker(self.config):
            # pytest-xdist: the worker running this item died before reporting it
            key = report.nodeid
            found = crash_record(
                report.nodeid,
                str(report.longrepr),
                self.results.get(key.rsplit("[run", 1)[0] if "[run" in key else key),
                self.patterns,
                len(self.results),
            )
            if found is not None:
                self.results.add(found)
        elif report.when == "teardown" and report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            detail = getattr(crash, "message", None) or report.longreprtext.strip() or "error"
            self.results.teardown_failed(report.nodeid, truncate(f"teardown failed: {detail}"))

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Give the session an exit status when whoever started it did not.

        Called once per process when the session starts. ``pytest.main`` sets
        ``session.exitstatus`` before this hook, but pytester's ``getitems``/``getnode``
        (used by people testing their own plugins beside this one) start a session
        without one, and every extension that adjusts the exit status at the end reads it.
        Returns nothing.
        """
        if not hasattr(session, "exitstatus"):
            session.exitstatus = pytest.ExitCode.OK

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Build the report and write the JSON (aggregating process only).

        Called once at the end of the session (also after Ctrl-C), after extensions that
        adjust the exit status; returns nothing. The terminal summary is printed later from
        the same report.
        """
        if _is_worker(session.config):
            return
        if not (len(self.results) or self.case_order or self.json_path is not None):
            return  # nothing collected and no --prob-json: no report
        self.stopped_early = bool(
            session.shouldstop or session.shouldfail or exitstatus == pytest.ExitCode.INTERRUPTED
        )
        self.builder = build_report(session.config, self.results, self.failures)
        if self.distribution is not None:
            self.builder.add_summary("Workers:", self.distribution, order=900)
        if self.json_path is not None:
            self._write_json(*self.json_path, session)

    def _write_json(self, shown: Path, path: Path, session: pytest.Session) -> None:
        assert self.builder is not None
        try:
            document = jsonreport.build_document(
                results=self.results,
                builder=self.builder,
                runs=self.options.session_value("runs"),
                exit_status=int(session.exitstatus),
            )
            writing.write_atomic(path, jsonreport.iter_dumps(document, where=str(shown)))
        except Exception as exc:  # any failure is one error line naming the file
            self.json_error = writing.failure("the JSON report", str(shown), exc)
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Pause automatic garbage collection once the run loop is over, until
        ``pytest_unconfigure``: the end of a session (extensions' verdicts, the report, the
        terminal summary) allocates enough to set off full collections of the whole heap,
        and pytest's own collection at unconfigure follows anyway. A session without bench
        items (or a process that got no record) leaves the collector alone.

        Wraps the run loop in every process; returns its result unchanged.
        """
        try:
            return (yield)
        finally:  # also after Ctrl-C or -x: the report is built either way
            if gc.isenabled() and (len(self.results) or self.case_order):
                self.collector_paused = True
                gc.disable()

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Free the session's records (the report is written and printed by now) and let the
        garbage collector run again.

        Called once per process at the very end, before other plugins' implementations;
        returns nothing. Freed here by reference counting, the records stay out of the full
        collections pytest makes in its own ``pytest_unconfigure`` and cleanup.
        """
        self.results = Results()
        self.builder = None
        if self.collector_paused:
            self.collector_paused = False
            gc.enable()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the ``probability`` section and every extension section.

        Called once in the aggregating process at the end of the terminal summary; returns
        nothing.
        """
        if self.builder is None:
            return
        main = render_main(self.builder)
        if main:  # (nothing ran, e.g. --prob-plan: only the extensions' sections)
            terminalreporter.write_sep("=", "probability")
            for line in main:
                terminalreporter.write_line(line)
        for section in sorted(self.builder.sections, key=lambda s: s.order):
            terminalreporter.write_sep("=", f"probability: {section.title}")
            for line in section.lines:
                terminalreporter.write_line(line)
        if self.json_error:
            terminalreporter.write_line(f"ERROR: {self.json_error}", red=True, bold=True)
