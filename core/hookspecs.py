"""The kernel's hook specifications.

Every hook lives in pytest's own plugin manager, so a ``conftest.py``, a ``pytest11`` plugin
or a ``pytest_probability.extensions`` entry point can implement it. Hook kinds follow pytest:

* *historic* hooks fill a registry; implementations registered late (a conftest found during
  collection) are still called.
* *firstresult* hooks answer "give me the one X"; the bundled default is ``trylast`` so any
  other implementation wins.
* plain hooks announce that something happened (return ``None``) or collect contributions
  (return a list, one entry per implementation).

"Executing process" means the process that runs the bench body: the only process, or an
xdist worker. "Aggregating process" means the process that builds the results: the only
process, or the xdist controller (which never collects).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from .collection.cases import Case, FunctionCases
    from .collection.verdict_items import VerdictRequest
    from .options import OptionRegistry
    from .report.builder import ReportBuilder
    from .report.results import Results

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare command-line flags, ini keys and ``probability(...)`` mark keys.

    Called once, historically, while pytest registers its options (``pytest_addoption``
    time), in every process. Implementations registered later (for example in a conftest)
    are called on registration.

    :param options: the session's :class:`~pytest_probability.options.OptionRegistry`; call
        :meth:`~pytest_probability.options.OptionRegistry.add` once per setting. One
        setting may have a ``--prob-*`` flag, a ``prob_*`` ini key and a mark key; values
        resolve with the precedence mark > CLI > ini > default.
        :meth:`~pytest_probability.options.OptionRegistry.alternatives` declares mark keys
        that are one choice (the ``gates`` extension's ``min_rate`` or ``min_passes``): the
        closest mark setting any of them decides, and one mark setting two is an error.
    :return: nothing.

    Implemented by the kernel (``runs``, ``json``, ``delay``, ``transpose``,
    ``pattern``) and by every bundled extension that has settings.
    """


@hookspec
def pytest_prob_collect_verdicts(case: Case, config: pytest.Config) -> list[VerdictRequest] | None:
    """Ask which verdict items a case needs after its last run.

    Called at collection time in every collecting process (the only process, or each xdist
    worker; never the controller), once per case, after its run items were created.

    :param case: the collected :class:`~pytest_probability.collection.cases.Case` (ids,
        planned runs, merged ``probability`` mark arguments).
    :return: a list of :class:`~pytest_probability.collection.verdict_items.VerdictRequest`
        (one item each, named ``<case>[<kind>]``, for example ``[gate]``), or ``None``.

    The bundled ``gates`` extension adds ``[gate]`` items through it. Items that judge a
    whole function come from :func:`pytest_prob_collect_function_verdicts`.
    """


@hookspec
def pytest_prob_collect_function_verdicts(
    function: FunctionCases, config: pytest.Config
) -> list[VerdictRequest] | None:
    """Ask which verdict items a bench function needs after the last run of its last case.

    Called at collection time in every collecting process (never the xdist controller),
    once per bench function, after every case's items (and case verdict items) were
    created; an ``OptionError`` raised here becomes a collection error naming the function.

    :param function: the :class:`~pytest_probability.collection.cases.FunctionCases` (the
        function and all of its collected cases, with their parameter ids and indices).
    :return: a list of :class:`~pytest_probability.collection.verdict_items.VerdictRequest`
        (one item each, named ``<function>[<kind>]``, e.g.
        ``bench_triage[compare:chain_of_thought]``, whose runs are all of the function's
        runs), or ``None``.

    The bundled ``comparisons`` extension adds ``[compare:ARM]`` and ``[baseline]`` items
    through it.
    """


@hookspec(firstresult=True)
def pytest_prob_classify_outcome(item: pytest.Item, call: pytest.CallInfo[None]) -> str | None:
    """Classify one finished run phase as ``"pass"``, ``"fail"``, ``"error"`` or ``"skip"``.

    Called in the executing process after the call phase of every bench run item, and after
    a failed or skipped setup phase.

    :param call: pytest's :class:`~pytest.CallInfo` of the phase (``call.when`` tells which).
    :return: one of the four outcome words; the first non-``None`` answer wins. Any other
        answer (``"banana"``, ``"passed"``, a number) is warned about once per extension,
        naming it (``ProbabilityExtensionWarning``, and the report's ``warnings``), and the
        run is recorded as an error (``UnknownOutcome``): it never leaves the table.

    The kernel's default (``trylast``): no exception passes; ``AssertionError`` and
    ``pytest.fail`` fail; a pytest skip skips (not a sample); anything else, including
    ``SystemExit`` and a failing fixture, is an error.
    """


@hookspec(firstresult=True)
def pytest_prob_deals_runs_apart(config: pytest.Config) -> bool | None:
    """Say whether this pytest-xdist worker may be handed a case's runs a few at a time.

    Called on a pytest-xdist worker once, when its runs may overlap
    (``--prob-concurrency``), after collection. Such a worker sets up the next runs of its
    case ahead of time, which is only right when the controller sends it every run of the
    case together, as the kernel's case-aware scheduling does.

    :return: ``True`` when an extension makes the controller hold runs back from this
        worker (its lookahead is then off: it makes its runs one at a time), else ``None``.
        The first non-``None`` answer wins.

    The bundled ``budget`` extension answers ``True`` on a worker that cannot read the
    budget's tally file (on another machine): the controller hands it runs only as the
    budget allows.
    """


@hookspec(firstresult=True)
def pytest_prob_skip_run(item: pytest.Item, case: Case) -> str | None:
    """Decide whether a run should be skipped before its body executes.

    Called in the executing process at the start of every bench run's setup phase.

    :return: a skip reason (the run becomes a pytest skip, not a sample), or ``None`` to run
        it. The first non-``None`` answer wins.

    The bundled ``stopping`` extension implements it (only while ``--prob-stop`` is on): it
    skips the remaining runs of a case whose verdict can no longer change.
    """


@hookspec
def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Add extension data to a run record before it travels to the aggregating process.

    Called in the executing process once per run, after its outcome was classified and
    before the record is attached to the report.

    :param record: the JSON-able run record (see :doc:`/json`); add keys named after your
        extension. Values should be JSON-able: they cross process boundaries under xdist
        (anything else is turned into text before the record travels).
    :return: nothing. An implementation that raises is reported as a warning (once per
        extension) and in the record's ``warnings``; the run and the session go on.

    Implemented by the bundled ``cost`` (cost and usage), ``latency`` (the run's latency),
    ``comparisons`` (a compared case's arm and input) and ``stopping`` (stopped runs)
    extensions.
    """


@hookspec
def pytest_prob_logrecord(record: dict[str, Any], config: pytest.Config) -> None:
    """A run record arrived in the aggregating process.

    Called in the aggregating process (the only process, or the xdist controller) once per
    record, after the kernel added it to the session results.

    :param record: the run record as the executing process sent it.
    :return: nothing. An implementation that raises is reported as a warning (once per
        extension) and in the report's ``warnings``; the session goes on.

    No bundled extension implements it: they read the session results when they build the
    report. A third party can follow the session's progress through it.
    """


@hookspec
def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute columns, summary lines, sections and JSON fields to the report.

    Called once per session in the aggregating process, at ``pytest_sessionfinish``, before
    the terminal summary is printed and the JSON report is written. Each implementation is
    called on its own: one that raises becomes a warning and a marked section, and the rest
    of the report is still produced.

    :param report: the :class:`~pytest_probability.report.builder.ReportBuilder` to contribute to.
    :return: nothing.

    The bundled ``fractions`` extension contributes the ``k/N`` and status columns and the
    ``Overall:`` line through it.
    """
