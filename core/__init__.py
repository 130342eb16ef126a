"""pytest-probability: run every benchmark case N times and report pass fractions.

The public façade. Bench files need nothing from here to work; these are the helpers a
bench body or an extension may use.
"""

from __future__ import annotations

from .context import RunContext, current_run
from .steps import Step

__version__ = "0.1.0"

__all__ = ["RunContext", "Step", "__version__", "current_run"]
