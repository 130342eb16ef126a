"""The bundled gate kinds: ``rate`` (``min_rate``) and ``count`` (``min_passes``).

STATISTICS.md, "Gates": a rate gate compares its interval (its own method, level and prior)
with the bar, unrounded; a count gate compares the pass count with ``min_passes``. The
interval is the row's: the method comes from the ``intervals`` extension through
``pytest_prob_interval_method`` (asked once per method and session, then called directly).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest
from pytest_probability.api import (
    FAIL,
    PASS,
    UNDECIDED,
    CaseResult,
    binom_cdf,
    binom_sf,
    call_first,
    interval_cells,
    option_value,
    options_of,
)

from .registry import GateResult

#: the largest run count searched for a rate gate's minimum
MAX_RUNS = 10_000_000
#: the most runs the "would settle it" search of ``--prob-explain`` considers
MAX_SETTLE = 1_000_000
#: the most run counts below the bisection's answer checked one by one: verdicts at a fixed
#: rate are not monotone in n (the passes are rounded to whole runs), so the first settling
#: count can lie below the point the bisection lands on, by about 2 / |rate - bar| counts
MAX_WINDOW = 1024

Compute = Callable[[int, int, float, tuple[float, float]], tuple[float, float]]
#: the session's interval methods the gates asked for: name → compute
METHODS_KEY = pytest.StashKey[dict[str, Compute]]()


@dataclass(frozen=True)
class Settings:
    """How a gate's interval is computed: the case's ``method``, ``confidence`` (``level``)
    and ``prior``, as its row's."""

    method: str
    level: float
    prior: tuple[float, float]


def settings(config: pytest.Config, mark: Mapping[str, Any]) -> Settings:
    """A case's interval settings: its mark's ``method``/``confidence``/``prior``, else the
    session's (mark > CLI > ini > default). The ``intervals`` extension declares them."""
    options = options_of(config)
    prior = options.case_value("prior", mark)
    return Settings(
        method=options.case_value("method", mark),
        level=options.case_value("confidence", mark),
        prior=(float(prior[0]), float(prior[1])),
    )


def interval_method(config: pytest.Config, name: str) -> Compute:
    """The interval method ``name`` (``compute(passes, total, level, prior) -> (low,
    high)``), asked of ``pytest_prob_interval_method`` once per session."""
    known = config.stash.setdefault(METHODS_KEY, {})
    if name not in known:
        found = call_first(
            config, "pytest_prob_interval_method", check=_not_callable, name=name, config=config
        )
        if found is None:  # (the gates refuse min_rate and min_passes without intervals)
            raise ValueError(
                f"no interval method {name!r}: the bundled intervals extension is disabled"
            )
        known[name] = found
    return known[name]


def _not_callable(answer: Any) -> str | None:
    return None if callable(answer) else f"answered {answer!r}, not an interval function"


@dataclass(frozen=True)
class RateSpec:
    min_rate: float
    interval: Settings

    @property
    def level(self) -> float:
        """The level its minimum runs depend on (named in the too-few-runs warning)."""
        return self.interval.level


@dataclass(frozen=True)
class CountSpec:
    min_passes: int
    interval: Settings


def bar_percent(rate: float) -> str:
    """``0.9`` → ``90%``, ``0.975`` → ``97.5%`` (the bar as written)."""
    return f"{(Decimal(repr(rate)) * 100).normalize():f}%"


def configure_rate(mark: Mapping[str, Any], config: pytest.Config) -> RateSpec | None:
    """A rate gate from ``min_rate=`` (mark, else session), unless the case's marks set
    ``min_passes`` (mark > CLI > ini: a count on the mark replaces the session's rate; the
    merged mark never has both, :meth:`~pytest_probability.options.OptionRegistry.merge_marks`)."""
    if "min_passes" in mark and "min_rate" not in mark:
        return None
    rate = options_of(config).case_value("min_rate", mark)
    return None if rate is None else RateSpec(rate, settings(config, mark))


def configure_count(mark: Mapping[str, Any], config: pytest.Config) -> CountSpec | None:
    """A count gate from the mark's ``min_passes=``."""
    if mark.get("min_passes") is None:
        return None
    return CountSpec(int(mark["min_passes"]), settings(config, mark))


def _bounds(
    spec: RateSpec | CountSpec, passes: int, n: int, config: pytest.Config
) -> tuple[float, float] | None:
    if n == 0:
        return None
    chosen = spec.interval
    return interval_method(config, chosen.method)(passes, n, chosen.level, chosen.prior)


def rate_verdict(spec: RateSpec, passes: int, n: int, config: pytest.Config) -> str:
    """PASS iff low > min_rate; FAIL iff high < min_rate; else (or no runs) UNDECIDED.

    For the exact (Clopper–Pearson) method the comparison is made on the binomial tails at
    the bar, which is the same statement without solving for the bounds (five times
    faster; curtailment and ``--prob-plan`` ask it thousands of times):
    ``low > bar ⇔ P(X ≥ passes | bar) < α/2`` and ``high < bar ⇔ P(X ≤ passes | bar) < α/2``.
    """
    if spec.interval.method == "exact" and n > 0:
        half_alpha = (1.0 - spec.interval.level) / 2.0
        if passes > 0 and binom_sf(passes - 1, n, spec.min_rate) < half_alpha:
            return PASS
        if passes < n and binom_cdf(passes, n, spec.min_rate) < half_alpha:
            return FAIL
        return UNDECIDED
    bounds = _bounds(spec, passes, n, config)
    if bounds is not None and bounds[0] > spec.min_rate:
        return PASS
    if bounds is not None and bounds[1] < spec.min_rate:
        return FAIL
    return UNDECIDED


def count_verdict(spec: CountSpec, passes: int, n: int, config: pytest.Config) -> str:
    """PASS iff passes ≥ min_passes, else FAIL."""
    return PASS if passes >= spec.min_passes else FAIL


def judge(spec: RateSpec | CountSpec, case: CaseResult, config: pytest.Config) -> GateResult:
    """The gate's result on the case's judged runs (errors count as non-passes unless
    ``prob_errors`` is ``exclude``): a rate gate by :func:`rate_verdict`, a count gate by
    :func:`count_verdict`."""
    exclude = option_value(config, "errors") == "exclude"
    passes, n = case.passes, case.passes + case.fails + (0 if exclude else case.errors)
    bounds = _bounds(spec, passes, n, config)
    if isinstance(spec, RateSpec):
        kind, verdict = "rate", rate_verdict(spec, passes, n, config)
        bar, data = f"≥{bar_percent(spec.min_rate)}", {"min_rate": spec.min_rate}
    else:
        kind, verdict = "count", count_verdict(spec, passes, n, config)
        bar, data = f"≥{spec.min_passes}/{case.planned}", {"min_passes": spec.min_passes}
    fraction, word = f"{passes}/{n}", verdict.upper()
    cell = interval_cells({"x": bounds})["x"] if bounds else ""
    line = "  ".join(part for part in (fraction, cell, bar, word) if part)
    data |= {
        "passes": passes,
        "n": n,
        "method": spec.interval.method,
        "level": spec.interval.level,
        "low": bounds[0] if bounds else None,
        "high": bounds[1] if bounds else None,
    }
    return GateResult(kind, verdict, line, data, (fraction, bounds, bar, word))


def first_true(holds: Callable[[int], bool], start: int, cap: int) -> int | None:
    """The smallest ``n ≥ start`` for which ``holds(n)`` is true, for a ``holds`` that stays
    true once it is (``None`` when it is false up to ``cap``): doubling from ``start``, then
    bisection, about ``2 log2(answer / start)`` calls."""
    low = high = start
    while not holds(high):
        if high >= cap:
            return None
        low, high = high, min(2 * high, cap)
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


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


def minimum_runs_rate(spec: RateSpec, config: pytest.Config) -> int | None:
    """The fewest runs whose all-pass outcome is PASS (exact, 95%: 0.9 → 36)."""

    def passes_with(n: int) -> bool:
        return _bounds(spec, n, n, config)[0] > spec.min_rate  # type: ignore[index]

    return first_true(passes_with, 1, MAX_RUNS)


def render(rows: list[tuple[str, GateResult]]) -> list[str]:
    """The rate and count lines of the gates section, aligned as the spec prints them."""
    width = max(len(display) for display, _ in rows)
    fraction_width = max(len(result.cells[0]) for _, result in rows)
    cells = interval_cells(
        {str(i): result.cells[1] for i, (_, result) in enumerate(rows) if result.cells[1]}
    )
    interval_width = max((len(cell) for cell in cells.values()), default=0)
    bar_width = max(len(result.cells[2]) for _, result in rows)
    lines = []
    for index, (display, result) in enumerate(rows):
        fraction, _, bar, word = result.cells
        parts = [display.ljust(width), fraction.rjust(fraction_width)]
        if interval_width:
            parts.append(cells.get(str(index), "").ljust(interval_width))
        parts += [bar.ljust(bar_width), word]
        lines.append(("  " + "  ".join(parts)).rstrip())
    return lines
