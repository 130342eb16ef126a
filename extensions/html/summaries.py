"""Function-level and Overall lines, gates and metrics, as forest plots on a 0–100 % axis.

Each function takes the report document and returns a section body, or ``None`` when the
report has nothing for it. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import fraction, integer, num, obj, objects, text

from . import fmt
from .cases import VERDICT_WORDS, gate_text, status_of
from .forest import ForestLine, forest_table
from .markup import Markup, class_list, css_token, escape
from .svg import percent_axis

#: Most lines a gates forest shows (the failing and undecided ones first).
GATE_LINES = 200


def badge(verdict: str, prefix: str = "v") -> Markup:
    """A coloured verdict word (``PASS``, ``FAIL``, ``UNDECIDED``)."""
    word = VERDICT_WORDS.get(verdict, verdict.upper() or fmt.MISSING)
    css = class_list(f"badge {prefix}-{css_token(verdict)}")
    return Markup(f'<span class="{css}">{escape(word)}</span>')


def _signed_change(value: Any) -> str:
    number = num(value)
    if number is None:
        return fmt.MISSING
    rounded = round(number * 100)
    if rounded == 0:
        return "0%"
    return f"+{rounded}%" if rounded > 0 else f"{fmt.MINUS}{-rounded}%"


def render_aggregates(document: Mapping[str, Any]) -> Markup | None:
    """The function-level and Overall lines (``aggregates``)."""
    lines = objects(document.get("aggregates"))
    if not lines:
        return None
    forest = []
    for line in lines:
        ci = obj(line.get("ci"))
        runs_min, runs_max = integer(line.get("runs_min")), integer(line.get("runs_max"))
        runs = f"{runs_min}" if runs_min == runs_max else f"{runs_min}–{runs_max}"
        icc = num(line.get("icc"))
        factor = obj(line.get("width_factor"))
        note = text(line.get("hidden"))
        overall = line.get("scope") == "overall"
        forest.append(
            ForestLine(
                before=[
                    text(line.get("label"), "?"),
                    f"N={fmt.count(line.get('inputs'))} × k={runs}",
                    fmt.percent1(line.get("estimate")),
                    fmt.interval(ci.get("low"), ci.get("high"), decimals=1) or fmt.MISSING,
                ],
                low=fraction(ci.get("low")),
                high=fraction(ci.get("high")),
                estimate=fraction(line.get("estimate")),
                after=[
                    fmt.MISSING if icc is None else f"{icc:.2f}",
                    _signed_change(factor.get("runs_x2")),
                    _signed_change(factor.get("inputs_x2")),
                    fmt.money(line.get("cost")) if num(line.get("cost")) is not None else "",
                    note,
                ],
                css="overall" if overall else "",
                diamond=overall,
                row_class="overall" if overall else "",
            )
        )
    first = lines[0]
    level = num(obj(first.get("ci")).get("level"))
    caption = "Mean pass fraction over inputs, with a case bootstrap interval"
    if level is not None:
        caption += f" ({level * 100:g}%"
        resamples, seed = integer(first.get("resamples")), integer(first.get("seed"))
        if resamples is not None:
            caption += f", B={resamples:,}, seed {seed}"
        caption += ")"
    return forest_table(
        ["Line", "Inputs × runs", "Estimate", "Interval"],
        ["ρ", "runs ×2", "inputs ×2", "Cost", "Note"],
        forest,
        percent_axis(),
        caption=caption,
    )


def _check_line(case: str, check: Mapping[str, Any], gate: Mapping[str, Any]) -> ForestLine:
    verdict = text(check.get("verdict"))
    passes, n = integer(check.get("passes")), integer(check.get("n"))
    refs: list[tuple[float, str]] = []
    if check.get("kind") == "rate" and num(check.get("min_rate")) is not None:
        refs.append((fraction(check.get("min_rate")) or 0.0, "gate"))
    elif check.get("kind") == "count" and integer(check.get("min_passes")) and n:
        refs.append((min(1.0, (integer(check.get("min_passes")) or 0) / n), "gate"))
    estimate = None if passes is None or not n else passes / n
    return ForestLine(
        before=[
            case,
            gate_text(check),
            "" if passes is None or n is None else f"{passes}/{n}",
            fmt.interval(check.get("low"), check.get("high")) or fmt.MISSING,
        ],
        low=fraction(check.get("low")),
        high=fraction(check.get("high")),
        estimate=estimate,
        after=[
            badge(verdict),
            "fails the session" if gate.get("fails_session") else "",
            text(gate.get("judged")),
        ],
        refs=refs,
        css=f"v-{css_token(verdict)}",
    )


def render_gates(document: Mapping[str, Any]) -> Markup | None:
    """The gates summary and the rate and count checks as a forest (latency checks are in
    the latency section)."""
    summary = obj(document.get("gates"))
    gated = [row for row in objects(document.get("rows")) if obj(row.get("gate"))]
    if not summary and not gated:
        return None
    parts = []
    if summary:
        counts = ", ".join(
            f"{integer(summary.get(key)) or 0} {key}" for key in ("passed", "failed", "undecided")
        )
        policy = "fail" if summary.get("undecided_fails", True) else "pass"
        errors = text(summary.get("errors"), "count")
        parts.append(
            f"<p><strong>Gates:</strong> {escape(counts)}. Undecided verdicts {policy} the "
            f"session; errored runs are {'excluded' if errors == 'exclude' else 'counted'}.</p>"
        )
    severity = {"fail": 0, "undecided": 1, "pass": 2}
    gated.sort(key=lambda row: severity.get(text(obj(row.get("gate")).get("verdict")), 3))
    lines, others = [], []
    for row in gated:
        gate = obj(row.get("gate"))
        for check in objects(gate.get("checks")):
            if check.get("kind") in ("rate", "count"):
                lines.append(_check_line(text(row.get("case")), check, gate))
            elif check.get("kind") != "latency":
                others.append((text(row.get("case")), check))
    if lines:
        shown = lines[:GATE_LINES]
        parts.append(
            forest_table(
                ["Case", "Gate", "Passes", "Interval"],
                ["Verdict", "Session", "Judged"],
                shown,
                percent_axis(),
                caption="Rate and count gates: the interval against the bar (dashed)",
            )
        )
        if len(lines) > len(shown):
            parts.append(
                f'<p class="muted">{len(lines) - len(shown):,} more gate checks (all passing '
                "or later in order) are in the case table's Gate column.</p>"
            )
    for case, check in others:
        parts.append(
            f"<p>{escape(case)}: {escape(text(check.get('kind')))} gate "
            f"{badge(text(check.get('verdict')))}</p>"
        )
    return Markup("".join(parts))


def render_metrics(document: Mapping[str, Any]) -> Markup | None:
    """The metric lines (``metrics``): pass^k and pass@k per function and overall."""
    metrics = obj(document.get("metrics"))
    lines = objects(metrics.get("lines"))
    if not lines:
        return None
    forest = []
    for line in lines:
        notes = []
        if integer(line.get("left_out")):
            notes.append(f"{line.get('left_out')} left out (< {line.get('min_runs')} runs)")
        for key in ("error", "hidden"):
            if line.get(key):
                notes.append(text(line.get(key)))
        overall = line.get("scope") == "Overall"
        forest.append(
            ForestLine(
                before=[
                    text(line.get("scope"), "?"),
                    text(line.get("metric"), "?"),
                    fmt.plural(integer(line.get("n")) or 0, "input"),
                    fmt.percent1(line.get("value")),
                ],
                low=fraction(line.get("low")),
                high=fraction(line.get("high")),
                estimate=fraction(line.get("value")),
                after=[
                    fmt.interval(line.get("low"), line.get("high"), decimals=1),
                    "; ".join(notes),
                ],
                css="metric",
                diamond=overall,
                row_class="overall" if overall else "",
            )
        )
    return forest_table(
        ["Scope", "Metric", "Inputs", "Value"],
        ["Interval", "Note"],
        forest,
        percent_axis(),
        caption="Metrics over inputs, with a case bootstrap interval",
    )


def status_counts(document: Mapping[str, Any]) -> dict[str, int]:
    """How many rows have each status key."""
    counts: dict[str, int] = {}
    for row in objects(document.get("rows")):
        status = status_of(row)
        counts[status] = counts.get(status, 0) + 1
    return counts
