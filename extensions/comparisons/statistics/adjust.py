"""Multiplicity adjustments of p-values (``--prob-adjust``) over a family of comparisons:
Bonferroni, Holm (step-down) and Benjamini–Hochberg (step-up), as docs/statistics.rst
states them. Each returns the adjusted p-values in the order given, capped at 1; tied
p-values get equal adjusted values whatever order the sort leaves them in. Pure module:
never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def _checked(p_values: Sequence[float]) -> list[float]:
    out: list[float] = []
    for p in p_values:
        if isinstance(p, bool) or not isinstance(p, int | float):
            raise ValueError(f"p-values must be numbers, got {p!r}")
        value = float(p)
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"p-values must be in [0, 1], got {p!r}")
        out.append(value)
    return out


def bonferroni(p_values: Sequence[float]) -> list[float]:
    """Bonferroni: each p times the number of comparisons, capped at 1."""
    ps = _checked(p_values)
    m = len(ps)
    return [min(1.0, p * m) for p in ps]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down: the running maximum of ``(m − j + 1)·p₍ⱼ₎`` up the sorted order."""
    ps = _checked(p_values)
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg step-up: the running minimum of ``m·p₍ⱼ₎ / j`` down the sorted
    order (false discovery rate control)."""
    ps = _checked(p_values)
    m = len(ps)
    order = sorted(range(m), key=ps.__getitem__)
    out = [0.0] * m
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        # ≥ p: m/j ≥ 1, but rounding could otherwise leave m·p/m an ulp below p
        running = min(running, max(ps[i], ps[i] * m / (rank + 1)))
        out[i] = running
    return out


#: The accepted ``method`` names of :func:`adjust_p`.
METHODS: dict[str, Callable[[Sequence[float]], list[float]]] = {
    "none": _checked,
    "bonferroni": bonferroni,
    "holm": holm,
    "bh": benjamini_hochberg,
}


def adjust_p(p_values: Sequence[float], method: str) -> list[float]:
    """Adjust ``p_values`` by ``method``: ``"none"``, ``"bonferroni"``, ``"holm"`` or ``"bh"``
    (Benjamini–Hochberg). Order preserved; an empty family gives ``[]``."""
    try:
        adjust = METHODS[method]
    except (KeyError, TypeError):
        valid = ", ".join(repr(name) for name in METHODS)
        raise ValueError(f"unknown adjustment method {method!r}; expected one of {valid}") from None
    return adjust(p_values)
