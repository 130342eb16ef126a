"""What a bench body did while it ran concurrently, kept for its run's call phase.

Under ``--prob-concurrency`` a body runs as a task (or in a thread) while pytest is busy with
other runs, so pytest's capture and log handlers for its run are not active. The scheduler
(:mod:`.concurrency`) keeps what the body wrote and logged, its steps, its duration and its
exception in a :class:`FinishedBody`; the run's call phase then *replays* it inside pytest's
own capture, so the output, the log records and the failure land in that run's report.
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import asyncio
import logging
import sys
from dataclasses import dataclass, field
from typing import Any


class Interrupted(Exception):
    """The body was cut short by Ctrl-C or SIGTERM while other runs were in flight."""


@dataclass
class FinishedBody:
    """One body's outcome.

    :ivar steps: the steps it returned or yielded (raw, read later as for a serial run).
    :ivar elapsed: seconds from its start to its end.
    :ivar out: text it wrote to ``sys.stdout``, in order.
    :ivar err: text it wrote to ``sys.stderr``, in order.
    :ivar records: log records it emitted.
    :ivar error: the exception it raised, or ``None``.
    """

    steps: list[Any] = field(default_factory=list)
    elapsed: float = 0.0
    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    records: list[logging.LogRecord] = field(default_factory=list)
    error: BaseException | None = None

    def replay(self) -> None:
        """Write the output and re-emit the log records where they go now (the call phase's
        capture and log handlers), then raise the body's exception, if any. A body ended by
        ``KeyboardInterrupt`` or ``SystemExit`` (or cancelled when they ended the session)
        raises :class:`Interrupted` instead, so the run is an error and the interruption
        itself ends the session once."""
        if self.out:
            sys.stdout.write("".join(self.out))
        if self.err:
            sys.stderr.write("".join(self.err))
        for record in self.records:
            logging.getLogger(record.name).handle(record)
        error = self.error
        if isinstance(error, (KeyboardInterrupt, SystemExit, asyncio.CancelledError)):
            raise Interrupted(f"interrupted ({type(error).__name__}) while in flight")
        if error is not None:
            self.error = None  # (the traceback is pytest's now: keep no second reference)
            raise error
