"""The pytest session the ``texts_*`` helpers use outside a bench run (a plain test).

Kept apart so that loading the plugin imports nothing heavy. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

#: the config of the session in progress (set by the plugin at ``pytest_configure``)
SESSION: dict[str, Any] = {"config": None}
#: what was already warned about in this session ("warn once")
WARNED: set[str] = set()


def set_session(config: Any) -> None:
    """Remember (or, with ``None``, forget) the session in progress; a new session warns
    afresh."""
    SESSION["config"] = config
    WARNED.clear()
