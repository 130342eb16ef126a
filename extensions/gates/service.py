"""What other extensions may use of the ``gates`` extension: the session's gate state
(:func:`state_of`: each case's gates and verdicts), how verdicts combine (:func:`combine`)
and how a bar is printed (:func:`bar_percent`). Imported by the budget, stopping and plan
extensions when they need the gates, never at start-up.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from .rate import bar_percent
from .registry import GateResult
from .state import GateState, combine, state_of

__all__ = ["GateResult", "GateState", "bar_percent", "combine", "state_of"]
