"""The words the grouped terminal output prints. Pure module: never imports pytest.

* :func:`more_line` — the line under a case's one traceback: ``… 8 more failing runs of
  classify::phone_number: 5 × assert 'other' == 'phone' (runs 3–4, 6, 8–9), 3 × KeyError:
  'amount' (runs 5, 7, 10)``;
* :func:`summary_message` — the message of the case's one short-summary line: ``9/10 runs
  failed: assert 'other' == 'phone' ×6, KeyError ×3``;
* :func:`others_line` — the line under the one passing run a case shows in ``PASSES``
  (``-rP``): ``… 3 more passing runs of p::1 (runs 2–4)``.

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


def _rest(groups: Sequence[FailureGroup]) -> str:
    runs = sum(group.count for group in groups)
    return f"{runs} × {plural(len(groups), 'other message')}"


def _head(case: str, count: int, verb: str) -> str:
    return f"… {count} more {verb} {'run' if count == 1 else 'runs'} of {case}"


def others_line(case: str, runs: Sequence[int], verb: str) -> str:
    """``… 3 more passing runs of p::1 (runs 2–4)``: the case's other runs, named only (the
    line after the one run's output that the ``PASSES`` section shows)."""
    return f"{_head(case, len(runs), verb)} ({runs_text(runs)})"


def more_line(
    case: str, groups: Sequence[FailureGroup], *, verb: str = "failing", grouped: bool = True
) -> str:
    """The line after a case's traceback, about its other failing runs (``groups`` holds
    only those). ``grouped=False`` (``--prob-failures=first``) names the runs only."""
    runs = [run for group in groups for run in group.runs]
    if not grouped:
        return others_line(case, runs, verb)
    head = _head(case, len(runs), verb)
    parts = [f"{g.count} × {g.text} ({runs_text(g.runs)})" for g in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        parts.append(_rest(groups[MAX_GROUPS:]))
    return f"{head}: {', '.join(parts)}"


def summary_message(
    count: int,
    total: int,
    planned: int,
    groups: Sequence[FailureGroup],
    *,
    verb: str = "failed",
    grouped: bool = True,
) -> str:
    """``9/10 runs failed: assert 'other' == 'phone' ×6, KeyError ×3`` (one group: no
    count; ``grouped=False``: the counts only). A case that made fewer runs than planned
    says so: ``1/1 runs failed (of 10 planned)``."""
    head = f"{count}/{total} {'run' if total == 1 else 'runs'} {verb}"
    if planned > total:
        head += f" (of {planned} planned)"
    if not grouped or not groups:
        return head
    if len(groups) == 1:
        return f"{head}: {groups[0].short}"
    parts = [f"{group.short} ×{group.count}" for group in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        parts.append(f"{plural(len(rest), 'other')} ×{sum(g.count for g in rest)}")
    return f"{head}: {', '.join(parts)}"


def passed_message(count: int, total: int, planned: int) -> str:
    """``4/4 runs passed`` for the one ``PASSED`` line of a case (``-rA``, ``-rp``)."""
    return summary_message(count, total, planned, (), verb="passed")
