"""Collecting a compared function (its arms and inputs, its ``[compare:ARM]`` requests,
the runs a margin decides, the collection-time warnings, its run records' ``compare``
field) and judging the verdict items (``[compare:ARM]`` and ``[baseline]``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import difflib
import re
import warnings
from typing import Any

import pytest
from pytest_probability.api import (
    BenchRun,
    CaseResult,
    CaseWarning,
    FunctionCases,
    OptionError,
    VerdictItem,
    VerdictRequest,
    decide_runs,
    first_collector,
    function_key,
    options_of,
    results_of,
    warn_by_cause,
)

from ..options import FUNCTION_KEYS, PAIRED
from ..report import render
from ..sequential.outcome import monitored
from ..session import (
    RECORD_FIELD,
    AxisWarning,
    CompareState,
    MarginCheck,
    build,
    margin_warning,
    setting,
    state_of,
)
from ..statistics.engine import Comparison
from .arms import ArmInfo, OneValueError, analyse_axis, compared_arms

KIND_PREFIX = "compare:"
DEFERRED = "judged at session end"
#: where a warning about a command-line setting points
COMMAND_LINE = "<command line>"
#: the record field naming the axis of a function a session-wide axis does not compare
NOT_COMPARED = "not_compared"
#: collecting processes: case key → the session-wide axis and its one value in that case's
#: function (set only when a function has a single value of it)
NOT_COMPARED_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()
#: why the failing runs of a case a margin judges are xfailed
MARGIN_REASON = "compared case: its margin verdict decides"


def _function_mark(function: FunctionCases) -> dict[str, Any]:
    """The function's comparison keys, the same in every case (else an error)."""
    first = function.cases[0].mark
    chosen = {key: first[key] for key in FUNCTION_KEYS if key in first}
    for case in function.cases[1:]:
        other = {key: case.mark[key] for key in FUNCTION_KEYS if key in case.mark}
        if other != chosen:
            raise OptionError(
                "compare, baseline, margin, equivalence and compare_test are per-function "
                f"settings: put them on {function.function}, not on some of its cases"
            )
    return chosen


def function_verdicts(function: FunctionCases, config: pytest.Config) -> list[VerdictRequest]:
    """Remember each case's arm and input, and ask for a ``[compare:ARM]`` item per arm
    when the function has a ``margin=``. Raises ``OptionError`` (a collection error naming the
    function) for a bad axis, ``baseline=``, ``equivalence`` or ``margin``."""
    state = state_of(config)
    state.functions += 1
    state.arguments.update(name for case in function.cases for name in case.param_indices)
    mark = _function_mark(function)
    options = options_of(config)
    if mark.get("equivalence") and mark.get("margin") is None:
        raise OptionError("equivalence=True needs margin= (how close counts as equivalent)")
    if mark.get("equivalence") and mark.get("margin") == 0:
        raise OptionError(
            "equivalence=True needs a margin above 0: no interval lies within ±0 points"
        )
    axis = mark.get("compare") or options.session_value("compare")
    if axis is None:
        for key in ("margin", "baseline"):
            if mark.get(key) is not None:
                raise OptionError(f"{key}= needs compare= (or --prob-compare) to name the axis")
        return []
    if "compare" not in mark and all(axis not in case.param_indices for case in function.cases):
        return []  # a session-wide axis applies to the functions that have it
    try:
        arms = analyse_axis(function, axis, mark.get("baseline"))
    except OneValueError as exc:
        if "compare" in mark or mark.get("margin") is not None:
            raise OptionError(str(exc)) from None
        # a session-wide axis: a function with one value of it is listed as not compared
        note = {"axis": axis, "values": exc.values}
        not_compared = config.stash.setdefault(NOT_COMPARED_KEY, {})
        not_compared.update({case.key: note for case in function.cases})
        return []
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    state.arms.update(arms)
    for info in arms.values():
        state.input_arms.setdefault((info.function, info.input_key), set()).add(info.arm)
    state.arm_json.update({key: info.to_json() for key, info in arms.items()})
    if mark.get("margin") is None:
        return []  # no verdict, no item (sequential.runtime keeps a monitored one on one worker)
    _decide_margin_runs(config, arms)
    # (other tests may have intervals with few pairs, and so does the sequence)
    if not monitored(config, mark) and options.case_value("compare_test", mark) == PAIRED:
        rule = f"margin={mark['margin']:g}" + (
            ", equivalence=True" if mark.get("equivalence") else ""
        )
        state.margin_checks[function.key] = MarginCheck(arms, rule)
    if not gate_items(config):
        return []
    baseline = next(iter(arms.values())).baseline
    rule = render.rule_cell(mark["margin"], bool(mark.get("equivalence")))
    return [
        VerdictRequest(f"{KIND_PREFIX}{arm}", judge_item, f"compare: {arm} − {baseline} {rule}")
        for arm in compared_arms(arms.values())
    ]


def _decide_margin_runs(config: pytest.Config, arms: dict[str, ArmInfo]) -> None:
    """A margin makes the comparison a gate: the failing runs of the cases it judges (an
    arm's case with its input's baseline-arm case, and back) are xfailed, like a gated case's,
    so that the verdict decides the exit status — when the partner case is selected too."""
    by_input: dict[str, dict[str, str]] = {}  # input → arm → case key
    for key, info in arms.items():
        by_input.setdefault(info.input_key, {})[info.arm] = key
    for key, info in arms.items():
        cases = by_input[info.input_key]
        if info.arm == info.baseline:
            partners = [other for arm, other in cases.items() if arm != info.baseline]
        else:
            partners = [cases[info.baseline]] if info.baseline in cases else []
        if partners:
            groups = tuple(frozenset({other}) for other in partners)
            decide_runs(config, key, MARGIN_REASON, partners=groups)


def collection_warnings(session: pytest.Session) -> None:
    """Warn about a session-wide axis that no collected bench function has, and, at their
    bench functions, about margins with too few paired selected inputs for an interval.
    Under pytest-xdist only the first worker warns."""
    config = session.config
    state = state_of(config)
    checks, state.margin_checks = state.margin_checks, {}
    if not first_collector(config):
        return
    _warn_unknown_axis(config, state)
    if checks:
        selected = {item.case.key for item in session.items if isinstance(item, BenchRun)}
        min_inputs = setting(config, "min_inputs")
        pending = {
            key: found
            for key, check in checks.items()
            if (found := _few_pairs(check, selected, min_inputs))
        }
        warn_by_cause(session, pending, function_key)


def _few_pairs(check: MarginCheck, selected: set[str], min_inputs: int) -> list[CaseWarning]:
    """A :class:`MarginWarning` per arm with 2 to ``min_inputs − 1`` paired inputs among
    the ``selected`` cases (one pair has an interval; none has nothing to judge)."""
    arms_of: dict[str, set[str]] = {}
    for key, info in check.arms.items():
        if key in selected:
            arms_of.setdefault(info.input_key, set()).add(info.arm)
    first = next(iter(check.arms.values()))
    base = first.baseline
    paired = {
        arm: sum(1 for arms in arms_of.values() if arm in arms and base in arms)
        for arm in compared_arms(check.arms.values())
    }
    return [
        margin_warning(f"{first.label}[{first.axis}] {arm} − {base}", count, check.rule, min_inputs)
        for arm, count in paired.items()
        if 2 <= count < min_inputs
    ]


def _warn_unknown_axis(config: pytest.Config, state: CompareState) -> None:
    """With a did-you-mean; the warning points at the ini line that sets the axis, or at
    ``<command line>``."""
    options = options_of(config)
    axis = options.session_value("compare")
    if axis is None or not state.functions or axis in state.arguments:
        return
    spec = options.specs["compare"]
    from_cli = spec.cli is not None and config.getoption(spec.dest, None) is not None
    source = f"{spec.cli}={axis}" if from_cli else f"ini option {spec.ini}={axis}"
    known = sorted(state.arguments)
    close = difflib.get_close_matches(axis, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    have = f"their arguments are: {', '.join(known)}" if known else "none of them is parametrized"
    message = (
        f"{source}: no collected bench function has a parametrize argument named {axis!r}"
        f"{hint}, so nothing is compared; {have}"
    )
    filename, lineno = _setting_location(config, spec.ini, from_cli)
    try:
        warnings.warn_explicit(AxisWarning(message), AxisWarning, filename, lineno)
    except AxisWarning:  # -W error::…AxisWarning: a usage error, like a bad option value
        raise pytest.UsageError(f"{filename}:{lineno}: AxisWarning: {message}") from None


def _setting_location(config: pytest.Config, ini: str | None, from_cli: bool) -> tuple[str, int]:
    overridden = any(
        str(entry).split("=", 1)[0].strip() == ini
        for entry in (config.getoption("override_ini", None) or ())
    )
    path = config.inipath
    if from_cli or overridden or ini is None or path is None:
        return COMMAND_LINE, 1
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path), 1
    pattern = re.compile(rf"\s*{re.escape(ini)}\s*[=:]")
    number = next((n for n, line in enumerate(lines, 1) if pattern.match(line)), 1)
    return str(path), number


def gate_items(config: pytest.Config) -> bool:
    """Whether verdict items are asked for (not ``--prob-no-gate-items``)."""
    options = options_of(config)
    return "gate_items" not in options.specs or bool(options.session_value("gate_items"))


def tag_record(item: pytest.Item, record: dict[str, Any]) -> None:
    data = state_of(item.config).arm_json.get(record["key"])
    if data is not None:
        record[RECORD_FIELD] = data
    elif NOT_COMPARED_KEY in item.config.stash:
        note = item.config.stash[NOT_COMPARED_KEY].get(record["key"])
        if note is not None:
            record[NOT_COMPARED] = note


def judged_cases(item: VerdictItem) -> list[CaseResult]:
    """The cases of a verdict item's function, when this process ran all of its selected
    runs; else the item skips, to be judged at session end."""
    results = results_of(item.config)
    here, total = item.selected_runs_here(results)
    if here < total:
        pytest.skip(
            f"{DEFERRED}: this process ran {here} of the function's {total} selected runs "
            "(under pytest-xdist, the default -n scheduling keeps a function on one worker)"
        )
    return [c for key in item.selected_run_numbers() if (c := results.get(key)) is not None]


def judge_line(item: VerdictItem, comparison: Comparison, name: str, versus: str) -> None:
    """The comparison line as JUnit XML properties, and a failure with it when the verdict
    fails the session."""
    line = "  ".join(cell for cell in render.comparison_cells(comparison, name, versus) if cell)
    item.user_properties.extend(render.comparison_properties(comparison, line))
    if failing(comparison, item.config):
        raise AssertionError(line)


def judge_item(item: VerdictItem) -> None:
    """A ``[compare:ARM]`` item's body."""
    arm = item.request.kind.removeprefix(KIND_PREFIX)
    found = (c for c in build(item.config, judged_cases(item), item.case.key) if c.arm == arm)
    comparison = next(found, None)
    if comparison is not None and "hidden" in comparison.extra:
        pytest.skip(f"not judged: the interval is hidden ({comparison.extra['hidden']})")
    if comparison is None or comparison.verdict is None:
        pytest.skip("no paired inputs ran: there is nothing to judge")
    versus = f"{comparison.arm} − {comparison.baseline}"
    judge_line(item, comparison, f"{comparison.label}[{comparison.axis}]", versus)


def failing(comparison: Comparison, config: pytest.Config) -> bool:
    """Whether a margin verdict fails the session (UNDECIDED per ``--prob-undecided``)."""
    if comparison.verdict == "fail":
        return True
    if comparison.verdict != "undecided":
        return False
    options = options_of(config)
    return "undecided" not in options.specs or options.session_value("undecided") == "fail"


def deferred_items(config: pytest.Config, kind: str) -> int:
    outcomes = state_of(config).item_outcomes
    return sum(1 for node, ended in outcomes.items() if kind in node and ended == "deferred")


class CompareItemOutcomes:
    """How each verdict item ended (``probability.comparisons.items``), in the aggregating
    process: the xdist controller learns of them only from their reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Called for every report in the aggregating process."""
        if "[compare:" not in report.nodeid and "[baseline]" not in report.nodeid:
            return
        if report.when == "call" or not report.passed:
            deferred = report.skipped and DEFERRED in str(report.longrepr)
            outcome = "deferred" if deferred else report.outcome
            state_of(self.config).item_outcomes[report.nodeid] = outcome
