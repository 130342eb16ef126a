"""Hooks of the ``latency`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import RegisterLatencyMethod

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_latency_methods(
    register: RegisterLatencyMethod, config: pytest.Config
) -> None:
    """Register latency quantile methods by name.

    Called once per session, historically, in every process: at ``pytest_configure`` when
    a plugin other than the bundled ``latency`` extension implements it (so a broken
    registration is a usage error before anything runs) or ``prob_latency_method`` is
    validated, else the first time a method is needed or a plugin implementing it
    registers (a conftest file collection imports); implementations registered later are
    called on registration.

    :param register: ``register(name, compute, *, description="")``;
        ``compute(times, quantile, level)`` receives a case's run times in seconds (sorted
        ascending, finite, ``>= 0``), the quantile (``0.95`` for p95) and the two-sided level,
        and returns a
        :class:`~pytest_probability.extensions.latency.quantiles.LatencyQuantile` (its
        ``estimate``, ``low`` and ``high`` may be ``None`` where they do not exist).
        Registering a name twice is an error. ``prob_latency_method`` (or the mark key
        ``latency_method``) selects one.
    """
