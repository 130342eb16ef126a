"""Collection: bench files and functions, cases, their items, order and distribution.

PYTEST_DONT_REWRITE
"""
