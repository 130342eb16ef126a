"""The words the grouped terminal output prints. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence

# (the HTML page names a group's runs with it too)
from pytest_probability.api import runs_text

from .grouping import FailureGroup

#: Groups named on one line; the rest are counted together.
MAX_GROUPS = 5


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _head(case: str, count: int, verb: str) -> str:
    return f"… {plural(count, f'more {verb} run')} of {case}"


def others_line(case: str, runs: Sequence[int], verb: str) -> str:
    """``… 3 more passing runs of p::1 (runs 2–4)``: the case's other runs, named only (under
    the one passing run a case shows in ``PASSES``, or its traceback under ``first``)."""
    return f"{_head(case, len(runs), verb)} ({runs_text(runs)})"


def more_line(case: str, groups: Sequence[FailureGroup], *, verb: str = "failing") -> str:
    """The line under a case's one traceback, about its other failing runs (``groups`` holds
    only those): ``… 8 more failing runs of classify::phone_number: 5 × assert 'other' ==
    'phone' (runs 3–4, 6, 8–9), 3 × KeyError: 'amount' (runs 5, 7, 10)``."""
    head = _head(case, sum(group.count for group in groups), verb)
    parts = [f"{g.count} × {g.text} ({runs_text(g.runs)})" for g in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        parts.append(f"{sum(g.count for g in rest)} × {plural(len(rest), 'other message')}")
    return f"{head}: {', '.join(parts)}"


def summary_message(
    count: int, total: int, planned: int, groups: Sequence[FailureGroup], *, verb: str = "failed"
) -> str:
    """The message of a case's one short-summary line: ``9/10 runs failed: assert 'other' ==
    'phone' ×6, KeyError ×3`` (one group: no count; none: the counts only). A case that made
    fewer runs than planned says so: ``1/1 runs failed (of 10 planned)``."""
    head = f"{count}/{total} {'run' if total == 1 else 'runs'} {verb}"
    if planned > total:
        head += f" (of {planned} planned)"
    if len(groups) <= 1:
        return f"{head}: {groups[0].short}" if groups else head
    parts = [f"{group.short} ×{group.count}" for group in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        parts.append(f"{plural(len(rest), 'other')} ×{sum(g.count for g in rest)}")
    return f"{head}: {', '.join(parts)}"
