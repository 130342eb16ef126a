"""The comparisons' pure math, which never imports pytest.

PYTEST_DONT_REWRITE
"""
