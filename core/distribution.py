"""Case-aware distribution over pytest-xdist workers.

A gate item, early stopping and function-level verdicts need every run of a case (of a
function, for ``[compare:ARM]`` and ``[baseline]`` items) on one worker. ``--dist loadgroup``
no longer guarantees that on pytest 9.2 (pytest-xdist groups by rewriting a node id field
pytest 9.2 ignores), so the kernel supplies its own scheduler through xdist's
``pytest_xdist_make_scheduler`` hook for ``-n`` with ``--dist load`` (the default),
``loadgroup`` or ``worksteal``: each case (or function) is one work unit, different units
still spread over all workers. ``loadfile``, ``loadscope`` and ``each`` keep their own meaning
(the first two already keep a case together). Co-location is still checked at run time.
"""

from __future__ import annotations

import re
from typing import Any

#: the ``--dist`` modes this scheduler replaces
REPLACED = ("load", "loadgroup", "worksteal")
#: ``[run3]``, ``[gate]``, ``[compare:ARM]``, ``[baseline]`` at the end of a node id, and
#: pytest-xdist's ``@group`` suffix after it (pytest 7.4 with ``loadgroup``)
_SUFFIX = re.compile(r"\[(run\d+|gate|compare:[^\]]*|baseline)\](@.*)?$")
_FUNCTION_VERDICT = re.compile(r"^([^:]+::bench_[^:\[]+)\[(compare:[^\]]*|baseline)\](@.*)?$")


def case_scope(nodeid: str, function_scoped: set[str]) -> str:
    """The work unit of a node id: its case key, its function key when the function has
    function-level verdict items, or the node id itself for anything else (a ``test_*``)."""
    match = _FUNCTION_VERDICT.match(nodeid)
    if match:
        return match.group(1)
    found = _SUFFIX.search(nodeid)
    key = nodeid[: found.start()] if found else nodeid.split("@", 1)[0]
    parts = key.split("::")
    if len(parts) >= 2 and parts[1].startswith("bench_"):
        function = f"{parts[0]}::{parts[1]}"
        return function if function in function_scoped else key
    return nodeid


def function_scoped(collection: list[str]) -> set[str]:
    """The functions that have function-level verdict items in the collection."""
    return {m.group(1) for nodeid in collection if (m := _FUNCTION_VERDICT.match(nodeid))}


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
            return case_scope(nodeid, self._functions)

        def remove_node(self, node: Any) -> str | None:
            """A node finished or crashed: its unfinished work goes back to the queue, except
            the item it crashed on (reported once as crashed, never run again: xdist's own
            scope scheduler would retry it until every worker restart is used up)."""
            workload = self.assigned_work.pop(node)
            if not self._pending_of(workload):
                return None
            crashed = None
            for unit in workload.values():
                for nodeid, completed in unit.items():
                    if not completed:
                        crashed = nodeid
                        unit[nodeid] = True
                        break
                if crashed is not None:
                    break
            self.workqueue.update(
                (scope, unit) for scope, unit in workload.items() if not all(unit.values())
            )
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

    return CaseScheduling(config, log)
