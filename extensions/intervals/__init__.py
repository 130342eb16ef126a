"""The ``intervals`` extension: row intervals, function-level and Overall lines, and the
pure-Python statistics engine the other extensions reuse (see :mod:`.service`).

PYTEST_DONT_REWRITE
"""
