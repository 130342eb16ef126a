"""pytest-probability-slowest: the cases with the largest median run time.

A third-party pytest-probability extension, loaded from the ``pytest_probability.extensions``
entry-point group as ``probability.slowest``. ``--prob-slowest=N`` (or ini ``prob_slowest``)
adds a ``probability: slowest`` section and a ``slowest`` key to the JSON report.
"""

from __future__ import annotations

__version__ = "0.1.0"
