"""Function-level and Overall lines, gates and metrics, as forest plots on a 0–100 % axis;
latency quantiles with their intervals against their limits; comparisons of arms and the
baseline regression check, as forest plots of differences.

Each ``render_*`` function takes the report document and returns a section body, or ``None``
when the report has nothing for it.

Every run is timed, so every row of a report has a latency; the latency section appears only
when latency was asked for, as the terminal's ``probability: latency`` section does: cases
with a ``max_latency`` gate are always drawn, and with ``--prob-latency`` (``every=True``)
the slowest other cases too. Its axis is linear from 0, or logarithmic when the times span
more than 50×.

Every comparison row draws *arm − baseline* in percentage points with its interval, the
zero line (solid) and the row's margin (dashed; both sides for an equivalence margin). The
pairs behind each line are one click away. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_probability.api import fraction, integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .cases import gate_text, status_of
from .markup import Markup, class_list, css_token, escape, table
from .svg import ForestLine, difference_axis, forest_table, time_axis

#: Most lines a gates forest shows (the failing and undecided ones first).
GATE_LINES = 200
#: Most cases the latency plot draws.
LATENCY_LINES = 100


def badge(verdict: str) -> Markup:
    """A coloured verdict word (``PASS``, ``FAIL``, ``UNDECIDED``)."""
    css = class_list(f"badge v-{css_token(verdict)}")
    return Markup(f'<span class="{css}">{escape(verdict.upper() or fmt.MISSING)}</span>')


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
                cells=[
                    text(line.get("label"), "?"),
                    f"N={fmt.count(line.get('inputs'))} × k={runs}",
                    fmt.percent1(line.get("estimate")),
                    fmt.interval(ci.get("low"), ci.get("high"), decimals=1) or fmt.MISSING,
                    fmt.MISSING if icc is None else f"{icc:.2f}",
                    _signed_change(factor.get("runs_x2")),
                    _signed_change(factor.get("inputs_x2")),
                    fmt.money(line.get("cost"), ""),
                    note,
                ],
                low=fraction(ci.get("low")),
                high=fraction(ci.get("high")),
                estimate=fraction(line.get("estimate")),
                css="overall" if overall else "",
                diamond=overall,
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
        cells=[
            case,
            gate_text(check),
            "" if passes is None or n is None else f"{passes}/{n}",
            fmt.interval(check.get("low"), check.get("high")) or fmt.MISSING,
            badge(verdict),
            "fails the session" if gate.get("fails_session") else "",
            text(gate.get("judged")),
        ],
        low=fraction(check.get("low")),
        high=fraction(check.get("high")),
        estimate=estimate,
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
        keys = ("passed", "failed", "undecided")
        counts = ", ".join(f"{integer(summary.get(key)) or 0} {key}" for key in keys)
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
                cells=[
                    text(line.get("scope"), "?"),
                    text(line.get("metric"), "?"),
                    fmt.plural(integer(line.get("n")) or 0, "input"),
                    fmt.percent1(line.get("value")),
                    fmt.interval(line.get("low"), line.get("high"), decimals=1),
                    "; ".join(notes),
                ],
                low=fraction(line.get("low")),
                high=fraction(line.get("high")),
                estimate=fraction(line.get("value")),
                css="metric",
                diamond=overall,
            )
        )
    return forest_table(
        ["Scope", "Metric", "Inputs", "Value"],
        ["Interval", "Note"],
        forest,
        caption="Metrics over inputs, with a case bootstrap interval",
    )


def status_counts(document: Mapping[str, Any]) -> dict[str, int]:
    """How many rows have each status key."""
    return Counter(status_of(row) for row in objects(document.get("rows")))


def latency_gated(row: Mapping[str, Any]) -> bool:
    """Whether the row's case has a ``max_latency`` gate (its latency or a latency check
    of its gate says so)."""
    if num(obj(row.get("latency")).get("max_latency")) is not None:
        return True
    return any(
        check.get("kind") == "latency" for check in objects(obj(row.get("gate")).get("checks"))
    )


def render_latency(document: Mapping[str, Any], every: bool = False) -> Markup | None:
    """The latency forest of the latency-gated cases, and with ``every`` (the session ran
    with ``--prob-latency``) of the slowest other timed cases; ``None`` when that leaves no
    case with a timed quantile (latency was not asked for)."""
    timed = [
        (row, obj(row.get("latency")))
        for row in objects(document.get("rows"))
        if num(obj(row.get("latency")).get("estimate")) is not None
        and (every or latency_gated(row))
    ]
    if not timed:
        return None
    gated = [(row, q) for row, q in timed if latency_gated(row)]
    rest = [(row, q) for row, q in timed if not latency_gated(row)]
    rest.sort(key=lambda pair: -(num(pair[1].get("estimate")) or 0.0))
    shown = (gated + rest)[: max(LATENCY_LINES, len(gated))]
    axis = time_axis(
        num(q.get(k)) for _, q in shown for k in ("estimate", "low", "high", "max_latency")
    )
    lines = []
    for row, q in shown:
        low, high, limit = (num(q.get(k)) for k in ("low", "high", "max_latency"))
        verdict = text(q.get("verdict"))
        lines.append(
            ForestLine(
                cells=[
                    text(row.get("case")),
                    fmt.plural(integer(q.get("n")) or 0, "run"),
                    fmt.quantile(q.get("quantile")),
                    fmt.duration(q.get("estimate")),
                    f"[{fmt.duration(low)}, {fmt.duration(high)}]",
                    "" if limit is None else f"≤ {fmt.duration(limit)}",
                    badge(verdict) if verdict else "",
                    text(q.get("method")),
                ],
                low=low if low is not None else (0.0 if high is not None else None),
                high=high,
                estimate=num(q.get("estimate")),
                refs=[] if limit is None else [(limit, "gate")],
                css=f"v-{css_token(verdict)}" if verdict else "lat",
                open_high=low is not None and high is None,
            )
        )
    scale = "log scale" if axis.log else "linear scale"
    parts = [
        forest_table(
            ["Case", "Timed", "Quantile", "Estimate", "Interval"],
            ["Limit", "Verdict", "Method"],
            lines,
            axis,
            caption=f"Latency quantile and its interval ({scale}); the dashed line is the limit",
        )
    ]
    if any(q.get("high") is None and num(q.get("low")) is not None for _, q in shown):
        parts.append(
            '<p class="muted">An arrow marks an interval without an upper end: too few runs '
            "for this quantile at this level.</p>"
        )
    if len(shown) < len(timed):
        parts.append(
            f'<p class="muted">{len(timed) - len(shown):,} faster cases are not drawn; sort '
            "the case table by Latency to see every case.</p>"
        )
    return Markup("".join(parts))


def latency_note(document: Mapping[str, Any]) -> str:
    """``p95, order-statistic`` — the latency settings in use, for the header."""
    latencies = [obj(row.get("latency")) for row in objects(document.get("rows"))]
    return ", ".join(
        dict.fromkeys(
            f"{fmt.quantile(q.get('quantile'))} ({text(q.get('method'), '?')})"
            for q in latencies
            if q
        )
    )


def comparison_label(line: Mapping[str, Any]) -> str:
    """``classify[model] small − large``: the arm and its baseline arm on the axis."""
    return (
        f"{text(line.get('label'))}[{text(line.get('axis'))}] "
        f"{text(line.get('arm'))} − {text(line.get('baseline'))}"
    )


def _margin_refs(line: Mapping[str, Any]) -> list[tuple[float, str]]:
    margin = num(line.get("margin"))
    if margin is None:
        return []
    refs = [(-abs(margin), "margin")]
    if line.get("equivalence"):
        refs.append((abs(margin), "margin"))
    return refs


def _margin_text(line: Mapping[str, Any]) -> str:
    margin = num(line.get("margin"))
    if margin is None:
        return ""
    if line.get("equivalence"):
        return f"within ±{fmt.points(margin, signed=False)}"
    return f"≥{fmt.points(-abs(margin))}"


def _p(line: Mapping[str, Any]) -> str:
    adjusted = num(line.get("p_adjusted"))
    if adjusted is not None:
        return f"{fmt.p_value(adjusted)} ({text(line.get('adjust'))})"
    return fmt.p_value(line.get("p"))


def _notes(line: Mapping[str, Any]) -> str:
    notes = []
    if line.get("error"):
        notes.append(f"error: {text(line.get('error'))}")
    if line.get("hidden"):
        notes.append(text(line.get("hidden")))
    unpaired = objects(line.get("unpaired"))
    if unpaired:
        notes.append(
            "unpaired: "
            + ", ".join(f"{text(u.get('input'))} (only {text(u.get('only'))})" for u in unpaired)
        )
    for key in ("new", "removed"):
        names = [text(name) for name in json_array(line.get(key))]
        if names:
            notes.append(f"{key}: {', '.join(names[:10])}" + (" …" if len(names) > 10 else ""))
    if line.get("regime"):
        notes.append(text(line.get("regime")))
    if line.get("regime") == "sequence":
        notes += _sequence_notes(line)
    return "; ".join(notes)


def _sequence_notes(line: Mapping[str, Any]) -> list[str]:
    """What the terminal line (``settled after 5/20 rounds``) and ``--prob-explain`` (the
    estimate a comparison stopped early on a boundary shows) say about a sequential one."""
    detail = obj(line.get("detail"))
    notes = []
    after = integer(detail.get("settled_after"))
    planned = integer(detail.get("planned_pairs"))
    if after is not None and planned is not None:
        inputs = max(integer(line.get("paired")) or 1, 1)
        notes.append(
            f"settled after {after}/{planned} pairs"
            if inputs == 1
            else f"settled after {after}/{planned // inputs} rounds"
        )
    early = (
        after is not None
        and planned is not None
        and after < planned // max(integer(line.get("paired")) or 1, 1)
    )
    if detail.get("estimate") == "observed" and detail.get("design") == "horizon" and early:
        notes.append("the difference over the pairs used (no boundary of a value to adjust from)")
    if detail.get("estimate") == "median-unbiased":
        shown, observed = fmt.points(line.get("difference")), fmt.points(detail.get("observed"))
        if num(detail.get("observed")) is None or observed == shown:
            notes.append("median-unbiased for stopping early")
        else:
            notes.append(
                f"median-unbiased for stopping early; {observed} over the pairs used, "
                "which leans away from zero"
            )
    return notes


def _line(line: Mapping[str, Any], label: str) -> ForestLine:
    verdict = text(line.get("verdict"))
    cost_ratio = num(line.get("cost_ratio"))
    return ForestLine(
        cells=[
            label,
            fmt.points(line.get("difference")),
            fmt.point_interval(line.get("low"), line.get("high")) or fmt.MISSING,
            _p(line),
            fmt.plural(integer(line.get("paired")) or 0, "pair"),
            "" if cost_ratio is None else f"cost ×{cost_ratio:.1f}",
            _margin_text(line),
            badge(verdict) if verdict else "",
            _notes(line),
        ],
        low=num(line.get("low")),
        high=num(line.get("high")),
        estimate=num(line.get("difference")),
        refs=_margin_refs(line),
        css=f"v-{css_token(verdict)}" if verdict else "cmp",
    )


def _input_lines(line: Mapping[str, Any]) -> list[ForestLine]:
    """The per-input lines of the "few pairs" regime, indented under their comparison."""
    return [
        ForestLine(
            cells=[
                f"  {text(item.get('input'))}",
                fmt.points(item.get("difference")),
                fmt.point_interval(item.get("low"), item.get("high")),
            ],
            low=num(item.get("low")),
            high=num(item.get("high")),
            estimate=num(item.get("difference")),
            refs=_margin_refs(line),
            css="sub",
            row_class="sub",
        )
        for item in objects(line.get("inputs"))
    ]


def _pair_cells(pair: Mapping[str, Any]) -> tuple[str, ...]:
    arm, base = obj(pair.get("arm")), obj(pair.get("baseline"))
    counts = (f"{side.get('passes')}/{side.get('total')}" for side in (arm, base))
    return (text(pair.get("input")), *counts, fmt.points(pair.get("difference")))


def _pairs(lines: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """One ``<details>`` per comparison with its pairs' counts."""
    blocks = []
    for label, line in lines:
        pairs = objects(line.get("pairs"))
        if not pairs:
            continue
        rows = [_pair_cells(pair) for pair in pairs]
        arm, base = text(line.get("arm"), "arm"), text(line.get("baseline"), "baseline")
        # a sequential comparison's pairs are its counts at the look it settled at
        read = " (runs up to the look it settled at)" if line.get("pairs_full") else ""
        blocks.append(
            f"<details><summary>{escape(label)}: {fmt.plural(len(pairs), 'pair')}{read}</summary>"
            f"{table(['Input', arm, base, 'Difference'], rows, class_='pairs')}</details>"
        )
    return "".join(blocks)


def _forest(labelled: Sequence[tuple[str, Mapping[str, Any]]], caption: str) -> Markup:
    lines: list[ForestLine] = []
    values: list[float | None] = []
    for label, line in labelled:
        lines += [_line(line, label), *_input_lines(line)]
        values += [num(line.get(k)) for k in ("difference", "low", "high", "margin")]
        values += [num(i.get(k)) for i in objects(line.get("inputs")) for k in ("low", "high")]
    forest = forest_table(
        ["Comparison", "Difference", "Interval"],
        ["p", "Paired", "Cost", "Margin", "Verdict", "Note"],
        lines,
        difference_axis(values),
        refs=[(0.0, "zero")],
        caption=caption,
    )
    return Markup(forest + _pairs(labelled))


def render_comparisons(document: Mapping[str, Any]) -> Markup | None:
    """The comparisons of arms with their baseline arm (``comparisons``)."""
    lines = objects(document.get("comparisons"))
    if not lines:
        return None
    labelled = [(comparison_label(line), line) for line in lines]
    level = num(lines[0].get("level"))
    shown = f" ({level * 100:g}% intervals)" if level is not None else ""
    return _forest(labelled, f"Arm − baseline arm, in percentage points{shown}")


def render_baseline(document: Mapping[str, Any]) -> Markup | None:
    """The regression check against an earlier report (``baseline``)."""
    baseline = obj(document.get("baseline"))
    if not baseline:
        return None
    settings = obj(baseline.get("settings"))
    facts = [f"against <code>{escape(text(baseline.get('path'), '?'))}</code>"]
    if settings.get("created"):
        facts.append(f"from {escape(text(settings.get('created')).replace('T', ' '))}")
    if settings.get("runs") is not None:
        facts.append(f"{escape(text(settings.get('runs')))} runs")
    margin = num(baseline.get("margin"))
    facts.append(
        f"margin {fmt.points(margin, signed=False)}" if margin is not None else "no margin"
    )
    parts = [f"<p>This session {', '.join(facts)}.</p>"]
    functions = objects(baseline.get("functions"))
    if functions:
        labelled = [(f"{text(f.get('label'))}: now − baseline", f) for f in functions]
        parts.append(_forest(labelled, "This session − the baseline, in percentage points"))
    not_run = [text(name) for name in json_array(baseline.get("not_run"))]
    if not_run:
        parts.append(
            f"<details><summary>{fmt.plural(len(not_run), 'baseline case')} whose function did "
            f"not run</summary><p>{escape(', '.join(not_run))}</p></details>"
        )
    return Markup("".join(parts))
