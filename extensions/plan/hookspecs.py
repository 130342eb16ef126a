"""Hooks of the ``plan`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import Case

    from .rows import PlanRow

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_prob_plan_case(case: Case, row: PlanRow, config: pytest.Config) -> None:
    """Add to one case's plan under ``--prob-plan``.

    Called once per selected case after collection, in the (only) process, before the plan
    is printed; nothing runs in a planning session.

    :param case: the collected :class:`~pytest_probability.cases.Case`.
    :param row: the case's :class:`~pytest_probability.extensions.plan.rows.PlanRow`; add
        a line of text with ``row.notes.append(...)`` (printed under the case) and
        JSON-able details with ``row.data[key] = ...`` (``plan.cases[].<key>``).
    :param config: the pytest config.
    :return: nothing.

    The bundled ``latency`` extension notes the runs a ``max_latency`` gate needs for its
    interval to have an upper end.
    """
