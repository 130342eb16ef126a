"""Regression against a baseline report: its files and the regression plugin.

PYTEST_DONT_REWRITE
"""
