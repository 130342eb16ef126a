"""The statistics: special functions, distributions, intervals, resampling, thresholds.

PYTEST_DONT_REWRITE
"""
