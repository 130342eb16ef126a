"""One entry per case in pytest's own summary sections (printed from the reports in
``terminalreporter.stats``), instead of one per run. Other reports (tests, verdict items,
collection errors) stay where they were. The stand-ins are copies (:func:`with_line`,
:func:`as_case`): the reports JUnit XML, ``--lf`` and every other plugin saw never change.
Never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import CaseResult, Results

RUN_SUFFIX = re.compile(r"\[run(\d+)\]$")


@dataclass
class RunReport:
    """A bench run's report with what the session knows about the run."""

    report: Any
    case: CaseResult
    run: int
    record: dict[str, Any]


Builder = Callable[[CaseResult, list[RunReport]], list[Any]]


def locate(report: Any, results: Results, outcomes: tuple[str, ...]) -> RunReport | None:
    """The run behind a report of its phase whose record's outcome is one of ``outcomes``
    (``None`` for anything else: a test, a verdict item, a teardown failure after a failed
    call, a strict xfail's passing run)."""
    nodeid = str(getattr(report, "nodeid", ""))
    match = RUN_SUFFIX.search(nodeid)
    key, run = (nodeid[: match.start()], int(match.group(1))) if match else (nodeid, 1)
    case = results.get(key)
    record = None if case is None else case.records.get(run)
    if record is None or record.get("phase") != getattr(report, "when", None):
        return None
    return RunReport(report, case, run, record) if record.get("outcome") in outcomes else None


def regroup(
    reports: Sequence[Any], results: Results, build: Builder, outcomes: tuple[str, ...]
) -> list[Any] | None:
    """``reports`` with each case's run reports (of ``outcomes``) replaced by what ``build``
    makes of them, in run order; the cases go where the first run report was, in the
    report's case order (whatever order the runs finished in). ``None`` when there is none.
    """
    found: dict[str, list[RunReport]] = {}
    rest: list[Any] = []
    at: int | None = None
    for report in reports:
        located = locate(report, results, outcomes)
        if located is None:
            rest.append(report)
            continue
        if at is None:
            at = len(rest)
        found.setdefault(located.case.key, []).append(located)
    if at is None:
        return None
    built: list[Any] = []
    for runs in sorted(found.values(), key=lambda runs: (runs[0].case.order, runs[0].case.key)):
        runs.sort(key=lambda located: located.run)
        built += build(runs[0].case, runs)
    return rest[:at] + built + rest[at:]


def write_sections(out: Any, sections: Sequence[tuple[str, str]], showcapture: str) -> None:
    """Print a report's captured sections (``Captured stdout call`` …) as pytest's terminal
    reporter does after a report's text, honouring ``--show-capture``."""
    if showcapture == "no":
        return
    for title, content in sections:
        if showcapture != "all" and showcapture not in title:
            continue
        out.sep("-", title)
        out.line(content[:-1] if content[-1:] == "\n" else content)


class PrintedSections(tuple):  # type: ignore[type-arg]
    """The captured sections of a stand-in that prints them itself: true when there are
    some (pytest's ``PASSES`` section shows a report only then), but iterating them gives
    nothing, so that pytest does not print them a second time."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        return iter(())


def with_line(report: Any, line: str, showcapture: str = "all") -> Any:
    """A copy of ``report`` that prints ``line`` last: after the report's own text and its
    captured sections, which the copy prints itself (as pytest would, with
    ``--show-capture=showcapture``) instead of leaving them to pytest."""
    stand_in = copy.copy(report)
    original = report.toterminal
    sections = list(getattr(report, "sections", None) or ())
    stand_in.sections = PrintedSections(sections)

    def toterminal(out: Any) -> None:
        original(out)
        write_sections(out, sections, showcapture)
        out.line(line)

    stand_in.toterminal = toterminal
    return stand_in


@dataclass(frozen=True)
class CaseMessage:
    """Stands for a case's ``longrepr`` in the short summary: pytest prints
    ``longrepr.reprcrash.message`` after the node id."""

    message: str

    @property
    def reprcrash(self) -> CaseMessage:
        return self

    def __str__(self) -> str:
        return self.message


def as_case(report: Any, nodeid: str, message: str) -> Any:
    """A copy of a run's ``report`` that the short summary shows as the case ``nodeid``
    with ``message``."""
    stand_in = copy.copy(report)
    stand_in.nodeid = nodeid
    stand_in.longrepr = CaseMessage(message)
    return stand_in
