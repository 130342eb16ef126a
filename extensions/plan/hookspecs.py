"""Hooks of the ``plan`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest
    from pytest_probability.api import Case

    from .rows import PlanRow

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_prob_plan_case(case: Case, row: PlanRow, config: pytest.Config) -> None:
    """Add to one case's plan under ``--prob-plan``.

    Called once per selected case after collection, in the (only) process, before the plan
    is printed; nothing runs in a planning session.

    :param case: the collected :class:`~pytest_probability.collection.cases.Case`.
    :param row: the case's :class:`~pytest_probability.extensions.plan.rows.PlanRow`; add
        a line of text with ``row.notes.append(...)`` (printed under the case) and
        JSON-able details with ``row.data[key] = ...`` (``plan.cases[].<key>``).
    """


@hookspec(firstresult=True)
def pytest_prob_plan_costs(path: str, config: pytest.Config) -> dict[str, float] | None:
    """Read the cost per run of each case of a saved report, for ``--prob-plan-report``.

    Called once, at ``pytest_configure`` of a planning session, in the (only) process.

    :param path: the file ``--prob-plan-report`` names.
    :return: the cost of one run of each case of the report that recorded a cost, keyed
        both by the case's key (``file::function[id]``) and by its case id (the plan
        looks a case up by key first, then by id, so a renamed file keeps its costs);
        ``None`` to let the next implementation answer. Raise :class:`pytest.UsageError`
        naming ``--prob-plan-report`` for a file that is not a report. Without an answer
        the plan says the option needs the ``comparisons`` extension.
    """


@hookspec
def pytest_prob_plan_comparisons(
    cases: Sequence[Case], assume: float, difference: float, config: pytest.Config
) -> list[dict[str, Any]] | None:
    """Plan the comparisons among the selected cases, for ``--prob-plan``.

    Called once after collection of a planning session, in the (only) process.

    :param cases: the selected cases, in collection order.
    :param assume: ``--prob-plan-assume``, the pass rate of the better arm.
    :param difference: ``--prob-plan-assume-diff``, the arm's rate minus the baseline's.
    :return: one JSON-able object per planned comparison (``plan.comparisons[]``: the
        fields docs/json.rst lists), or ``None``. Raise :class:`ValueError` when the
        difference does not fit ``assume`` (the plan turns it into a usage error naming
        ``--prob-plan-assume-diff``).
    """
