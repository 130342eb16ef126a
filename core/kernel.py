"""The kernel: one instance per pytest config, registered as ``probability.kernel``.

It owns collection hand-over, run records, the record bus, the results model, ordering,
throttling and the report (terminal and JSON). Everything else is an extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import copy
import gc
import sys
from collections.abc import Generator
from pathlib import Path
from types import FunctionType
from typing import TYPE_CHECKING, Any

import pytest

from . import loader
from .options import OptionRegistry, declare_kernel_settings

if TYPE_CHECKING:
    from .report.builder import ReportBuilder
    from .report.results import Results
    from .report.safe_calls import FailureLog, HookPlans
    from .report.written import WrittenFile

TOKEN_KEY = pytest.StashKey[object]()
MARKER_HELP = (
    "probability(**kwargs): pytest-probability settings for a bench function or case "
    "(runs=N; extensions add gates, comparisons and latency keys)"
)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _bench_item_types() -> tuple[type, ...]:
    """The run and verdict item classes, or ``()`` while no bench file was collected (the
    collection module is then not even imported, so no item can be one)."""
    collect = sys.modules.get(loader.COLLECT_MODULE)
    return () if collect is None else (collect.BenchRun, collect.VerdictItem)


class Kernel:
    """Hook implementations of the kernel, with the per-session state they share."""

    def __init__(self) -> None:
        self.options: OptionRegistry = OptionRegistry()
        self.config: pytest.Config | None = None
        #: the session's results, the extension failure log and the hook plans: made when
        #: the session uses the plugin (:meth:`activate`), so that a session without bench
        #: items never imports their modules
        self.results: Results | None = None
        self.failures: FailureLog | None = None
        self.plans: HookPlans | None = None
        self.case_order: dict[str, int] = {}
        #: whether this kernel paused the garbage collector at the end of the run loop
        self.collector_paused = False
        self.runs_started = 0
        self.builder: ReportBuilder | None = None
        self.json_error: str | None = None
        #: The files the session's writers wrote, for one line each (:func:`note_written`).
        self.written: list[WrittenFile] = []
        #: ``--prob-json`` as given and as resolved at start (a test may change directory)
        self.json_path: tuple[Path, Path] | None = None
        self.patterns: tuple[str, ...] = ()
        #: whether an implementation outside the bundled extensions adds to run records
        #: (their values are then made JSON-able; bundled extensions add JSON values only)
        self.foreign_run_data: bool | None = None
        #: how pytest-xdist distributed the runs (controller), for the report
        self.distribution: str | None = None
        #: whether the session ended before running everything it selected (``-x``,
        #: ``--maxfail``, Ctrl-C), known at ``pytest_sessionfinish`` in the aggregating process
        self.stopped_early = False
        #: whether the session uses the plugin: every bundled extension is registered
        #: (a bench file was collected, or a report is asked for)
        self.active = False
        #: whether the extensions whose options are given were registered
        self.requested_done = False
        #: bundled extensions whose registry a plugin that is not bundled fills: filled at
        #: ``pytest_configure`` without registering the extension
        self.registries_to_fill: set[str] = set()
        #: the node ids a pytest-xdist worker collected (controller): how many runs a case
        #: whose worker crashed before reporting any of them has
        self.collected: list[str] = []
        #: ``bench_*`` functions seen in files collected as tests (never run)
        self.strays: list[str] = []

    @property
    def recorded(self) -> int:
        """How many run records the session holds."""
        return 0 if self.results is None else len(self.results)

    def pytest_plugin_registered(self, plugin: object, manager: pytest.PytestPluginManager) -> None:
        """Forget the cached hook implementation lists (a conftest or an extension arrived),
        and give the plugin the bundled extensions whose hooks it implements: their
        hookspecs are added (pytest checks after collection that every hook implemented has
        one); when a plugin that is not bundled (a conftest, an installed extension) fills
        an extension's registry, that registry is filled at ``pytest_configure`` (at once
        if that has passed), so that a broken registration stops the session before
        anything runs: through the extension's registry filler when it has one (its plugin
        still registers on use), else by registering the extension now (unless ``-p no:``
        blocked it). The others register when the session needs them: a third-party report
        panel does not load the page at start-up.

        Called for every plugin registered, in every process (historic: also for those
        registered before the kernel); returns nothing.
        """
        if self.plans is not None:
            self.plans.clear()
        self.foreign_run_data = None
        extensions, registries = loader.implemented_extensions(manager, plugin)
        if not extensions:
            return
        bundled = loader.is_bundled(manager.get_name(plugin))
        for name in extensions:
            if bundled or name not in registries or manager.is_blocked(loader.PREFIX + name):
                loader.add_hookspecs(manager, name)
            elif loader.has_registry_filler(name):
                loader.add_hookspecs(manager, name)
                self.registries_to_fill.add(name)
                if self.config is not None:
                    loader.fill_registry(self.config, name)
            elif not loader.register_bundled(manager, name, self.options):
                loader.add_hookspecs(manager, name)

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
        loader.declare_options(self.options, pluginmanager)

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        """Register the bundled extensions the command line or ini file asks for (one of
        their settings is given), before ``pytest_configure``; all of them when ``--prob-json``
        or ``--prob-plan`` is given in the aggregating process
        (:data:`~pytest_probability.loader.WHOLE_SESSION_SETTINGS`). Once per session.

        Called once per process after the command line is parsed (also on pytest-xdist
        workers; by the kernel's ``pytest_configure`` when a session is configured without
        it); returns ``None`` (pytest's own ``main`` runs the session).
        """
        if self.requested_done:
            return
        self.requested_done = True
        if not _is_worker(config) and any(
            config.getoption(f"prob_opt_{name}", None) not in (None, False)
            for name in loader.WHOLE_SESSION_SETTINGS
        ):
            self.activate(config)
            return
        for name in self.options._requested(config):
            # (with the extensions adding to its registries: a value may name their entries)
            for each in (name, *loader.providers(name)):
                loader.register_bundled(config.pluginmanager, each, self.options)

    def activate(self, config: pytest.Config, session: pytest.Session | None = None) -> None:
        """The session uses the plugin: register every bundled extension not blocked (in
        ``BUNDLED`` order) and, in the aggregating process, take over SIGTERM so that the
        report is still made (:mod:`pytest_probability.execution.signals`). Once per session."""
        if self.active:
            return
        self.active = True
        from .report.results import Results
        from .report.safe_calls import FailureLog, HookPlans

        self.results, self.failures, self.plans = Results(), FailureLog(), HookPlans()
        loader.register_all(config.pluginmanager, self.options)
        if not _is_worker(config):
            from .execution.signals import install

            install(config, self.has_report, session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_prob_addoption(self, options: OptionRegistry) -> None:
        """Declare the kernel's settings: runs, the JSON report, the delay, the order, the
        pattern. Called by the historic hook; returns nothing."""
        declare_kernel_settings(options)

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """Validate every setting, register the marker and the bench file glob (and, under
        pytest-xdist, :mod:`.execution.workers`). Called once per process before collection;
        raises :class:`pytest.UsageError` for a bad CLI or ini value, or an unwritable
        ``--prob-json`` path."""
        self.config = config
        xdist = config.getoption("numprocesses", None) or config.getoption("tx", None)
        if xdist or _is_worker(config):  # (an unrelated session imports nothing more)
            from .execution.workers import register

            register(config, self.strays)
        self.options.resolve(config)
        self.pytest_cmdline_main(config)  # (a session configured without it)
        config.addinivalue_line("markers", MARKER_HELP)
        self.patterns = self.options.session_value("pattern")
        for pattern in self.patterns:
            config.addinivalue_line("python_files", pattern)
        path = self.options.session_value("json")
        if path is not None and not _is_worker(config):
            from .report.output_claims import claim_output

            target = claim_output(config, "--prob-json", path)
            self.json_path = (Path(target.shown), target.path)
        for name, _ in loader.BUNDLED:
            if name in self.registries_to_fill:
                loader.fill_registry(config, name)

    def has_report(self) -> bool:
        """Whether the session has something to report: records, collected cases, or a
        ``--prob-json`` path (written even for an empty session)."""
        return bool(self.recorded or self.case_order or self.json_path is not None)

    # -- collection ------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(self, module_path: Path, parent: pytest.Collector) -> Any:
        """Take over files matching ``prob_pattern``.

        Called while collecting, in collecting processes; returns a ``BenchModule`` (first
        result wins) or ``None`` for other files.
        """
        if any(module_path.match(pattern) for pattern in self.patterns):
            # every extension may read the file's marks: all register before its items exist
            self.activate(parent.config, parent.session)
            from .collection.collector import BenchModule

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
        bench = _bench_item_types()
        if not bench:
            return  # no bench file was collected: nothing to order
        for item in items:
            if isinstance(item, bench):
                self.case_order.setdefault(item.case.key, len(self.case_order))
        from .collection.ordering import transposed, verdicts_after_runs

        if self.options.session_value("transpose"):
            items[:] = transposed(items, self.case_order)
        else:  # a reordering plugin (pytest-randomly) may have put a verdict before its runs
            items[:] = verdicts_after_runs(items)

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
        bench = _bench_item_types()
        if not bench:
            return  # no bench file was collected
        from .collection.collector import BenchRun
        from .collection.ordering import verdicts_after_runs, with_verdict_runs

        # after every plugin's reordering (--ff, --nf, pytest-randomly wrap or follow
        # pytest_collection_modifyitems): a verdict item always runs after its runs
        session.items[:] = verdicts_after_runs(with_verdict_runs(session.items, session.config))
        # rows follow definition order (of the selected cases, and of the runs a verdict
        # brought back), not the order a plugin such as pytest-randomly runs them in
        sequence: dict[str, int] = {}
        for item in session.items:
            if isinstance(item, bench):
                sequence.setdefault(item.case.key, item.case.sequence)
        ordered = sorted(sequence, key=sequence.__getitem__)
        self.case_order = {key: index for index, key in enumerate(ordered)}
        self.foreign_run_data = None  # conftests registered while collecting count too
        proxies: dict[str, Any] = {}
        overlap = self.options.session_value("concurrency") > 1
        for item in session.items:
            if isinstance(item, BenchRun):
                if item.case.module not in proxies:
                    proxies[item.case.module] = session.gethookproxy(item.path)
                item.ihook = proxies[item.case.module]
                overlap = overlap or "concurrency" in item.case.mark
        if overlap:  # (--prob-concurrency or a mark's: otherwise pytest's own protocol)
            from .execution.concurrency import register

            register(session.config, self, sys.modules[loader.COLLECT_MODULE])

    # -- running ---------------------------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Skip runs an extension rules out, then throttle with ``--prob-delay``.

        Called before every item's setup in the executing process; returns nothing.
        """
        collect = sys.modules.get(loader.COLLECT_MODULE)
        if collect is None or not isinstance(item, collect.BenchRun):
            return
        from .execution.run_start import start_run

        item.stash[TOKEN_KEY] = start_run(self, item, collect)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        """Leave the run context after the run's fixtures were finalized (so fixture code
        after ``yield`` still sees ``current_run()``).

        Wraps every item's teardown in the executing process; returns nothing.
        """
        try:
            return (yield)
        finally:
            collect = sys.modules.get(loader.COLLECT_MODULE)
            if collect is not None:
                token = item.stash.get(TOKEN_KEY, None)
                if token is not None:
                    from .execution.context import leave_run

                    del item.stash[TOKEN_KEY]
                    leave_run(token)
                if collect.CONTEXT_KEY in item.stash:  # keep no per-run objects past the run
                    del item.stash[collect.CONTEXT_KEY]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Attach the run record to the call report (or a failed/skipped setup report).

        Wraps report creation in the executing process; returns the report unchanged
        except for one ``user_properties`` entry carrying the record.
        """
        report = yield
        collect = sys.modules.get(loader.COLLECT_MODULE)
        if (
            collect is not None
            and isinstance(item, collect.BenchRun)
            and (call.when == "call" or (call.when == "setup" and not report.passed))
        ):
            from .execution.bus import attach
            from .execution.run_record import make_run_record

            record = make_run_record(self, item, call, report)
            attach(report, record)
            for key in (collect.STEPS_KEY, collect.STEP_RECORDS_KEY, collect.ELAPSED_KEY):
                if key in item.stash:
                    del item.stash[key]
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_prob_classify_outcome(self, item: pytest.Item, call: pytest.CallInfo[None]) -> str:
        """The default classification (see :func:`default_classify`).

        Called in the executing process after each bench run phase; returns the outcome word.
        """
        from .execution.records import default_classify

        return default_classify(call)

    # -- distribution (the xdist controller) ------------------------------------------------
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Keep every run of a case (of a function, for function-level verdict items) on one
        worker: called once by pytest-xdist on the controller; returns the case-aware
        scheduler for ``--dist load`` (the default), ``loadgroup`` and ``worksteal``, else
        ``None`` (xdist's own scheduler)."""
        from .collection.distribution import REPLACED, make_scheduler

        dist = config.getvalue("dist")
        if dist not in REPLACED:
            return None
        if dist != "load":  # a mode the user chose: say once what was done instead
            self.distribution = (
                f"each case's runs kept on one worker (case-aware scheduling instead of "
                f"--dist {dist})"
            )
        return make_scheduler(config, log)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Activate the plugin on the pytest-xdist controller (which never collects) when a
        worker collected a bench file: called once per worker with the node ids it
        collected, before any is scheduled; returns nothing."""
        self.collected = self.collected or ids
        if self.active or self.config is None:
            return
        for nodeid in ids:
            path = Path(nodeid.split("::", 1)[0])
            if any(path.match(pattern) for pattern in self.patterns):
                self.activate(self.config)
                return

    # -- aggregating -----------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Feed arriving records into the results.

        Called for every report. The aggregating process (the only process, or the xdist
        controller) also calls ``pytest_prob_logrecord``; an xdist worker only keeps its own
        runs, so that verdict items it executes can see them. Returns nothing.
        """
        if self.config is None:
            return
        record = None
        if report.user_properties:  # (a record travels in the report's user properties)
            from .execution.bus import detach, extract

            record = extract(report)
        if record is not None:
            self.activate(self.config)  # (a record may come from a worker first)
            if _is_worker(self.config):
                assert self.results is not None
                self.results.add(record)
                return
            # the results hold it now: one copy per session, freed with the results
            detach(report)
            self.aggregate(record)
        elif self.results is None:
            return  # not a bench session: nothing below concerns it
        elif report.when == "???" and report.failed and not _is_worker(self.config):
            # pytest-xdist: the worker running this item died before reporting it; the run
            # counts as made (an ERROR) for everyone, the budget too
            from .execution.records import crash_record_of

            found = crash_record_of(report, self.results, self.patterns, self.collected)
            if found is not None:
                self.aggregate(found)
        elif report.when == "teardown" and report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            detail = getattr(crash, "message", None) or report.longreprtext.strip() or "error"
            from .execution.steps import truncate

            self.results.teardown_failed(report.nodeid, truncate(f"teardown failed: {detail}"))

    def aggregate(self, record: dict[str, Any]) -> None:
        """Add a run's record to the results and tell the extensions
        (``pytest_prob_logrecord``), in the aggregating process."""
        assert self.results is not None and self.config is not None and self.plans is not None
        self.results.add(record)
        from .report.safe_calls import call_each

        plan = self.plans.plan(self.config, "pytest_prob_logrecord")
        if any(impl.plugin_name not in loader.BUNDLED_NAMES for _, _, impl in plan):
            record = copy.deepcopy(record)  # (a third party's hook must not change the results)
        kwargs = {"record": record, "config": self.config}
        failures = call_each(self.config, "pytest_prob_logrecord", kwargs, self.plans)
        if failures:
            assert self.failures is not None
            self.failures.add("pytest_prob_logrecord", failures)

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
        if _is_worker(session.config) or not self.has_report():
            return  # (nothing collected and no --prob-json: no report)
        from .report.safe_calls import build_report

        self.stopped_early = bool(
            session.shouldstop or session.shouldfail or exitstatus == pytest.ExitCode.INTERRUPTED
        )
        self.activate(session.config)  # (a --prob-json session with nothing collected)
        assert self.results is not None and self.failures is not None
        self.builder = build_report(session.config, self.results, self.failures)
        if self.distribution is not None:
            self.builder.add_summary("Workers:", self.distribution, order=900)
        if self.json_path is not None:
            from .report.json_report import write_report

            status = int(session.exitstatus)
            done = write_report(*self.json_path, lambda: self.report_document(status))
            if isinstance(done, str):  # (one error line naming the file)
                self.json_error = done
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
            else:
                self.written.append(done)

    def report_document(self, exit_status: int) -> dict[str, Any] | None:
        """The report document as ``--prob-json`` writes it, or ``None`` before the report
        is built (:func:`~pytest_probability.sessionviews.report_document`)."""
        if self.builder is None:
            return None
        from .report.json_report import build_document

        assert self.results is not None  # (made with the report's session)
        return build_document(
            results=self.results,
            builder=self.builder,
            runs=self.options.session_value("runs"),
            exit_status=exit_status,
        )

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
            if gc.isenabled() and (self.recorded or self.case_order):
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
        self.results = None
        self.builder = None
        if self.collector_paused:
            self.collector_paused = False
            gc.enable()

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector: pytest.Collector, name: str, obj: Any) -> Any:
        """Collect a test function with its own ``probability(...)`` mark as a bench
        function; note ``bench_*`` functions in files collected as tests (:mod:`.hints`).
        Called for every name of every Python module and class collected, in collecting
        processes; returns the bench function's nodes, or ``None`` (pytest's own way)."""
        marks = getattr(obj, "pytestmark", ()) if isinstance(obj, FunctionType) else None
        if marks is None or not (
            name.startswith("bench_") or any(getattr(m, "name", 0) == "probability" for m in marks)
        ):
            return None  # (the cheap way out for every other name: nothing imported)
        from .collection.hints import bench_to_collect

        if not bench_to_collect(collector, name, obj, self.patterns, self.strays):
            return None
        self.activate(collector.config, collector.session)
        from .collection.collector import bench_nodes

        return bench_nodes(collector, name, obj)  # type: ignore[arg-type]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Print the ``probability`` section and every extension section; a line when
        ``--prob-*`` options found no bench run (:mod:`.hints`); one line per file written,
        as ``--junitxml`` does. Called once in the aggregating process at the end of the
        terminal summary; returns nothing."""
        if self.builder is not None:
            from .report.builder import print_report

            print_report(terminalreporter, self.builder)
        if self.json_error:  # (it names the path given: escapes made visible)
            from .formatting.terminal_text import visible

            terminalreporter.write_line(f"ERROR: {visible(self.json_error)}", red=True, bold=True)
        args = terminalreporter.config.invocation_params.args
        if not self.has_report() and any(str(arg).startswith("--prob-") for arg in args):
            from .collection.hints import print_no_bench_line

            print_no_bench_line(terminalreporter, self.strays)
        if self.written:
            from .report.written import print_written

            print_written(terminalreporter, self.written)
