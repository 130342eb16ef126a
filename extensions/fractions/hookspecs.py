"""Hooks of the ``fractions`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import CaseResult

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_prob_row_status(case: CaseResult, config: pytest.Config) -> tuple[str, str] | None:
    """The status of one row: the word printed in the table and its JSON ``status`` key.

    Called once per row in the aggregating process while the report is built.

    :param case: the row's :class:`~pytest_probability.report.results.CaseResult`.
    :return: ``(word, key)`` such as ``("FLAKY", "flaky")``; the first non-``None`` answer
        wins. The bundled default (``trylast``) follows STATISTICS.md: blank/``pass``,
        ``FLAKY``, ``FAIL``, ``N ERRORED``/``errored``, ``ERROR``, ``FAIL (N errored)``,
        ``FLAKY (N errored)``.
    """
