"""Inline SVG plots: interval bars, forest plots, stacked and value bars.

Every plot is a small fixed-size ``<svg>`` whose colours come from the page's CSS classes
(so light and dark mode apply), marked ``aria-hidden``: the numbers it draws are always in
the text next to it. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pytest_probability.api import num

from .fmt import MINUS, case_id, short_duration
from .markup import Markup, class_list, css_token, escape

BAR_WIDTH = 160
BAR_HEIGHT = 14
BAR_PAD = 5
_BAR_SPAN = BAR_WIDTH - 2 * BAR_PAD


def _c(value: float) -> str:
    """A coordinate with at most one decimal."""
    return f"{value:.1f}".removesuffix(".0")


def _svg(
    css: str, width: int, height: int, parts: Iterable[str], label: str | None = None
) -> Markup:
    """The ``<svg>`` around ``parts``: hidden from assistive technology unless ``label``."""
    about = (
        f'role="img" aria-label="{escape(label)}"' if label is not None else 'aria-hidden="true"'
    )
    return Markup(
        f'<svg class="{css}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" {about}>{"".join(parts)}</svg>'
    )


def interval_bar(
    low: float | None,
    high: float | None,
    estimate: float | None,
    *,
    gate: float | None = None,
    status: str = "",
) -> Markup:
    """A case's interval on a 0–100 % axis: the interval as a band, the estimate as a dot,
    a rate gate's bar (``min_rate``) as a dashed line. Fractions outside [0, 1] are clamped;
    any of them may be ``None``. The 0/25/50/75/100 % grid is the page's CSS background
    (class ``bar``), not repeated in every bar. ``status`` (a row's status key, from the
    report) becomes one class token, ``s-{status}`` (:func:`~.markup.css_token`)."""

    def x(fraction: float) -> float:
        return BAR_PAD + _BAR_SPAN * min(1.0, max(0.0, fraction))

    parts = []
    if low is not None and high is not None:
        left, right = x(min(low, high)), x(max(low, high))
        width = max(right - left, 2.0)
        parts.append(f'<rect class="ci" x="{_c(left)}" y="4" width="{_c(width)}" height="6"/>')
    if gate is not None:
        parts.append(f'<path class="gate" d="M{_c(x(gate))} 0v{BAR_HEIGHT}"/>')
    if estimate is not None:
        parts.append(f'<circle class="pt" cx="{_c(x(estimate))}" cy="7" r="3.5"/>')
    token = css_token(status)
    return _svg(f"bar s-{token}" if token else "bar", BAR_WIDTH, BAR_HEIGHT, parts)


@dataclass
class Axis:
    """A horizontal scale from ``low`` to ``high`` (log10 when ``log``) over ``width`` px."""

    low: float
    high: float
    ticks: list[tuple[float, str]] = field(default_factory=list)
    log: bool = False
    width: int = 320
    pad: int = 10

    def x(self, value: float) -> float:
        """The pixel position of ``value`` (clamped to the axis)."""
        if self.log:
            value = math.log10(max(value, self.low))
            low, high = math.log10(self.low), math.log10(self.high)
        else:
            low, high = self.low, self.high
        share = 0.5 if high == low else (value - low) / (high - low)
        return self.pad + (self.width - 2 * self.pad) * min(1.0, max(0.0, share))


def _nice(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is at least ``value``."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= value - 1e-12)


def difference_axis(values: Iterable[float | None]) -> Axis:
    """A symmetric axis of differences of fractions (−m to +m, m ≤ 1), ticks in points."""
    largest = max((abs(v) for v in values if v is not None), default=0.0)
    reach = min(1.0, _nice(max(largest * 1.1, 0.05)))
    ticks = []
    for at in (q * reach for q in (-1, -0.5, 0, 0.5, 1)):
        points = round(at * 100, 1)
        ticks.append(
            (at, f"{'+' if points > 0 else MINUS}{abs(points):g} pp" if points else "0 pp")
        )
    return Axis(-reach, reach, ticks)


def time_axis(values: Iterable[float | None]) -> Axis:
    """Seconds from 0 (linear), or on a log scale when the values span over 50×."""
    positive = [v for v in values if v is not None and v > 0]
    if not positive:
        return Axis(0.0, 1.0, [(0.0, "0s"), (1.0, "1s")])
    smallest, largest = min(positive), max(positive)
    if largest / smallest <= 50:
        top = _nice(largest * 1.1)
        ticks = [(top * q / 4, short_duration(top * q / 4)) for q in range(5)]
        return Axis(0.0, top, ticks)
    low = 10 ** math.floor(math.log10(smallest))
    high = 10 ** math.ceil(math.log10(largest))
    exponents = range(round(math.log10(low)), round(math.log10(high)) + 1)
    step = max(1, math.ceil(len(exponents) / 6))
    ticks = [(10.0**e, short_duration(10.0**e)) for e in exponents[::step]]
    return Axis(low, high, ticks, log=True)


@dataclass
class ForestLine:
    """One row of a forest plot: its text cells, and what the plot between them draws.

    :ivar cells: one per header of :func:`forest_table`, the label first; :class:`Markup`
        kept as is. Missing cells at the end are empty.
    :ivar refs: reference lines for this row only (value, CSS class), e.g. its margin.
    :ivar css: a CSS class for the row's plot (a status or verdict colour).
    :ivar open_high: the interval has no upper end: drawn as an arrow to the edge.
    :ivar diamond: draw the estimate as a diamond (a summary line such as Overall).
    :ivar row_class: a CSS class for the ``<tr>`` (``sub`` for indented detail lines;
        ``overall`` by default for a diamond line).
    """

    cells: Sequence[object]
    low: float | None
    high: float | None
    estimate: float | None
    refs: Sequence[tuple[float, str]] = field(default_factory=list)
    css: str = ""
    open_high: bool = False
    diamond: bool = False
    row_class: str = ""


def _forest_row(axis: Axis, line: ForestLine, refs: Sequence[tuple[float, str]]) -> Markup:
    """The plot of one row: reference lines (the table's ``refs``, e.g. the zero line, and
    the row's own), the interval, and the estimate."""
    height, low, high = 22, line.low, line.high
    middle = height / 2
    parts = [
        f'<path class="{class_list(ref_class)}" d="M{_c(axis.x(value))} 0v{height}"/>'
        for value, ref_class in [*refs, *line.refs]
        if num(value) is not None
    ]
    if low is not None and (high is not None or line.open_high):
        left = axis.x(low)
        right = axis.x(high) if high is not None else axis.width - 2
        parts.append(f'<path class="ci" d="M{_c(left)} {middle:g}H{_c(right)}"/>')
        if high is None:
            parts.append(
                f'<path class="ci" d="M{_c(right - 5)} {middle - 4:g}L{_c(right)} {middle:g}'
                f'L{_c(right - 5)} {middle + 4:g}"/>'
            )
        else:
            parts.append(f'<path class="cap" d="M{_c(right)} {middle - 4:g}v8"/>')
        parts.append(f'<path class="cap" d="M{_c(left)} {middle - 4:g}v8"/>')
    if line.estimate is not None:
        x = axis.x(line.estimate)
        if line.diamond:
            parts.append(
                f'<path class="pt" d="M{_c(x - 6)} {middle:g}L{_c(x)} {middle - 5:g}'
                f'L{_c(x + 6)} {middle:g}L{_c(x)} {middle + 5:g}Z"/>'
            )
        else:
            parts.append(f'<circle class="pt" cx="{_c(x)}" cy="{middle:g}" r="4"/>')
    return _svg(class_list(f"forest {line.css}"), axis.width, height, parts)


def _axis_row(axis: Axis, refs: Sequence[tuple[float, str]]) -> Markup:
    """The tick labels of a forest plot's axis, drawn under its last row."""
    parts = [f'<path class="axis" d="M{axis.pad} 1H{axis.width - axis.pad}"/>']
    for value, ref_class in refs:
        parts.append(f'<path class="{class_list(ref_class)}" d="M{_c(axis.x(value))} 0v6"/>')
    last = len(axis.ticks) - 1
    for index, (value, label) in enumerate(axis.ticks):
        x = axis.x(value)
        anchor = "start" if index == 0 and last else ("end" if index == last and last else "middle")
        parts.append(f'<path class="axis" d="M{_c(x)} 1v5"/>')
        parts.append(f'<text x="{_c(x)}" y="19" text-anchor="{anchor}">{escape(label)}</text>')
    return _svg("forest axis-row", axis.width, 26, parts)


def stacked_bar(parts: Sequence[tuple[float, str, str]], width: int = 240) -> Markup:
    """A horizontal bar split in proportion to ``(count, CSS class, label)`` parts; each
    segment carries its label as a tooltip."""
    total = sum(max(0.0, count) for count, _, _ in parts)
    shapes = []
    x = 0.0
    for count, css, label in parts:
        if count <= 0 or total <= 0:
            continue
        share = width * count / total
        shapes.append(
            f'<rect class="{class_list(css)}" x="{_c(x)}" y="0" width="{_c(share)}" height="14">'
            f"<title>{escape(label)}</title></rect>"
        )
        x += share
    return _svg("stack", width, 14, shapes, ", ".join(label for *_, label in parts))


def value_bar(share: float, css: str, width: int = 120) -> Markup:
    """A bar filled to ``share`` (0–1) of its width (costs, token counts)."""
    filled = max(1.0, width * min(1.0, max(0.0, share)))
    bar = f'<rect class="{class_list(css)}" x="0" y="1" width="{_c(filled)}" height="8"/>'
    return _svg("valbar", width, 10, [bar])


def _cell(values: Sequence[object], index: int) -> object:
    return values[index] if index < len(values) else None


def forest_table(
    before: Sequence[str],
    after: Sequence[str],
    lines: Sequence[ForestLine],
    axis: Axis | None = None,
    *,
    refs: Sequence[tuple[float, str]] = (),
    caption: str | None = None,
) -> Markup:
    """A forest plot as a table whose rows each draw an interval on one shared axis, the
    numbers in text cells beside it (the table reads without the picture and copies as
    text): headers ``before`` + the plot + ``after``; ``refs`` are reference lines drawn on
    every row (the zero line), and marked on the axis. The axis is 0 % to 100 % unless
    given. A column after the plot that is empty on every row is left out."""
    axis = axis or Axis(0.0, 1.0, [(q / 4, f"{q * 25}%") for q in range(5)])
    split = len(before)
    kept = [
        i
        for i in range(split, split + len(after))
        if any(_cell(line.cells, i) not in (None, "") for line in lines)
    ]
    after = [after[i - split] for i in kept]
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in before)
    head += '<th scope="col" class="plot"><span class="sr">Plot</span></th>'
    head += "".join(f'<th scope="col">{escape(h)}</th>' for h in after)
    body = []
    for line in lines:
        cells = [f'<th scope="row">{case_id(line.cells[0])}</th>']
        cells += [f"<td>{escape(value)}</td>" for value in line.cells[1:split]]
        cells.append(f'<td class="plot">{_forest_row(axis, line, refs)}</td>')
        cells += [f"<td>{escape(_cell(line.cells, i))}</td>" for i in kept]
        row_css = class_list(line.row_class or ("overall" if line.diamond else ""))
        row_class = f' class="{row_css}"' if row_css else ""
        body.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    blank, axis_cell = "<td></td>", f'<td class="plot">{_axis_row(axis, refs)}</td>'
    body.append(f'<tr class="axis-line">{blank * len(before)}{axis_cell}{blank * len(after)}</tr>')
    caption_html = f"<caption>{escape(caption)}</caption>" if caption else ""
    return Markup(
        f'<div class="scroll"><table class="forest-table">{caption_html}<thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
    )
