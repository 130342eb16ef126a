"""Plain-language readings of gate verdicts (for ``--prob-explain``)."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.extensions.explain.readings import Reading, percent
from pytest_probability.report import ReportBuilder
from pytest_probability.results import Results

from .state import state_of

#: the most runs the "would settle it" search considers
MAX_SETTLE = 1_000_000
#: run counts searched one by one (verdicts at a fixed rate are not monotone in n)
LINEAR = 20_000


def runs_to_settle(kind: Any, spec: Any, passes: int, n: int, config: pytest.Config) -> int | None:
    """About how many runs would decide an UNDECIDED gate if the case kept passing at its
    observed rate (``None`` when no number of runs would, e.g. a rate on the bar)."""
    if kind.verdict_at is None or n == 0:
        return None
    rate = passes / n

    def decided(m: int) -> bool:
        return kind.verdict_at(spec, round(rate * m), m, config) != "undecided"

    for m in range(max(n, 1), min(LINEAR, MAX_SETTLE) + 1):  # the first run count, exactly
        if decided(m):
            return m
    high = LINEAR  # beyond: doubling then bisection (an estimate: "about")
    while not decided(high):
        if high >= MAX_SETTLE:
            return None
        high *= 2
    low = max(n, high // 2)
    while high - low > 1:
        middle = (low + high) // 2
        if decided(middle):
            high = middle
        else:
            low = middle
    return high


def readings(report: ReportBuilder, results: Results, config: pytest.Config) -> list[Reading]:
    """A reading per gated case that did not pass, and a short one per passing gate."""
    state = state_of(config)
    found = []
    for case in results.rows():
        verdict = state.verdicts.get(case.key)
        if verdict is None:
            continue
        row = report.row_json.setdefault(case.key, {})
        parts = []
        for (kind, spec), result in zip(state.gates[case.key], verdict.results, strict=True):
            data = result.data
            if kind.name == "rate" and data.get("low") is not None:
                bar = percent(data["min_rate"], 1).replace(".0%", "%")
                said = (
                    f"{data['passes']} of {data['n']} judged runs passed; with "
                    f"{percent(data['level'])} confidence its pass rate is between "
                    f"{percent(data['low'])} and {percent(data['high'])}."
                )
                if result.verdict == "pass":
                    parts.append(f"{said} All of it is above the {bar} bar: PASS.")
                elif result.verdict == "fail":
                    parts.append(
                        f"{said} All of it is below the {bar} bar: FAIL. More runs will not "
                        "change that; the case needs fixing."
                    )
                else:
                    needed = runs_to_settle(kind, spec, data["passes"], data["n"], config)
                    settle = (
                        f" If it keeps passing at {percent(data['passes'] / data['n'], 1)}, "
                        f"about {needed} runs would settle it."
                        if needed is not None
                        else " At exactly this rate no number of runs would settle it."
                    )
                    parts.append(
                        f"{said} The interval straddles the {bar} bar, so the runs cannot "
                        f"tell yet whether it meets it: UNDECIDED.{settle}"
                    )
            elif kind.name == "count":
                parts.append(
                    f"It needs at least {data['min_passes']} passing runs and had "
                    f"{data['passes']}: {result.verdict.upper()}."
                )
        if parts and verdict.verdict != "pass":
            found.append(
                Reading(
                    case.display,
                    " ".join(parts),
                    ("interval", "gate", "PASS / FAIL / UNDECIDED"),
                    row,
                    order=100,
                )
            )
    return found
