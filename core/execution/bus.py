"""The record bus: run records ride on the call report's ``user_properties``.

That is the report pytest-xdist serialises from worker to controller, so records reach the
aggregating process whichever process ran them. JUnit XML writes only the teardown report's
properties, so records stay out of it. Never imports pytest at module level.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

from ..report.results import RECORD_KEY


def attach(report: Any, record: dict[str, Any]) -> None:
    """Add ``record`` to a report's ``user_properties``."""
    report.user_properties.append((RECORD_KEY, record))


def detach(report: Any) -> None:
    """Take the record off a report (the aggregating process keeps it in its results)."""
    properties = getattr(report, "user_properties", None)
    if properties:
        properties[:] = [
            entry for entry in properties if not (len(entry) == 2 and entry[0] == RECORD_KEY)
        ]


def extract(report: Any) -> dict[str, Any] | None:
    """The record a report carries, or ``None``."""
    for entry in getattr(report, "user_properties", ()):
        if len(entry) == 2 and entry[0] == RECORD_KEY and isinstance(entry[1], dict):
            return entry[1]
    return None
