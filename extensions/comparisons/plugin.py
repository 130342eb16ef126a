"""The ``comparisons`` extension's pytest hooks: A/B arms on a parametrize axis."""

from __future__ import annotations

import difflib
import re
import warnings
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.cases import Case, FunctionCases
from pytest_probability.collect import BenchRun, VerdictItem
from pytest_probability.decided import decide_runs
from pytest_probability.kernel import kernel_of
from pytest_probability.located import first_collector, function_key, warn_at_selected
from pytest_probability.options import OptionError, OptionRegistry
from pytest_probability.report import ReportBuilder
from pytest_probability.results import Results
from pytest_probability.values import parse_bool, parse_fraction
from pytest_probability.verdicts import VerdictRequest

from .axes import ArmInfo, OneValueError, analyse_axis
from .regression_options import PLUGIN_NAME as REGRESSION
from .regression_options import add_options as add_regression_options
from .sequential_options import add_options as add_sequential_options
from .session import (
    PAIRED,
    RECORD_FIELD,
    AxisWarning,
    CompareState,
    MarginCheck,
    build,
    margin_warning,
    register_bundled,
    setting,
    state_of,
)

if TYPE_CHECKING:
    from .engine import Comparison

KIND_PREFIX = "compare:"
SECTION_ORDER = 120
DEFERRED = "judged at session end"
#: the per-function keys: every case of a function must agree on them
FUNCTION_KEYS = ("compare", "baseline", "margin", "equivalence", "compare_test")
#: where a warning about a command-line setting points
COMMAND_LINE = "<command line>"
#: the record field naming the axis of a function a session-wide axis does not compare
NOT_COMPARED = "not_compared"
#: collecting processes: case key → the session-wide axis and its one value in that case's
#: function (set only when a function has a single value of it)
NOT_COMPARED_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()
#: why the failing runs of a case a margin judges are xfailed
MARGIN_REASON = "compared case: its margin verdict decides"


def parse_axis(value: Any) -> str:
    """A parametrize argument name."""
    text = str(value).strip() if isinstance(value, str) else ""
    if not text.isidentifier():
        raise ValueError(
            f"expected the name of a parametrize argument such as 'style', got {value!r}"
        )
    return text


def parse_margin(value: Any) -> float:
    """A margin of at least 0 and below 1; ``2`` gets a did-you-mean for ``0.02``. ``0``
    means "must show no drop": the difference's lower end must be above zero."""
    if not isinstance(value, bool):
        try:
            if float(value.strip() if isinstance(value, str) else value) == 0.0:
                return 0.0
        except (TypeError, ValueError):
            pass
    return parse_fraction(
        value,
        expected="a margin of at least 0 and below 1 such as 0.02 for 2 points",
        percent_hint=lambda n: f"{n:g} points",
    )


def parse_flag(value: Any) -> bool:
    """``True`` or ``False`` (a mark argument)."""
    if isinstance(value, bool):
        return value
    return parse_bool(value)


def parse_test(value: Any, config: pytest.Config) -> str:
    return state_of(config).tests().check(value)


def parse_adjust(value: Any, config: pytest.Config) -> str:
    return state_of(config).adjustments().check(value)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the comparison settings. Called by the kernel's historic hook; returns
    nothing."""
    owner = "comparisons"
    options.add(
        "compare",
        parse=parse_axis,
        cli="--prob-compare",
        ini="prob_compare",
        mark=True,
        metavar="AXIS",
        help="compare the values of parametrize argument AXIS, each against the first",
        owner=owner,
    )
    options.add(
        "compare_baseline",
        parse=lambda value: value,
        mark="baseline",
        help="the axis value the others are compared with (default: the first)",
        owner=owner,
    )
    options.add(
        "margin",
        parse=parse_margin,
        mark=True,
        help="make the comparison a gate: an arm may be at most MARGIN worse",
        owner=owner,
    )
    options.add(
        "equivalence",
        parse=parse_flag,
        default=False,
        mark=True,
        help="with margin=: the arm must be within ±MARGIN of the baseline",
        owner=owner,
    )
    options.add(
        "compare_test",
        parse=parse_test,
        with_config=True,
        default=PAIRED,
        ini="prob_compare_test",
        mark=True,
        help="comparison test (default paired: Newcombe/Fisher, sign-flip, paired bootstrap)",
        owner=owner,
    )
    options.add(
        "adjust",
        parse=parse_adjust,
        with_config=True,
        default="none",
        cli="--prob-adjust",
        ini="prob_adjust",
        metavar="M",
        help="adjust comparison p-values: none (exploratory), holm, bonferroni, bh",
        owner=owner,
    )
    add_sequential_options(options)
    add_regression_options(options, parse_margin)


def pytest_configure(config: pytest.Config) -> None:
    """Fill the registries now (a broken registration is a usage error before anything
    runs) and track ``[compare:ARM]`` items in the aggregating process. Called once per
    process; returns nothing."""
    state = state_of(config)
    state.tests()
    state.adjustments()
    options = kernel_of(config).options
    if any(
        options.session_value(name) is not None
        for name in ("baseline_report", "baseline_margin", "save_baseline")
    ):
        from . import regression

        regression.configure(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(CompareItemOutcomes(config), "probability.comparisons.items")
    from . import seqruntime

    seqruntime.configure(config)


def pytest_prob_register_comparison_tests(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``paired`` test. Called once per session; returns nothing."""
    register_bundled(register, lambda *args, **kwargs: None)


def pytest_prob_register_p_adjustments(register: Any, config: pytest.Config) -> None:
    """Register ``none``, ``holm``, ``bonferroni`` and ``bh``. Called once per session;
    returns nothing."""
    register_bundled(lambda *args, **kwargs: None, register)


# -- collection (collecting processes) --------------------------------------------------------
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


def pytest_prob_collect_function_verdicts(
    function: FunctionCases, config: pytest.Config
) -> list[VerdictRequest]:
    """Work out each case's arm and input when the function is compared, and ask for a
    ``[compare:ARM]`` item per arm when it has a ``margin=``.

    Called once per bench function at collection in collecting processes; returns the
    verdict requests. Raises ``OptionError`` (a collection error naming the function) for an
    axis that is not a parametrize argument, a ``baseline=`` that is not one of its values,
    ``equivalence`` without ``margin``, or ``margin`` without an axis.
    """
    state = state_of(config)
    state.planned[function.key] = {case.key: case.runs for case in function.cases}
    state.functions += 1
    state.arguments.update(name for case in function.cases for name in case.param_indices)
    extra = []
    if config.pluginmanager.get_plugin(REGRESSION) is not None:
        from . import regression

        extra = regression.requests(config, function)
    mark = _function_mark(function)
    options = kernel_of(config).options
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
        return extra
    if "compare" not in mark and all(axis not in case.param_indices for case in function.cases):
        return extra  # a session-wide axis applies to the functions that have it
    try:
        arms = analyse_axis(function, axis, mark.get("baseline"))
    except OneValueError as exc:
        if "compare" in mark or mark.get("margin") is not None:
            raise OptionError(str(exc)) from None
        # a session-wide axis: a function with one value of it is listed as not compared
        note = {"axis": axis, "values": exc.values}
        not_compared = config.stash.setdefault(NOT_COMPARED_KEY, {})
        not_compared.update({case.key: note for case in function.cases})
        return extra
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    state.arms.update(arms)
    state.arm_json.update({key: info.to_json() for key, info in arms.items()})
    from .sequential import monitored

    sequential = monitored(config, mark)
    if mark.get("margin") is None and not sequential:
        return extra
    if mark.get("margin") is not None:
        _decide_margin_runs(config, arms)
    # (other tests may have intervals with few pairs, and so does the sequence)
    if (
        mark.get("margin") is not None
        and not sequential
        and options.case_value("compare_test", mark) == PAIRED
    ):
        rule = f"margin={mark['margin']:g}" + (
            ", equivalence=True" if mark.get("equivalence") else ""
        )
        state.margin_checks[function.key] = MarginCheck(arms, rule)
    if not _gate_items(config):
        return extra
    baseline = next(iter(arms.values())).baseline
    ordered = sorted({(info.arm_index, info.arm) for info in arms.values()})
    from . import render

    # a monitored comparison without a margin gets an item too: it keeps the function on
    # one pytest-xdist worker (the scheduler's unit), where its runs can stop together
    rule = (
        "(sequential, exploratory)"
        if mark.get("margin") is None
        else render.rule_cell(mark["margin"], bool(mark.get("equivalence")))
    )
    return [
        *(
            VerdictRequest(f"{KIND_PREFIX}{arm}", judge_item, f"compare: {arm} − {baseline} {rule}")
            for _, arm in ordered
            if arm != baseline
        ),
        *extra,
    ]


def _decide_margin_runs(config: pytest.Config, arms: dict[str, ArmInfo]) -> None:
    """A margin makes the comparison a gate: the failing runs of the cases it judges (an
    arm's case with its input's baseline-arm case, and that one with any other arm's) are
    reported as xfailed, like a gated case's, so that the margin verdict decides the exit
    status — as long as the partner case is selected too."""
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


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Warn about a session-wide axis that no collected bench function has (a typo, most
    likely), and about margins whose comparisons will have too few paired inputs for an
    interval (at their bench functions; only for selected cases).

    Called once after collection (after deselection) in collecting processes; under
    pytest-xdist only the first worker warns. Returns nothing.
    """
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
        warn_at_selected(session, pending, function_key)


def _few_pairs(check: MarginCheck, selected: set[str], min_inputs: int) -> list[Warning]:
    """A :class:`MarginWarning` per arm that will have 2 to ``min_inputs − 1`` paired inputs
    among the ``selected`` cases (one pair has an interval; none has nothing to judge)."""
    arms_of: dict[str, set[str]] = {}
    for key, info in check.arms.items():
        if key in selected:
            arms_of.setdefault(info.input_key, set()).add(info.arm)
    first = next(iter(check.arms.values()))
    base = first.baseline
    ordered = sorted({(info.arm_index, info.arm) for info in check.arms.values()})
    found: list[Warning] = []
    for _, arm in ordered:
        paired = sum(1 for arms in arms_of.values() if arm in arms and base in arms)
        if arm != base and 2 <= paired < min_inputs:
            name = f"{first.label}[{first.axis}] {arm} − {base}"
            found.append(margin_warning(name, paired, check.rule, min_inputs))
    return found


def _warn_unknown_axis(config: pytest.Config, state: CompareState) -> None:
    """Warn when ``--prob-compare`` / ``prob_compare`` names an argument that no collected
    bench function has, with a did-you-mean over the arguments they do have; the warning
    points at the ini line that sets it, or at ``<command line>``."""
    options = kernel_of(config).options
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
    """Where a session setting was given: its line in the ini file, or ``<command line>``
    (the flag, or ``-o NAME=…``)."""
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


def _gate_items(config: pytest.Config) -> bool:
    options = kernel_of(config).options
    return "gate_items" not in options.specs or bool(options.session_value("gate_items"))


# -- running (executing processes) -------------------------------------------------------------
def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Tag the run record of a compared case with its arm and input (``compare``). Called in
    the executing process once per run; returns nothing."""
    data = state_of(item.config).arm_json.get(record["key"])
    if data is not None:
        record[RECORD_FIELD] = data
    elif NOT_COMPARED_KEY in item.config.stash:
        note = item.config.stash[NOT_COMPARED_KEY].get(record["key"])
        if note is not None:
            record[NOT_COMPARED] = note


def judge_item(item: VerdictItem) -> None:
    """A ``[compare:ARM]`` item's body: judge the arm from the runs this process ran; skip
    (judged at session end) when some of the function's runs ran elsewhere."""
    config = item.config
    results = kernel_of(config).results
    # the runs the session selected (all, unless --deselect/-k kept only some of them)
    here, total = item.selected_runs_here(results)
    if here < total:
        pytest.skip(
            f"{DEFERRED}: this process ran {here} of the function's {total} selected runs "
            "(under pytest-xdist, the default -n scheduling keeps a function on one worker)"
        )
    arm = item.request.kind[len(KIND_PREFIX) :]
    selected = item.selected_run_numbers()
    cases = [c for key in selected if (c := results.get(key)) is not None]
    found = [c for c in build(config, cases, item.case.key) if c.arm == arm]
    if found and "hidden" in found[0].extra:
        pytest.skip(f"not judged: the interval is hidden ({found[0].extra['hidden']})")
    if (
        not found
        or found[0].outcome is None
        or (found[0].verdict is None and found[0].margin is not None)
    ):
        pytest.skip("no paired inputs ran: there is nothing to judge")
    comparison = found[0]
    from . import render

    cells = render.comparison_cells(
        comparison,
        f"{comparison.label}[{comparison.axis}]",
        f"{comparison.arm} − {comparison.baseline}",
    )
    line = "  ".join(cell for cell in cells if cell)
    item.user_properties.extend(render.comparison_properties(comparison, line))
    if _failing(comparison, config):
        raise AssertionError(line)


def _failing(comparison: Comparison, config: pytest.Config) -> bool:
    if comparison.verdict == "fail":
        return True
    if comparison.verdict != "undecided":
        return False
    options = kernel_of(config).options
    return "undecided" not in options.specs or options.session_value("undecided") == "fail"


# -- aggregating process ------------------------------------------------------------------------
class CompareItemOutcomes:
    """Remembers how each ``[compare:ARM]`` item ended (``probability.comparisons.items``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.state = state_of(config)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a compare item's outcome. Called for every report in the aggregating
        process; returns nothing."""
        if "[compare:" not in report.nodeid:
            return
        if report.when == "call" or not report.passed:
            deferred = report.skipped and DEFERRED in str(report.longrepr)
            self.state.item_outcomes[report.nodeid] = "deferred" if deferred else report.outcome


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Build every comparison from the records; failing margin verdicts fail the session.
    Called once at the end, before the report is built, in the aggregating process only."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    state = state_of(config)
    state.comparisons = build(config, kernel_of(config).results.cases())
    failing = any(_failing(c, config) for c in state.comparisons)
    if failing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: comparisons`` section, ``comparisons[]`` and
    ``rows[].comparison``. Called once in the aggregating process; returns nothing."""
    state = state_of(config)
    for case in results.cases():
        for record in case.records.values():
            if record.get(RECORD_FIELD):
                report.add_row_json(case.key, {"comparison": record[RECORD_FIELD]})
                break
    comparisons = state.comparisons
    not_compared = _not_compared(results)
    if not_compared:
        report.set_json("not_compared", not_compared)
    if not comparisons and not not_compared:
        return
    lines = section_lines(comparisons, state.item_outcomes) if comparisons else []
    lines.extend(not_compared_lines(not_compared))
    if comparisons:
        report.set_json("comparisons", [c.to_json() for c in comparisons])
        from .seqreport import contribute

        contribute(report, comparisons, results, config)
    report.add_section("comparisons", lines, order=SECTION_ORDER)


def _not_compared(results: Results) -> list[dict[str, Any]]:
    """The functions a session-wide axis (``--prob-compare``) did not compare because they
    have one value of it, in collection order, from their runs' records."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for case in results.cases():
        if (case.module, case.label) in found:
            continue
        for record in case.records.values():
            note = record.get(NOT_COMPARED)
            if note:
                found[(case.module, case.label)] = {
                    "function": f"{case.module}::bench_{case.label}",
                    "label": case.label,
                    **note,
                }
                break
    return list(found.values())


def not_compared_lines(functions: list[dict[str, Any]]) -> list[str]:
    """``  not compared (one value of style): one (terse)``, one line per axis."""
    by_axis: dict[str, list[str]] = {}
    for function in functions:
        shown = f"{function['label']} ({', '.join(function['values'])})"
        by_axis.setdefault(function["axis"], []).append(shown)
    return [
        f"  not compared (one value of {axis}): {', '.join(shown)}"
        for axis, shown in by_axis.items()
    ]


def section_lines(comparisons: list[Comparison], item_outcomes: dict[str, str]) -> list[str]:
    """The aligned comparison lines, each followed by its details, then the notes."""
    from . import render

    rows = [
        render.comparison_cells(c, f"{c.label}[{c.axis}]", f"{c.arm} − {c.baseline}")
        for c in comparisons
    ]
    lines: list[str] = []
    for line, comparison in zip(render.align(rows), comparisons, strict=True):
        lines.append(line)
        lines.extend(render.detail_lines(comparison))
    family = [c for c in comparisons if c.outcome is not None and c.outcome.p is not None]
    adjust = comparisons[0].adjust
    if adjust != "none" and family:
        lines.append(f"  p adjusted with {adjust} over {len(family)} comparisons")
    elif len(family) > 1:
        lines.append(
            f"  {len(family)} comparisons, p not adjusted for multiplicity: treat them as "
            "exploratory (--prob-adjust=holm adjusts them)"
        )
    deferred = sum(1 for ended in item_outcomes.values() if ended == "deferred")
    if deferred:
        lines.append(
            f"  {deferred} compare item(s) skipped and judged at session end: their runs ran "
            "in several processes (keep each function on one pytest-xdist worker)"
        )
    return lines


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read the comparisons and the baseline regression. Called once in the aggregating
    process by the explain extension; returns the readings."""
    from .explain import readings

    return readings(report)


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``: note on a compared case's row that sequential stopping would
    also wait for its comparison, which is planned on the comparison lines. Called once per
    planned case in the planning process; returns nothing."""
    from .readers import plan_note

    plan_note(case, row, config)


def pytest_prob_stop_readers(case: Case, config: pytest.Config) -> list[Any]:
    """Under ``--prob-stop`` (and ``--prob-plan``): the comparisons that read a case — on
    their sequence under ``--prob-stop=sequential``, answering when they are settled; else
    the margins, which cannot say, so the case runs every run. Called once per
    case in the executing process (and per planned case by ``--prob-plan``); returns the
    :class:`~pytest_probability.extensions.stopping.service.StopReader` list."""
    from .readers import margin_readers

    return margin_readers(case, config)
