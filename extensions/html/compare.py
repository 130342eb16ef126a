"""Comparisons of arms and the baseline regression check, as forest plots of differences.

Every row draws *arm − baseline* in percentage points with its interval, the zero line
(solid) and the row's margin (dashed; both sides for an equivalence margin). The pairs
behind each line are one click away. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_probability.api import integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .markup import Markup, css_token, escape
from .summaries import badge
from .svg import ForestLine, difference_axis, forest_table


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
    return "; ".join(notes)


def _line(line: Mapping[str, Any], label: str) -> ForestLine:
    verdict = text(line.get("verdict"))
    cost_ratio = num(line.get("cost_ratio"))
    return ForestLine(
        before=[
            label,
            fmt.points(line.get("difference")),
            fmt.point_interval(line.get("low"), line.get("high")) or fmt.MISSING,
        ],
        low=num(line.get("low")),
        high=num(line.get("high")),
        estimate=num(line.get("difference")),
        after=[
            _p(line),
            fmt.plural(integer(line.get("paired")) or 0, "pair"),
            "" if cost_ratio is None else f"cost ×{cost_ratio:.1f}",
            _margin_text(line),
            badge(verdict) if verdict else "",
            _notes(line),
        ],
        refs=_margin_refs(line),
        css=f"v-{css_token(verdict)}" if verdict else "cmp",
    )


def _input_lines(line: Mapping[str, Any]) -> list[ForestLine]:
    """The per-input lines of the "few pairs" regime, indented under their comparison."""
    return [
        ForestLine(
            before=[
                f"  {text(item.get('input'))}",
                fmt.points(item.get("difference")),
                fmt.point_interval(item.get("low"), item.get("high")),
            ],
            low=num(item.get("low")),
            high=num(item.get("high")),
            estimate=num(item.get("difference")),
            after=["", "", "", "", "", ""],
            refs=_margin_refs(line),
            css="sub",
            row_class="sub",
        )
        for item in objects(line.get("inputs"))
    ]


def _pairs(lines: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """One ``<details>`` per comparison with its pairs' counts."""
    blocks = []
    for label, line in lines:
        pairs = objects(line.get("pairs"))
        if not pairs:
            continue
        rows = []
        for pair in pairs:
            arm, base = obj(pair.get("arm")), obj(pair.get("baseline"))
            cells = (
                text(pair.get("input")),
                f"{arm.get('passes')}/{arm.get('total')}",
                f"{base.get('passes')}/{base.get('total')}",
                fmt.points(pair.get("difference")),
            )
            rows.append("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>")
        arm_name, base_name = text(line.get("arm"), "arm"), text(line.get("baseline"), "baseline")
        blocks.append(
            f"<details><summary>{escape(label)}: {fmt.plural(len(pairs), 'pair')}</summary>"
            f'<div class="scroll"><table class="pairs"><thead><tr><th scope="col">Input</th>'
            f'<th scope="col">{escape(arm_name)}</th><th scope="col">{escape(base_name)}</th>'
            f'<th scope="col">Difference</th></tr></thead><tbody>{"".join(rows)}</tbody>'
            "</table></div></details>"
        )
    return "".join(blocks)


def _forest(labelled: Sequence[tuple[str, Mapping[str, Any]]], caption: str) -> Markup:
    lines: list[ForestLine] = []
    values: list[float | None] = []
    for label, line in labelled:
        lines += [_line(line, label), *_input_lines(line)]
        values += [num(line.get(k)) for k in ("difference", "low", "high", "margin")]
        values += [num(i.get(k)) for i in objects(line.get("inputs")) for k in ("low", "high")]
    table = forest_table(
        ["Comparison", "Difference", "Interval"],
        ["p", "Paired", "Cost", "Margin", "Verdict", "Note"],
        lines,
        difference_axis(values),
        refs=[(0.0, "zero")],
        caption=caption,
    )
    return Markup(table + _pairs(labelled))


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
