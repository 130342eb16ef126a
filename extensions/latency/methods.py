"""The registry of latency quantile methods. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# (the methods' contract, LatencyQuantile and RegisterLatencyMethod, is the public API's)
from pytest_probability.api import LatencyQuantile

from . import ORDER_STATISTIC as ORDER_STATISTIC  # the bundled method's name (re-exported)
from .quantiles import latency_quantile

Compute = Callable[[Sequence[float], float, float], LatencyQuantile]
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class LatencyMethod:
    """A registered method: ``compute(sorted times, quantile, level) -> LatencyQuantile``."""

    name: str
    compute: Compute
    description: str = ""


def order_statistic(times: Sequence[float], q: float, level: float) -> LatencyQuantile:
    """The bundled method: the ``⌈nq⌉``-th smallest time with order-statistic ranks."""
    return latency_quantile(times, q, level)


class LatencyMethods:
    """Latency methods by name, in registration order."""

    def __init__(self) -> None:
        self._methods: dict[str, LatencyMethod] = {}

    def register(self, name: str, compute: Compute, *, description: str = "") -> None:
        """Add a method (the ``register`` callback of the registration hook)."""
        if not name or not set(name) <= NAME_CHARS:
            raise ValueError(
                f"latency method name {name!r} must be lowercase letters, digits, '-' or '_'"
            )
        if name in self._methods:
            raise ValueError(f"latency method {name!r} is registered twice")
        self._methods[name] = LatencyMethod(name, compute, description)

    def names(self) -> list[str]:
        return list(self._methods)

    def check(self, name: object) -> str:
        """``name`` when registered, else :class:`ValueError` listing the registered names."""
        text = str(name).strip()
        if text not in self._methods:
            raise ValueError(
                f"unknown latency method {text!r}; registered: {', '.join(self._methods)}"
            )
        return text

    def compute(self, name: str, times: Sequence[float], q: float, level: float) -> LatencyQuantile:
        """The method's quantile of ``times`` (sorted here), checked: a
        :class:`LatencyQuantile` whose values are finite, ``>= 0`` and ordered."""
        method = self._methods[self.check(name)]
        found = method.compute(sorted(times), q, level)
        if not isinstance(found, LatencyQuantile):
            raise ValueError(
                f"latency method {name!r} returned {type(found).__name__}; "
                "expected a LatencyQuantile"
            )
        values = [v for v in (found.low, found.estimate, found.high) if v is not None]
        if any(not (math.isfinite(v) and v >= 0) for v in values) or values != sorted(values):
            raise ValueError(
                f"latency method {name!r} returned low={found.low!r}, "
                f"estimate={found.estimate!r}, high={found.high!r}; expected finite "
                "seconds >= 0 with low <= estimate <= high"
            )
        return found
