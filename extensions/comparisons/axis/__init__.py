"""Comparing the values of a parametrize axis: arms and inputs, collection, verdict items.

PYTEST_DONT_REWRITE
"""
