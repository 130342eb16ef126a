"""Averaging a metric over cases: per function and Overall, with the case bootstrap, and
the ``probability: metrics`` lines. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_probability.api import percent1

from .registry import ChosenMetric, MetricCase

OVERALL = "Overall"


@dataclass(frozen=True)
class Bootstrap:
    """The case bootstrap's settings (those of the function-level lines)."""

    min_inputs: int
    resamples: int
    seed: int
    level: float


@dataclass
class MetricLine:
    """One metric over a group of cases (a function, or the session)."""

    scope: str
    metric: str
    n: int
    value: float | None
    low: float | None = None
    high: float | None = None
    left_out: int = 0
    needs: int = 1
    error: str | None = None
    hidden: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "metric": self.metric,
            "n": self.n,
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "left_out": self.left_out,
            "min_runs": self.needs,
            "error": self.error,
            "hidden": self.hidden,
        }


def case_values(
    chosen: Sequence[ChosenMetric], cases: Sequence[MetricCase]
) -> dict[str, list[float | None]]:
    """Each metric's value per case (``None``: left out), in case order."""
    return {metric.label: [metric.value(case) for case in cases] for metric in chosen}


def summarize(
    scope: str,
    metric: ChosenMetric,
    values: Sequence[float | None],
    bootstrap: Bootstrap,
    hidden: str | None = None,
    *,
    case_ids: Sequence[str],
) -> MetricLine:
    """The mean over the counted cases (``values`` and ``case_ids`` are parallel), with the
    bootstrap interval when there are at least ``min_inputs`` of them (and ``hidden`` gives
    no reason to leave it out).

    The interval is the function-level lines' case bootstrap (the API's
    ``case_bootstrap_interval``, cases in case-id order), so ``pass^1`` has exactly their
    interval.
    """
    from pytest_probability.api import (  # the bootstrap: when used
        case_bootstrap_interval,
        case_mean,
    )

    pairs = [(case, v) for case, v in zip(case_ids, values, strict=True) if v is not None]
    counted = [v for _, v in pairs]
    line = MetricLine(
        scope=scope,
        metric=metric.label,
        n=len(counted),
        value=case_mean(counted) if counted else None,
        left_out=len(values) - len(counted),
        needs=metric.needs(),
    )
    if hidden is not None and len(counted) >= bootstrap.min_inputs:
        line.hidden = hidden
    elif len(counted) >= bootstrap.min_inputs:
        line.low, line.high = case_bootstrap_interval(
            [case for case, _ in pairs],
            counted,
            resamples=bootstrap.resamples,
            seed=bootstrap.seed,
            level=bootstrap.level,
        )
    return line


def render(lines: Sequence[MetricLine]) -> list[str]:
    """Aligned section lines; the scope is printed on its first line only."""
    if not lines:
        return []
    bounded = [line for line in lines if line.low is not None and line.high is not None]
    low_width = max(
        (len(percent1(line.low)) for line in bounded if line.low is not None), default=0
    )
    high_width = max(
        (len(percent1(line.high)) for line in bounded if line.high is not None), default=0
    )
    rows: list[list[str]] = []
    previous = None
    for line in lines:
        scope = line.scope if line.scope != previous else ""
        previous = line.scope
        if line.error is not None:  # the message stays out of the column widths
            rows.append([scope, line.metric])
            continue
        interval = ""
        if line.low is not None and line.high is not None:
            interval = (
                f"[{percent1(line.low).rjust(low_width)}, {percent1(line.high).rjust(high_width)}]"
            )
        notes = []
        if line.left_out:
            notes.append(f"{line.left_out} left out (fewer than {line.needs} runs)")
        if line.hidden:
            notes.append(f"interval hidden: {line.hidden}")
        note = "; ".join(notes)
        value = percent1(line.value) if line.value is not None else "—"
        inputs = "input" if line.n == 1 else "inputs"
        rows.append([scope, line.metric, f"N={line.n} {inputs}", value, interval, note])
    aligned = _align(rows)
    return [
        f"{text}  could not be computed: {line.error}" if line.error is not None else text
        for text, line in zip(aligned, lines, strict=True)
    ]


def _align(rows: Sequence[list[str]]) -> list[str]:
    columns = max(len(row) for row in rows)
    widths = [max((len(row[i]) for row in rows if len(row) > i), default=0) for i in range(columns)]
    out = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if not widths[i]:
                continue
            cells.append(cell.rjust(widths[i]) if i == 3 else cell.ljust(widths[i]))
        out.append(("  " + "  ".join(cells)).rstrip())
    return out


__all__ = ["OVERALL", "Bootstrap", "MetricLine", "case_values", "render", "summarize"]
