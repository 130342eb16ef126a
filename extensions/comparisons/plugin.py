"""The ``comparisons`` extension's pytest hooks: A/B arms on a parametrize axis, and its
answers to ``--prob-plan`` and ``--prob-stop``.

A margin's verdict on the fixed-run regimes (``margin=``, ``--prob-margin``) is judged on an
interval over every paired input of the function, so it cannot say from one case's runs
that it is settled: the cases it reads run every run (the ``pytest_prob_stop_readers``
contract). Under ``--prob-stop=sequential`` a function compared with the ``paired`` test is
judged on an anytime-valid sequence instead, whose readers can say (:mod:`.sequential.runtime`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.api import (
    Case,
    FunctionCases,
    OptionRegistry,
    ReportBuilder,
    Results,
    StopReader,
    VerdictRequest,
    option_value,
    options_of,
    recorded_runs,
    results_of,
)

from .axis import collection
from .baseline import regression as baseline
from .options import (
    FUNCTION_KEYS,
    PAIRED,
    REGRESSION,
    add_options,
    adjustments_of,
    sequential_mode,
    tests_of,
)
from .report import explain, section
from .sequential import runtime
from .sequential.outcome import WHAT
from .service import plan_comparisons, plan_costs
from .session import build, state_of
from .statistics.adjust import benjamini_hochberg, bonferroni, holm
from .statistics.engine import paired_test

#: set when this process collected a bench function that may be compared (so the
#: comparisons' state exists)
COLLECTED = pytest.StashKey[bool]()
#: whether the session's records hold a comparison to report (worked out once)
TAGGED = pytest.StashKey[bool]()


def reports_nothing(results: Results, config: pytest.Config) -> bool:
    """Whether the session has no comparison to report: no run record is tagged
    ``compare`` or ``not_compared`` and no baseline report is read. Read from the records, so
    that it holds in the aggregating process of pytest-xdist, which collects nothing."""
    if baseline.regression_of(config) is not None:
        return False
    tagged = config.stash.get(TAGGED, None)
    if tagged is None:
        tagged = config.stash[TAGGED] = any(
            tag in record
            for case in results.cases()
            for record in case.records.values()
            for tag in ("compare", "not_compared")
        )
    return not tagged


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the comparison settings. Called once per process by the kernel's historic
    hook."""
    add_options(options)


def pytest_configure(config: pytest.Config) -> None:
    """Fill the registries of comparison tests and p adjustments (a broken registration is a
    usage error before anything runs; a plugin registered later that implements a
    registration hook, such as a subdirectory's ``conftest.py``, is called on its
    registration, as historic hooks are); register the baseline regression when one of its
    options is given, the verdict items' tracker in the aggregating process, and the
    sequential comparisons under ``--prob-stop=sequential``. Called once per process."""
    tests_of(config)
    adjustments_of(config)
    options = options_of(config)
    if any(
        options.session_value(name) is not None
        for name in ("baseline_report", "baseline_margin", "save_baseline")
    ):
        # (reading the baseline now: a bad one is a usage error before anything runs)
        config.pluginmanager.register(baseline.Regression(config), REGRESSION)
    if not hasattr(config, "workerinput"):
        items = collection.CompareItemOutcomes(config)
        config.pluginmanager.register(items, "probability.comparisons.items")
    if sequential_mode(config):
        sequential = runtime.SequentialComparisons(config)
        config.pluginmanager.register(sequential, runtime.PLUGIN_NAME)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_comparison_tests(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``paired`` test. Called once per session, in every process."""
    register(PAIRED, paired_test, description="Newcombe/Fisher, sign-flip, paired bootstrap")


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_p_adjustments(register: Any, config: pytest.Config) -> None:
    """Register ``none``, ``holm``, ``bonferroni`` and ``bh``. Called once per session, in
    every process."""
    register("none", list, description="no adjustment (exploratory)")
    register("holm", holm, description="Holm step-down")
    register("bonferroni", bonferroni, description="Bonferroni")
    register("bh", benjamini_hochberg, description="Benjamini–Hochberg step-up")


def pytest_prob_collect_function_verdicts(
    function: FunctionCases, config: pytest.Config
) -> list[VerdictRequest]:
    """Work out each case's arm and input when the function may be compared (a comparison
    key in its marks, a session-wide axis, or a baseline report read), and ask for a
    ``[compare:ARM]`` item per arm when it has a ``margin=`` and for the ``[baseline]`` item of
    ``--prob-margin``. Called once per bench function at collection in collecting processes;
    returns the verdict requests. Raises ``OptionError`` (a collection error naming the
    function) for a bad axis, ``baseline=``, ``equivalence`` or ``margin``."""
    regression = baseline.regression_of(config)
    if regression is None and (
        not any(key in case.mark for case in function.cases for key in FUNCTION_KEYS)
        and option_value(config, "compare") is None
    ):
        return []
    config.stash[COLLECTED] = True
    extra = regression.requests(function) if regression is not None else []
    return [*collection.function_verdicts(function, config), *extra]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Warn about a session-wide axis no collected function has and about margins with too
    few paired inputs for an interval. Called once after collection (after deselection) in
    collecting processes."""
    if session.config.stash.get(COLLECTED, False):
        collection.collection_warnings(session)


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Tag the run record of a compared case (``compare``) or of a function a session-wide
    axis does not compare (``not_compared``). Called once per run in the executing process."""
    if item.config.stash.get(COLLECTED, False):
        collection.tag_record(item, record)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Build every comparison from the records; failing margin verdicts fail the session.
    Called once at the end, before the report is built, in the aggregating process only."""
    config = session.config
    if hasattr(config, "workerinput") or not recorded_runs(config):
        return
    results = results_of(config)
    cases = results.cases()
    if not cases or reports_nothing(results, config):
        return
    state = state_of(config)
    state.comparisons = build(config, cases)
    if any(collection.failing(c, config) for c in state.comparisons) and (
        session.exitstatus == pytest.ExitCode.OK
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: comparisons`` section and its JSON. Called once in the
    aggregating process."""
    if not reports_nothing(results, config):
        section.contribute(report, results, config)


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read the comparisons and the baseline regression. Called once in the aggregating
    process by the explain extension; returns the readings."""
    if "comparisons" not in report.json and "baseline" not in report.json:
        return []
    return explain.readings(report)


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many readings :func:`pytest_prob_explain` would give (all notable). Called once
    in the aggregating process, only without ``--prob-explain``."""
    return len(report.json.get("comparisons", [])) + len(
        (report.json.get("baseline") or {}).get("functions", [])
    )


def planned_apart(config: pytest.Config, mark: Any) -> bool:
    """Whether ``--prob-plan`` plans a compared case's comparison on its own lines (the
    ``paired`` test, which sequential stopping would monitor) rather than as a reader."""
    options = options_of(config)
    return (
        "plan" in options.specs
        and bool(options.session_value("plan"))
        and options.case_value("compare_test", mark) == PAIRED
    )


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``: note on a gated compared case's row that sequential stopping
    would also wait for the comparisons reading it. Called once per planned case."""
    if row.gate is None or not planned_apart(config, case.mark):
        return
    info = state_of(config).arms.get(case.key)
    if info is not None:
        row.notes.append(
            f"under --prob-stop=sequential it also runs until {info.label}[{info.axis}] is "
            "settled (see the comparisons below)"
        )
    regression = baseline.regression_of(config)
    if regression is not None and regression.gates and regression.old_case(case) is not None:
        row.notes.append(
            "under --prob-stop=sequential it also runs until its --prob-margin comparison "
            "with the baseline is settled"
        )


def pytest_prob_plan_costs(path: str, config: pytest.Config) -> dict[str, float]:
    """The cost per run of each case of ``--prob-plan-report``'s file, by case key and case
    id (:func:`.service.plan_costs`). Called once at ``pytest_configure`` of a planning
    session."""
    return plan_costs(path)


def pytest_prob_plan_comparisons(
    cases: list[Case], assume: float, difference: float, config: pytest.Config
) -> list[dict[str, Any]]:
    """Plan every arm compared with the ``paired`` test as sequential stopping would run it
    (:func:`.service.plan_comparisons`). Called once after collection of a planning session;
    returns ``plan.comparisons[]``."""
    return plan_comparisons(config, cases, assume, difference)


def pytest_prob_stop_readers(case: Case, config: pytest.Config) -> list[StopReader]:
    """The verdicts that read ``case``: under ``--prob-stop=sequential`` its monitored
    comparisons, which answer from their sequences; otherwise its function's ``margin=`` (when
    its input is paired) and ``--prob-margin`` (when it pairs with a baseline case), which
    cannot say when they are settled. Called by the stopping extension once per case in the
    executing process, and by ``--prob-plan`` for each planned gated case."""
    found: list[StopReader] = []
    info = state_of(config).arms.get(case.key)
    sequential = runtime.plugin_of(config)
    if (
        info is not None
        and sequential is not None
        and sequential.monitors(info.function, case.mark)
    ):
        found.extend(sequential.arm_readers(case))  # settled on the sequence: they can say
    elif info is not None and planned_apart(config, case.mark):
        pass  # --prob-plan plans the comparison on its own lines
    elif info is not None and case.mark.get("margin") is not None:
        present = state_of(config).input_arms[info.function, info.input_key]
        if info.baseline in present and len(present) > 1:
            found.append(StopReader(f"the margin of {info.label}[{info.axis}]"))
    regression = baseline.regression_of(config)
    if regression is None or not regression.gates:
        return found
    monitored = sequential.baseline_readers(case) if sequential is not None else []
    if monitored:
        found.extend(monitored)  # the comparison with the baseline, on its sequence
    elif regression.old_case(case) is not None and not planned_apart(config, case.mark):
        found.append(StopReader(WHAT.format(label=case.label)))
    return found
