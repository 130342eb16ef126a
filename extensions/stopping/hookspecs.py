"""Hooks of the ``stopping`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest
    from pytest_probability.api import Case, CaseResult

    from .service import StopReader

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_stopping_rules(register: Any, config: pytest.Config) -> None:
    """Register early-stopping rules by name (the values of ``--prob-stop``).

    Called once per session, historically, the first time a rule is needed (while options
    are validated at ``pytest_configure``), in every process.

    :param register: ``register(name, decide, *, description="")``; ``decide(context)``
        receives a :class:`~pytest_probability.extensions.stopping.service.StopContext`
        before each run of a gated case and returns the settled verdict (``"pass"``,
        ``"fail"``, ``"undecided"``) to skip the case's remaining runs, or ``None`` to go
        on. A rule must only stop when no remaining run can change the verdict the case is
        judged on. Registering a name twice (or ``off``) is an error.
    """


@hookspec
def pytest_prob_stop_readers(case: Case, config: pytest.Config) -> list[StopReader] | None:
    """Name the verdicts, besides the case's own gates, that read a case's runs, so that
    ``--prob-stop`` stops the case only when each of them is settled too.

    Called once per case the first time the stopping rule considers it (before its first
    run), in the executing process (an xdist worker, or the only process); and by
    ``--prob-plan``, once per planned gated case, in the planning process. Not called
    without ``--prob-stop`` or ``--prob-plan``. A case without a gate whose kind has
    ``verdict_at`` is stopped only when some reader of it can say (has ``settled``), as
    soon as every reader answers ``True``.

    :param case: the collected :class:`~pytest_probability.collection.cases.Case`.
    :return: a list of :class:`~pytest_probability.extensions.stopping.service.StopReader`,
        one per verdict of yours that reads this case's runs (its ``settled(context)``
        answers "is this verdict settled given the case's runs so far?": ``True`` lets the
        case stop, ``False`` or ``None`` — cannot say — keep it running; no ``settled`` at
        all: it can never say, and the case runs every run); ``None`` or ``[]`` when no
        verdict of yours reads it. The cases kept running, and why, are counted under the
        ``Stopped:`` line.
    """


@hookspec(firstresult=True)
def pytest_prob_hide_interval(cases: Sequence[CaseResult], config: pytest.Config) -> str | None:
    """Say why an interval over several cases must not be shown (its cases' fractions lean).

    Called in the aggregating process (the only process, or the pytest-xdist controller)
    while the report is built, once for every line that summarises several cases: by the
    ``intervals`` extension for each function-level and ``Overall`` line, and by the
    ``metrics`` extension for each metric line (``--prob-metric``).

    :param cases: the line's cases, each a :class:`~pytest_probability.report.results.CaseResult`
        with its run records.
    :return: the note printed instead of the interval (``"10 cases were stopped early and
        lean toward their verdicts"``), which also goes into the JSON line as ``hidden``;
        ``None`` when nothing hides it, or to let the next implementation answer. The first
        non-``None`` answer wins.
    """


@hookspec(firstresult=True)
def pytest_prob_case_stopped(case: CaseResult, config: pytest.Config) -> bool | None:
    """Say whether a stopping rule skipped some of a case's runs (its fraction then leans
    toward its verdict), for another extension that computes over several cases.

    Called in the process that builds comparisons (the aggregating one, or the worker that
    judges a ``[compare:ARM]`` item): by the ``comparisons`` extension for each case of a
    comparison tested on its fractions (its difference, interval and p are hidden when one
    was stopped), of a ``--prob-baseline`` comparison, and of a sequential comparison
    (the pairs the stopped ones saved). Not called when no plugin implements it.

    :param case: a :class:`~pytest_probability.report.results.CaseResult`, with its run records.
    :return: ``True`` when some runs of the case were skipped by ``--prob-stop``, ``False``
        when none was; ``None`` to let the next implementation answer. The first
        non-``None`` answer wins.
    """
