"""A case's latency: its settings, its run times, its quantile and verdict.

The functions other extensions (explain, HTML) and the latency gate use; the report and the
``[gate]`` item judge from the same numbers.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_probability.api import SKIP, CaseResult, options_of

from . import ORDER_STATISTIC
from .methods import LatencyMethods, order_statistic
from .quantiles import LatencyQuantile, latency_verdict, min_runs_for_upper

STATE_KEY = pytest.StashKey["LatencyState"]()
#: the level used when the intervals extension (which owns ``confidence``) is disabled
DEFAULT_LEVEL = 0.95


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


class LatencyState:
    """The session's latency methods (filled through the historic hook)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._methods: LatencyMethods | None = None

    def methods(self) -> LatencyMethods:
        if self._methods is None:
            self._methods = LatencyMethods()
            from pytest_probability.api import call_registrations

            call_registrations(
                self.config.hook.pytest_prob_register_latency_methods,
                {"register": self._methods.register, "config": self.config},
                "latency methods",
            )
        return self._methods


def state_of(config: pytest.Config) -> LatencyState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = LatencyState(config)
    return state


def latency_methods(config: pytest.Config) -> LatencyMethods:
    """The registered latency methods."""
    return state_of(config).methods()


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


__all__ = [
    "CaseLatency",
    "LatencySettings",
    "case_latency",
    "case_settings",
    "latency_methods",
    "minimum_runs",
    "order_statistic",
    "run_times",
]
