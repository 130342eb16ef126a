"""Filling a registry through a historic ``pytest_prob_register_*`` hook.

Every registry an extension keeps (metrics, comparison tests, gate kinds, interval methods…)
is filled by calling its registration hook historically, so that a plugin registered later
(a conftest below the rootdir) still registers. A registration that fails stops the session
with one usage error naming the registry, never a traceback or an INTERNALERROR (also when
it calls ``sys.exit``; a ``KeyboardInterrupt`` is the user's: pytest ends the session as
interrupted before anything ran).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

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
    except (Exception, SystemExit) as exc:  # (sys.exit in an extension is its own bug)
        raise pytest.UsageError(f"registering {what} failed: {describe(exc, hook)}") from None


Registry = TypeVar("Registry")


def filled_registry(
    config: pytest.Config,
    key: pytest.StashKey[Registry],
    make: Callable[[], Registry],
    hook: Any,
    what: str,
) -> Registry:
    """The session's registry kept under ``key`` in ``config.stash``: made with ``make()``
    and filled through the historic registration ``hook`` (``register`` is the registry's
    ``register`` method) the first time it is asked for, as :func:`call_registrations`."""
    found = config.stash.get(key, None)
    if found is None:
        found = config.stash[key] = make()
        call_registrations(hook, {"register": found.register, "config": config}, what)  # type: ignore[attr-defined]
    return found


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
