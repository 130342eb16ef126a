"""pytest-probability: run every benchmark case N times and report pass fractions.

The public façade. Bench files need nothing from here to work; these are the helpers a
bench body or an extension may use.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .rewriting import keep_plugin_out_of_rewriting

keep_plugin_out_of_rewriting()  # before any other module of the package loads

if TYPE_CHECKING:
    from .contracts.tokens import CostWarning, TokenUsage
    from .execution.context import RunContext, current_run
    from .execution.steps import Step
    from .extensions.cost.recording import record_cost, record_usage
    from .extensions.latency import record_latency
    from .sessionviews import option_value

#: Where each public name lives; imported on first use (PEP 562), so importing the package
#: (which pytest does at start-up) loads none of them.
_PUBLIC: dict[str, str] = {
    "RunContext": ".execution.context",
    "current_run": ".execution.context",
    "CostWarning": ".contracts.tokens",
    "TokenUsage": ".contracts.tokens",
    "record_cost": ".extensions.cost.recording",
    "record_usage": ".extensions.cost.recording",
    "record_latency": ".extensions.latency",
    "Step": ".execution.steps",
    "option_value": ".sessionviews",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from where it lives when first read (PEP 562)."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


__version__ = "0.1.0"

__all__ = [
    "CostWarning",
    "RunContext",
    "Step",
    "TokenUsage",
    "__version__",
    "current_run",
    "option_value",
    "record_cost",
    "record_latency",
    "record_usage",
]
