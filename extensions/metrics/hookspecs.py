"""Hooks of the ``metrics`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest

    from .registry import RegisterMetric

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_metrics(register: RegisterMetric, config: pytest.Config) -> None:
    """Register per-case metrics: fixed names and parametric families.

    Called once per session, historically, the first time a metric is needed (while options
    are validated at ``pytest_configure``), in every process; implementations registered
    later (a conftest) are called on registration.

    :param register: ``register(name, compute, *, family=False, min_runs=None,
        description="", min_parameter=1)``. ``compute(case, parameter)`` receives a
        :class:`~pytest_probability.extensions.metrics.registry.MetricCase` (the case's
        judged outcomes in run order) and the family's ``K`` (``None`` for a fixed name) and
        returns the case's value in ``[0, 1]``. With ``family=True``, ``name`` is a prefix
        spelled with a whole number ``K >= 1`` after it (``pass^`` → ``pass^3``).
        ``min_runs(parameter)`` is the number of runs a case needs to be counted (default:
        ``K`` for a family, 1 for a fixed name); cases with fewer are left out and counted.
        ``min_parameter`` is the smallest ``K`` a family accepts (a smaller one is a usage
        error naming it). Registering a name twice is an error.

    ``--prob-metric`` selects what is reported; every metric is averaged per function and
    overall, with the case bootstrap interval, as the bundled ``pass^`` and ``pass@`` are.
    """
