"""Filling a registry through a historic ``pytest_prob_register_*`` hook.

Every registry an extension keeps (metrics, comparison tests, gate kinds, interval methods…)
is filled by calling its registration hook historically, so that a plugin registered later
(a conftest below the rootdir) still registers. A registration that fails stops the session
with one usage error naming the registry, never a traceback or an INTERNALERROR.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

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
    plugin whose implementation of ``hook`` is in its traceback, if any."""
    text = f"{type(exc).__name__}: {exc}"
    try:
        owners = {impl.function.__code__: impl.plugin_name for impl in hook.get_hookimpls()}
    except Exception:  # (a hook caller without implementations to list)
        return text
    plugin, trace = None, exc.__traceback__
    while trace is not None:
        plugin = owners.get(trace.tb_frame.f_code, plugin)
        trace = trace.tb_next
    name = getattr(hook, "name", "the registration hook")
    return f"{text} (raised by {plugin}'s {name})" if plugin else text
