"""Inline SVG sparklines for the history page: a value per session on a shared x axis (the
session's index over every session of the history, so that the small multiples align), an
optional interval band, tooltips (``<title>``) per session, and an optional strip of gate
verdicts under the line.

Everything is drawn here, in Python: the page's script never touches a plot. Colours come
from the page's CSS classes (light and dark). Each sparkline is ``role="img"`` with an
``aria-label`` that says what it shows in words; the tooltips are for pointer users, and
every number they hold is also in the text beside the plot or in the JSON reports. Pure
module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_probability.api import Markup, html_escape

#: The drawing area of a card's sparkline (its ``viewBox``; CSS scales it to the card).
CARD_WIDTH = 220
CARD_HEIGHT = 40
#: A function's trend plots.
TREND_WIDTH = 300
TREND_HEIGHT = 48
#: Blank margin inside the plot, so the line's ends and the dots are not cut.
PAD = 3
#: The gate strip under a plot: a gap, then squares this tall.
STRIP_GAP = 3
STRIP_HEIGHT = 6
#: The verdicts with a colour of their own; any other verdict is drawn as ``v-other``.
VERDICTS = frozenset({"pass", "fail", "undecided"})


@dataclass(frozen=True)
class Mark:
    """One session on a sparkline.

    :ivar value: the value drawn (``None``: nothing that session, a gap in the line).
    :ivar low: the interval's lower end, drawn as a band with ``high`` (optional).
    :ivar title: the tooltip, plain text (escaped here); empty for none.
    :ivar verdict: a gate verdict for the strip under the plot, or ``None``: not gated.
    """

    value: float | None
    low: float | None = None
    high: float | None = None
    title: str = ""
    verdict: str | None = None


def _c(value: float) -> str:
    """A coordinate with at most one decimal."""
    return f"{value:.1f}".removesuffix(".0")


def _runs(marks: Sequence[Mark]) -> list[list[int]]:
    """The stretches of consecutive sessions that have a value."""
    runs: list[list[int]] = []
    current: list[int] = []
    for index, mark in enumerate(marks):
        if mark.value is None:
            if current:
                runs.append(current)
                current = []
        else:
            current.append(index)
    if current:
        runs.append(current)
    return runs


def sparkline(
    marks: Sequence[Mark],
    *,
    label: str,
    top: float = 1.0,
    width: int = CARD_WIDTH,
    height: int = CARD_HEIGHT,
    css: str = "spark",
    grid: Sequence[float] = (0.0, 0.5, 1.0),
) -> Markup:
    """An SVG sparkline of ``marks`` (one per session, oldest first) on a 0–``top`` scale.

    ``label`` is the plot's accessible name (plain text, escaped here). ``grid`` lists the
    fractions of ``top`` where faint horizontal lines are drawn. The band is drawn where
    both ends of a mark's interval are known; a gap in the values breaks line and band; an
    isolated value is a dot; the last value is a larger dot. When any mark has a verdict, a
    strip of squares under the plot shows them (none where ``verdict`` is ``None``).
    """
    count = len(marks)
    span = width - 2 * PAD
    step = span / (count - 1) if count > 1 else float(span)
    top = top if top > 0 else 1.0
    inner = height - 2 * PAD

    def x(index: int) -> float:
        return PAD + index * step if count > 1 else width / 2

    def y(value: float) -> float:
        return PAD + inner * (1.0 - min(1.0, max(0.0, value / top)))

    xs = [x(index) for index in range(count)]
    parts: list[str] = []
    if grid:
        lines = "".join(f"M{PAD} {_c(y(top * g))}H{width - PAD}" for g in grid)
        parts.append(f'<path class="rule" d="{lines}"/>')
    runs = _runs(marks)
    for run in runs:
        banded = [i for i in run if marks[i].low is not None and marks[i].high is not None]
        if len(banded) == len(run) and len(run) > 1:
            upper = "L".join(f"{_c(xs[i])} {_c(y(marks[i].high or 0.0))}" for i in run)
            lower = "L".join(f"{_c(xs[i])} {_c(y(marks[i].low or 0.0))}" for i in reversed(run))
            parts.append(f'<path class="band" d="M{upper}L{lower}Z"/>')
        else:
            for i in banded:
                low, high = y(marks[i].low or 0.0), y(marks[i].high or 0.0)
                parts.append(
                    f'<rect class="band" x="{_c(xs[i] - 1.5)}" y="{_c(high)}" width="3" '
                    f'height="{_c(max(low - high, 1.0))}"/>'
                )
    for run in runs:
        if len(run) == 1:
            i = run[0]
            cy = _c(y(marks[i].value or 0.0))
            parts.append(f'<circle class="dot" cx="{_c(xs[i])}" cy="{cy}" r="1.8"/>')
        else:
            path = "L".join(f"{_c(xs[i])} {_c(y(marks[i].value or 0.0))}" for i in run)
            parts.append(f'<path class="line" d="M{path}"/>')
    if runs:
        last = runs[-1][-1]
        cy = _c(y(marks[last].value or 0.0))
        parts.append(f'<circle class="end" cx="{_c(xs[last])}" cy="{cy}" r="2.6"/>')
    gated = any(mark.verdict is not None for mark in marks)
    full = height + (STRIP_GAP + STRIP_HEIGHT if gated else 0)
    if gated:
        side = max(1.0, min(step - 1.0, float(STRIP_HEIGHT)))
        top_y = height + STRIP_GAP
        for i, mark in enumerate(marks):
            if mark.verdict is None:
                continue
            kind = mark.verdict if mark.verdict in VERDICTS else "other"
            parts.append(
                f'<rect class="v v-{kind}" x="{_c(xs[i] - side / 2)}" y="{top_y}" '
                f'width="{_c(side)}" height="{STRIP_HEIGHT}"/>'
            )
    hit = _c(max(step, 1.0))
    for i, mark in enumerate(marks):
        if mark.title:
            left = min(max(xs[i] - step / 2, 0.0), width - step) if count > 1 else 0.0
            parts.append(
                f'<rect class="hit" x="{_c(left)}" width="{hit if count > 1 else width}" '
                f'height="{full}"><title>{html_escape(mark.title)}</title></rect>'
            )
    return Markup(
        f'<svg class="{css}" width="{width}" height="{full}" viewBox="0 0 {width} {full}" '
        f'role="img" aria-label="{html_escape(label)}">{"".join(parts)}</svg>'
    )
