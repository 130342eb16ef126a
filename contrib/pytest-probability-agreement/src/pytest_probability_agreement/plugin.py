"""The ``agreement`` extension's pytest hooks (stateless: every value comes from ``config``).

Registered by pytest-probability as ``probability.agreement`` from the
``pytest_probability.extensions`` entry point; ``-p no:probability.agreement`` disables it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .estimators import MIN_K, agreement

if TYPE_CHECKING:
    from pytest_probability.api import MetricCase, RegisterMetric

#: The fixed metric: two runs drawn without replacement have the same outcome.
NAME = "agreement"
#: The family's prefix: ``agree@3`` is three runs drawn without replacement all agreeing.
FAMILY = "agree@"


def _agreement(case: MetricCase, parameter: int | None) -> float:
    return agreement(case.passes, case.runs)


def _agree_at(case: MetricCase, k: int | None) -> float:
    if k is None or k < MIN_K:
        raise ValueError(f"{FAMILY}K needs K >= {MIN_K}, got {FAMILY}{k}")
    return agreement(case.passes, case.runs, k)


def _runs_for_pair(parameter: int | None) -> int:
    return MIN_K


def _runs_for_family(k: int | None) -> int:
    return k if k is not None else MIN_K


@pytest.hookimpl(trylast=True)  # after the bundled pass^K and pass@K, in listings too
def pytest_prob_register_metrics(register: RegisterMetric, config: pytest.Config) -> None:
    """Register ``agreement`` (needs 2 runs) and the family ``agree@K`` (needs K runs).

    Called by the ``metrics`` extension through its historic hook, once per session, the
    first time a metric is needed (while options are validated at ``pytest_configure``), in
    every process: the only one, or the xdist controller and each worker. Returns nothing.
    A case's judged runs are its samples: errors count as non-passes, skipped runs are not
    counted; cases with fewer runs than a metric needs are left out and counted.
    """
    register(
        NAME,
        _agreement,
        min_runs=_runs_for_pair,
        description="two runs drawn without replacement have the same outcome",
    )
    register(
        FAMILY,
        _agree_at,
        family=True,
        min_runs=_runs_for_family,
        description="K runs drawn without replacement all have the same outcome (K >= 2)",
        min_parameter=MIN_K,  # one run always agrees with itself: agree@1 is refused
    )
