"""Hooks of the ``explain`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import Reading, ReportBuilder, Results

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading] | None:
    """Read your part of the results in plain words.

    Called once in the aggregating process when the report is built, after every
    extension contributed to it (so ``report.json``, ``report.row_json`` and the sessions'
    results hold the numbers), with ``--prob-explain`` (or ``prob_explain``), and also
    without it to decide whether to print a one-line hint.

    :param report: the :class:`~pytest_probability.report.builder.ReportBuilder` as the other
        extensions left it.
    :return: a list of :class:`~pytest_probability.formatting.readings.Reading`
        (what the numbers say, what they assume, and the next step), or ``None``. A
        reading's ``target`` (a JSON object of the report) gets its text as an
        ``explanation`` field. An implementation that raises is reported as a warning and
        the other readings still appear.
    """


@hookspec
def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int | None:
    """Count your notable readings without building them.

    Called once in the aggregating process when the report is built, only WITHOUT
    ``--prob-explain``, to print the one-line hint "--prob-explain reads N of these
    results in plain words". Readings can be expensive to write (a gate's "runs that would
    settle it" searches run counts), so a session that does not ask for them should not pay
    for them.

    :param report: the :class:`~pytest_probability.report.builder.ReportBuilder` as the other
        extensions left it.
    :return: how many readings with ``notable=True`` your ``pytest_prob_explain`` would
        return on the same data (``None`` counts as 0). An extension that implements
        ``pytest_prob_explain`` but not this hook has its readings built to count them.
        An implementation that raises is reported as a warning and counts 0.
    """
