"""Hooks of the ``failures`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_prob_failure_key(record: dict[str, Any], config: pytest.Config) -> str | None:
    """Say which failing runs of a case failed "the same way": the grouping rule.

    Called in the aggregating process (the only process, or the pytest-xdist controller,
    where the terminal is; never a worker), at ``pytest_sessionfinish`` when the report is
    built, once for every run record whose outcome is ``fail`` or ``error`` (xfailed runs of
    gated cases included). Not called at all while the bundled default is the only
    implementation.

    :param record: the run record, as the JSON report's ``records[]`` shows it (``case``,
        ``run``, ``outcome``, ``message``, ``error``, ``phase``, ``steps``, and whatever
        extensions added in ``pytest_prob_run_finished``). Read it; do not change it.
    :return: the run's group key, a string: the runs of a case with equal keys are one group,
        and the key is the text the group is shown with (in the line after the case's
        traceback, in its short-summary line, in ``rows[].failures[].text`` and in the HTML
        report). ``None`` leaves the run to the next implementation; the first non-``None``
        answer wins.

    The bundled ``failures`` extension's default (``trylast``) groups by outcome, error
    type, phase and the *shape* of the message's first line (its text with numbers and
    quoted values taken out), and shows each group with the values its runs share and
    ``…`` where they differ. An implementation that raises is reported once as a warning
    of the report, and the bundled rule groups every run instead.
    """
