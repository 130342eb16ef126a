"""Writing the plan as TOML (``--prob-plan-write``). Pure module: never imports pytest.

Numbers are written as people read them: every float to 15 significant digits, the
precision a float holds for certain (the rule the cost extension applies to its sums), so a
projected cost of ``0.0045 / 6 * 10`` is ``cost = 0.0075``, not ``0.007499999999999999``.
Only the binary noise of the arithmetic goes; every digit that means something stays.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_probability.api import escape_surrogates, write_atomic

#: Significant digits of every float the plan file holds.
SIGNIFICANT = 15


def readable(number: float) -> float:
    """``number`` to :data:`SIGNIFICANT` significant digits (``-0.0`` becomes ``0.0``)."""
    return float(f"{number:.{SIGNIFICANT}g}") + 0.0


def toml_values(value: Any) -> Any:
    """``value`` ready for TOML: floats made :func:`readable`, the ``None`` fields of every
    table left out (TOML has no null), and a lone surrogate in any text (from a file name
    that is not UTF-8) written as its escape, the text ``\\udcff``."""
    if isinstance(value, dict):
        return {
            escape_surrogates(str(key)): toml_values(item)
            for key, item in value.items()
            if item is not None
        }
    if isinstance(value, (list, tuple)):
        return [toml_values(item) for item in value]
    if isinstance(value, float):
        return readable(value)
    if isinstance(value, str):
        return escape_surrogates(value)
    return value


def write_toml(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` as TOML with :func:`pytest_probability.report.writing.write_atomic`
    (missing directories created, a temporary file renamed over the target); raises
    ``OSError`` when the file cannot be written."""
    import tomli_w

    write_atomic(path, tomli_w.dumps(toml_values(document)))
