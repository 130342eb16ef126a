"""The ``latency`` extension: every run's body is timed; ``--prob-latency`` prints each case's
latency quantile with a distribution-free interval, ``max_latency=`` gates a case on it, and
``record_latency(seconds)`` lets a body report its own latency. Other extensions and third
parties add quantile methods through ``pytest_prob_register_latency_methods``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_probability.lazy import lazy_exports

if TYPE_CHECKING:
    from .recording import record_latency

#: the bundled method's name (the default of ``prob_latency_method``): kept here, where the
#: plugin's option declaration reads it at start-up without importing the methods
ORDER_STATISTIC = "order-statistic"

#: where each public name lives, imported on first use: a session that times nothing need
#: not import the recording helper
__getattr__, __dir__ = lazy_exports(__name__, {"record_latency": ".recording"})

__all__ = ["record_latency"]
