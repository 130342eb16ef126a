"""Reading a history: the sessions a directory of reports (or a list of report files) holds,
each reduced to what a trend needs. Pure: never imports pytest.

A report is any JSON report this plugin wrote (``--prob-json``, a ``--prob-history`` entry,
any version), or one in the spec's format: an object with ``rows``, each row an object with
at least ``case`` (text), ``passes`` and ``total`` (whole numbers, ``0 ≤ passes ≤ total``).
Everything else is optional and read where present: ``fails``, ``errors``, ``label``,
``cost``, ``latency.estimate``, ``gate.verdict``, the report's ``created`` and its
``history.commit``. A file that cannot be read, or holds no such rows, is skipped with one
line saying why; a row that cannot be read is left out, and its file gets one line counting
them, so no number is ever made from a guess.

Sessions are ordered by the report's ``created`` time (the file's modification time when it
has none), then by file name: entry names sort by time to the microsecond.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_probability.api import UnreadableInput, read_input

#: ``--prob-history`` entry names: UTC time to the microsecond, then the commit (12 hex
#: digits) or ``nogit``.
ENTRY_NAME = re.compile(
    r"^(?P<time>\d{8}T\d{6}(?:\.\d{1,6})?Z)_(?P<commit>[0-9a-f]{7,40}|nogit)(?:-\d+)?\.json$"
)
_HEX = re.compile(r"^[0-9a-fA-F]{7,64}$")


@dataclass(frozen=True)
class CasePoint:
    """One case in one session: its runs, and what the report says of them."""

    case: str
    function: str
    passes: int
    total: int
    fails: int | None = None
    errors: int | None = None
    #: The case's cost over its runs (dollars), when recorded.
    cost: float | None = None
    #: The row's latency quantile estimate (seconds) and which quantile, when recorded.
    latency: float | None = None
    latency_quantile: float | None = None
    #: The case's gate verdict (``pass``, ``fail``, ``undecided``), or ``None``: not gated.
    gate: str | None = None

    @property
    def rate(self) -> float:
        """The pass fraction (``passes / total``; ``total`` is never 0)."""
        return self.passes / self.total


@dataclass(frozen=True)
class Session:
    """One report of the history."""

    #: The file as found (a path given, or a directory's path joined with the name).
    source: str
    #: The report's ``created`` time as written (local time, to the second), or the file's
    #: modification time in that form when the report has none.
    created: str
    #: The git commit the session ran on (``history.commit``, else the entry name's), or
    #: ``None``.
    commit: str | None
    runs: int | None
    exit_status: int | None
    #: The cases in report order.
    cases: dict[str, CasePoint]

    @property
    def name(self) -> str:
        """The file name."""
        return os.path.basename(self.source)

    @property
    def short_commit(self) -> str | None:
        """The commit's first 7 hex digits (as ``git log --oneline`` shows), or ``None``."""
        return self.commit[:7] if self.commit else None

    @property
    def label(self) -> str:
        """How the session is named on the page: its commit, else its time."""
        return self.short_commit or self.created

    @property
    def cost(self) -> float | None:
        """The session's cost over its cases, when any case recorded one."""
        costs = [point.cost for point in self.cases.values() if point.cost is not None]
        return math.fsum(costs) if costs else None

    @property
    def passes(self) -> int:
        return sum(point.passes for point in self.cases.values())

    @property
    def total(self) -> int:
        return sum(point.total for point in self.cases.values())


@dataclass(frozen=True)
class Skipped:
    """A file (or part of one) not read, and why."""

    source: str
    reason: str

    @property
    def line(self) -> str:
        """The line the command prints: ``skipped old/r.json: not JSON (line 1, column 1)``."""
        return f"skipped {self.source}: {self.reason}"


@dataclass
class History:
    """The sessions read, oldest first, and what was skipped."""

    sessions: list[Session] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def functions(self) -> dict[str, list[str]]:
        """Each function's case ids, functions and cases in order of first appearance
        (the latest session's order first, so the page follows today's suite). A case is
        listed once, under the function its latest point names (reports that label it
        differently cannot make it two cases)."""
        found: dict[str, dict[str, None]] = {}
        seen: set[str] = set()
        for session in [*self.sessions[-1:], *reversed(self.sessions[:-1])]:
            for point in session.cases.values():
                if point.case not in seen:
                    seen.add(point.case)
                    found.setdefault(point.function, {})[point.case] = None
        return {function: list(cases) for function, cases in found.items()}

    def series(self, case: str) -> list[CasePoint | None]:
        """The case's point in every session, oldest first (``None`` where it did not run)."""
        return [session.cases.get(case) for session in self.sessions]


def read_history(paths: Sequence[str | os.PathLike[str]]) -> History:
    """The sessions in ``paths``: report files, and directories whose ``*.json`` files are
    read (not their subdirectories). Never raises: what cannot be read is in ``skipped``."""
    history = History()
    read: list[tuple[tuple[str, str], Session]] = []
    for source in _files(paths, history.skipped):
        session = _read_session(source, history.skipped)
        if session is not None:
            read.append(((session.created, session.name), session))
    history.sessions = [session for _, session in sorted(read, key=lambda pair: pair[0])]
    return history


def _files(paths: Iterable[str | os.PathLike[str]], skipped: list[Skipped]) -> list[str]:
    files: list[str] = []
    for given in paths:
        shown = os.fspath(given)
        if os.path.isdir(shown):
            try:
                names = sorted(os.listdir(shown))
            except OSError as exc:
                skipped.append(Skipped(shown, f"cannot list the directory: {exc.strerror}"))
                continue
            found = [name for name in names if name.endswith(".json") and name[0] != "."]
            if not found:
                skipped.append(Skipped(shown, "the directory holds no .json reports"))
            files.extend(os.path.join(shown, name) for name in found)
        else:
            files.append(shown)
    return files


def _read_session(source: str, skipped: list[Skipped]) -> Session | None:
    try:
        raw = read_input(source)
    except UnreadableInput as exc:
        skipped.append(Skipped(source, str(exc)))
        return None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        skipped.append(Skipped(source, "not UTF-8 text"))
        return None
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if hasattr(exc, "lineno") else ""
        skipped.append(Skipped(source, f"not JSON{where}"))
        return None
    if not isinstance(document, dict):
        skipped.append(Skipped(source, f"not a report: a JSON {_kind(document)}, not an object"))
        return None
    rows = document.get("rows")
    if not isinstance(rows, list):
        skipped.append(Skipped(source, 'not a report: no "rows" list'))
        return None
    cases: dict[str, CasePoint] = {}
    problems: list[str] = []
    for index, row in enumerate(rows):
        point = _point(row, index, problems)
        if point is None:
            continue
        if point.case in cases:
            problems.append(f"rows[{index}]: case {point.case!r} again")
            continue
        cases[point.case] = point
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        left_out = f"{len(problems)} row{'s' if len(problems) != 1 else ''} left out"
        skipped.append(Skipped(source, f"{left_out}: {problems[0]}{more}"))
    if not cases:
        if rows and problems:
            return None  # (the line above said why)
        skipped.append(Skipped(source, "no case ran (no row with runs)"))
        return None
    return Session(
        source=source,
        created=_created(document.get("created"), source),
        commit=_commit(document, source),
        runs=_count(document.get("runs")),
        exit_status=_count(document.get("exit_status")),
        cases=cases,
    )


def _point(row: Any, index: int, problems: list[str]) -> CasePoint | None:
    where = f"rows[{index}]"
    if not isinstance(row, dict):
        problems.append(f"{where}: a JSON {_kind(row)}, not an object")
        return None
    case = row.get("case")
    if not isinstance(case, str) or not case:
        problems.append(f"{where}.case: missing or not text")
        return None
    passes, total = _count(row.get("passes")), _count(row.get("total"))
    if passes is None or total is None:
        name = "passes" if passes is None else "total"
        problems.append(f"{where}.{name}: missing or not a whole number ≥ 0 (case {case!r})")
        return None
    if passes > total:
        problems.append(f"{where}: passes {passes} > total {total} (case {case!r})")
        return None
    if total == 0:
        return None  # every run skipped or deselected: no point, and nothing wrong
    fails, errors = _count(row.get("fails")), _count(row.get("errors"))
    latency = row.get("latency") if isinstance(row.get("latency"), dict) else {}
    gate = row.get("gate") if isinstance(row.get("gate"), dict) else {}
    verdict = gate.get("verdict")
    return CasePoint(
        case=case,
        function=_function(case, row.get("label")),
        passes=passes,
        total=total,
        fails=fails,
        errors=errors,
        cost=_amount(row.get("cost")),
        latency=_amount(latency.get("estimate")),
        latency_quantile=_amount(latency.get("quantile")),
        gate=verdict if isinstance(verdict, str) and verdict else None,
    )


def _function(case: str, label: Any) -> str:
    """The function a case belongs to: the row's ``label`` when the case id starts with it
    (ids are ``label::case``), else the id's part before its first ``::``."""
    if isinstance(label, str) and label and case.startswith(f"{label}::"):
        return label
    return case.split("::", 1)[0]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _amount(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


def _created(value: Any, source: str) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    try:
        return datetime.fromtimestamp(os.stat(source).st_mtime).isoformat(timespec="seconds")
    except (OSError, ValueError, OverflowError):
        return ""


def _commit(document: dict[str, Any], source: str) -> str | None:
    history = document.get("history")
    commit = history.get("commit") if isinstance(history, dict) else None
    if isinstance(commit, str) and _HEX.match(commit):
        return commit.lower()
    match = ENTRY_NAME.match(Path(source).name)
    if match and match.group("commit") != "nogit":
        return match.group("commit")
    return None


def _kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )
