"""The ``latency`` extension: every run's body is timed; ``--prob-latency`` prints each case's
latency quantile with a distribution-free interval, ``max_latency=`` gates a case on it, and
``record_latency(seconds)`` lets a body report its own latency. Other extensions and third
parties add quantile methods through ``pytest_prob_register_latency_methods``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import numbers

from pytest_probability.api import current_run

#: the bundled method's name (the default of ``prob_latency_method``)
ORDER_STATISTIC = "order-statistic"
#: the key of the recorded latency in :attr:`RunContext.data`; the extension puts it into
#: the run record (``records[].latency``) in place of the measured body time
RECORDED = "latency"


def record_latency(seconds: float) -> None:
    """Use ``seconds`` as this run's latency instead of the measured body time.

    For a latency the body knows better than a stopwatch around it: time to first token,
    the server's own timing, one call among several. Call it from inside a bench function
    while it runs (``RuntimeError`` otherwise); a later call replaces an earlier one. The
    value must be a finite number of seconds ``>= 0`` (``ValueError`` otherwise, which makes
    the run an error naming the value).
    """
    __tracebackhide__ = True  # (a misuse shows the user's line, not ours)
    context = current_run("record_latency()")
    real = isinstance(seconds, numbers.Real) and not isinstance(seconds, bool)
    value = float(seconds) if real else math.nan
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"record_latency(): seconds must be a finite number >= 0, got {seconds!r}")
    context.data[RECORDED] = value


__all__ = ["record_latency"]
