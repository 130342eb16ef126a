"""The report: the results model, the builder, and every file the plugin writes.

PYTEST_DONT_REWRITE
"""
