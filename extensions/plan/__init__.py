"""The ``plan`` extension: ``--prob-plan`` prints a run budget per case (the runs a gate
needs, the runs for 80% power, the chance of passing, the chance to catch a flake, the
expected runs under sequential stopping, the projected cost) and exits without running.
Other extensions add to a case's plan through ``pytest_prob_plan_case``.

PYTEST_DONT_REWRITE
"""
