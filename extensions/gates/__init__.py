"""The ``gates`` extension: hold a case to a pass rate (``min_rate``) or a pass count
(``min_passes``) instead of to every run; PASS / FAIL / UNDECIDED verdicts, ``[gate]`` items,
the ``Gates:`` line and the ``probability: gates`` section. Other extensions add gate kinds
through ``pytest_prob_register_gates``.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_probability.lazy import lazy_exports

if TYPE_CHECKING:
    from .registry import GateResult

#: what another extension may use (a gate kind's judge returns a ``GateResult``)
__getattr__, __dir__ = lazy_exports(__name__, {"GateResult": ".registry"})
__all__ = ["GateResult"]
