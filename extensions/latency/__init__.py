"""The ``latency`` extension: every run's body is timed; ``--prob-latency`` prints each case's
latency quantile with a distribution-free interval, ``max_latency=`` gates a case on it, and
``record_latency(seconds)`` lets a body report its own latency. Other extensions and third
parties add quantile methods through ``pytest_prob_register_latency_methods``.

PYTEST_DONT_REWRITE
"""

from .recording import record_latency

__all__ = ["record_latency"]
