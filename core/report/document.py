"""Reading a report document defensively: a JSON report may come from an earlier version, from
another tool or from a hand-edited file, so every reader takes any JSON value and falls back
to a neutral one. Shared by the report renderers (HTML, Markdown). Pure module: never imports
pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

#: A count too long for decimal text, as the reports write it (``"1.000000e+5000"``).
_HUGE_COUNT = re.compile(r"-?[0-9]\.[0-9]{6}e\+[0-9]+")


def num(value: Any) -> float | None:
    """A finite number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def integer(value: Any) -> int | None:
    """A whole number (not a boolean), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def count_text(value: Any) -> str | None:
    """A token count as the reports show it: a whole number with thousands separators
    (``1,200``), or the scientific-notation text a count too long for decimal text is
    written as (``1.000000e+5000``, kept as it is); ``None`` for anything else."""
    number = integer(value)
    if number is not None:
        try:
            return f"{number:,}"
        except ValueError:  # (past Python's digit limit: a report never holds one)
            return None
    if isinstance(value, str) and _HUGE_COUNT.fullmatch(value):
        return value
    return None


def fraction(value: Any) -> float | None:
    """A number clamped to [0, 1], else ``None``."""
    number = num(value)
    return None if number is None else min(1.0, max(0.0, number))


def obj(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def items(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def objects(value: Any) -> list[Mapping[str, Any]]:
    """The JSON objects of an array (anything else in it is skipped)."""
    return [item for item in items(value) if isinstance(item, Mapping)]


def text(value: Any, default: str = "") -> str:
    """``value`` as text; ``None`` is ``default``."""
    return default if value is None else str(value)
