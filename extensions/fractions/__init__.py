"""The ``fractions`` extension: the ``k/N`` column, the row status and the ``Overall:`` line.

PYTEST_DONT_REWRITE
"""
