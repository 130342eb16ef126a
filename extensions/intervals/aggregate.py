"""Function-level and Overall lines: mean of case fractions, case bootstrap, ρ, projection.

STATISTICS.md, "Function-level and Overall lines". Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_probability.api import (
    case_bootstrap_interval,
    case_mean,
    interval_cells,
    money,
    percent1,
    signed_percent,
)

EN_DASH = "\u2013"
INPUTS_X2 = 1 / math.sqrt(2) - 1


def icc1(counts: Sequence[tuple[int, int]]) -> float | None:
    """ICC(1) of 0/1 run outcomes from a one-way ANOVA with unequal run counts.

    ``counts`` holds ``(passes, runs)`` per case. ``None`` when undefined: fewer than two
    cases, every case with one run, or every run with the same outcome.
    """
    cases = [(x, k) for x, k in counts if k > 0]
    n = len(cases)
    m = sum(k for _, k in cases)
    x_total = sum(x for x, _ in cases)
    if n < 2 or m == n or x_total in (0, m):
        return None
    ssb = sum(x * x / k for x, k in cases) - x_total * x_total / m
    ssw = sum(x * (k - x) / k for x, k in cases)
    msb = ssb / (n - 1)
    msw = ssw / (m - n)
    k0 = (m - sum(k * k for _, k in cases) / m) / (n - 1)
    denominator = msb + (k0 - 1) * msw
    if denominator <= 0:
        return None
    return min(1.0, max(0.0, (msb - msw) / denominator))


def width_factor(k: float, rho: float) -> float:
    """w(k, ρ) = √((1 + (k − 1)ρ) / k): how an input's mean narrows with k runs."""
    return math.sqrt((1 + (k - 1) * rho) / k)


def runs_doubling(k: float, rho: float) -> float:
    """Relative change of the interval width when every case gets twice the runs."""
    return width_factor(2 * k, rho) / width_factor(k, rho) - 1


def harmonic_mean(values: Sequence[int]) -> float:
    return len(values) / sum(1 / v for v in values)


@dataclass(frozen=True)
class Aggregate:
    """One function-level (or Overall) line and its JSON form."""

    label: str
    scope: str
    inputs: int
    runs_min: int
    runs_max: int
    estimate: float
    low: float | None
    high: float | None
    level: float
    icc: float | None
    runs_x2: float | None
    resamples: int
    seed: int
    cost: float | None = None
    #: why the interval is not shown (cases stopped early lean toward their verdicts)
    hidden: str | None = None
    #: the bootstrap interval method (``--prob-bootstrap-method``)
    bootstrap_method: str = "percentile"

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "scope": self.scope,
            "inputs": self.inputs,
            "runs_min": self.runs_min,
            "runs_max": self.runs_max,
            "estimate": self.estimate,
            "ci": {
                "method": "bootstrap",
                "bootstrap_method": self.bootstrap_method,
                "level": self.level,
                "low": self.low,
                "high": self.high,
            },
            "icc": self.icc,
            "width_factor": {"runs_x2": self.runs_x2, "inputs_x2": INPUTS_X2},
            "resamples": self.resamples,
            "seed": self.seed,
            "cost": self.cost,
            "hidden": self.hidden,
        }


def aggregate(
    label: str,
    scope: str,
    counts: Sequence[tuple[int, int]],
    *,
    case_ids: Sequence[str],
    level: float,
    resamples: int,
    seed: int,
    cost: float | None = None,
    hidden: str | None = None,
    method: str = "percentile",
) -> Aggregate:
    """The line for cases given as ``(passes, runs)`` with their ``case_ids`` (the
    bootstrap puts them in case-id order: the API's ``case_bootstrap_interval``, ends by
    ``method``); with ``hidden`` (the reason) no interval is computed."""
    fractions = [x / k for x, k in counts]
    low, high = None, None
    if hidden is None:
        low, high = case_bootstrap_interval(
            case_ids, fractions, resamples=resamples, seed=seed, level=level, method=method
        )
    runs = [k for _, k in counts]
    rho = icc1(counts)
    runs_x2 = None if rho is None else runs_doubling(harmonic_mean(runs), rho)
    return Aggregate(
        label=label,
        scope=scope,
        inputs=len(counts),
        runs_min=min(runs),
        runs_max=max(runs),
        estimate=case_mean(fractions),
        low=low,
        high=high,
        level=level,
        icc=rho,
        runs_x2=runs_x2,
        resamples=resamples,
        seed=seed,
        cost=cost,
        hidden=hidden,
        bootstrap_method=method,
    )


def _size(line: Aggregate) -> str:
    same = line.runs_min == line.runs_max
    runs = line.runs_min if same else f"{line.runs_min}{EN_DASH}{line.runs_max}"
    return f"N={line.inputs} inputs × k={runs}"


def render(lines: Sequence[Aggregate]) -> list[str]:
    """The two-line layout of the spec, columns aligned across all lines (at least one)."""
    label_width = max(len(line.label) for line in lines)
    sizes = [_size(line) for line in lines]
    size_width = max(len(s) for s in sizes)
    estimates = [percent1(line.estimate) for line in lines]
    estimate_width = max(len(e) for e in estimates)
    cells = interval_cells(
        {
            str(i): (line.low, line.high)
            for i, line in enumerate(lines)
            if line.low is not None and line.high is not None
        },
        decimals=1,
    )
    out: list[str] = []
    for index, line in enumerate(lines):
        first = (
            f"  {line.label.ljust(label_width)}  {sizes[index].ljust(size_width)}  "
            f"{estimates[index].rjust(estimate_width)}"
        )
        if str(index) in cells:
            first += f"  {cells[str(index)]}"
        if line.icc is not None:
            first += f"  ρ={line.icc:.2f}"
        if line.hidden is not None:  # no interval, so nothing to project either
            out.append(f"{first}  (interval hidden: {line.hidden})")
            continue
        out.append(first)
        parts = []
        if line.runs_x2 is not None:
            parts.append(f"runs ×2 → interval {signed_percent(line.runs_x2)}")
        parts.append(f"inputs ×2 → {signed_percent(INPUTS_X2)}")
        if line.cost is not None:
            parts.append(f"each +{money(line.cost)}")
        out.append(" " * (2 + label_width + 2) + "  ·  ".join(parts))
    return out
