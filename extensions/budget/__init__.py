"""The ``budget`` extension: stop spending once a session has spent ``--prob-budget`` (or
made ``--prob-budget-runs`` runs): every remaining run is skipped, the report says so, and
the session fails unless ``--prob-budget-ok`` accepts a cut. Under pytest-xdist the budget is
global: the controller keeps the tally and the workers read it.

PYTEST_DONT_REWRITE
"""
