"""The ``comparisons`` extension's pytest hooks: A/B arms on a parametrize axis, and the
comparisons' answer to ``--prob-stop`` (which cases a comparison reads).

A margin's verdict on the fixed-run regimes (``margin=`` on a compared function,
``--prob-margin`` against a baseline) is judged on an interval over every paired input of
the function, so whether it is settled depends on runs of other cases too; it cannot say,
from one case's runs, that its verdict can no longer change. The cases it reads therefore
run every run (the stopping extension's ``pytest_prob_stop_readers`` contract), and the
margin is judged on the same runs as without ``--prob-stop``. Under
``--prob-stop=sequential`` a function compared with the ``paired`` test — on its axis, or
against the baseline report with ``--prob-margin`` — is judged on an anytime-valid sequence
instead, whose readers say when it is settled (:mod:`.sequential.runtime`).

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
    ADJUSTMENTS_HOOK,
    FUNCTION_KEYS,
    PAIRED,
    TESTS_HOOK,
    add_options,
    registries_of,
)
from .report import explain, section
from .sequential import runtime
from .sequential.outcome import WHAT
from .session import build, register_bundled, state_of

#: set when this process collected a bench function that may be compared (so the
#: comparisons' state exists)
COLLECTED = pytest.StashKey[bool]()
#: whether the session's records hold a comparison to report (worked out once)
TAGGED = pytest.StashKey[bool]()
#: per config: function key → input key → the arms that input has
_INPUTS = pytest.StashKey[dict[str, dict[str, set[str]]]]()


def reports_nothing(results: Results, config: pytest.Config) -> bool:
    """Whether the session has no comparison to build or report: no run record is tagged
    as compared (``compare``) or as not compared (``not_compared``), and no baseline
    report is read. Read from the records, so that it holds in the aggregating process of
    pytest-xdist, which collects nothing."""
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
    """Fill the registries now when that can matter (:func:`registries_now`: a broken
    registration is a usage error before anything runs), else on first use, watching for a
    plugin registered later that implements a registration hook (:class:`LateRegistrations`);
    register the baseline regression when one of its options is given, track the verdict
    items in the aggregating process, and register the sequential comparisons under
    ``--prob-stop=sequential``. Called once per process."""
    if registries_now(config):
        registries = registries_of(config)
        registries.tests()
        registries.adjustments()
    else:
        config.pluginmanager.register(
            LateRegistrations(config), "probability.comparisons.registrations"
        )
    options = options_of(config)
    if any(
        options.session_value(name) is not None
        for name in ("baseline_report", "baseline_margin", "save_baseline")
    ):
        baseline.configure(config)
    if not hasattr(config, "workerinput"):
        items = collection.CompareItemOutcomes(config)
        config.pluginmanager.register(items, "probability.comparisons.items")
    runtime.configure(config)


def registries_now(config: pytest.Config) -> bool:
    """Whether the registries are filled at ``pytest_configure``: when a plugin other than
    this one implements a registration hook (its errors are usage errors at start-up), or
    when ``prob_compare_test`` or ``--prob-adjust`` (ini ``prob_adjust``) is set (its parser,
    run by the kernel before this, filled that registry already). Otherwise only the bundled
    registrations would run, which cannot fail."""
    for name in (TESTS_HOOK, ADJUSTMENTS_HOOK):
        if not all(_bundled(impl.plugin) for impl in getattr(config.hook, name).get_hookimpls()):
            return True
    specs = options_of(config).specs
    for spec in (specs["compare_test"], specs["adjust"]):
        if spec.cli is not None and config.getoption(spec.dest, None) is not None:
            return True
        if spec.ini is not None and config.getini(spec.ini) not in (None, "", []):
            return True
    return False


def _bundled(plugin: object) -> bool:
    """Whether ``plugin`` is this module (compared by name, so that a copy of the module
    imported again still counts)."""
    return getattr(plugin, "__name__", None) == __name__


class LateRegistrations:
    """Registered (as ``probability.comparisons.registrations``) when the registries are
    left to their first use: a plugin registered after ``pytest_configure`` that implements
    a registration hook (a ``conftest.py`` in a subdirectory) fills the registries on its
    registration, as it would have had they been filled at ``pytest_configure``."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_plugin_registered(self, plugin: object) -> None:
        """Fill the registries when ``plugin`` implements a registration hook (the ones
        registered before this, replayed now, cannot: :func:`registries_now`). Called for
        every plugin registered in the process."""
        if _bundled(plugin):
            return
        hook = self.config.hook
        if any(
            impl.plugin is plugin
            for name in (TESTS_HOOK, ADJUSTMENTS_HOOK)
            for impl in getattr(hook, name).get_hookimpls()
        ):
            registries_of(self.config).registered_late(plugin)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_comparison_tests(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``paired`` test. Called once per session, in every process."""
    register_bundled(register, lambda *args, **kwargs: None)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_p_adjustments(register: Any, config: pytest.Config) -> None:
    """Register ``none``, ``holm``, ``bonferroni`` and ``bh``. Called once per session, in
    every process."""
    register_bundled(lambda *args, **kwargs: None, register)


def pytest_prob_collect_function_verdicts(
    function: FunctionCases, config: pytest.Config
) -> list[VerdictRequest]:
    """Work out each case's arm and input when the function is compared, and ask for a
    ``[compare:ARM]`` item per arm when it has a ``margin=`` (and for the ``[baseline]``
    item of ``--prob-margin``).

    Called once per bench function at collection in collecting processes; returns the
    verdict requests. Raises ``OptionError`` (a collection error naming the function) for a
    bad axis, ``baseline=``, ``equivalence`` or ``margin``. A function whose marks have no
    comparison key, when no session-wide axis is set and no baseline report is read, is
    left alone: its run records get no ``compare`` field.
    """
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
    collecting processes; without a bench function collected there is nothing to warn
    about."""
    if session.config.stash.get(COLLECTED, False):
        collection.collection_warnings(session)


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Tag the run record of a compared case with its arm and input (``compare``), or with
    the session-wide axis that does not compare its function (``not_compared``). Called in
    the executing process once per run; a session in which no function may be compared
    tags nothing."""
    if item.config.stash.get(COLLECTED, False):
        collection.tag_record(item, record)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Build every comparison from the records; failing margin verdicts fail the session.
    Called once at the end, before the report is built, in the aggregating process only
    (a worker returns at once, and so does a session without results)."""
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
    """Contribute the ``probability: comparisons`` section, ``comparisons[]``,
    ``not_compared``, ``rows[].comparison`` and the sequential comparisons' savings.
    Called once in the aggregating process; a session with nothing compared contributes
    nothing."""
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
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without
    ``--prob-explain``; returns the count."""
    return len(report.json.get("comparisons", [])) + len(
        (report.json.get("baseline") or {}).get("functions", [])
    )


def planned_apart(config: pytest.Config, mark: Any) -> bool:
    """Whether ``--prob-plan`` plans a compared case's comparison on its own lines (the
    ``paired`` test: sequential stopping would monitor it) rather than as a reader that
    keeps the case running."""
    options = options_of(config)
    return (
        "plan" in options.specs
        and bool(options.session_value("plan"))
        and options.case_value("compare_test", mark) == PAIRED
    )


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``: note on a gated compared case's row that sequential stopping
    would also wait for the comparisons reading it (its axis comparison, planned on its own
    lines, and its function's ``--prob-margin`` comparison with the baseline report).
    Called once per planned case in the planning process."""
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


def pytest_prob_stop_readers(case: Case, config: pytest.Config) -> list[StopReader]:
    """The verdicts that read ``case``: under ``--prob-stop=sequential``, every comparison
    of a monitored function that reads it (its arm's, or every arm's for a baseline case)
    and its function's monitored ``--prob-margin`` comparison with the baseline report,
    which answer from their sequences; otherwise its function's ``margin=`` when the case's
    input has the baseline arm and another (a paired input), and ``--prob-margin`` when the
    case pairs with a case of the baseline report, which cannot say when they are settled.

    Called only by the stopping extension's rule — once per case in the executing process,
    and only when ``--prob-stop`` is on — and by ``--prob-plan`` for each planned gated
    case."""
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
        present = _arms_by_input(config).get(info.function, {}).get(info.input_key, set())
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


def _arms_by_input(config: pytest.Config) -> dict[str, dict[str, set[str]]]:
    found = config.stash.get(_INPUTS, None)
    arms = state_of(config).arms
    if found is None or sum(len(a) for i in found.values() for a in i.values()) != len(arms):
        found = {}
        for info in arms.values():
            found.setdefault(info.function, {}).setdefault(info.input_key, set()).add(info.arm)
        config.stash[_INPUTS] = found
    return found


def pytest_prob_plan_costs(path: str, config: pytest.Config) -> dict[str, float]:
    """Under ``--prob-plan-report``: the cost per run of each case of the saved report, read
    with the baseline reader. Called once at configuration of a planning session; returns
    the costs keyed by case key and by case id."""
    from .service import plan_costs

    return plan_costs(path)


def pytest_prob_plan_comparisons(
    cases: list[Case], assume: float, difference: float, config: pytest.Config
) -> list[dict[str, Any]]:
    """Under ``--prob-plan``: each arm compared with the ``paired`` test, as sequential
    stopping would run it. Called once after collection of a planning session; returns the
    planned comparisons (``plan.comparisons[]``)."""
    from .service import plan_comparisons

    return plan_comparisons(config, cases, assume, difference)
