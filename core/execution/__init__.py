"""Executing one run: its context, steps, record, and the values read from user code.

PYTEST_DONT_REWRITE
"""
