"""The ``cost`` extension: ``record_cost``, ``record_usage`` and ``TokenUsage``; the ``$`` column,
the ``Cost:`` and ``Tokens:`` lines, and cost and usage in the JSON report.

Other extensions read recorded cost through :mod:`.service` (per run, per case, per function).

PYTEST_DONT_REWRITE
"""

from pytest_probability.api import CostWarning, TokenUsage

from .recording import record_cost, record_usage

__all__ = ["CostWarning", "TokenUsage", "record_cost", "record_usage"]
