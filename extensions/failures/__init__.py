"""The ``failures`` extension: failure output that grows with cases, not with runs.

By default (``--prob-failures=grouped``) the terminal shows one traceback per failing case —
its first failing run's — followed by one line grouping the case's other failing runs by how
they failed, and the short test summary has one line per case. The grouping rule is
``pytest_prob_failure_key``; the JSON report's ``rows[].failures`` lists the groups.

PYTEST_DONT_REWRITE
"""
