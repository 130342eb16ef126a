"""Collection-time warnings that point at the user's bench function.

An extension that finds a problem while collecting (a gate that cannot pass with its runs)
keeps its warnings by key and hands them to :func:`warn_by_cause` (or :func:`warn_at_selected`)
from ``pytest_collection_finish``; they are issued only for cases still selected after
``-k``, ``-m`` and ``--deselect``, and under pytest-xdist only by the first worker (every
worker collects the same cases). :func:`warn_by_cause` issues one warning per cause: one
for every case a session option or ini value affects (at the command line or the ini
file's line), one per bench function for a mark (at the mark's line), each naming how many
cases it affects and the first few.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import inspect
import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


#: How many affected cases a warning names before "and N more".
NAMED_CASES = 3


@dataclass(frozen=True)
class CaseWarning:
    """A collection-time problem of one case (or one function), for :func:`warn_by_cause`.

    :ivar category: the warning class (``GateWarning``).
    :ivar subject: what has the problem, as shown (``classify::identify_pii``).
    :ivar problem: the problem without the subject (``the gate cannot pass with 10 runs:
        min_rate=0.9 needs at least 29 at 95%``); cases with the same problem and cause
        share one warning.
    :ivar cause: the session setting that causes it, as :meth:`OptionRegistry.source
        <pytest_probability.options.OptionRegistry.source>` names it (``--prob-min-rate=0.9``,
        ``ini option prob_min_rate=0.9``), or ``None`` when a ``probability(...)`` mark (or
        a default) does: the warning then sits at the bench function's mark.
    :ivar noun: what a subject is, for the count (``2 cases: …``, ``2 comparisons: …``).
    """

    category: type[Warning]
    subject: str
    problem: str
    cause: str | None = None
    noun: str = "case"

    @property
    def message(self) -> str:
        """The problem of this one subject: ``classify::x: the gate cannot pass …``."""
        return f"{self.subject}: {self.problem}"


def warn_by_cause(
    session: pytest.Session,
    pending: Mapping[str, Sequence[CaseWarning]],
    key_of: Callable[[Case], str] = case_key,
) -> None:
    """Issue the pending warnings of the selected cases once per cause (the module's
    docstring): ``--prob-min-rate=0.9: the gate cannot pass with 10 runs: … (50 cases:
    a::0, a::1, a::2 and 47 more)``. A warning that a filter turns into an error becomes a
    failed collection report, as in :func:`warn_at_selected`."""
    if not pending or not first_collector(session.config):
        return
    groups: dict[tuple[str, type[Warning], str], list[tuple[pytest.Item, CaseWarning]]] = {}
    for key, item in _first_selected(session, pending, key_of):
        for warning in pending[key]:
            where = warning.cause or f"mark {function_key(item.case)}"
            groups.setdefault((where, warning.category, warning.problem), []).append(
                (item, warning)
            )
    for (_, category, problem), members in groups.items():
        first, warning = members[0]
        subjects = list(dict.fromkeys(member.subject for _, member in members))
        if warning.cause is None:
            filename, lineno = mark_location(first)
            head = subjects[0] if len(subjects) == 1 else first.case.label
        else:
            filename, lineno = cause_location(session.config, warning.cause)
            head = warning.cause
        alone = warning.cause is None and len(subjects) == 1
        named = "" if alone else f" ({_named(subjects, warning.noun)})"
        _issue(session, category(f"{head}: {problem}{named}"), filename, lineno, first)


def _named(subjects: list[str], noun: str) -> str:
    """``1 case: a::0`` / ``50 cases: a::0, a::1, a::2 and 47 more``."""
    shown = ", ".join(subjects[:NAMED_CASES])
    more = f" and {len(subjects) - NAMED_CASES} more" if len(subjects) > NAMED_CASES else ""
    return f"{len(subjects)} {noun}{'' if len(subjects) == 1 else 's'}: {shown}{more}"


def mark_location(item: pytest.Item) -> tuple[str, int]:
    """Where the bench function's ``probability(...)`` mark is written (its first line that
    calls it, above the ``def``), else the function itself."""
    path, line, _ = item.reportinfo()
    function = getattr(item, "obj", None)
    try:
        lines, start = inspect.getsourcelines(inspect.unwrap(function))  # type: ignore[arg-type]
    except (OSError, TypeError):
        return str(path), (line or 0) + 1
    for offset, text in enumerate(lines):
        if re.match(r"\s*(async\s+)?def\s", text):
            break
        if "probability(" in text:
            return str(path), start + offset
    return str(path), (line or 0) + 1


def cause_location(config: pytest.Config, cause: str) -> tuple[str, int]:
    """Where a session setting is written: the ini file's line for ``ini option
    prob_x=…`` (line 0 when it cannot be found), else ``<command line>`` (line 1, as the
    comparisons extension's ``AxisWarning`` says it)."""
    if cause.startswith("ini option ") and config.inipath is not None:
        key = cause.removeprefix("ini option ").split("=", 1)[0]
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*[=:]")
        try:
            with open(config.inipath, encoding="utf-8", errors="replace") as handle:
                for number, text in enumerate(handle, 1):
                    if pattern.match(text):
                        return os.fspath(config.inipath), number
        except OSError:
            pass
        return os.fspath(config.inipath), 0
    return "<command line>", 1


def _issue(
    session: pytest.Session, warning: Warning, filename: str, lineno: int, item: pytest.Item
) -> None:
    try:
        warnings.warn_explicit(warning, type(warning), filename, lineno)
    except Warning as exc:  # a warning filter made it an error
        message = f"{filename}:{lineno}: {type(exc).__name__}: {exc}"
        report = pytest.CollectReport(function_key(item.case), "failed", message, [])
        session.config.hook.pytest_collectreport(report=report)


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
    for key, item in _first_selected(session, pending, key_of):
        path, line, _ = item.reportinfo()
        for warning in pending[key]:
            _issue(session, warning, str(path), (line or 0) + 1, item)


def _first_selected(
    session: pytest.Session, pending: Mapping[str, object], key_of: Callable[[Case], str]
) -> list[tuple[str, pytest.Item]]:
    """``(key, item)``: the first selected bench item of each pending key, in collection
    order (a deselected case has none, so it is not warned about)."""
    found: dict[str, pytest.Item] = {}
    for item in session.items:
        if isinstance(item, (BenchRun, VerdictItem)) and (key := key_of(item.case)) in pending:
            found.setdefault(key, item)
    return sorted(found.items(), key=lambda entry: entry[1].case.sequence)  # type: ignore[attr-defined]
