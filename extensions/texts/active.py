"""The pytest session the ``texts_*`` helpers use outside a bench run (a plain test), and
where their warnings point (what was warned about, the caller's line).

Kept apart so that loading the plugin imports nothing heavy. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import sys
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


def caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside this package (the
    bench line that called the helper)."""
    frame = sys._getframe(1)
    level = 1
    package = __name__.rsplit(".", 1)[0]
    while frame is not None and frame.f_globals.get("__name__", "").startswith(package):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
