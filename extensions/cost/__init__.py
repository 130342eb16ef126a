"""The ``cost`` extension: ``record_cost``, ``record_usage`` and ``TokenUsage``; the ``$`` column,
the ``Cost:`` and ``Tokens:`` lines, and cost and usage in the JSON report.

Other extensions read recorded cost through :mod:`.service` (per run, per case, per function).

The package imports nothing itself: adding its hookspecs (a third-party price table
implements ``pytest_prob_price_usage``) loads no recording machinery.

PYTEST_DONT_REWRITE
"""
