"""A case's distinct failures (the JSON row's ``failures``), above its run table.

Each group is one line: how many runs failed that way, the group's text and which runs, as
the terminal's line after a case's traceback says it. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import integer, objects, runs_text, text

from .markup import escape


def failure_groups(row: Mapping[str, Any]) -> str:
    """``<ul class="fgroups">`` with one item per failure group, or ``""`` when the row has
    none (a report written without the ``failures`` extension has none either)."""
    items = []
    for group in objects(row.get("failures")):
        runs = [run for run in (integer(r) for r in group.get("runs") or ()) if run is not None]
        count = integer(group.get("count"))
        count = len(runs) if count is None else count
        where = f' <span class="same">({escape(runs_text(runs))})</span>' if runs else ""
        items.append(f"<li>{count} × <code>{escape(text(group.get('text')))}</code>{where}</li>")
    if not items:
        return ""
    return f'<ul class="fgroups" title="failing runs by kind">{"".join(items)}</ul>'
