"""The ``gates`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from typing import Any

import pytest
from pytest_probability.api import (
    FAIL,
    PASS,
    UNDECIDED,
    Case,
    CaseResult,
    CaseWarning,
    OptionRegistry,
    ProbabilityWarning,
    Reading,
    ReportBuilder,
    Results,
    VerdictItem,
    VerdictRequest,
    decide_runs,
    implemented_outside,
    option_value,
    options_of,
    parse_bool,
    parse_fraction,
    parse_positive_int,
    reading_percent,
    recorded_runs,
    results_of,
    selected_cases,
    verdict_properties,
    warn_by_cause,
)

from . import rate
from .state import CaseVerdict, state_of

GATE_KIND = "gate"
GATE_SUFFIX = f"[{GATE_KIND}]"
#: why a gated case's failing runs are xfailed (:mod:`pytest_probability.collection.decided_runs`)
XFAIL_REASON = "gated case: its [gate] verdict decides"
DEFERRED = "judged at session end"


class GateWarning(ProbabilityWarning, pytest.PytestWarning):
    """A gate cannot pass with the runs its case has (filter with ``-W``)."""


def _choice(*valid: str) -> Any:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in valid:
            raise ValueError(f"expected one of {', '.join(valid)}, got {value!r}")
        return text

    return parse


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the gate settings. Called by the kernel's historic hook."""
    add = partial(options.add, owner="gates")
    add(
        "min_rate",
        # ``90`` gets a did-you-mean for ``0.9``
        parse=partial(
            parse_fraction,
            expected="a rate between 0 and 1 (exclusive)",
            percent_hint=lambda n: f"{n:g}%",
            hint_from=1.0 + 1e-12,
        ),
        cli="--prob-min-rate",
        ini="prob_min_rate",
        mark=True,
        metavar="RATE",
        help="gate every case: PASS when its interval lies above RATE",
    )
    add(
        "min_passes",
        parse=parse_positive_int,
        mark=True,
        help="gate a case on a pass count: PASS when at least this many runs pass",
    )
    # "min_rate or min_passes": a closer mark setting one replaces the other set farther
    # out (and --prob-min-rate, by mark > CLI > ini); one mark setting both is an error
    options.alternatives("min_rate", "min_passes")
    add(
        "undecided",
        parse=_choice("fail", "pass"),
        default="fail",
        cli="--prob-undecided",
        ini="prob_undecided",
        choices=("fail", "pass"),
        help="whether UNDECIDED gates fail the session (default fail)",
    )
    add(
        "errors",
        parse=_choice("count", "exclude"),
        default="count",
        ini="prob_errors",
        choices=("count", "exclude"),
        help="errored runs of gated cases: count (default) or exclude",
    )
    add(
        "gate_items",
        parse=parse_bool,
        default=True,
        cli="--prob-no-gate-items",
        ini="prob_gate_items",
        flag_value=False,
        help="no [gate] items (the verdicts still set the exit status)",
        ini_help="add a [gate] item per gated case (default true)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_gates(register: Any, config: pytest.Config) -> None:
    """Register the ``rate`` and ``count`` kinds (first, so they lead the section).
    Called once per session through the historic hook."""
    register(
        "rate",
        configure=rate.configure_rate,
        judge=rate.judge,
        minimum_runs=rate.minimum_runs_rate,
        describe=lambda spec: f"min_rate={spec.min_rate:g}",
        render=rate.render,
        verdict_at=rate.rate_verdict,
    )
    register(
        "count",
        configure=rate.configure_count,
        judge=rate.judge,
        minimum_runs=lambda spec, config: spec.min_passes,
        describe=lambda spec: f"min_passes={spec.min_passes}",
        render=rate.render,
        verdict_at=rate.count_verdict,
    )


# -- collection (collecting processes) --------------------------------------------------------
def pytest_prob_collect_verdicts(case: Case, config: pytest.Config) -> list[VerdictRequest]:
    """A ``[gate]`` item for a gated case; notes a :class:`GateWarning` per gate that cannot
    pass with its planned runs (warned about when collection is finished, if the case is
    still selected).

    Called once per case at collection in collecting processes; returns the verdict
    requests (none for an ungated case or with ``--prob-no-gate-items``).
    """
    state = state_of(config)
    gates = state.case_gates(case.key, case.mark)
    if not gates:
        return []
    infeasible = [
        CaseWarning(GateWarning, case.case_id, check["problem"], check["cause"])
        for check in cannot_pass(gates, case.runs, case.mark, config)
    ]
    if infeasible:
        state.infeasible[case.key] = infeasible
    if case.key in state.deciding:
        decide_runs(config, case.key, XFAIL_REASON)
    if not option_value(config, "gate_items"):
        return []
    rules = ", ".join(kind.describe(spec) for kind, spec in gates)
    return [VerdictRequest(GATE_KIND, judge_item, f"gate: {rules}")]


def cannot_pass(
    gates: list[tuple[Any, Any]], runs: int, mark: Mapping[str, Any], config: pytest.Config
) -> list[dict[str, Any]]:
    """The gates that cannot pass with ``runs`` runs: for each, its rule (``min_rate=0.9``),
    the runs it needs, the problem as a warning says it, and its cause: the session setting
    that set the rule (``--prob-min-rate=0.9``), or ``None`` when a mark did."""
    found = []
    for kind, spec in gates:
        needed = None if kind.minimum_runs is None else kind.minimum_runs(spec, config)
        if needed is None or runs >= needed:
            continue
        rule = kind.describe(spec)
        level = getattr(spec, "level", None)  # where the minimum depends on a level
        at = f" at {rate.bar_percent(level)}" if level is not None else ""
        key = rule.split("=", 1)[0]  # (the rule as written: its mark key first)
        cause = None if key in mark else options_of(config).source(key)
        problem = (
            f"the gate cannot pass with {runs} run{'s' if runs != 1 else ''}: "
            f"{rule} needs at least {needed}{at}"
        )
        found.append(
            {"rule": rule, "runs": runs, "needs": needed, "cause": cause, "problem": problem}
        )
    return found


@pytest.hookimpl(trylast=True)
def pytest_prob_case_gates(case: Case, config: pytest.Config) -> list[tuple[Any, Any]]:
    """The case's gates: ``(kind, spec)`` for each, as configured for its ``[gate]`` item
    (``[]`` when it has none). Called by the stopping extension once per case it considers
    (executing process) and by ``--prob-plan``."""
    return state_of(config).case_gates(case.key, case.mark)


@pytest.hookimpl(trylast=True)
def pytest_prob_case_verdict(case: CaseResult, config: pytest.Config) -> str | None:
    """The worst verdict of the case's gates as the report judged them (``None`` when it has
    none). Called in the aggregating process from the report on (by the budget extension)."""
    return getattr(state_of(config).verdicts.get(case.key), "verdict", None)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Warn about the gates that cannot pass, once per cause: one warning for all the
    selected cases a session option or ini value affects, one per bench function's mark
    (cases deselected by ``-k``, ``-m`` or ``--deselect`` are not warned about).

    Called once after collection (after deselection) in collecting processes; under
    pytest-xdist only the first worker warns.
    """
    if not selected_cases(session.config):
        return  # no case selected (the kernel's tryfirst hook ran): nothing to warn about
    state = state_of(session.config)
    pending, state.infeasible = state.infeasible, {}
    warn_by_cause(session, pending)


# -- running (executing processes) -------------------------------------------------------------
def judge_item(item: VerdictItem) -> None:
    """The ``[gate]`` item's body: judge the case from the runs this process ran.

    Passes for PASS (and UNDECIDED with ``--prob-undecided=pass``), fails with the verdict
    lines otherwise; skips, leaving the verdict to the end of the session, when its runs
    ran in other processes too (pytest-xdist without case grouping).
    """
    config = item.config
    case = results_of(config).get(item.case.key)
    # the runs the session selected (all of them, unless --deselect/-k kept only some)
    selected = item.selected_run_numbers().get(item.case.key, set())
    missing = selected - set(case.records if case is not None else ())
    if missing:
        here = len(selected) - len(missing)
        pytest.skip(
            f"{DEFERRED}: this process ran {here} of the case's "
            f"{len(selected)} selected runs (under pytest-xdist, keep a case on one worker)"
        )
    if case is None or case.total == 0:
        pytest.skip("every run of the case was skipped: there is nothing to judge")
    verdict = state_of(config).judge(case)
    if verdict is None:
        return
    _record_properties(item, verdict, len(selected))
    if verdict.failing(option_value(config, "undecided") == "fail"):
        raise AssertionError(
            "\n".join(f"{item.case.case_id}  {result.line}" for result in verdict.results)
        )


def _record_properties(item: VerdictItem, verdict: CaseVerdict, selected: int) -> None:
    """The verdict, the runs judged and each check's figures (interval, bar, method) as
    JUnit XML properties of the ``[gate]`` testcase: ``prob.verdict``, ``prob.runs``,
    ``prob.planned``, then ``prob.<kind>.<field>`` per check (``prob.rate.low``,
    ``prob.rate.min_rate``, ``prob.rate.line``, …)."""
    fields = {"verdict": verdict.verdict, "runs": selected, "planned": item.case.runs}
    item.user_properties.extend(verdict_properties(fields))
    for result in verdict.results:
        check = {"verdict": result.verdict, **result.data, "line": result.line}
        item.user_properties.extend(verdict_properties(check, f"{result.kind}."))


# -- aggregating process ------------------------------------------------------------------------
class GateItemOutcomes:
    """Remembers how each ``[gate]`` item ended (registered per session as
    ``probability.gates.items``: the aggregating process of pytest-xdist collects nothing,
    so it cannot know beforehand whether gate items will report)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a gate item's outcome. Called for every report in the aggregating process."""
        at = report.nodeid.rfind(GATE_SUFFIX)  # pytest-xdist's loadgroup may append "@group"
        if at < 0:  # most reports: a run, not a gate item
            return
        rest = report.nodeid[at + len(GATE_SUFFIX) :]
        if (rest == "" or rest.startswith("@")) and (report.when == "call" or not report.passed):
            deferred = report.skipped and DEFERRED in str(report.longrepr)
            state_of(self.config).item_outcomes[report.nodeid[:at]] = (
                "deferred" if deferred else report.outcome
            )


@pytest.hookimpl(trylast=True)  # (after the kernel has read the settings)
def pytest_configure(config: pytest.Config) -> None:
    """Track gate items in the aggregating process, and register the gate kinds now when
    another plugin implements ``pytest_prob_register_gates`` (a broken registration is then
    a usage error before collection, not a collection error with a traceback; otherwise
    the kinds are registered when the first bench case is collected). Called once per
    process."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(GateItemOutcomes(config), "probability.gates.items")
    if implemented_outside(config.hook.pytest_prob_register_gates):
        state_of(config).kinds()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Judge every gated case on all its runs and let failing verdicts set the exit status.

    Called once at the end of the session, before the report is built; in the aggregating
    process only.
    """
    config = session.config
    if hasattr(config, "workerinput") or not recorded_runs(config):
        return  # a worker, or no bench run reported: nothing to judge
    state = state_of(config)
    undecided_fails = option_value(config, "undecided") == "fail"
    failing = False
    for case in results_of(config).cases():
        # every run skipped: the case is skipped, not judged
        verdict = state.judge(case) if case.total != 0 else None
        if verdict is None:
            continue
        ended = state.item_outcomes.get(case.key)
        verdict.judged = "item" if ended in ("passed", "failed") else "session"
        state.verdicts[case.key] = verdict
        failing = failing or verdict.failing(undecided_fails)
    if failing and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``Gates:`` line, the ``probability: gates`` section, ``rows[].gate``
    and the top-level ``gates`` object. Called once in the aggregating process."""
    state = state_of(config)
    if not state.verdicts:
        return
    undecided = option_value(config, "undecided")
    counts = {PASS: 0, FAIL: 0, UNDECIDED: 0}
    groups: dict[Any, list[tuple[str, Any]]] = {}
    for case in results.cases():
        verdict = state.verdicts.get(case.key)
        if verdict is None:
            continue
        counts[verdict.verdict] += 1
        checks = []
        for (kind, _), result in zip(state.gates[case.key], verdict.results, strict=True):
            checks.append({"kind": result.kind, "verdict": result.verdict, **result.data})
            if kind.render is not None and result.verdict != PASS:  # the section lists problems
                groups.setdefault(kind.render, []).append((case.display, result))
        gate = {
            "verdict": verdict.verdict,
            "fails_session": verdict.failing(undecided == "fail"),
            "judged": verdict.judged,
            "checks": checks,
        }
        gates = state.gates[case.key]
        unmeetable = cannot_pass(gates, case.planned, case.mark, config)
        if unmeetable:  # (every case a warning is about, which the terminal names a few of)
            gate["cannot_pass"] = [
                {key: check[key] for key in ("rule", "runs", "needs", "cause")}
                for check in unmeetable
            ]
        report.add_row_json(case.key, {"gate": gate})
    words = [("passed", PASS), ("failed", FAIL), ("undecided", UNDECIDED)]
    text = ", ".join(f"{counts[key]} {word}" for word, key in words if counts[key])
    report.add_summary("Gates:", text, order=150)
    lines = [line for render, rows in groups.items() for line in render(rows)]
    at_end = [key for key, ended in state.item_outcomes.items() if ended == "deferred"]
    if at_end:
        lines.append(
            f"  {len(at_end)} gate item(s) skipped and judged at session end: their runs ran "
            "in several processes (keep each case on one pytest-xdist worker)"
        )
    if lines:
        report.add_section("gates", lines, order=100)
    totals = {word: counts[key] for word, key in words}
    settings = {"undecided_fails": undecided == "fail", "errors": option_value(config, "errors")}
    report.set_json("gates", totals | settings)


def _read(results: Results, config: pytest.Config) -> Iterator[tuple[CaseResult, list[Any]]]:
    """``(case, [(kind, spec, result)])`` for each gated case that did not pass and has
    checks that get a sentence (a rate gate with an interval, a count)."""
    state = state_of(config)
    for case in results.rows():
        verdict = state.verdicts.get(case.key)
        if verdict is None or verdict.verdict == PASS:
            continue
        checks = [
            (kind, spec, result)
            for (kind, spec), result in zip(state.gates[case.key], verdict.results, strict=True)
            if (kind.name == "rate" and result.data.get("low") is not None) or kind.name == "count"
        ]
        if checks:
            yield case, checks


def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    """Read the verdicts of gated cases that did not pass. Called once in the aggregating
    process by the explain extension."""
    found = []
    for case, checks in _read(results, config):
        parts = []
        for kind, spec, result in checks:
            data = result.data
            if kind.name == "count":
                parts.append(
                    f"It needs at least {data['min_passes']} passing runs and had "
                    f"{data['passes']}: {result.verdict.upper()}."
                )
                continue
            bar = rate.bar_percent(data["min_rate"])
            said = (
                f"{data['passes']} of {data['n']} judged runs passed; with "
                f"{rate.bar_percent(data['level'])} confidence its pass rate is between "
                f"{reading_percent(data['low'])} and {reading_percent(data['high'])}."
            )
            if result.verdict == PASS:
                parts.append(f"{said} All of it is above the {bar} bar: PASS.")
            elif result.verdict == FAIL:
                parts.append(
                    f"{said} All of it is below the {bar} bar: FAIL. More runs will not "
                    "change that; the case needs fixing."
                )
            else:
                needed = rate.runs_to_settle(kind, spec, data["passes"], data["n"], config)
                settle = (
                    " If it keeps passing at "
                    f"{reading_percent(data['passes'] / data['n'], 1)}, "
                    f"about {needed} runs would settle it."
                    if needed is not None
                    else " At exactly this rate no number of runs would settle it."
                )
                parts.append(
                    f"{said} The interval straddles the {bar} bar, so the runs cannot "
                    f"tell yet whether it meets it: UNDECIDED.{settle}"
                )
        row = report.row_json.setdefault(case.key, {})
        about = ("interval", "gate", "PASS / FAIL / UNDECIDED")
        found.append(Reading(case.display, " ".join(parts), about, row, order=100))
    return found


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them (no "runs that would settle it" search). Called once in the aggregating
    process, only without ``--prob-explain``."""
    return sum(1 for _ in _read(results, config))
