"""Forest plots: a table whose rows each draw an interval on one shared axis.

The numbers stay in text cells beside the plot, so the table reads without the picture
and copies as text. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .ids import case_id
from .markup import Markup, class_list, escape
from .svg import Axis, axis_row, forest_row


@dataclass
class ForestLine:
    """One row: text cells before and after the plot, and what the plot draws.

    :ivar before: cells left of the plot (the label first); :class:`Markup` kept as is.
    :ivar after: cells right of the plot.
    :ivar refs: reference lines for this row only (value, CSS class), e.g. its margin.
    :ivar css: a CSS class for the row's plot (a status or verdict colour).
    :ivar open_high: the interval has no upper end: drawn as an arrow to the edge.
    :ivar diamond: draw the estimate as a diamond (a summary line such as Overall).
    :ivar row_class: a CSS class for the ``<tr>`` (``sub`` for indented detail lines).
    """

    before: Sequence[object]
    low: float | None
    high: float | None
    estimate: float | None
    after: Sequence[object] = ()
    refs: Sequence[tuple[float, str]] = field(default_factory=list)
    css: str = ""
    open_high: bool = False
    diamond: bool = False
    row_class: str = ""


def _filled(values: Sequence[object], index: int) -> bool:
    return index < len(values) and values[index] not in (None, "")


def _cell(value: object) -> str:
    return f"<td>{escape(value)}</td>"


def forest_table(
    before: Sequence[str],
    after: Sequence[str],
    lines: Sequence[ForestLine],
    axis: Axis,
    *,
    refs: Sequence[tuple[float, str]] = (),
    caption: str | None = None,
) -> Markup:
    """The forest plot as a table: headers ``before`` + the plot + ``after``; ``refs`` are
    reference lines drawn on every row (the zero line), and marked on the axis. A column
    after the plot that is empty on every row is left out."""
    kept = [i for i in range(len(after)) if any(_filled(line.after, i) for line in lines)]
    after = [after[i] for i in kept]
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in before)
    head += '<th scope="col" class="plot"><span class="sr">Plot</span></th>'
    head += "".join(f'<th scope="col">{escape(h)}</th>' for h in after)
    body = []
    for line in lines:
        plot = forest_row(
            axis,
            line.low,
            line.high,
            line.estimate,
            refs=[*refs, *line.refs],
            css=line.css,
            open_high=line.open_high,
            diamond=line.diamond,
        )
        cells = [f'<th scope="row">{case_id(line.before[0])}</th>' if line.before else ""]
        cells += [_cell(value) for value in line.before[1:]]
        cells.append(f'<td class="plot">{plot}</td>')
        cells += [_cell(line.after[i] if i < len(line.after) else "") for i in kept]
        row_class = f' class="{class_list(line.row_class)}"' if class_list(line.row_class) else ""
        body.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    blanks = "<td></td>" * len(before)
    trailing = "<td></td>" * len(after)
    body.append(
        f'<tr class="axis-line">{blanks}<td class="plot">{axis_row(axis, refs)}</td>{trailing}</tr>'
    )
    caption_html = f"<caption>{escape(caption)}</caption>" if caption else ""
    return Markup(
        f'<div class="scroll"><table class="forest-table">{caption_html}<thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
    )
