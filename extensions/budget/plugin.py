"""The ``budget`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import options_of, parse_positive_int

# (BudgetWarning is importable from here too: a ``-W`` or ``filterwarnings`` may name it)
from .session import Budget
from .session import BudgetWarning as BudgetWarning

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry

SESSION = "probability.budget.session"


def parse_amount(value: Any) -> float:
    """A finite amount greater than 0."""
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not (math.isfinite(number) and number > 0):
        raise ValueError(f"expected an amount greater than 0 such as 5 or 0.5, got {value!r}")
    return number


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-budget``, ``--prob-budget-runs`` and ``--prob-budget-ok``. Called by
    the kernel's historic hook."""
    options.add(
        "budget",
        parse=parse_amount,
        cli="--prob-budget",
        ini="prob_budget",
        metavar="AMOUNT",
        help="skip remaining runs once recorded spend reaches AMOUNT",
        owner="budget",
    )
    options.add(
        "budget_runs",
        parse=parse_positive_int,
        cli="--prob-budget-runs",
        ini="prob_budget_runs",
        metavar="N",
        help="skip remaining runs once N runs were made",
        owner="budget",
    )
    options.add(
        "budget_ok",
        parse=bool,
        default=False,
        cli="--prob-budget-ok",
        flag_value=True,
        help="a session cut by its budget does not fail for that",
        owner="budget",
    )


@pytest.hookimpl(trylast=True)
def pytest_prob_run_spend(record: dict[str, Any], config: pytest.Config) -> float | None:
    """The bundled default: the run's recorded ``cost``. Called in the aggregating process
    per arriving record while a budget is set; returns the amount or ``None``."""
    cost = record.get("cost")
    return float(cost) if isinstance(cost, (int, float)) else None


def pytest_configure(config: pytest.Config) -> None:
    """Start keeping the tally when a budget is set (registering :class:`.session.Budget`).
    Called once per process."""
    options = options_of(config)
    limits = (options.session_value("budget"), options.session_value("budget_runs"))
    if limits != (None, None) and config.pluginmanager.get_plugin(SESSION) is None:
        config.pluginmanager.register(Budget(config), SESSION)
