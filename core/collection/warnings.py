"""Collection-time warnings that point at the user's bench function.

An extension that finds a problem while collecting (a gate that cannot pass with its runs)
keeps its warnings by key and hands them to :func:`warn_at_selected` from
``pytest_collection_finish``; they are issued as pytest issues ``PytestCollectionWarning``:
at the bench function, once per key, only for cases still selected after ``-k``, ``-m`` and
``--deselect``, and under pytest-xdist only by the first worker (every worker collects the
same cases).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence

import pytest

from .cases import Case
from .collector import BenchRun, VerdictItem

#: the worker whose collection-time warnings reach the controller (the others keep quiet)
FIRST_WORKER = "gw0"


def first_collector(config: pytest.Config) -> bool:
    """Whether this process speaks for the collection: the only process, or the first
    pytest-xdist worker."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is None or workerinput.get("workerid") == FIRST_WORKER


def case_key(case: Case) -> str:
    """A case's own key (``bench_x.py::bench_classify::identify_pii``)."""
    return case.key


def function_key(case: Case) -> str:
    """The key of a case's bench function (``bench_x.py::bench_classify``); a function-level
    verdict item's stand-in case maps to the same key."""
    return f"{case.module}::{case.function}"


def warn_at_selected(
    session: pytest.Session,
    pending: Mapping[str, Sequence[Warning]],
    key_of: Callable[[Case], str] = case_key,
) -> None:
    """Issue each pending warning at the bench function of the first selected item whose
    case maps (through ``key_of``) to its key, in collection order, as the module's docstring
    says. A warning that a filter turns into an error (``-W error::…``) becomes a failed
    collection report naming the bench function, so that the session stops at collection
    (exit status 2) exactly as for an error raised while collecting."""
    if not pending or not first_collector(session.config):
        return
    found: dict[str, pytest.Item] = {}
    for item in session.items:
        if isinstance(item, (BenchRun, VerdictItem)) and (key := key_of(item.case)) in pending:
            found.setdefault(key, item)
    for key, item in sorted(found.items(), key=lambda entry: entry[1].case.sequence):
        path, line, _ = item.reportinfo()
        filename, lineno = str(path), (line or 0) + 1
        for warning in pending[key]:
            try:
                warnings.warn_explicit(warning, type(warning), filename, lineno)
            except Warning as exc:  # a warning filter made it an error
                message = f"{filename}:{lineno}: {type(exc).__name__}: {exc}"
                report = pytest.CollectReport(function_key(item.case), "failed", message, [])
                session.config.hook.pytest_collectreport(report=report)
