"""Item order: ``--prob-transpose`` turns case-major order into run-major order."""

from __future__ import annotations

import pytest

from .collect import BenchRun, VerdictItem


def transposed(items: list[pytest.Item], order: dict[str, int]) -> list[pytest.Item]:
    """Run-major order for bench items; verdict items right after their case's last run."""
    bench = [i for i in items if isinstance(i, (BenchRun, VerdictItem))]
    if not bench:
        return items
    first = items.index(bench[0])
    others = [i for i in items if not isinstance(i, (BenchRun, VerdictItem))]
    runs = sorted(
        (i for i in bench if isinstance(i, BenchRun)), key=lambda i: (i.run, order[i.case.key])
    )
    verdicts: dict[str, list[pytest.Item]] = {}
    for item in bench:
        if isinstance(item, VerdictItem):
            verdicts.setdefault(item.case.key, []).append(item)
    remaining: dict[str, int] = {}
    for item in runs:
        remaining[item.case.key] = remaining.get(item.case.key, 0) + 1
    arranged: list[pytest.Item] = []
    for item in runs:
        arranged.append(item)
        remaining[item.case.key] -= 1
        if remaining[item.case.key] == 0:
            arranged.extend(verdicts.pop(item.case.key, []))
    for leftover in verdicts.values():
        arranged.extend(leftover)
    position = {id(item): index for index, item in enumerate(items)}
    head = [i for i in others if position[id(i)] < first]
    tail = [i for i in others if position[id(i)] > first]
    return head + arranged + tail
