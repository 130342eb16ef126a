"""The run being executed, for helpers called from inside a bench body.

The kernel sets the current :class:`RunContext` while a bench body runs (async bodies see it
too: ``asyncio.run`` copies the context). Extensions such as cost accounting read it through
:func:`current_run`, which raises :class:`RuntimeError` outside a bench run. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

_current: ContextVar[RunContext | None] = ContextVar("pytest_probability_run", default=None)


@dataclass
class RunContext:
    """One executing run.

    :ivar case_id: the case id (``classify::identify_pii``).
    :ivar run: the 1-based run index.
    :ivar data: per-extension scratch space, keyed by extension name; what an extension puts
        here is its own to move into the run record at ``pytest_prob_run_finished``.
    :ivar config: the ``pytest.Config`` of the session running it (for hook calls and
        settings from helpers such as ``record_usage``), or ``None`` outside pytest.
    """

    case_id: str
    run: int
    data: dict[str, Any] = field(default_factory=dict)
    config: Any = None


def current_run(what: str = "current_run()") -> RunContext:
    """The executing run; ``RuntimeError`` naming ``what`` when called outside one (the
    calling function: ``record_usage()``)."""
    __tracebackhide__ = True  # (a misuse shows the user's line, not ours)
    context = _current.get()
    if context is None:
        raise RuntimeError(
            f"{what} can only be called from inside a bench_* function while it runs "
            "(there is no bench run to attribute it to)"
        )
    return context


#: The executing run, or ``None`` outside one (no check; for helpers called many times per
#: run, which call :func:`current_run` for its error when this gives ``None``).
current_run_or_none = _current.get


#: Make a context current (returns the token for :func:`leave_run`); restore the one before.
enter_run = _current.set
leave_run = _current.reset
