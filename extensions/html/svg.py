"""Inline SVG plots: interval bars, forest-plot rows and axes, stacked and value bars.

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

from .fmt import MINUS, short_duration
from .markup import Markup, class_list, css_token, escape

BAR_WIDTH = 160
BAR_HEIGHT = 14
BAR_PAD = 5
_BAR_SPAN = BAR_WIDTH - 2 * BAR_PAD


def _c(value: float) -> str:
    """A coordinate with at most one decimal."""
    return f"{value:.1f}".removesuffix(".0")


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
    css = f"bar s-{token}" if token else "bar"
    return Markup(
        f'<svg class="{css}" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" '
        f'viewBox="0 0 {BAR_WIDTH} {BAR_HEIGHT}" aria-hidden="true">{"".join(parts)}</svg>'
    )


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

    def inside(self, value: float) -> bool:
        return self.low <= value <= self.high


def percent_axis(width: int = 320) -> Axis:
    """0 % to 100 % with ticks every 25 %."""
    ticks = [(q / 4, f"{q * 25}%") for q in range(5)]
    return Axis(0.0, 1.0, ticks, width=width)


def _nice(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is at least ``value``."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value - 1e-12:
            return step * power
    return 10 * power


def difference_axis(values: Iterable[float | None], width: int = 320) -> Axis:
    """A symmetric axis of differences of fractions (−m to +m, m ≤ 1), ticks in points."""
    largest = max((abs(v) for v in values if v is not None), default=0.0)
    reach = min(1.0, _nice(max(largest * 1.1, 0.05)))
    ticks = []
    for q in (-1, -0.5, 0, 0.5, 1):
        points = round(q * reach * 100, 1)
        label = f"{abs(points):g}" if points else "0"
        sign = "+" if points > 0 else (MINUS if points < 0 else "")
        ticks.append((q * reach, f"{sign}{label} pp"))
    return Axis(-reach, reach, ticks, width=width)


def time_axis(values: Iterable[float | None], width: int = 320) -> Axis:
    """Seconds from 0 (linear), or on a log scale when the values span over 50×."""
    positive = [v for v in values if v is not None and v > 0]
    if not positive:
        return Axis(0.0, 1.0, [(0.0, "0s"), (1.0, "1s")], width=width)
    smallest, largest = min(positive), max(positive)
    if largest / smallest <= 50:
        top = _nice(largest * 1.1)
        ticks = [(top * q / 4, short_duration(top * q / 4)) for q in range(5)]
        return Axis(0.0, top, ticks, width=width)
    low = 10 ** math.floor(math.log10(smallest))
    high = 10 ** math.ceil(math.log10(largest))
    exponents = range(round(math.log10(low)), round(math.log10(high)) + 1)
    step = max(1, math.ceil(len(exponents) / 6))
    ticks = [(10.0**e, short_duration(10.0**e)) for e in exponents[::step]]
    return Axis(low, high, ticks, log=True, width=width)


def forest_row(
    axis: Axis,
    low: float | None,
    high: float | None,
    estimate: float | None,
    *,
    refs: Sequence[tuple[float, str]] = (),
    css: str = "",
    open_high: bool = False,
    diamond: bool = False,
    height: int = 22,
) -> Markup:
    """One row of a forest plot: reference lines (``refs``: value and CSS class, e.g. the
    zero line and margins), the interval, and the estimate (a diamond for summary lines).
    ``open_high`` draws an interval without an upper end as an arrow to the edge."""
    middle = height / 2
    parts = []
    for value, ref_class in refs:
        if num(value) is not None:
            parts.append(
                f'<path class="{class_list(ref_class)}" d="M{_c(axis.x(value))} 0v{height}"/>'
            )
    if low is not None and (high is not None or open_high):
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
    if estimate is not None:
        x = axis.x(estimate)
        if diamond:
            parts.append(
                f'<path class="pt" d="M{_c(x - 6)} {middle:g}L{_c(x)} {middle - 5:g}'
                f'L{_c(x + 6)} {middle:g}L{_c(x)} {middle + 5:g}Z"/>'
            )
        else:
            parts.append(f'<circle class="pt" cx="{_c(x)}" cy="{middle:g}" r="4"/>')
    return Markup(
        f'<svg class="{class_list(f"forest {css}")}" width="{axis.width}" height="{height}" '
        f'viewBox="0 0 {axis.width} {height}" aria-hidden="true">{"".join(parts)}</svg>'
    )


def axis_row(axis: Axis, refs: Sequence[tuple[float, str]] = ()) -> Markup:
    """The tick labels of a forest plot's axis, drawn under its last row."""
    height = 26
    parts = [f'<path class="axis" d="M{axis.pad} 1H{axis.width - axis.pad}"/>']
    for value, ref_class in refs:
        parts.append(f'<path class="{class_list(ref_class)}" d="M{_c(axis.x(value))} 0v6"/>')
    last = len(axis.ticks) - 1
    for index, (value, label) in enumerate(axis.ticks):
        x = axis.x(value)
        anchor = "start" if index == 0 and last else ("end" if index == last and last else "middle")
        parts.append(f'<path class="axis" d="M{_c(x)} 1v5"/>')
        parts.append(f'<text x="{_c(x)}" y="19" text-anchor="{anchor}">{escape(label)}</text>')
    return Markup(
        f'<svg class="forest axis-row" width="{axis.width}" height="{height}" '
        f'viewBox="0 0 {axis.width} {height}" aria-hidden="true">{"".join(parts)}</svg>'
    )


def stacked_bar(parts: Sequence[tuple[float, str, str]], width: int = 320) -> Markup:
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
    return Markup(
        f'<svg class="stack" width="{width}" height="14" viewBox="0 0 {width} 14" '
        f'role="img" aria-label="{escape(", ".join(label for *_, label in parts))}">'
        f"{''.join(shapes)}</svg>"
    )


def value_bar(share: float, css: str = "val", width: int = 120) -> Markup:
    """A bar filled to ``share`` (0–1) of its width (costs, token counts)."""
    filled = max(1.0, width * min(1.0, max(0.0, share)))
    return Markup(
        f'<svg class="valbar" width="{width}" height="10" viewBox="0 0 {width} 10" '
        f'aria-hidden="true"><rect class="{class_list(css)}" x="0" y="1" width="{_c(filled)}" '
        f'height="8"/></svg>'
    )
