"""Printing rules (STATISTICS.md, "Printing"): money, percentages, durations, runs.

PYTEST_DONT_REWRITE
"""
