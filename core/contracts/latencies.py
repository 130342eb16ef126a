"""The latency methods' contract: the value a method returns (:class:`LatencyQuantile`) and
the ``register`` callback of ``pytest_prob_register_latency_methods``
(:class:`RegisterLatencyMethod`). Published through :mod:`pytest_probability.api`; the
``latency`` extension computes the quantiles. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol


@dataclass(frozen=True)
class LatencyQuantile:
    """The ``q``-quantile of a case's run times (seconds) with its interval at ``level``.

    ``estimate`` is the ``rank``-th smallest time (``rank = ⌈nq⌉``); ``low``/``high`` are the
    ``low_rank``-th/``high_rank``-th smallest, each ``None`` when that end does not exist
    (too few runs) — and all of them, with ``rank``, are ``None`` when ``n = 0``.
    ``coverage`` is the exact coverage of the interval (the latency extension's
    ``coverage``).
    """

    q: float
    level: float
    n: int
    estimate: float | None
    low: float | None
    high: float | None
    rank: int | None
    low_rank: int | None
    high_rank: int | None
    coverage: float

    def to_json(self) -> dict[str, Any]:
        """The JSON form: ``quantile``, ``level``, ``n``, ``estimate``, ``low``, ``high``,
        ``rank``, ``low_rank``, ``high_rank``, ``coverage`` (missing values are ``null``)."""
        return {
            "quantile" if f.name == "q" else f.name: getattr(self, f.name) for f in fields(self)
        }


#: A latency method: ``compute(sorted times, quantile, level) -> LatencyQuantile``.
Compute = Callable[[Sequence[float], float, float], LatencyQuantile]


class RegisterLatencyMethod(Protocol):
    def __call__(self, name: str, compute: Compute, *, description: str = "") -> None: ...
