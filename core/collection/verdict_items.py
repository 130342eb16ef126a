"""Verdict items: one pytest item per gate or comparison verdict, after a case's last run.

An extension asks for one through ``pytest_prob_collect_verdicts`` by returning a
:class:`VerdictRequest`; the kernel creates the item (``identify_pii[gate]``), places it
after the case's last run (also under ``--prob-transpose``) and runs ``judge`` as its body.
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formatting.terminal_text import xml_text

#: JUnit XML property names of verdict items start with this
PROPERTY_PREFIX = "prob."


@dataclass(frozen=True)
class VerdictRequest:
    """A verdict item a case needs.

    :ivar kind: what stands in the brackets: ``gate``, ``compare:ARM``, ``baseline``.
    :ivar judge: called with the item when it runs, in the executing process; returns
        normally for a passing verdict, raises ``AssertionError`` (or calls
        ``pytest.fail``) with the verdict line for a failing one, or calls ``pytest.skip``.
    :ivar description: one line for ``--collect-only -v`` and the item's report.
    """

    kind: str
    judge: Callable[[Any], None]
    description: str = ""


def verdict_properties(fields: Mapping[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """``(name, text)`` pairs for a verdict item's JUnit XML ``<property>`` entries: every
    scalar field (missing values, lists and objects are left out), named
    ``prob.<prefix><field>``: ``true``/``false``, integers as they are, other numbers to 10
    significant digits, text as it is. Names and text are made XML 1.0 text (:func:`xml_text`):
    a gate kind, field or line from a third party may hold a control character or a lone
    surrogate."""
    out = []
    for name, value in fields.items():
        if value is None or isinstance(value, (list, tuple, dict)):
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = format(value, ".10g") if isinstance(value, float) else str(value)
        out.append((xml_text(f"{PROPERTY_PREFIX}{prefix}{name}"), xml_text(text)))
    return out
