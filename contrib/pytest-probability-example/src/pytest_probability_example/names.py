"""The plugin that adds the interval method ``jeffreys`` and the metric ``majority``.

Registered by :mod:`.plugin` as ``probability.example.names`` only in a session that asks
for the names (``--example-names`` or ini ``example_names``): a name in a shared registry is
visible to every session (an unknown ``--prob-method`` lists the registered ones), so one that
did not ask keeps exactly the names it had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .interval import jeffreys
from .majority import majority

if TYPE_CHECKING:
    from pytest_probability.api import RegisterIntervalMethod, RegisterMetric


def pytest_prob_register_interval_methods(
    register: RegisterIntervalMethod, config: pytest.Config
) -> None:
    """Register the interval method ``jeffreys``.

    Called by the ``intervals`` extension through its historic hook, once per session, the
    first time a method is needed (while settings are validated at ``pytest_configure``), in
    every process. Returns nothing.
    """
    register(
        "jeffreys",
        lambda passes, total, level, prior: jeffreys(passes, total, level),
        description="equal-tailed Jeffreys interval, Beta(1/2, 1/2) prior, ends pinned at 0 and 1",
    )


@pytest.hookimpl(trylast=True)  # after the bundled pass^K and pass@K, in listings too
def pytest_prob_register_metrics(register: RegisterMetric, config: pytest.Config) -> None:
    """Register the metric ``majority``.

    Called by the ``metrics`` extension through its historic hook, once per session, the
    first time a metric is needed (while settings are validated at ``pytest_configure``), in
    every process. Returns nothing.
    """
    register("majority", majority, description="more than half the runs passed")
