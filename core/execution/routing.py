"""Output and log records of bodies in flight, routed to their runs (``--prob-concurrency``).

While the scheduler (:mod:`.concurrency`) drives its loop, or while threads it started run
beside another run's phase, pytest's capture and log handlers belong to no run, or to the
wrong one. :func:`routed` swaps in a ``sys.stdout``/``sys.stderr`` that keeps text written
by a body for its run, a root-logger handler that keeps its log records, and a filter that
holds those records back from every other handler; the run's call phase replays them
(:mod:`.replay`). The run is found through a context variable, so tasks and the threads
they start (which copy the context) both work. Never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import sys
from collections.abc import Iterator
from typing import Any

#: the slot (a started run, :class:`.concurrency.Slot`) of the body running in this context
current_slot: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "pytest_probability_slot", default=None
)


def in_body() -> Any:
    """The slot whose body is executing in this context (a task or its thread), if any."""
    slot = current_slot.get()
    return slot if slot is not None and slot.in_body else None


class RoutingStream:
    """``sys.stdout``/``sys.stderr`` while bodies are in flight: text a body writes goes to
    its run; anything else goes where it would have gone."""

    def __init__(self, fallback: Any, name: str) -> None:
        self._fallback = fallback
        self._name = name

    def write(self, text: str) -> int:
        slot = in_body()
        if slot is None:
            return int(self._fallback.write(text))
        getattr(slot.body, self._name).append(text)
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fallback, name)


class RoutingHandler(logging.Handler):
    """Keeps the log records of bodies in flight for their runs (re-emitted at the replay)."""

    def emit(self, record: logging.LogRecord) -> None:
        slot = in_body()
        if slot is not None:
            slot.body.records.append(record)


def held_back(record: logging.LogRecord) -> bool:
    """A handler filter: records of bodies in flight reach handlers only at their replay."""
    return in_body() is None


@contextlib.contextmanager
def routed(config: Any) -> Iterator[None]:
    """Route output and log records of bodies in flight to their runs for the duration;
    the root logger's level is pytest's ``log_level`` meanwhile (as in a run's phase)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RoutingStream(out, "out"), RoutingStream(err, "err")
    root = logging.getLogger()
    handler, level = RoutingHandler(), root.level
    others = list(root.handlers)
    for other in others:
        other.addFilter(held_back)
    root.addHandler(handler)
    wanted = config.getoption("log_level", None) or config.getini("log_level")
    if wanted:
        with contextlib.suppress(ValueError, TypeError):
            root.setLevel(wanted.upper() if isinstance(wanted, str) else wanted)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
        root.removeHandler(handler)
        root.setLevel(level)
        for other in others:
            other.removeFilter(held_back)
