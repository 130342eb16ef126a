"""SIGTERM ends a session the way Ctrl-C does, and neither loses the report once it is made.

CI time limits, ``timeout`` and container stops send SIGTERM, whose default action ends the
process at once: no JSON, no HTML, no summary, after runs that may have cost money. While the
aggregating process (the only process, or the pytest-xdist controller) is collecting or
running, the first SIGTERM raises :class:`Terminated`, a ``KeyboardInterrupt``: pytest then
ends the session as after Ctrl-C (exit status 2), and the report is built from the runs made
so far. Once the runs are over (or Ctrl-C ended them), SIGTERM and SIGINT (Ctrl-C) are held
until the reports are written: the session's exit status becomes 2 at once, so every report
written after the signal says "interrupted" with the status the process returns, and pytest
then exits with it. A second signal ends the process at once (the default action).

The handler is installed only in the main thread, only where SIGTERM has its default action
(a handler someone else installed, or an ignored SIGTERM, is left alone), and only acts for a
session with something to report; otherwise it re-sends the signal with its default action,
so an unrelated pytest session ends exactly as before. It is removed at
``pytest_unconfigure``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Generator
from types import FrameType
from typing import Any

import pytest

PLUGIN_NAME = "probability.sigterm"


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while the session was running: it ends as after Ctrl-C."""


class TermHandler:
    """The SIGTERM handler of one session, registered as ``probability.sigterm``.

    :param reportable: whether the session has something to report (runs, collected cases,
        a ``--prob-json`` path); asked when the signal arrives.
    """

    def __init__(
        self, reportable: Callable[[], bool], session: pytest.Session | None = None
    ) -> None:
        self.reportable = reportable
        #: the run loop is over (or a SIGTERM ended it): the report is being made
        self.reporting = False
        #: a SIGTERM arrived (the next one takes the default action)
        self.signalled = False
        self.session = session
        #: the signal held while the reports were made, named for the terminal
        self.held: str | None = None

    def uninstall(self) -> None:
        """Give SIGTERM its default action and SIGINT Python's ``KeyboardInterrupt`` back
        (where this handler still holds them)."""
        if signal.getsignal(signal.SIGTERM) == self.handle:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if signal.getsignal(signal.SIGINT) == self.handle:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler (see the module's docstring)."""
        if self.signalled or not self.reportable():
            self.uninstall()
            signal.signal(signum, signal.SIG_DFL)  # (SIGINT too: at once, no traceback)
            os.kill(os.getpid(), signum)
            return
        self.signalled = True
        if self.session is not None:
            self.session.exitstatus = pytest.ExitCode.INTERRUPTED
        if not self.reporting:
            self.reporting = True
            raise Terminated("SIGTERM")
        self.held = signal.Signals(signum).name

    def hold_interrupt(self) -> None:
        """A ``KeyboardInterrupt`` raised by an extension's hook while the reports are made:
        held as a Ctrl-C would be (the exit status becomes 2)."""
        self.held = self.held or "KeyboardInterrupt (raised by an extension's hook)"
        self.signalled = True
        if self.session is not None:
            self.session.exitstatus = pytest.ExitCode.INTERRUPTED

    def hold_interrupts(self) -> None:
        """From now on hold Ctrl-C too (while Python's own handler has it)."""
        self.reporting = True
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self.handle)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """Remember the session (for the exit status). Called once in the aggregating
        process."""
        self.session = session

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Hold SIGTERM and SIGINT once the run loop is over (also when Ctrl-C ended it).
        Wraps the run loop in the aggregating process; returns its result unchanged."""
        try:
            return (yield)
        finally:
            self.hold_interrupts()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Before any report is written: a signal held between the end of the run loop and
        here (pytest sets the exit status from the loop's outcome after it) still makes the
        exit status 2. Called once in the aggregating process."""
        if self.signalled:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say that a signal was held, after everything else the summary prints. Called
        once in the aggregating process."""
        if self.held is not None:
            terminalreporter.write_sep("=", "probability: interrupted", yellow=True)
            terminalreporter.write_line(
                f"  {self.held} held until every report was written: exit status 2"
            )

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """Remove the handler; after a SIGTERM the exit status is 2 (interrupted), also when
        it was held while the report was made. Called once at the very end."""
        self.uninstall()
        if self.signalled and self.session is not None:
            self.session.exitstatus = pytest.ExitCode.INTERRUPTED


def install(
    config: pytest.Config, reportable: Callable[[], bool], session: pytest.Session | None = None
) -> None:
    """Register a :class:`TermHandler` for this session if SIGTERM is free to take over (it
    has its default action, and this is the main thread). Called by the kernel in the
    aggregating process when the session starts using the plugin; ``session`` is the session
    when it started already."""
    if (
        config.pluginmanager.get_plugin(PLUGIN_NAME) is not None
        or not hasattr(signal, "SIGTERM")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        return
    handler = TermHandler(reportable, session)
    signal.signal(signal.SIGTERM, handler.handle)
    config.pluginmanager.register(handler, PLUGIN_NAME)
