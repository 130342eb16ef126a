"""Hooks of the ``budget`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_prob_run_spend(record: dict[str, Any], config: pytest.Config) -> float | None:
    """How much one finished run spent, in the units of ``--prob-budget``.

    Called in the aggregating process (the only process, or the xdist controller) once per
    run record that arrives, while a budget is set.

    :return: the amount, a real number of at least 0 (``int``, ``float``, ``Decimal``,
        ``Fraction``; infinity reaches any budget), or ``None`` (nothing recorded). The first
        non-``None`` answer wins. Anything else — text, NaN, a negative number, ``True`` —
        and an implementation that raises never switch the budget off: the run counts as
        all that was left of the budget (every remaining run is skipped), with a
        ``BudgetWarning`` naming the answer and the implementations.

    The bundled default (``trylast``) reads the record's ``cost`` (the cost extension's
    total of ``record_cost``, ``record_usage`` and steps); a plugin can count something else
    (tokens, API calls) instead.
    """
