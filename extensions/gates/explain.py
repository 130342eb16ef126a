"""Plain-language readings of gate verdicts (for ``--prob-explain``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from pytest_probability.api import PASS, Reading, ReportBuilder, Results, reading_percent

from .rate import bar_percent, first_true
from .state import state_of

#: the most runs the "would settle it" search considers
MAX_SETTLE = 1_000_000
#: the most run counts below the bisection's answer checked one by one: verdicts at a fixed
#: rate are not monotone in n (the passes are rounded to whole runs), so the first settling
#: count can lie below the point the bisection lands on, by about 2 / |rate - bar| counts
MAX_WINDOW = 1024


def runs_to_settle(kind: Any, spec: Any, passes: int, n: int, config: pytest.Config) -> int | None:
    """About how many runs would decide an UNDECIDED gate if the case kept passing at its
    observed rate (``None`` when no number of runs up to :data:`MAX_SETTLE` would, e.g. a
    rate on the bar).

    Doubling from ``n`` finds a settling count, bisection a count where the verdict turns,
    and the counts below it where rounding can still settle the gate (about
    ``2 / |rate - bar|``, at most :data:`MAX_WINDOW`) are checked one by one for an earlier
    one: about ``2 log2(answer / n)`` verdicts plus that window, never a scan of every count.
    """
    if kind.verdict_at is None or n == 0:
        return None
    rate = passes / n

    def decided(m: int) -> bool:
        return kind.verdict_at(spec, round(rate * m), m, config) != "undecided"

    high = first_true(decided, max(n, 1), MAX_SETTLE)
    if high is None:
        return None
    gap = abs(rate - bar) if (bar := getattr(spec, "min_rate", None)) is not None else 0.0
    window = MAX_WINDOW if gap == 0 else min(MAX_WINDOW, math.ceil(2 / gap) + 16)
    return next((m for m in range(max(n, high - window), high) if decided(m)), high)


def _read(results: Results, config: pytest.Config) -> Iterator[tuple[Any, list[Any]]]:
    """``(case, [(kind, spec, result)])`` for each gated case that did not pass and has
    checks that get a sentence (a rate gate with an interval, a count)."""
    state = state_of(config)
    for case in results.rows():
        verdict = state.verdicts.get(case.key)
        if verdict is None or verdict.verdict == PASS:
            continue
        checks = [
            (kind, spec, result)
            for (kind, spec), result in zip(state.gates[case.key], verdict.results, strict=True)
            if (kind.name == "rate" and result.data.get("low") is not None) or kind.name == "count"
        ]
        if checks:
            yield case, checks


def count(results: Results, config: pytest.Config) -> int:
    """How many readings :func:`readings` gives (all notable), without building them (no
    "runs that would settle it" search)."""
    return sum(1 for _ in _read(results, config))


def readings(report: ReportBuilder, results: Results, config: pytest.Config) -> list[Reading]:
    """A reading per gated case that did not pass (see :func:`count`)."""
    found = []
    for case, checks in _read(results, config):
        parts = []
        for kind, spec, result in checks:
            data = result.data
            if kind.name == "count":
                parts.append(
                    f"It needs at least {data['min_passes']} passing runs and had "
                    f"{data['passes']}: {result.verdict.upper()}."
                )
                continue
            bar = bar_percent(data["min_rate"])
            said = (
                f"{data['passes']} of {data['n']} judged runs passed; with "
                f"{bar_percent(data['level'])} confidence its pass rate is between "
                f"{reading_percent(data['low'])} and {reading_percent(data['high'])}."
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
                    " If it keeps passing at "
                    f"{reading_percent(data['passes'] / data['n'], 1)}, "
                    f"about {needed} runs would settle it."
                    if needed is not None
                    else " At exactly this rate no number of runs would settle it."
                )
                parts.append(
                    f"{said} The interval straddles the {bar} bar, so the runs cannot "
                    f"tell yet whether it meets it: UNDECIDED.{settle}"
                )
        row = report.row_json.setdefault(case.key, {})
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
