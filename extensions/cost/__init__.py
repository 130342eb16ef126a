"""The ``cost`` extension: ``record_cost``, ``record_usage`` and ``TokenUsage``; the ``$`` column,
the ``Cost:`` and ``Tokens:`` lines, and cost and usage in the JSON report.

Other extensions read recorded cost through :mod:`.service` (per run, per case, per function).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_probability.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_probability.api import CostWarning, TokenUsage

    from .recording import record_cost, record_usage

#: where each public name lives, imported on first use: a session that records no cost need
#: not import the recording helpers and the usage values (``decimal``, ``fractions``)
_WHERE = {
    **dict.fromkeys(("record_cost", "record_usage"), ".recording"),
    "CostWarning": "pytest_probability.tokens",
    "TokenUsage": "pytest_probability.tokens",
}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = ["CostWarning", "TokenUsage", "record_cost", "record_usage"]
