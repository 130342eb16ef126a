"""Registries of comparison tests and p-value adjustments. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class Side:
    """One arm of one input: a case's judged runs (and spend)."""

    key: str
    passes: int
    total: int
    cost: float | None = None
    runs: int = 0

    @property
    def rate(self) -> float:
        return self.passes / self.total


@dataclass(frozen=True)
class Pair:
    """One input that both arms ran: ``arm`` against ``base``."""

    input: str
    arm: Side
    base: Side


@dataclass(frozen=True)
class InputLine:
    """A per-input difference with its own interval (shown when inputs are few)."""

    input: str
    difference: float
    low: float | None
    high: float | None


@dataclass(frozen=True)
class TestSettings:
    """What a comparison test may use: the level, the fewest pairs for a resampled interval,
    the resamples, the seed and the bootstrap interval method (``expanded``, ``bca`` or
    ``percentile``: ``--prob-bootstrap-method``)."""

    level: float
    min_inputs: int
    resamples: int
    seed: int
    bootstrap_method: str = "percentile"


@dataclass(frozen=True)
class TestOutcome:
    """A comparison test's answer for the pairs of one arm.

    :ivar difference: the estimate of ``p_arm − p_base`` (a mean over inputs).
    :ivar low: the interval's lower end (``None`` when the test gives no interval).
    :ivar high: the upper end.
    :ivar p: the two-sided p-value (``None`` when there is none).
    :ivar regime: which method applied, for the report (``"one pair"``, ``"few pairs"``,
        ``"bootstrap"``).
    :ivar detail: JSON-able details (test names, exactness, resamples).
    :ivar inputs: per-input lines to print under the comparison.
    """

    difference: float
    low: float | None
    high: float | None
    p: float | None
    regime: str
    detail: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[InputLine, ...] = ()


ComparisonCompute = Callable[[Sequence[Pair], TestSettings], TestOutcome]
Adjust = Callable[[Sequence[float]], list[float]]


class RegisterComparisonTest(Protocol):
    def __call__(self, name: str, compute: ComparisonCompute, *, description: str = "") -> None: ...


class RegisterAdjustment(Protocol):
    def __call__(self, name: str, adjust: Adjust, *, description: str = "") -> None: ...


class Named:
    """Callables by name, in registration order (a registry's storage)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, Callable[..., Any]] = {}

    def register(self, name: str, function: Callable[..., Any], *, description: str = "") -> None:
        """Add an entry (the ``register`` callback of a registration hook)."""
        if not name or not set(name) <= NAME_CHARS:
            raise ValueError(
                f"{self.what} name {name!r} must be lowercase letters, digits, '-' or '_'"
            )
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        if not callable(function):
            raise ValueError(f"{self.what} {name!r}: expected a callable, got {function!r}")
        self._entries[name] = function

    def check(self, name: object) -> str:
        """``name`` when registered, else :class:`ValueError` listing the registered names."""
        text = str(name).strip()
        if text not in self._entries:
            known = ", ".join(self._entries) or "none"
            raise ValueError(f"unknown {self.what} {text!r}; registered: {known}")
        return text

    def get(self, name: str) -> Callable[..., Any]:
        return self._entries[self.check(name)]
