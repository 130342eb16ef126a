"""The resampling tools, for code that imports them from here: they are the kernel's
(``pytest_probability.stats.resampling``), published by :mod:`pytest_probability.api`, where
extensions take them.

PYTEST_DONT_REWRITE
"""

from pytest_probability.api import binomial_variate, bootstrap_mean_interval

__all__ = ["binomial_variate", "bootstrap_mean_interval"]
