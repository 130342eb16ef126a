"""Case-aware distribution over pytest-xdist workers.

A gate item, early stopping and function-level verdicts need every run of a case (of a
function, for ``[compare:ARM]`` and ``[baseline]``) on one worker, which ``--dist
loadgroup`` no longer guarantees on pytest 9.2. So for ``-n`` with ``--dist load``,
``loadgroup`` or ``worksteal`` the kernel supplies its own scheduler
(``pytest_xdist_make_scheduler``): each case or function is one work unit. Co-location is
still checked at run time.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import pytest

#: the ``--dist`` modes this scheduler replaces
REPLACED = ("load", "loadgroup", "worksteal")
#: pytest-xdist's ``@group`` suffix (pytest 7.4 with ``loadgroup`` and ``xdist_group``)
_GROUP = re.compile(r"@([^\]]*)$")


def _bench_parts(nodeid: str) -> list[str] | None:
    parts = nodeid.split("::")
    return parts if len(parts) >= 2 and parts[1].startswith("bench_") else None


def case_scope(nodeid: str, function_scoped: set[str]) -> str:
    """The work unit of a node id: its case key (the node id without its last ``[...]``:
    ``[run3]``, ``[gate]`` or a third party's verdict kind), its function key when the
    function has function-level verdict items, an ``xdist_group`` name for other grouped
    items, or the node id itself (a ``test_*``). (A parametrize id ending in ``]`` may merge
    two cases in one unit: that costs parallelism, never co-location.)"""
    group = _GROUP.search(nodeid)
    plain = nodeid[: group.start()] if group else nodeid
    parts = _bench_parts(plain)
    if parts is None:
        return f"@{group.group(1)}" if group else nodeid
    function = f"{parts[0]}::{parts[1].split('[', 1)[0]}"
    if function in function_scoped:
        return function
    return plain.rsplit("[", 1)[0] if plain.endswith("]") else plain


def function_scoped(collection: list[str]) -> set[str]:
    """Functions whose collection has a function-level item (``module::bench_f[kind]``) next
    to per-case items (``module::bench_f::case…``): their units are the whole function."""
    level: set[str] = set()
    parametrized: set[str] = set()
    for nodeid in collection:
        parts = _bench_parts(_GROUP.sub("", nodeid))
        if parts is None:
            continue
        if len(parts) == 2 and parts[1].endswith("]") and "[" in parts[1]:
            level.add(f"{parts[0]}::{parts[1].split('[', 1)[0]}")
        elif len(parts) >= 3:
            parametrized.add(f"{parts[0]}::{parts[1]}")
    return level & parametrized


#: per config: callables naming more functions whose cases make one unit of work
_UNITS = pytest.StashKey[list[Callable[[], Iterable[str]]]]()


def add_function_units(config: Any, source: Callable[[], Iterable[str]]) -> None:
    """Keep every case of the functions ``source()`` names (function keys,
    ``bench_x.py::bench_f``) on one worker, as a function with function-level verdict items
    is kept: for an extension that needs a function together without such an item (a
    sequential comparison). Called in the controller before scheduling; ``source`` is asked
    once, when the scheduler first splits the collection — after every worker sent its
    collection. A source that raises names nothing (the function may then be spread, which
    a worker notices at run time)."""
    config.stash.setdefault(_UNITS, []).append(source)


def extra_function_units(config: Any) -> set[str]:
    """The function keys every :func:`add_function_units` source names."""
    found: set[str] = set()
    stash = getattr(config, "stash", None)  # (a stand-in config in a test may have none)
    for source in stash.get(_UNITS, []) if stash is not None else ():
        try:
            found.update(str(key) for key in source())
        except Exception:  # (an extension's bug costs co-location, never the session)
            continue
    return found


def make_scheduler(config: Any, log: Any) -> Any:
    """The case-aware scheduler (a pytest-xdist ``LoadScopeScheduling``)."""
    from xdist.scheduler import LoadScopeScheduling

    class CaseScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """Each case (or compared function) is one unit of work."""

        _functions: set[str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._functions is None:
                collection = next(iter(self.registered_collections.values()), [])
                self._functions = function_scoped(list(collection))
                self._functions |= extra_function_units(self.config)
            return case_scope(nodeid, self._functions)

        def remove_node(self, node: Any) -> str | None:
            """A node finished or crashed: its unfinished work goes back to the queue, except
            the item it crashed on (reported once as crashed, never run again: xdist's own
            scope scheduler would retry it until every worker restart is used up)."""
            workload = self.assigned_work.pop(node)
            if not self._pending_of(workload):
                return None
            unit, crashed = next((u, n) for u in workload.values() for n, d in u.items() if not d)
            unit[crashed] = True
            self.workqueue.update(
                (scope, unit) for scope, unit in workload.items() if not all(unit.values())
            )
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

    return CaseScheduling(config, log)
