"""The session's metric registry: the bundled families first, then those registered through
the historic hook. The kernel fills it at ``pytest_configure`` through ``metrics_of`` when a
plugin that is not bundled registers metrics, without loading the extension's plugin.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import pytest
from pytest_probability.api import filled_registry

from .estimators import pass_at_k, pass_hat_k
from .registry import Metrics


def bundled_metrics() -> Metrics:
    """A registry holding the bundled families ``pass^`` and ``pass@``, which lead it."""
    metrics = Metrics()
    metrics.register(
        "pass^",
        lambda case, k: pass_hat_k(case.passes, case.runs, k),
        family=True,
        description="all K runs of an input pass (reliability)",
    )
    metrics.register(
        "pass@",
        lambda case, k: pass_at_k(case.passes, case.runs, k),
        family=True,
        description="at least one of K runs passes (best-of-K)",
    )
    return metrics


STATE_KEY = pytest.StashKey[Metrics]()


def metrics_of(config: pytest.Config) -> Metrics:
    """The session's registered metrics, filled through the historic hook on first use."""
    return filled_registry(
        config, STATE_KEY, bundled_metrics, config.hook.pytest_prob_register_metrics, "metrics"
    )
