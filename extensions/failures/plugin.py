"""The ``failures`` extension's pytest hooks. ``--prob-failures=first`` prints a case's
traceback and counts only; ``all`` leaves pytest's per-run output alone. Only the terminal
changes: every run stays its own item and report (``-x``, ``--lf``, JUnit XML and
pytest-xdist see each one). Everything here runs in the aggregating process (the only
process, or the pytest-xdist controller, which prints the terminal summary).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    ERROR,
    FAIL,
    PASS,
    CaseResult,
    OptionRegistry,
    Results,
    call_first,
    is_active,
    option_value,
    recorded_runs,
    results_of,
    visible,
)

from . import hookspecs
from .grouping import group_failures, more_line, others_line, shape_key, summary_message

if TYPE_CHECKING:
    from pytest_probability.api import ReportBuilder

    from .grouping import FailureGroup

PLUGIN_NAME = "probability.failures"
KEY_HOOK = "pytest_prob_failure_key"
MODES = ("grouped", "first", "all")
FAILING = (FAIL, ERROR)
#: pytest's ``stats`` keys of the sections regrouped, with the verb of the line after a
#: traceback (``passed``: the ``PASSES`` section of ``-rP``, ``-rA``)
SECTIONS = {"failed": "failing", "error": "errored", "passed": "passing"}
#: pytest's ``stats`` keys of the short summary regrouped, with the verb of their lines and
#: the ``-r`` characters (as pytest expands them) that print them
SUMMARIES = {"failed": ("failed", "fF"), "error": ("errored", "E"), "passed": ("passed", "p")}


@dataclass
class FailuresState:
    """Per-config state."""

    #: ``(case key, run)`` → group key of every failing run asked about
    keys: dict[tuple[str, int], str] = field(default_factory=dict)
    #: whether a ``pytest_prob_failure_key`` other than ours answers (``None``: not known yet)
    custom: bool | None = None
    #: pytest's own ``stats`` lists while stand-ins replace them
    saved: dict[str, list[Any]] = field(default_factory=dict)
    #: the short summary's stand-ins, put in just before it prints
    summary: dict[str, list[Any]] = field(default_factory=dict)


STATE_KEY = pytest.StashKey[FailuresState]()


def _choice(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in MODES:
        raise ValueError(f"expected one of {', '.join(MODES)}, got {value!r}")
    return text


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add this extension's hook unless the loader already did (it adds every bundled
    extension's hooks). Called once when this module registers, in every process."""
    caller = getattr(pluginmanager.hook, KEY_HOOK, None)
    if caller is None or getattr(caller, "spec", None) is None:
        pluginmanager.add_hookspecs(hookspecs)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-failures`` / ``prob_failures``. Called by the kernel's historic
    hook, in every process."""
    options.add(
        "failures",
        parse=_choice,
        default="grouped",
        cli="--prob-failures",
        ini="prob_failures",
        choices=MODES,
        help="failure output per failing case (default grouped)",
        owner="failures",
    )


def _state(config: pytest.Config) -> FailuresState:
    return config.stash.setdefault(STATE_KEY, FailuresState())


def _mode(config: pytest.Config) -> str:
    return option_value(config, "failures") if is_active(config) else "all"


@pytest.hookimpl(trylast=True)
def pytest_prob_failure_key(record: dict[str, Any], config: pytest.Config) -> str:
    """The bundled grouping rule (:func:`~.grouping.shape_key`). Called in the aggregating
    process when no other implementation answered; returns the run's group key."""
    return shape_key(record)


def failure_key(config: pytest.Config, record: dict[str, Any]) -> str:
    """The group key of a failing run: asked once per run, from the hook when another
    implementation than the bundled one exists; one that fails (raises, or answers something
    other than text) is named in a warning and the bundled rule answers from then on."""
    state = _state(config)
    cached = (str(record.get("key")), int(record.get("run") or 0))
    found = state.keys.get(cached)
    if found is not None:
        return found
    if state.custom is None:
        impls = getattr(config.hook, KEY_HOOK).get_hookimpls()
        state.custom = any(impl.plugin_name != PLUGIN_NAME for impl in impls)
    key: Any = None
    if state.custom:

        def failed(name: str, exc: BaseException) -> None:  # costs its grouping only
            state.custom = False

        key = call_first(  # (a copy: a hook that changes the record must not change the report)
            config,
            KEY_HOOK,
            check=_not_a_key,
            failed=failed,
            record=copy.deepcopy(record),
            config=config,
        )
        if not state.custom:  # (failed now: the bundled rule, not the next answer)
            key = None
    found = shape_key(record) if key is None else key
    state.keys[cached] = found
    return found


def _not_a_key(answer: Any) -> str | None:
    return None if isinstance(answer, str) else f"answered {answer!r:.200}, not a group key (text)"


def case_groups(
    config: pytest.Config, runs: list[tuple[int, dict[str, Any]]]
) -> list[FailureGroup]:
    """The failure groups of ``(run, record)`` pairs of one case."""
    return group_failures((run, record, failure_key(config, record)) for run, record in runs)


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Add ``failures`` (the distinct failure groups, with counts and runs) to every JSON row.
    Called once per session in the aggregating process, at ``pytest_sessionfinish``."""
    for case in results.rows():
        failing = [
            (run, record)
            for run, record in sorted(case.records.items())
            if record.get("outcome") in FAILING
        ]
        groups = case_groups(config, failing)
        report.add_row_json(case.key, {"failures": [group.to_json() for group in groups]})


# -- the terminal: one entry per case in pytest's own summary sections (printed from the
# reports in ``terminalreporter.stats``), instead of one per run. Other reports (tests, verdict
# items, collection errors) stay where they were. The stand-ins are copies (with_line,
# as_case): the reports JUnit XML, ``--lf`` and every other plugin saw never change.
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


def _groups_of(config: pytest.Config, runs: list[RunReport]) -> list[FailureGroup]:
    return case_groups(config, [(located.run, located.record) for located in runs])


def _section_builder(config: pytest.Config, verb: str, grouped: bool) -> Builder:
    """Per case of a ``FAILURES`` or ``ERRORS`` section, its first run's report followed by
    a line about its other runs; of the ``PASSES`` section (``verb`` "passing"), the first
    passing run that captured output, and a line naming the other passing runs."""
    passes = verb == "passing"
    alone = config.option.tbstyle == "line" and not passes
    showcapture = str(getattr(config.option, "showcapture", "all"))

    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        shown = next((run for run in runs if run.report.sections), runs[0]) if passes else runs[0]
        if len(runs) == 1 or alone:
            return [shown.report]
        others = [located for located in runs if located is not shown]
        if grouped and not passes:
            line = more_line(case.display, _groups_of(config, others), verb=verb)
        else:
            line = others_line(case.display, [located.run for located in others], verb)
        return [with_line(shown.report, line, showcapture)]

    return build


def _summary_builder(config: pytest.Config, verb: str, grouped: bool, failing: set[str]) -> Builder:
    """One short-summary line per case; the ``PASSED`` lines (``verb`` "passed") leave out
    the cases that have a ``FAILED`` or ``ERROR`` line (``failing``, filled before)."""

    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        if verb != "passed":
            failing.add(case.key)
        elif case.key in failing:
            return []  # the case's FAILED or ERROR line speaks for it
        if len(runs) == 1 and case.planned == 1:
            return [runs[0].report]  # a single-run case: pytest's own line
        groups = _groups_of(config, runs) if grouped and verb != "passed" else []
        message = summary_message(len(runs), case.total, case.planned, groups, verb=verb)
        return [as_case(runs[0].report, case.key, message)]

    return build


def _prepare(
    config: pytest.Config, stats: dict[str, list[Any]], results: Results, chars: str
) -> None:
    """Work out the stand-in lists of the sections and of the short summary (``chars``:
    the reporter's ``-r`` characters)."""
    state = _state(config)
    grouped = _mode(config) == "grouped"
    results.cases()  # (assigns the displayed ids)
    failing: set[str] = set()
    for stat, (verb, shown_by) in SUMMARIES.items():
        if not set(shown_by + "p") & set(chars):
            continue  # pytest prints no short-summary line for it (-rN, -rs, ...)
        build = _summary_builder(config, verb, grouped, failing)
        outcomes = (PASS,) if stat == "passed" else FAILING
        shown = regroup(stats.get(stat) or [], results, build, outcomes)
        if shown is not None:
            state.summary[stat] = shown
    sections = [stat for stat in SECTIONS if stat != "passed" or "P" in chars]
    if config.option.tbstyle == "no":  # pytest prints no FAILURES, ERRORS or PASSES section
        sections = []
    for stat in sections:
        build = _section_builder(config, SECTIONS[stat], grouped)
        outcomes = (PASS,) if stat == "passed" else FAILING
        shown = regroup(stats.get(stat) or [], results, build, outcomes)
        if shown is not None:
            state.saved[stat] = stats[stat]
            stats[stat] = shown
    if sections:
        _narrow_phases(config, stats)


def _narrow_phases(config: pytest.Config, stats: dict[str, list[Any]]) -> None:
    """Leave out of pytest's list of passed setup and teardown reports, while its sections
    print, every report it would print nothing of (it prints only the "teardown" sections of
    teardown reports), as it scans that whole list for each shown report: quadratic in runs."""
    phases = stats.get("")
    if phases:
        _state(config).saved[""] = phases
        stats[""] = [
            report
            for report in phases
            if getattr(report, "when", None) == "teardown"
            and any("teardown" in name for name, _ in getattr(report, "sections", ()))
        ]


def _restore(config: pytest.Config, stats: dict[str, list[Any]]) -> None:
    state = _state(config)
    stats.update(state.saved)
    state.saved = {}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: Any, exitstatus: int, config: pytest.Config
) -> Generator[None, None, None]:
    """Show pytest's ``FAILURES``/``ERRORS`` sections and short summary per case: wraps
    the terminal summary, outside pytest's own reporter, putting one stand-in per case in
    the section lists of ``terminalreporter.stats`` (the originals are back for the other
    plugins' summaries, the short summary's stand-ins go in last, and the originals are
    restored before the final counts line). Under ``--prob-failures=all`` it only narrows
    the list of setup and teardown reports (:func:`_narrow_phases`). A bug here leaves
    pytest's own output, with a warning line. Returns the wrapped result."""
    stats = terminalreporter.stats
    results = results_of(config) if is_active(config) and recorded_runs(config) else None
    if results is not None and _mode(config) == "all":
        if config.option.tbstyle != "no":  # pytest's own sections, printed faster
            _narrow_phases(config, stats)
    elif results is not None:
        try:
            _prepare(config, stats, results, str(getattr(terminalreporter, "reportchars", "")))
        except Exception as exc:  # the runs' own output is still there to show
            _restore(config, stats)
            _state(config).summary = {}
            terminalreporter.write_line(
                f"WARNING: pytest-probability could not group the failure output "
                f"({visible(f'{type(exc).__name__}: {exc}')}); every run is shown",
                yellow=True,
            )
    try:
        return (yield)
    finally:
        _restore(config, stats)
        _state(config).summary = {}


@pytest.hookimpl(tryfirst=True, specname="pytest_terminal_summary")
def pytest_terminal_summary_restore(terminalreporter: Any, config: pytest.Config) -> None:
    """Put pytest's own report lists back once its sections are printed, so that other
    plugins' summaries see every run. Called before the other ``pytest_terminal_summary``
    implementations."""
    _restore(config, terminalreporter.stats)


@pytest.hookimpl(trylast=True, specname="pytest_terminal_summary")
def pytest_terminal_summary_regroup(terminalreporter: Any, config: pytest.Config) -> None:
    """Replace the report lists by the short summary's stand-ins (one line per case), just
    before pytest prints the short test summary. Called after every other
    ``pytest_terminal_summary`` implementation."""
    state = _state(config)
    stats = terminalreporter.stats
    for stat, shown in state.summary.items():
        state.saved.setdefault(stat, stats[stat])
        stats[stat] = shown
