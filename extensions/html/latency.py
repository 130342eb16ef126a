"""The latency section: each case's quantile with its interval against its limit.

Every run is timed, so every row of a report has a latency; the section appears only when
latency was asked for, as the terminal's ``probability: latency`` section does: cases with
a ``max_latency`` gate are always drawn, and with ``--prob-latency`` (which the JSON report
does not record: the session says so, ``every=True``) the slowest other cases too. The axis
is linear from 0, or logarithmic when the times span more than 50×. Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import integer, num, obj, objects, text

from . import fmt
from .forest import ForestLine, forest_table
from .markup import Markup, css_token
from .summaries import badge
from .svg import time_axis

#: Most cases the latency plot draws.
LATENCY_LINES = 100


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
    values: list[float | None] = []
    for _, q in shown:
        values += [num(q.get(k)) for k in ("estimate", "low", "high", "max_latency")]
    axis = time_axis(values)
    lines = []
    for row, q in shown:
        limit = num(q.get("max_latency"))
        verdict = text(q.get("verdict"))
        low = num(q.get("low"))
        high = num(q.get("high"))
        n = integer(q.get("n")) or 0
        lines.append(
            ForestLine(
                before=[
                    text(row.get("case")),
                    fmt.plural(n, "run"),
                    fmt.quantile(q.get("quantile")),
                    fmt.duration(q.get("estimate")),
                    f"[{fmt.duration(low)}, {fmt.duration(high)}]",
                ],
                low=low if low is not None else (0.0 if high is not None else None),
                high=high,
                estimate=num(q.get("estimate")),
                after=[
                    "" if limit is None else f"≤ {fmt.duration(limit)}",
                    badge(verdict) if verdict else "",
                    text(q.get("method")),
                ],
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
    seen: dict[str, None] = {}
    for row in objects(document.get("rows")):
        q = obj(row.get("latency"))
        if q:
            seen[f"{fmt.quantile(q.get('quantile'))} ({text(q.get('method'), '?')})"] = None
    return ", ".join(seen)
