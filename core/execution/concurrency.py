"""Up to K bench runs in flight in one process (``--prob-concurrency=K``).

pytest runs one item at a time, and every run stays one item here: its own setup, call and
teardown, its own report, printed in item order. What changes is *when* its body runs. The
:class:`Scheduler` takes over ``pytest_runtest_protocol`` for runs it may overlap and *looks
ahead*: it sets up the next runs of the same window (the same function, with the same
parameters for fixtures above function scope; under pytest-xdist, the same case) until K
bodies are in flight, and starts each body as a task on one event loop (``async def``
bodies) or in a thread (plain bodies, only with ``--prob-threads``). After each setup it
*parks* the run's fixture state, so pytest only ever sees one item set up at a time. While
the current run's body is not done it drives the loop, finishing every other run whose body
completed: the body's outcome is *replayed* in the run's call phase
(:mod:`.replay`), which goes through pytest's public hooks, so capture, logging, skip and
xfail, JUnit and the kernel's run record work as for a serial run. Then the teardown runs
and the reports wait for their turn.

Records are aggregated when a body completes, not when its report is printed, so stopping
and budgets decide on completed runs when they are asked at a run's start. Runs already in
flight when a case is decided finish and count.

Parking needs four private pytest names (the guard test ``tests/test_concurrency.py``
checks their shape on every supported pytest): ``session._setupstate.stack`` (the item's
entry is moved, never read), ``item._request._fixture_defs`` (the fixtures it used),
``FixtureDef.cached_result`` and ``FixtureDef._finalizers`` (swapped per run, mutated in
place), and ``item._fixtureinfo.name2fixturedefs`` (the scope of parametrized fixtures, for
the window). A run the scheduler cannot overlap faithfully runs as before: one reading
pytest's global capture (``capsys``, ``capfd``, ``caplog``), under ``--pdb``, ``--trace``,
``--setup-only``, ``--setup-show``, or with reruns.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from time import monotonic
from typing import TYPE_CHECKING, Any

import pytest

from .replay import FinishedBody
from .routing import current_slot, routed
from .steps import arun_body, run_body

if TYPE_CHECKING:
    from ..kernel import Kernel

PLUGIN_NAME = "probability.concurrency"
#: fixtures that read pytest's one global capture: a run using one is never overlapped
CAPTURE_FIXTURES = frozenset({"capsys", "capfd", "capsysbinary", "capfdbinary", "caplog"})
#: the ``workerinput`` key by which the controller says each worker gets a case's runs
#: together (pytest-xdist): only then may a worker look ahead within a case
WHOLE_CASES = "probability_whole_cases"


class Slot:
    """One started run: its context, parked pytest state, body task and kept reports."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item
        #: the run's own context: its setup, body and teardown all run in it
        self.ctx = contextvars.copy_context()
        self.calls: list[tuple[pytest.CallInfo[Any], pytest.TestReport]] = []
        self.parked: dict[str, Any] | None = None
        self.task: asyncio.Task[None] | None = None
        self.body = FinishedBody()
        self.in_body = False
        self.called = False
        #: the record is in the results (made at the call phase, or a skipped setup)
        self.counted = False
        #: the call replayed and the fixtures torn down: only the reports are left
        self.finished = False
        #: the item its teardown kept the parents for (a run still parked, or the next item)
        self.torn_down_for: pytest.Item | None = None

    @property
    def setup_passed(self) -> bool:
        return bool(self.calls) and self.calls[0][1].passed


class Scheduler:
    """The scheduler of one process, registered as ``probability.concurrency`` by the
    kernel when any collected run may be overlapped."""

    def __init__(self, config: pytest.Config, kernel: Kernel, collect: Any) -> None:
        self.config = config
        self.kernel = kernel
        self.collect = collect
        self.slots: dict[pytest.Item, Slot] = {}
        self.index: dict[pytest.Item, int] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.executor: ThreadPoolExecutor | None = None
        self.threads_made = 0
        #: failed reports made but not printed yet (pytest counts failures when printed)
        self.unreported_failures = 0
        #: the earliest time the next run may start (``--prob-delay``)
        self.next_start: float | None = None
        self.clock = monotonic
        self.bodies_running = 0
        self._eligible: dict[str, bool] = {}
        workerinput = getattr(config, "workerinput", None)
        self.worker = workerinput is not None
        self.lookahead = workerinput is None or (
            bool(workerinput.get(WHOLE_CASES)) and not dealt_apart(config)
        )
        option = config.option
        self.serial_only = any(
            getattr(option, name, False) for name in ("usepdb", "trace", "setuponly", "setupshow")
        ) or bool(getattr(option, "reruns", 0))

    # -- what may overlap --------------------------------------------------------------------
    def limit(self, item: Any) -> int:
        """The item's K: its mark, else ``--prob-concurrency``/``prob_concurrency``."""
        return int(self.kernel.options.case_value("concurrency", item.case.mark))

    def eligible(self, item: pytest.Item) -> bool:
        """Whether ``item`` is a run this scheduler may overlap (decided once per case)."""
        if not isinstance(item, self.collect.BenchRun) or self.serial_only:
            return False
        key = item.case.key
        if key not in self._eligible:
            func = item.obj
            body_ok = (
                inspect.iscoroutinefunction(func)
                or inspect.isasyncgenfunction(func)
                or bool(self.kernel.options.case_value("threads", item.case.mark))
            )
            self._eligible[key] = (
                body_ok
                and self.limit(item) > 1
                and not CAPTURE_FIXTURES & set(item.fixturenames)
                and item.get_closest_marker("flaky") is None
            )
        return self._eligible[key]

    def window(self, item: Any) -> Any:
        """Runs sharing this key may be set up together: the same parent (function), the
        same parameters of fixtures above function scope, and on a pytest-xdist worker the
        same case (the worker is sent a case's runs together, and nothing more is known)."""
        defs = item._fixtureinfo.name2fixturedefs  # private: see the module docstring
        callspec = getattr(item, "callspec", None)
        high = tuple(
            sorted(
                (name, repr(value))
                for name, value in (callspec.params.items() if callspec else ())
                if name in defs and defs[name][-1].scope != "function"
            )
        )
        return (item.parent, high, item.case.key if self.worker else None)

    def is_verdict_of(self, following: pytest.Item, item: pytest.Item) -> bool:
        """Whether ``following`` is a verdict item (``[gate]``) of ``item``'s function: the
        lookahead passes over it to the next case's runs (under pytest-xdist, never: a
        worker's window is one case)."""
        return (
            not self.worker
            and isinstance(following, self.collect.VerdictItem)
            and following.parent is item.parent
        )

    @property
    def in_flight(self) -> int:
        """Runs started whose record the session's tally does not hold yet: not in this
        process's results yet, or on a pytest-xdist worker not sent to the controller yet
        (its report waits for the runs before it)."""
        return sum(
            1
            for slot in self.slots.values()
            if slot.task is not None and (self.worker or not slot.counted)
        )

    # -- parking: a context switch of pytest's fixture state (private names) -----------------
    def park(self, slot: Slot) -> None:
        item: Any = slot.item
        stack = item.session._setupstate.stack
        parked: dict[str, Any] = {"stack": stack.pop(item) if item in stack else None}
        request = getattr(item, "_request", None)
        defs = (
            [d for d in request._fixture_defs.values() if d.scope == "function"] if request else []
        )
        parked["defs"] = [(d, d.cached_result, list(d._finalizers)) for d in defs]
        for d in defs:
            d.cached_result = None
            d._finalizers.clear()  # (a Final list on pytest 9: mutated, never rebound)
        slot.parked = parked

    def unpark(self, slot: Slot) -> None:
        parked, slot.parked = slot.parked, None
        if parked is None:
            return
        item: Any = slot.item
        if parked["stack"] is not None:
            item.session._setupstate.stack[item] = parked["stack"]
        for d, cached, finalizers in parked["defs"]:
            d.cached_result = cached
            d._finalizers[:] = finalizers

    # -- phases, through pytest's public hooks -----------------------------------------------
    def phase(self, slot: Slot, when: str, **kwargs: Any) -> pytest.TestReport:
        """Run one phase as pytest's ``call_and_report`` does, keeping the report to print
        later; a report carrying a run record goes into the results at once."""
        item = slot.item
        hook = getattr(item.ihook, f"pytest_runtest_{when}")
        reraise: tuple[type[BaseException], ...] = (pytest.exit.Exception,)
        if not self.config.getoption("usepdb", False):
            reraise += (KeyboardInterrupt,)
        call = slot.ctx.run(
            pytest.CallInfo.from_call,
            lambda: hook(item=item, **kwargs),
            when=when,  # type: ignore[arg-type]
            reraise=reraise,
        )
        report = item.ihook.pytest_runtest_makereport(item=item, call=call)
        if report.failed and not hasattr(report, "wasxfail"):
            self.unreported_failures += 1
        slot.calls.append((call, report))
        if when != "teardown" and report.user_properties and not slot.counted:
            from .bus import extract

            if extract(report) is not None:
                slot.counted = True
                self.kernel.pytest_runtest_logreport(report)
        return report

    def start(self, item: pytest.Item) -> Slot:
        """Set the run up, park it, and start its body (when the setup passed)."""
        slot = self.slots[item] = Slot(item)
        item.stash[self.collect.PACED_KEY] = True
        delay = self.kernel.options.session_value("delay")
        if delay:
            now = self.clock()
            self.next_start = max(now, self.next_start or now) + delay
        self.phase(slot, "setup")
        self.park(slot)
        if slot.setup_passed:
            slot.task = self.get_loop().create_task(self.run(slot), context=slot.ctx)
        return slot

    async def run(self, slot: Slot) -> None:
        """The body of one run, as a task in the run's context."""
        item: Any = slot.item
        current_slot.set(slot)
        kwargs = {name: item.funcargs[name] for name in item._fixtureinfo.argnames}
        body = slot.body
        threaded = not (
            inspect.iscoroutinefunction(item.obj) or inspect.isasyncgenfunction(item.obj)
        )
        slot.in_body = True
        self.bodies_running += 1
        start = self.clock()
        try:
            if threaded:
                call = contextvars.copy_context().run
                pool = self.get_executor(self.limit(item))
                await self.get_loop().run_in_executor(
                    pool, call, run_body, item.obj, kwargs, body.steps
                )
            else:
                await arun_body(item.obj, kwargs, body.steps)
        except BaseException as exc:  # replayed at the call phase
            body.error = exc
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise  # (leaves the loop: the session ends, drain() reports what ran)
        finally:
            body.elapsed = self.clock() - start
            slot.in_body = False
            self.bodies_running -= 1

    def finish(self, slot: Slot, nextitem: pytest.Item | None) -> None:
        """The call phase (a replay) and the teardown of a run whose body is done; the
        reports are kept. Re-entrant: after Ctrl-C cut it short, :meth:`drain` completes
        what is left."""
        item = slot.item
        self.unpark(slot)
        if slot.setup_passed and not slot.called:
            slot.called = True
            item.stash[self.collect.FINISHED_KEY] = slot.body
            self.phase(slot, "call")
        # while other runs of the window are parked, keep the parents they share
        siblings = [s.item for s in self.slots.values() if s is not slot and s.parked]
        after = siblings[0] if siblings else nextitem
        if not siblings and (item.session.shouldfail or item.session.shouldstop):
            after = None
        self.phase(slot, "teardown", nextitem=after)
        slot.torn_down_for = after
        item._request = False  # type: ignore[attr-defined]  # (as runtestprotocol does)
        item.funcargs = None  # type: ignore[attr-defined]
        slot.finished = True

    def emit(self, slot: Slot) -> None:
        """Print a finished run's reports, as pytest would have when it ran."""
        item = slot.item
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        for call, report in slot.calls:
            if report.failed and not hasattr(report, "wasxfail"):
                self.unreported_failures -= 1
            item.ihook.pytest_runtest_logreport(report=report)
            excinfo = call.excinfo
            if (
                excinfo is not None
                and not hasattr(report, "wasxfail")
                and not isinstance(excinfo.value, pytest.skip.Exception)
            ):
                item.ihook.pytest_exception_interact(node=item, call=call, report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        del self.slots[item]

    # -- the loop ----------------------------------------------------------------------------
    def get_loop(self) -> asyncio.AbstractEventLoop:
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        return self.loop

    def get_executor(self, size: int) -> ThreadPoolExecutor:
        """A thread pool with at least ``size`` threads (the default one has a handful)."""
        if self.executor is None or self.threads_made < size:
            if self.executor is not None:
                self.executor.shutdown(wait=False)
            self.executor = ThreadPoolExecutor(size, thread_name_prefix="probability-run")
            self.threads_made = size
        return self.executor

    def routing(self) -> contextlib.AbstractContextManager[None]:
        """While bodies may run: their output and log records go to their runs."""
        return routed(self.config)

    def drive(self, timeout: float | None = None) -> None:
        """Run the loop until a body completes (or ``timeout`` seconds pass)."""
        tasks = [s.task for s in self.slots.values() if s.task is not None and not s.task.done()]
        if not tasks and not timeout:
            return
        waiting: Any = (
            asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if tasks
            else asyncio.sleep(timeout or 0)
        )
        with self.routing():
            self.get_loop().run_until_complete(waiting)

    def finish_done(self, current: Slot, nextitem: pytest.Item | None) -> None:
        for other in list(self.slots.values()):
            if other is not current and other.parked and other.task and other.task.done():
                self.finish(other, nextitem)

    def may_start(self, session: pytest.Session) -> bool:
        """Whether ``-x``/``--maxfail`` (counting failures not printed yet) and
        ``--prob-delay`` allow a run to start now."""
        if session.shouldfail or session.shouldstop:
            return False
        maxfail = self.config.getoption("maxfail", 0)
        if maxfail and session.testsfailed + self.unreported_failures >= maxfail:
            return False
        return self.next_start is None or self.clock() >= self.next_start

    def fill(self, item: pytest.Item) -> None:
        """Start runs after ``item`` in its window while fewer than K bodies are in flight."""
        if not self.lookahead:
            return
        items = item.session.items
        key = self.window(item)
        i = self.index[item] + 1
        while i < len(items) and self.may_start(item.session):
            following = items[i]
            if self.is_verdict_of(following, item):
                i += 1  # (it runs in its turn, after the runs it reads: they go first)
                continue
            if not self.eligible(following) or self.window(following) != key:
                return
            running = sum(1 for s in self.slots.values() if s.parked and s.task is not None)
            if running >= min(self.limit(item), self.limit(following)):
                return
            if following not in self.slots:
                self.start(following)
            i += 1

    def wait_for_start(self) -> None:
        """Let ``--prob-delay`` pass before a run the lookahead did not start (the first of
        its window, or one the delay held back: every run before it is reported, so none
        is in flight) starts."""
        while self.next_start is not None and self.clock() < self.next_start:
            self.drive(timeout=self.next_start - self.clock())

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        """Run ``item`` with others in flight, when it may overlap. Called for every item in
        the executing process; returns ``True`` when it ran the item, ``None`` to leave it
        to pytest (no run of its window is in flight then)."""
        slot = self.slots.get(item)
        if slot is None:
            if not self.eligible(item):
                return None
            if not self.index:
                self.index = {each: n for n, each in enumerate(item.session.items)}
            self.wait_for_start()
            slot = self.start(item)
        self.fill(item)
        while not slot.finished:
            if slot.task is None or slot.task.done():
                # (first: a failure it made counts before another run may start)
                self.finish(slot, nextitem)
                break
            wake = None
            if self.next_start is not None:
                wake = max(0.0, self.next_start - self.clock())
            self.drive(timeout=wake)
            self.finish_done(slot, nextitem)
            if not slot.task.done():
                self.fill(item)
        if slot.torn_down_for is not nextitem:
            self.leave_parents(slot, nextitem)
        self.emit(slot)
        return True

    def leave_parents(self, slot: Slot, nextitem: pytest.Item | None) -> None:
        """Tear down the parents ``nextitem`` does not share. A run that finished before the
        current one kept them for a run of its window (the one after it may have finished
        first): now that pytest names the item after this one, do what its teardown would
        have done. A finalizer's error becomes one more teardown report of this run."""
        item = slot.item
        stack: Any = item.session._setupstate  # private: see the module docstring
        if item.session.shouldfail or item.session.shouldstop:
            nextitem = None
        call = slot.ctx.run(
            pytest.CallInfo.from_call,
            lambda: stack.teardown_exact(nextitem),
            when="teardown",
            reraise=(pytest.exit.Exception, KeyboardInterrupt),
        )
        if call.excinfo is not None:
            report = item.ihook.pytest_runtest_makereport(item=item, call=call)
            self.unreported_failures += 1
            slot.calls.append((call, report))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        """Route what threads in flight write while another run's phase runs. Wraps every
        phase, innermost (inside pytest's capture); returns nothing."""
        return (yield from self._routed())

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """As ``pytest_runtest_setup``, for the call phase."""
        return (yield from self._routed())

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_teardown(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, None, None]:
        """As ``pytest_runtest_setup``, for the teardown phase."""
        return (yield from self._routed())

    def _routed(self) -> Generator[None, None, None]:
        if self.bodies_running == 0:
            return (yield)
        with self.routing():
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """After the run loop (also after ``-x``, Ctrl-C or SIGTERM): cancel what is still
        in flight when interrupted, finish it, and print its reports in item order. Wraps
        the run loop in the executing process; returns its result."""
        ended: BaseException | None = None
        try:
            result = yield
        except BaseException as exc:
            ended = exc
        # outside the except block: replayed exceptions get no "during handling" context
        self.drain(cancel=isinstance(ended, KeyboardInterrupt))
        if ended is not None:
            raise ended
        return result

    def drain(self, cancel: bool) -> None:
        """Finish every run still in flight (cancelled after an interruption) and print its
        reports in item order; then close the loop and the threads."""
        try:
            for slot in sorted(self.slots.values(), key=lambda s: self.index.get(s.item, 0)):
                task = slot.task
                if task is not None and not task.done():
                    if cancel:
                        task.cancel()
                    with contextlib.suppress(BaseException):
                        self.get_loop().run_until_complete(asyncio.wait([task]))
                if task is not None and task.done() and not task.cancelled():
                    task.exception()  # (retrieved: no "never retrieved" warning at exit)
                if not slot.finished:
                    self.finish(slot, None)
                self.emit(slot)
        finally:
            if self.executor is not None:
                self.executor.shutdown(wait=not cancel, cancel_futures=cancel)
            if self.loop is not None:
                self.loop.close()
                self.loop = None


def dealt_apart(config: pytest.Config) -> bool:
    """Whether an extension says this pytest-xdist worker is handed a case's runs a few at a
    time (``pytest_prob_deals_runs_apart``); one that fails is named in a warning and
    counts as saying so."""
    from ..sessionviews import call_first

    failed: list[str] = []
    answer = call_first(
        config,
        "pytest_prob_deals_runs_apart",
        check=lambda found: None if found is True else f"answered {found!r:.80}, not True",
        failed=lambda name, exc: failed.append(name),
        config=config,
    )
    return answer is True or bool(failed)


def register(config: pytest.Config, kernel: Kernel, collect: Any) -> Scheduler:
    """Register the scheduler of this process (once)."""
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if isinstance(found, Scheduler):
        return found
    scheduler = Scheduler(config, kernel, collect)
    config.pluginmanager.register(scheduler, PLUGIN_NAME)
    return scheduler


def runs_in_flight(config: pytest.Config) -> int:
    """How many runs this process started whose record is not in the results yet (0
    without ``--prob-concurrency``)."""
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    return found.in_flight if isinstance(found, Scheduler) else 0
