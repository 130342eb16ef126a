"""The ``failures`` extension's pytest hooks: failure output that grows with cases, not runs.

``--prob-failures=grouped`` (the default) prints, for each case with failing runs, the first
failing run's traceback followed by one line naming the case's other failing runs grouped by
how they failed, and one short-summary line per case; ``first`` prints the traceback and
counts only; ``all`` leaves pytest's per-run output alone. Only the terminal changes: every
run stays its own item and report (``-x``, ``--lf``, JUnit XML, pytest-xdist see each one).
The JSON report's rows gain ``failures``, the groups with their counts and runs, whatever the
terminal shows.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    OptionRegistry,
    is_active,
    option_value,
    recorded_runs,
    results_of,
)

from . import hookspecs

if TYPE_CHECKING:  # the machinery loads when a session has failures to show
    from pytest_probability.api import CaseResult, ReportBuilder, Results

    from .grouping import FailureGroup
    from .terminal import Builder, RunReport

PLUGIN_NAME = "probability.failures"
KEY_HOOK = "pytest_prob_failure_key"
MODES = ("grouped", "first", "all")
#: pytest's ``stats`` keys regrouped, with the words of the line after a traceback and of
#: the short-summary line
SECTIONS = {"failed": "failing", "error": "errored"}
SUMMARIES = {"failed": "failed", "error": "errored"}
#: the ``-r`` characters (as pytest expands them) that print each one's short-summary lines
SUMMARY_CHARS = {"failed": "fF", "error": "E"}


@dataclass
class FailuresState:
    """Per-config state (aggregating process).

    :ivar keys: ``(case key, run)`` → group key of every failing run asked about.
    :ivar custom: whether an implementation other than the bundled default answers
        ``pytest_prob_failure_key`` (``None``: not looked up yet).
    :ivar hook_error: what the failing implementation raised, once.
    :ivar saved: pytest's own ``stats`` lists while stand-ins replace them.
    """

    keys: dict[tuple[str, int], str] = field(default_factory=dict)
    custom: bool | None = None
    hook_error: str | None = None
    saved: dict[str, list[Any]] = field(default_factory=dict)
    summary: dict[str, list[Any]] = field(default_factory=dict)


STATE_KEY = pytest.StashKey[FailuresState]()


def _choice(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in MODES:
        raise ValueError(f"expected one of {', '.join(MODES)}, got {value!r}")
    return text


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add this extension's hook unless the loader already did (it adds every bundled
    extension's hooks). Called once when this module registers, in every process; returns
    nothing."""
    caller = getattr(pluginmanager.hook, KEY_HOOK, None)
    if caller is None or getattr(caller, "spec", None) is None:
        pluginmanager.add_hookspecs(hookspecs)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-failures`` / ``prob_failures``. Called by the kernel's historic
    hook, in every process; returns nothing."""
    options.add(
        "failures",
        parse=_choice,
        default="grouped",
        cli="--prob-failures",
        ini="prob_failures",
        metavar="{grouped,first,all}",
        choices=MODES,
        help="failure output per case: grouped (one traceback per case and its other "
        "failing runs grouped by message; default), first (one traceback and counts), "
        "or all (pytest's output for every run)",
        owner="failures",
    )


def _state(config: pytest.Config) -> FailuresState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = FailuresState()
    return state


def _mode(config: pytest.Config) -> str:
    return option_value(config, "failures") if is_active(config) else "all"


@pytest.hookimpl(trylast=True)
def pytest_prob_failure_key(record: dict[str, Any], config: pytest.Config) -> str:
    """The bundled grouping rule (:func:`~.grouping.shape_key`). Called in the aggregating
    process when no other implementation answered; returns the run's group key."""
    from .grouping import shape_key

    return shape_key(record)


def failure_key(config: pytest.Config, record: dict[str, Any]) -> str:
    """The group key of a failing run: asked once per run, from the hook when another
    implementation than the bundled one exists; one that raises is warned about once and
    the bundled rule answers from then on."""
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
        try:
            key = getattr(config.hook, KEY_HOOK)(record=record, config=config)
        except Exception as exc:  # a conftest's bug costs its grouping, not the report
            state.custom = False
            state.hook_error = f"{type(exc).__name__}: {exc}"
    from .grouping import shape_key

    found = shape_key(record) if key is None else str(key) if not isinstance(key, str) else key
    state.keys[cached] = found
    return found


def case_groups(
    config: pytest.Config, runs: list[tuple[int, dict[str, Any]]]
) -> list[FailureGroup]:
    """The failure groups of ``(run, record)`` pairs of one case."""
    from .grouping import group_failures

    return group_failures((run, record, failure_key(config, record)) for run, record in runs)


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Add ``failures`` (the distinct failure groups, with counts and runs) to every JSON row.

    Called once per session in the aggregating process, at ``pytest_sessionfinish``;
    returns nothing.
    """
    from pytest_probability.api import ERROR, FAIL

    for case in results.rows():
        failing = [
            (run, record)
            for run, record in sorted(case.records.items())
            if record.get("outcome") in (FAIL, ERROR)
        ]
        groups = case_groups(config, failing) if failing else []
        report.add_row_json(case.key, {"failures": [group.to_json() for group in groups]})
    error = _state(config).hook_error
    if error is not None:
        report.warn(f"{KEY_HOOK} failed ({error}); failing runs grouped by the bundled rule")


# -- the terminal ----------------------------------------------------------------------------
def _results(config: pytest.Config) -> Results | None:
    if not is_active(config) or not recorded_runs(config):
        return None
    return results_of(config)


def _groups_of(config: pytest.Config, runs: list[RunReport]) -> list[FailureGroup]:
    return case_groups(config, [(located.run, located.record) for located in runs])


def _showcapture(config: pytest.Config) -> str:
    return str(getattr(config.option, "showcapture", "all"))


def _section_builder(config: pytest.Config, verb: str, grouped: bool) -> Builder:
    line_style = config.option.tbstyle == "line"

    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        first = runs[0].report
        if len(runs) == 1 or line_style:
            return [first]
        groups = _groups_of(config, runs[1:])
        from .lines import more_line
        from .terminal import with_line

        line = more_line(case.display, groups, verb=verb, grouped=grouped)
        return [with_line(first, line, _showcapture(config))]

    return build


def _passes_builder(config: pytest.Config) -> Builder:
    """The ``PASSES`` section (``-rP``, ``-rA``): per case, the first passing run that
    captured output, and a line naming the case's other passing runs."""

    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        if len(runs) == 1:
            return [runs[0].report]
        shown = next((located for located in runs if located.report.sections), runs[0])
        others = [located.run for located in runs if located is not shown]
        from .lines import others_line
        from .terminal import with_line

        line = others_line(case.display, others, "passing")
        return [with_line(shown.report, line, _showcapture(config))]

    return build


def _summary_builder(config: pytest.Config, verb: str, grouped: bool, failing: set[str]) -> Builder:
    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        failing.add(case.key)
        if len(runs) == 1 and case.planned == 1:
            return [runs[0].report]  # a single-run case: pytest's own line
        groups = _groups_of(config, runs) if grouped else []
        from .lines import summary_message
        from .terminal import as_case

        message = summary_message(
            len(runs), case.total, case.planned, groups, verb=verb, grouped=grouped
        )
        return [as_case(runs[0].report, case.key, message)]

    return build


def _passed_builder(failing: set[str]) -> Builder:
    def build(case: CaseResult, runs: list[RunReport]) -> list[Any]:
        if case.key in failing:
            return []  # the case's FAILED or ERROR line speaks for it
        if len(runs) == 1 and case.planned == 1:
            return [runs[0].report]
        from .lines import passed_message
        from .terminal import as_case

        message = passed_message(len(runs), case.total, case.planned)
        return [as_case(runs[0].report, case.key, message)]

    return build


def _prepare(
    config: pytest.Config, stats: dict[str, list[Any]], results: Results, chars: str
) -> None:
    """Work out the stand-in lists of the sections and of the short summary (``chars``:
    the reporter's ``-r`` characters)."""
    from pytest_probability.api import ERROR, FAIL, PASS

    from .terminal import regroup

    failing_outcomes = (FAIL, ERROR)
    state = _state(config)
    grouped = _mode(config) == "grouped"
    results.cases()  # (assigns the displayed ids)
    failing: set[str] = set()
    for stat, verb in SUMMARIES.items():
        if not (set(SUMMARY_CHARS[stat]) & set(chars) or "p" in chars):
            continue  # pytest prints no short-summary line for it (-rN, -rs, ...)
        build = _summary_builder(config, verb, grouped, failing)
        shown = regroup(stats.get(stat) or [], results, build, failing_outcomes)
        if shown is not None:
            state.summary[stat] = shown
    if "p" in chars:  # (-rp, -rA: the only use of the passed list regrouped)
        passed = regroup(stats.get("passed") or [], results, _passed_builder(failing), (PASS,))
        if passed is not None:
            state.summary["passed"] = passed
    sections = [
        (stat, _section_builder(config, verb, grouped), failing_outcomes)
        for stat, verb in SECTIONS.items()
    ]
    if "P" in chars:  # (-rP, -rA: the PASSES section, the captured output of passing runs)
        sections.append(("passed", _passes_builder(config), (PASS,)))
    if config.option.tbstyle == "no":  # pytest prints no FAILURES, ERRORS or PASSES section
        sections = []
    for stat, build, outcomes in sections:
        shown = regroup(stats.get(stat) or [], results, build, outcomes)
        if shown is not None:
            state.saved[stat] = stats[stat]
            stats[stat] = shown
    if sections:
        _narrow_phases(config, stats)


def _narrow_phases(config: pytest.Config, stats: dict[str, list[Any]]) -> None:
    """Leave out of pytest's list of passed setup and teardown reports, while its sections
    print, every report it would print nothing of. For each shown report pytest looks for
    its teardown output by scanning that whole list (quadratic in runs: 49 s of a
    5,000-case session end); it prints only the sections named "teardown" of teardown
    reports, so the output is the same."""
    phases = stats.get("")
    if phases:
        _state(config).saved[""] = phases
        stats[""] = [report for report in phases if _has_teardown_output(report)]


def _has_teardown_output(report: Any) -> bool:
    """Whether pytest's ``print_teardown_sections`` would print something of ``report``."""
    return getattr(report, "when", None) == "teardown" and any(
        "teardown" in name for name, _ in getattr(report, "sections", ())
    )


def _restore(config: pytest.Config, stats: dict[str, list[Any]]) -> None:
    state = _state(config)
    for stat, original in state.saved.items():
        stats[stat] = original
    state.saved = {}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: Any, exitstatus: int, config: pytest.Config
) -> Generator[None, None, None]:
    """Show pytest's ``FAILURES``/``ERRORS`` sections and short summary per case.

    Wraps the terminal summary in the process that prints it (the only process, or the
    pytest-xdist controller), outside pytest's own terminal reporter: before it, the
    section lists of ``terminalreporter.stats`` are replaced by one stand-in per case; the
    originals are back for every other plugin's summary
    (:func:`pytest_terminal_summary_restore`), the short summary's stand-ins go in last
    (:func:`pytest_terminal_summary_regroup`), and the originals are restored afterwards,
    before the final counts line. Under ``--prob-failures=all`` it only narrows pytest's
    list of setup and teardown reports while the sections print (:func:`_narrow_phases`:
    the output is pytest's, unchanged); a bug here leaves pytest's own output, with a
    warning line. Returns the wrapped result.
    """
    stats = terminalreporter.stats
    results = _results(config)
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
                f"({type(exc).__name__}: {exc}); every run is shown",
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
    plugins' summaries see every run. Called in the printing process, before the other
    ``pytest_terminal_summary`` implementations; returns nothing."""
    _restore(config, terminalreporter.stats)


@pytest.hookimpl(trylast=True, specname="pytest_terminal_summary")
def pytest_terminal_summary_regroup(terminalreporter: Any, config: pytest.Config) -> None:
    """Replace the report lists by the short summary's stand-ins (one line per case), just
    before pytest prints the short test summary. Called in the printing process after every
    other ``pytest_terminal_summary`` implementation; returns nothing."""
    state = _state(config)
    stats = terminalreporter.stats
    for stat, shown in state.summary.items():
        state.saved.setdefault(stat, stats[stat])
        stats[stat] = shown
