"""The ``plan`` extension's pytest hooks: ``--prob-plan`` and its settings.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pytest_probability.api import OptionRegistry, options_of, parse_probability

SESSION = "probability.plan.session"


def parse_flakes(value: Any) -> tuple[float, ...]:
    """Comma-separated failure rates, each strictly between 0 and 1."""
    parts = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    if not parts:
        raise ValueError("expected one or more failure rates such as 0.1,0.01")
    rates = []
    for part in parts:
        try:
            rates.append(parse_probability(part))
        except ValueError:
            raise ValueError(
                f"expected failure rates between 0 and 1 (exclusive) such as 0.1,0.01, got {part!r}"
            ) from None
    return tuple(dict.fromkeys(rates))


def parse_difference(value: Any) -> float:
    """A difference of pass rates strictly between −1 and 1 (``10`` gets a did-you-mean)."""
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not -1.0 < number < 1.0:
        hint = f"; did you mean {number / 100:g}?" if 1.0 <= abs(number) < 100.0 else ""
        raise ValueError(
            f"expected a difference between -1 and 1 (exclusive) such as 0.1 for 10 points, "
            f"got {value!r}{hint}"
        )
    return number


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the ``--prob-plan*`` options. Called by the kernel's historic hook; returns
    nothing."""
    owner = "plan"
    options.add(
        "plan",
        parse=bool,
        default=False,
        cli="--prob-plan",
        flag_value=True,
        help="print a run budget per case and exit without running",
        owner=owner,
    )
    options.add(
        "plan_assume",
        parse=parse_probability,
        default=0.97,
        cli="--prob-plan-assume",
        metavar="RATE",
        help="true pass rate --prob-plan plans for (default 0.97)",
        owner=owner,
    )
    options.add(
        "plan_assume_diff",
        parse=parse_difference,
        default=0.1,
        cli="--prob-plan-assume-diff",
        metavar="DIFF",
        help="true arm − baseline difference to plan for (default 0.1)",
        owner=owner,
    )
    options.add(
        "plan_flake",
        parse=parse_flakes,
        default=(0.1, 0.01),
        cli="--prob-plan-flake",
        metavar="RATES",
        help="failure rates to plan to catch (default 0.1,0.01)",
        owner=owner,
    )
    options.add(
        "plan_report",
        parse=str,
        cli="--prob-plan-report",
        metavar="PATH",
        help="JSON report or TOML baseline to read cost per run from",
        owner=owner,
    )
    options.add(
        "plan_write",
        parse=str,
        cli="--prob-plan-write",
        metavar="PATH",
        help="with --prob-plan: also write the plan as TOML to PATH",
        owner=owner,
    )


def pytest_configure(config: pytest.Config) -> None:
    """Start a planning session when ``--prob-plan`` is given (reading the cost report now:
    a bad one is a usage error). Called once per process; returns nothing."""
    options = options_of(config)
    if not options.session_value("plan"):
        for name in ("plan_report", "plan_write"):
            if options.session_value(name) is not None:
                raise pytest.UsageError(f"--prob-{name.replace('_', '-')} needs --prob-plan")
        return
    if getattr(config.option, "numprocesses", None) or getattr(config, "workerinput", None):
        raise pytest.UsageError(
            "--prob-plan runs nothing and plans from the collected cases: run it without -n"
        )
    if config.pluginmanager.get_plugin(SESSION) is None:
        from .session import PlanSession  # the planner loads only when asked for

        config.pluginmanager.register(PlanSession(config), SESSION)
