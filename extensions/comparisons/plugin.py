"""The ``comparisons`` extension's pytest hooks: A/B arms on a parametrize axis.

Each hook is thin: the work is in :mod:`.options` (the settings), :mod:`.registrations`
(the registries of comparison tests and p adjustments), :mod:`.axis.collection` (arms,
inputs, ``[compare:ARM]`` requests and warnings at collection), :mod:`.axis.items` (the
compare items), :mod:`.session` (building the comparisons), :mod:`.report.section` (the
report), :mod:`.report.explain` (``--prob-explain``), :mod:`.readers` (what ``--prob-stop``
asks) and, under ``--prob-stop=sequential``, :mod:`.sequential.runtime`; the baseline
regression is a plugin of its own (:mod:`.baseline.regression`), registered when asked for.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_probability.api import (
        Case,
        FunctionCases,
        OptionRegistry,
        ReportBuilder,
        Results,
        VerdictRequest,
    )

#: the hooks that fill the registries of comparison tests and p adjustments
REGISTRATION_HOOKS = ("pytest_prob_register_comparison_tests", "pytest_prob_register_p_adjustments")
#: set when this process collected a bench function that may be compared (so the
#: comparisons' state exists)
COLLECTED = pytest.StashKey[bool]()


#: the run-record fields of a compared case (``session.RECORD_FIELD``) and of a case whose
#: function a session-wide axis does not compare (``axis.collection.NOT_COMPARED``)
RECORD_TAGS = ("compare", "not_compared")
#: whether the session's records hold a comparison to report (worked out once)
TAGGED = pytest.StashKey[bool]()


def reports_nothing(results: Results, config: pytest.Config) -> bool:
    """Whether the session has no comparison to build or report: no run record is tagged
    as compared or as not compared, and no baseline report is read (``--prob-baseline``).
    The report phase then loads none of the comparisons' machinery. Read from the records,
    so that it holds in the aggregating process of pytest-xdist, which collects nothing."""
    from .baseline.options import PLUGIN_NAME as REGRESSION

    if config.pluginmanager.get_plugin(REGRESSION) is not None:
        return False
    tagged = config.stash.get(TAGGED, None)
    if tagged is None:
        tagged = config.stash[TAGGED] = any(
            tag in record
            for case in results.cases()
            for record in case.records.values()
            for tag in RECORD_TAGS
        )
    return not tagged


def compares_nothing(function: FunctionCases, config: pytest.Config) -> bool:
    """Whether nothing can compare ``function``: none of its cases' marks has a comparison
    key, no session-wide axis is set (``--prob-compare``, ``prob_compare``) and no baseline
    report is read (``--prob-baseline``). Its collection then loads none of the comparison
    machinery, and its run records get no ``compare`` field."""
    from pytest_probability.api import option_value

    from .baseline.options import PLUGIN_NAME as REGRESSION
    from .options import FUNCTION_KEYS

    if any(key in case.mark for case in function.cases for key in FUNCTION_KEYS):
        return False
    if config.pluginmanager.get_plugin(REGRESSION) is not None:
        return False
    return option_value(config, "compare") is None


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the comparison settings (:mod:`.options`). Called once per process by
    the kernel's historic hook; returns nothing."""
    from .options import add_options

    add_options(options)


def pytest_configure(config: pytest.Config) -> None:
    """Fill the registries now when that can matter (:func:`registries_now`: a broken
    registration is a usage error before anything runs), else on first use, watching for a
    plugin registered later that implements a registration hook (:class:`LateRegistrations`);
    register the baseline regression when one of its options is given, track
    ``[compare:ARM]`` items in the aggregating process, and register the sequential
    comparisons under ``--prob-stop=sequential``. Called once per process; returns
    nothing."""
    from pytest_probability.api import options_of

    from .sequential.options import sequential_mode

    if registries_now(config):
        from .registrations import registries_of

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
        from .baseline import regression

        regression.configure(config)
    if not hasattr(config, "workerinput"):
        from .axis.items import CompareItemOutcomes

        config.pluginmanager.register(CompareItemOutcomes(config), "probability.comparisons.items")
    if sequential_mode(config):  # the sequential machinery loads only under it
        from .sequential import runtime

        runtime.configure(config)


def registries_now(config: pytest.Config) -> bool:
    """Whether the registries are filled at ``pytest_configure``: when a plugin other than
    this one implements a registration hook (its errors are usage errors at start-up), or
    when ``prob_compare_test`` or ``--prob-adjust`` (ini ``prob_adjust``) is set (its parser,
    run by the kernel before this, filled that registry already). Otherwise only the bundled
    registrations would run, which cannot fail: the registries and their modules load when
    first needed."""
    for name in REGISTRATION_HOOKS:
        if not all(_bundled(impl.plugin) for impl in getattr(config.hook, name).get_hookimpls()):
            return True
    from pytest_probability.api import options_of

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
        every plugin registered in the process; returns nothing."""
        if _bundled(plugin):
            return
        hook = self.config.hook
        if any(
            impl.plugin is plugin
            for name in REGISTRATION_HOOKS
            for impl in getattr(hook, name).get_hookimpls()
        ):
            from .registrations import registries_of

            registries_of(self.config).registered_late(plugin)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_comparison_tests(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``paired`` test. Called once per session, in every process;
    returns nothing."""
    from .session import register_bundled

    register_bundled(register, lambda *args, **kwargs: None)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_p_adjustments(register: Any, config: pytest.Config) -> None:
    """Register ``none``, ``holm``, ``bonferroni`` and ``bh``. Called once per session, in
    every process; returns nothing."""
    from .session import register_bundled

    register_bundled(lambda *args, **kwargs: None, register)


def pytest_prob_collect_function_verdicts(
    function: FunctionCases, config: pytest.Config
) -> list[VerdictRequest]:
    """Work out each case's arm and input when the function is compared, and ask for a
    ``[compare:ARM]`` item per arm when it has a ``margin=`` (and for the ``[baseline]``
    item of ``--prob-margin``).

    Called once per bench function at collection in collecting processes; returns the
    verdict requests. Raises ``OptionError`` (a collection error naming the function) for a
    bad axis, ``baseline=``, ``equivalence`` or ``margin``
    (:func:`.axis.collection.function_verdicts`).
    """
    if compares_nothing(function, config):
        return []
    config.stash[COLLECTED] = True
    from .axis.collection import function_verdicts

    return function_verdicts(function, config)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Warn about a session-wide axis no collected function has and about margins with too
    few paired inputs for an interval (:func:`.axis.collection.collection_warnings`). Called once
    after collection (after deselection) in collecting processes; returns nothing. Without a
    bench function collected there is nothing to warn about (the collection machinery stays
    unloaded)."""
    if not session.config.stash.get(COLLECTED, False):
        return
    from .axis.collection import collection_warnings

    collection_warnings(session)


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Tag the run record of a compared case with its arm and input (``compare``), or with
    the session-wide axis that does not compare its function (``not_compared``). Called in
    the executing process once per run; returns nothing. A session in which no function
    may be compared tags nothing (and loads nothing)."""
    if not item.config.stash.get(COLLECTED, False):
        return
    from .axis.collection import tag_record

    tag_record(item, record)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Build every comparison from the records; failing margin verdicts fail the session.
    Called once at the end, before the report is built, in the aggregating process only
    (a worker returns at once, and so does a session without results); returns nothing."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    from pytest_probability.api import recorded_runs, results_of

    if not recorded_runs(config):
        return
    results = results_of(config)
    cases = results.cases()
    if not cases or reports_nothing(results, config):
        return  # nothing to compare: the comparisons' machinery need not load
    from .session import build, state_of

    state = state_of(config)
    state.comparisons = build(config, cases)
    if not state.comparisons:
        return
    from .axis.items import failing

    if any(failing(c, config) for c in state.comparisons) and (
        session.exitstatus == pytest.ExitCode.OK
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: comparisons`` section, ``comparisons[]``,
    ``not_compared``, ``rows[].comparison`` and the sequential comparisons' savings
    (:func:`.report.section.contribute`). Called once in the aggregating process; returns
    nothing; a session with nothing compared contributes nothing (and loads nothing)."""
    if reports_nothing(results, config):
        return
    from .report.section import contribute

    contribute(report, results, config)


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read the comparisons and the baseline regression. Called once in the aggregating
    process by the explain extension; returns the readings (none, without loading the
    reader, when the report has no comparison)."""
    if "comparisons" not in report.json and "baseline" not in report.json:
        return []
    from .report.explain import readings

    return readings(report)


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without
    ``--prob-explain``; returns the count."""
    if "comparisons" not in report.json and "baseline" not in report.json:
        return 0
    from .report.explain import count

    return count(report)


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``: note on a gated compared case's row that sequential stopping
    would also wait for the comparisons reading it. Called once per planned case in the
    planning process; returns nothing."""
    from .readers import plan_note

    plan_note(case, row, config)


def pytest_prob_stop_readers(case: Case, config: pytest.Config) -> list[Any]:
    """The comparisons that read a case (:func:`.readers.margin_readers`): on their sequence
    under ``--prob-stop=sequential``, answering when they are settled; else the margins,
    which cannot say, so the case runs every run.

    Called only by the stopping extension's rule — once per case in the executing process,
    and only when ``--prob-stop`` is on — and by ``--prob-plan`` for each planned gated
    case; returns the :class:`~pytest_probability.extensions.stopping.service.StopReader`
    list."""
    from .readers import margin_readers

    return margin_readers(case, config)
