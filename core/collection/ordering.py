"""Item order: ``--prob-transpose`` turns case-major order into run-major order; a selected
verdict item brings back its case's runs.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import pytest

from .collector import BenchRun, VerdictItem


def transposed(items: list[pytest.Item], order: dict[str, int]) -> list[pytest.Item]:
    """Run-major order for bench items; each verdict item right after the last of its runs
    (a case's for ``[gate]``, a function's for ``[compare:ARM]``)."""
    bench = [i for i in items if isinstance(i, (BenchRun, VerdictItem))]
    if not bench:
        return items
    runs = sorted(
        (i for i in bench if isinstance(i, BenchRun)), key=lambda i: (i.run, order[i.case.key])
    )
    ran = {id(run) for run in runs}
    verdicts = [i for i in bench if isinstance(i, VerdictItem)]
    placed = [v for v in verdicts if any(id(run) in ran for run in v.runs)]
    left = [v for v in verdicts if not any(id(run) in ran for run in v.runs)]
    first = items.index(bench[0])  # (everything before it is not a bench item)
    tail = [i for i in items[first:] if not isinstance(i, (BenchRun, VerdictItem))]
    return [*items[:first], *verdicts_after_runs([*placed, *runs]), *left, *tail]


def verdicts_after_runs(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with every verdict item that comes before one of its runs moved right after
    the last of them; everything else keeps its place (``items`` itself when none moved)."""
    where = {id(item): index for index, item in enumerate(items)}
    after: dict[int, list[pytest.Item]] = {}
    for index, item in enumerate(items):
        if isinstance(item, VerdictItem):
            last = max((where.get(id(run), -1) for run in item.runs), default=-1)
            if last > index:
                after.setdefault(last, []).append(item)
    if not after:
        return items
    moved = {id(item) for group in after.values() for item in group}
    arranged: list[pytest.Item] = []
    for index, item in enumerate(items):
        if id(item) not in moved:
            arranged.append(item)
        arranged.extend(after.get(index, ()))
    return arranged


def with_verdict_runs(items: list[pytest.Item], config: pytest.Config) -> list[pytest.Item]:
    """``items`` with the runs of every verdict item selected without any of them (``-k
    gate``, ``--lf``) put back just before it (and out of pytest's ``deselected`` count),
    and each verdict item's :attr:`~VerdictItem.selected_runs` set: a selection that keeps
    some of the runs (``--deselect …[run10]``) is the user's, and the verdict judges those."""
    selected = {id(item) for item in items}
    restored: list[pytest.Item] = []
    arranged: list[pytest.Item] = []
    for item in items:
        if isinstance(item, VerdictItem):
            kept = [run for run in item.runs if id(run) in selected]
            if not kept:
                selected.update(id(run) for run in item.runs)
                restored.extend(item.runs)
                arranged.extend(item.runs)
                kept = list(item.runs)
            item.selected_runs = kept
        arranged.append(item)
    if restored:
        _forget_deselected(config, restored)
    return arranged


def _forget_deselected(config: pytest.Config, restored: list[pytest.Item]) -> None:
    """Remove re-selected items from the terminal's ``deselected`` tally (best effort)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    deselected = getattr(reporter, "stats", {}).get("deselected")
    if not deselected:
        return
    back = {id(item) for item in restored}
    deselected[:] = [item for item in deselected if id(item) not in back]
    if not deselected:
        del reporter.stats["deselected"]
