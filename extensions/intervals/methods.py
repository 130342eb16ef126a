"""Row interval methods for a pass rate: Clopper–Pearson, Wilson and Bayes (equal-tailed),
under the names the extension registers them by. The math is the kernel's
``core/rate_intervals.py``, published by the public API (``clopper_pearson_interval``,
``wilson_interval``, ``bayes_interval``) for other extensions. STATISTICS.md, "Row intervals".

PYTEST_DONT_REWRITE
"""

from pytest_probability.api import Interval
from pytest_probability.api import bayes_interval as bayes
from pytest_probability.api import clopper_pearson_interval as clopper_pearson
from pytest_probability.api import wilson_interval as wilson

__all__ = ["Interval", "bayes", "clopper_pearson", "wilson"]
