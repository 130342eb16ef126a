"""Ranking cases by run time and formatting durations. Pure module: never imports pytest."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

#: Run outcomes that are samples (a skipped run is not one).
JUDGED = frozenset({"pass", "fail", "error"})

_UNITS = ((0, "s"), (3, "ms"), (6, "µs"))  # (power of ten to multiply by, unit)


def parse_count(value: Any) -> int:
    """A whole number ≥ 0 (``5``, ``"5"``); booleans, fractions and text are refused."""
    problem = f"expected a whole number of at least 0, got {value!r}"
    if isinstance(value, bool):
        raise ValueError(problem)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            raise ValueError(problem) from None
    else:
        raise ValueError(problem)
    if number < 0:
        raise ValueError(problem)
    return number


def format_duration(seconds: float) -> str:
    """Seconds to 3 significant figures in s, ms or µs: ``12.3ms``, ``2.00s``, ``769µs``.

    Rounding is half-up on the decimal value as written (``0.01225`` → ``12.3ms``). The unit
    is the largest one in which the rounded value is at least 1, so ``0.9996`` is ``1.00s``
    (never ``1000ms``). From 1000 s up whole seconds are shown (``1234s``); below 1 µs the
    value stays in µs (``0.500µs``); zero is ``0s``.
    """
    if isinstance(seconds, bool) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"not a duration: {seconds!r}")
    if seconds == 0:
        return "0s"
    exact = Decimal(repr(float(seconds)))
    for power, unit in _UNITS:
        text = _three_significant(exact.scaleb(power))
        if Decimal(text) >= 1 or unit == "µs":
            return text + unit
    raise AssertionError("unreachable")


def _three_significant(value: Decimal) -> str:
    """``12.34`` → ``12.3``, ``2`` → ``2.00``, ``769.4`` → ``769``, ``1234.5`` → ``1235``."""
    if value >= 100:
        return str(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))
    decimals = 2 - value.adjusted()  # adjusted() is the exponent of the leading digit
    rounded = value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    if rounded.adjusted() > value.adjusted():  # carried into a new digit: 9.996 → 10.00
        rounded = rounded.quantize(Decimal(1).scaleb(-max(decimals - 1, 0)))
    return f"{rounded:f}"


def median_low(times: Sequence[float]) -> float:
    """The ⌈n/2⌉-th smallest time: the median as STATISTICS.md defines quantiles (the
    ⌈nq⌉-th smallest), so it is always an observed run time."""
    ordered = sorted(times)
    return ordered[math.ceil(len(ordered) / 2) - 1]


@dataclass(frozen=True)
class Timing:
    """The timed runs of one case."""

    case: str
    median: float
    max: float
    runs: int

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "median": self.median, "max": self.max, "runs": self.runs}


def case_timing(case: str, records: Iterable[Mapping[str, Any]]) -> Timing | None:
    """The timing of a case from its run records: judged runs that carry an ``elapsed``.

    Skipped runs are not samples; a run that failed in setup has no ``elapsed`` (its body
    never ran), so it is left out too. ``None`` when no run was timed.
    """
    times = [
        float(r["elapsed"])
        for r in records
        if r.get("outcome") in JUDGED and _is_time(r.get("elapsed"))
    ]
    if not times:
        return None
    return Timing(case=case, median=median_low(times), max=max(times), runs=len(times))


def _is_time(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def slowest(timings: Iterable[Timing], count: int) -> list[Timing]:
    """The ``count`` timings with the largest median; ties keep the given (collection) order."""
    return sorted(timings, key=lambda t: -t.median)[:count]


def render(timings: Sequence[Timing], indent: str = "  ", gap: str = "  ") -> list[str]:
    """Aligned lines: ``  classify::identify_pii  median 12.3ms  max 15.0ms  10 runs``."""
    if not timings:
        return []
    medians = [format_duration(t.median) for t in timings]
    maxima = [format_duration(t.max) for t in timings]
    runs = [f"{t.runs} run" + ("" if t.runs == 1 else "s") for t in timings]
    case_width = max(len(t.case) for t in timings)
    median_width = max(map(len, medians))
    max_width = max(map(len, maxima))
    runs_width = max(map(len, runs))
    return [
        indent
        + gap.join(
            (
                t.case.ljust(case_width),
                f"median {m.rjust(median_width)}",
                f"max {x.rjust(max_width)}",
                r.rjust(runs_width),
            )
        )
        for t, m, x, r in zip(timings, medians, maxima, runs, strict=True)
    ]
