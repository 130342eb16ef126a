"""The registry of row interval methods. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .methods import Interval

Compute = Callable[[int, int, float, tuple[float, float]], tuple[float, float]]
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class IntervalMethod:
    """A registered method: ``compute(passes, total, level, prior) -> (low, high)``."""

    name: str
    compute: Compute
    description: str = ""
    uses_prior: bool = False
    #: a short word printed after the method's row intervals (``seq``), or ``""``
    tag: str = ""


class IntervalMethods:
    """Interval methods by name, in registration order."""

    def __init__(self) -> None:
        self._methods: dict[str, IntervalMethod] = {}

    def register(
        self,
        name: str,
        compute: Compute,
        *,
        description: str = "",
        uses_prior: bool = False,
        tag: str = "",
    ) -> None:
        """Add a method (the ``register`` callback of the registration hook)."""
        if not name or not set(name) <= NAME_CHARS:
            raise ValueError(
                f"interval method name {name!r} must be lowercase letters, digits, '-' or '_'"
            )
        if name in self._methods:
            raise ValueError(f"interval method {name!r} is registered twice")
        self._methods[name] = IntervalMethod(name, compute, description, uses_prior, tag)

    def check(self, name: object) -> str:
        """``name`` when registered, else :class:`ValueError` listing the registered names."""
        text = str(name).strip()
        if text not in self._methods:
            raise ValueError(
                f"unknown interval method {text!r}; registered: {', '.join(self._methods)}"
            )
        return text

    def get(self, name: str) -> IntervalMethod:
        return self._methods[self.check(name)]

    def compute(
        self, name: str, passes: int, total: int, level: float, prior: Sequence[float]
    ) -> Interval:
        """The method's interval, checked: finite, ordered, inside [0, 1]."""
        method = self.get(name)
        low, high = method.compute(passes, total, level, (float(prior[0]), float(prior[1])))
        low, high = float(low), float(high)
        if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high <= 1.0):
            raise ValueError(
                f"interval method {name!r} returned ({low!r}, {high!r}) for {passes}/{total}; "
                "expected 0 ≤ low ≤ high ≤ 1"
            )
        return Interval(low, high)
