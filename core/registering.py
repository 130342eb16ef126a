"""Filling a registry through a historic ``pytest_prob_register_*`` hook.

Every registry an extension keeps (metrics, comparison tests, p adjustments, gate kinds,
stopping rules, interval and latency methods) is filled by calling its registration hook
historically, so that a plugin registered later (a conftest below the rootdir) still
registers. A registration that fails stops the session with one usage error naming the
registry: a ``ValueError`` (what ``register`` raises for a name registered twice, and what
a plugin raises by contract to refuse) with its message as it is; any other exception (a
bug in the plugin) with its type and the plugin whose hook raised it, never a traceback
from our internals or an INTERNALERROR.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import pytest


def call_registrations(hook: Any, kwargs: dict[str, Any], what: str) -> None:
    """Call the historic registration ``hook`` with ``kwargs``; a failure becomes
    :class:`pytest.UsageError` ``registering WHAT failed: …`` (a plugin's own
    ``UsageError`` and ``pytest.exit`` pass through unchanged)."""
    try:
        hook.call_historic(kwargs=kwargs)
    except (pytest.UsageError, pytest.exit.Exception):
        raise
    except ValueError as exc:
        raise pytest.UsageError(f"registering {what} failed: {exc}") from None
    except Exception as exc:
        raise pytest.UsageError(f"registering {what} failed: {describe(exc, hook)}") from None


def describe(exc: BaseException, hook: Any) -> str:
    """``TypeError: … (raised by PLUGIN's pytest_prob_register_…)``: the exception and the
    plugin whose implementation of ``hook`` it came from (found in its traceback)."""
    text = f"{type(exc).__name__}: {exc}"
    plugin = raising_plugin(exc.__traceback__, hook)
    name = getattr(hook, "name", "the registration hook")
    return f"{text} (raised by {plugin}'s {name})" if plugin else text


def raising_plugin(trace: TracebackType | None, hook: Any) -> str | None:
    """The name of the plugin whose implementation of ``hook`` is in ``trace``, if any."""
    try:
        owners = {impl.function.__code__: impl.plugin_name for impl in hook.get_hookimpls()}
    except Exception:  # (a hook caller without implementations to list)
        return None
    found = None
    while trace is not None:
        found = owners.get(trace.tb_frame.f_code, found)
        trace = trace.tb_next
    return found
