"""A case's latency: its settings, its run times, its quantile and verdict, and the
session's registry of latency quantile methods.

The functions other extensions (explain, HTML) and the latency gate use; the report and the
``[gate]`` item judge from the same numbers.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_probability.api import (
    SKIP,
    CaseResult,
    LatencyQuantile,
    filled_registry,
    options_of,
)

from . import ORDER_STATISTIC
from .quantiles import latency_verdict, min_runs_for_upper

METHODS_KEY = pytest.StashKey["LatencyMethods"]()
#: the level used when the intervals extension (which owns ``confidence``) is disabled
DEFAULT_LEVEL = 0.95
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


class LatencyMethods(dict[str, Callable[[Sequence[float], float, float], LatencyQuantile]]):
    """Latency methods by name, in registration order: each a ``compute(sorted times,
    quantile, level) -> LatencyQuantile``."""

    def register(self, name: str, compute: Any, *, description: str = "") -> None:
        """Add a method (the ``register`` callback of the registration hook)."""
        if not name or not set(name) <= NAME_CHARS:
            raise ValueError(
                f"latency method name {name!r} must be lowercase letters, digits, '-' or '_'"
            )
        if name in self:
            raise ValueError(f"latency method {name!r} is registered twice")
        self[name] = compute

    def check(self, name: object) -> str:
        """``name`` when registered, else :class:`ValueError` listing the registered names."""
        text = str(name).strip()
        if text not in self:
            raise ValueError(f"unknown latency method {text!r}; registered: {', '.join(self)}")
        return text

    def compute(self, name: str, times: Sequence[float], q: float, level: float) -> LatencyQuantile:
        """The method's quantile of ``times`` (sorted here), checked: a
        :class:`LatencyQuantile` whose values are finite, ``>= 0`` and ordered."""
        found = self[self.check(name)](sorted(times), q, level)
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


@dataclass(frozen=True)
class LatencySettings:
    """How a case's latency is summarized: quantile, level, method, and the gate's limit
    (``None`` without ``max_latency=``)."""

    quantile: float
    level: float
    method: str
    limit: float | None


@dataclass(frozen=True)
class CaseLatency:
    """A case's latency quantile, with the gate's verdict when it has ``max_latency=``."""

    settings: LatencySettings
    quantile: LatencyQuantile
    verdict: str | None

    def to_json(self) -> dict[str, Any]:
        """``rows[].latency``: the quantile's fields plus ``method``, ``max_latency`` and
        ``verdict`` (``null`` without a gate)."""
        return {
            **self.quantile.to_json(),
            "method": self.settings.method,
            "max_latency": self.settings.limit,
            "verdict": self.verdict,
        }


def latency_methods(config: pytest.Config) -> LatencyMethods:
    """The registered latency methods (per config; filled through the historic hook on
    first use)."""
    return filled_registry(
        config,
        METHODS_KEY,
        LatencyMethods,
        config.hook.pytest_prob_register_latency_methods,
        "latency methods",
    )


def case_settings(config: pytest.Config, mark: Mapping[str, Any]) -> LatencySettings:
    """A case's latency settings: its mark's ``latency_quantile``, ``confidence``,
    ``latency_method`` and ``max_latency``, else the session's."""
    options = options_of(config)
    has_level = "confidence" in options.specs
    return LatencySettings(
        quantile=options.case_value("latency_quantile", mark),
        level=options.case_value("confidence", mark) if has_level else DEFAULT_LEVEL,
        method=options.case_value("latency_method", mark),
        limit=mark.get("max_latency"),
    )


def run_times(case: CaseResult) -> list[float]:
    """The latencies of a case's timed runs, in seconds (skipped runs and runs whose setup
    failed have none)."""
    return [
        record["latency"]
        for record in case.records.values()
        if record.get("latency") is not None and record["outcome"] != SKIP
    ]


def case_latency(config: pytest.Config, case: CaseResult) -> CaseLatency:
    """The case's quantile with its interval (and verdict, when gated)."""
    chosen = case_settings(config, case.mark)
    found = latency_methods(config).compute(
        chosen.method, run_times(case), chosen.quantile, chosen.level
    )
    verdict = None if chosen.limit is None else latency_verdict(found, chosen.limit)
    return CaseLatency(chosen, found, verdict)


def minimum_runs(chosen: LatencySettings) -> int | None:
    """The fewest runs with which a gate on ``chosen`` can pass (the interval has an upper
    end), for the bundled method; ``None`` for a third-party one."""
    if chosen.method != ORDER_STATISTIC:
        return None
    return min_runs_for_upper(chosen.quantile, chosen.level)
