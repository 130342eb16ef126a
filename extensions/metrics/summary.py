"""Averaging a metric over cases: per function and Overall, with the case bootstrap, and
the ``probability: metrics`` lines. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from pytest_probability.api import case_bootstrap_interval, case_mean, interval_cells, percent1

from .registry import ChosenMetric

OVERALL = "Overall"


@dataclass(frozen=True)
class Bootstrap:
    """The case bootstrap's settings (those of the function-level lines)."""

    min_inputs: int
    resamples: int
    seed: int
    level: float
    #: ``--prob-bootstrap-method`` as the case bootstrap reads it (``auto`` is percentile)
    method: str = "percentile"


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
    #: the runs a case needs to be counted
    min_runs: int = 1
    error: str | None = None
    hidden: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
    pairs = [(case, v) for case, v in zip(case_ids, values, strict=True) if v is not None]
    counted = [v for _, v in pairs]
    line = MetricLine(
        scope=scope,
        metric=metric.label,
        n=len(counted),
        value=case_mean(counted) if counted else None,
        left_out=len(values) - len(counted),
        min_runs=metric.needs(),
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
            method=bootstrap.method,
        )
    return line


def render(lines: Sequence[MetricLine]) -> list[str]:
    """Aligned section lines; the scope is printed on its first line only, and a metric that
    could not be computed has its message after its name, out of the column widths."""
    cells = interval_cells(
        {
            str(index): (line.low, line.high)
            for index, line in enumerate(lines)
            if line.low is not None and line.high is not None
        },
        decimals=1,
    )
    rows: list[list[str]] = []
    for index, line in enumerate(lines):
        scope = "" if index and lines[index - 1].scope == line.scope else line.scope
        if line.error is not None:
            rows.append([scope, line.metric])
            continue
        notes = []
        if line.left_out:
            notes.append(f"{line.left_out} left out (fewer than {line.min_runs} runs)")
        if line.hidden:
            notes.append(f"interval hidden: {line.hidden}")
        value = percent1(line.value) if line.value is not None else "—"
        size = f"N={line.n} {'input' if line.n == 1 else 'inputs'}"
        rows.append([scope, line.metric, size, value, cells.get(str(index), ""), "; ".join(notes)])
    widths = [max((len(row[i]) for row in rows if len(row) > i), default=0) for i in range(6)]
    out = []
    for row, line in zip(rows, lines, strict=True):
        shown = [
            cell.rjust(widths[i]) if i == 3 else cell.ljust(widths[i])
            for i, cell in enumerate(row)
            if widths[i]
        ]
        text = ("  " + "  ".join(shown)).rstrip()
        out.append(text if line.error is None else f"{text}  could not be computed: {line.error}")
    return out
