"""The report builder: what extensions contribute, rendered to terminal lines and JSON parts.

Extensions never print: they add *columns* (one cell per row), *summary lines* (``Overall:``,
``Cost:``), *blocks* (free lines under the summary), *sections* (``probability: gates``) and
*JSON fields* (a top-level key, row fields, totals fields). The kernel renders them, every
text with its control and escape sequences made visible (:func:`visible`: a cell, line or
warning may hold a user's, a server's or a third party's text). Pure module: never imports
pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..formatting.terminal_text import visible

Align = Literal["left", "right", "free"]
GAP = "  "
INDENT = "  "


@dataclass
class Column:
    """A column of the main table.

    ``left``/``right`` columns are padded to their widest cell; ``free`` columns come after
    all aligned ones, are not padded, and empty cells are dropped (status words, notes).
    """

    key: str
    order: int
    cells: dict[str, str]
    align: Align = "right"


@dataclass
class Summary:
    order: int
    label: str
    lines: list[str]


@dataclass
class Section:
    order: int
    title: str
    lines: list[str]


@dataclass
class Block:
    order: int
    lines: list[str]


@dataclass
class ReportBuilder:
    """Collects contributions for one session's report.

    :ivar rows: ``(row key, displayed case id)`` in display order; row keys are
        :attr:`~pytest_probability.report.results.CaseResult.key`.
    """

    rows: list[tuple[str, str]]
    columns: list[Column] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    json: dict[str, Any] = field(default_factory=dict)
    row_json: dict[str, dict[str, Any]] = field(default_factory=dict)
    totals_json: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    record_finishers: list[Callable[[dict[str, Any]], None]] = field(default_factory=list)

    def add_column(
        self, key: str, cells: Mapping[str, str], *, order: int, align: Align = "right"
    ) -> None:
        """Add a column: ``cells`` maps row keys to text (missing rows are blank)."""
        shown = {row: visible(cell) for row, cell in cells.items()}
        self.columns.append(Column(key=key, order=order, cells=shown, align=align))

    def add_summary(self, label: str, text: str | Sequence[str], *, order: int) -> None:
        """Add a labelled summary line (``Cost:``); several lines continue under the first."""
        lines = _shown([text] if isinstance(text, str) else text)
        self.summaries.append(Summary(order=order, label=visible(label), lines=lines))

    def add_block(self, lines: Sequence[str], *, order: int) -> None:
        """Add free lines to the main section, after the summary lines."""
        self.blocks.append(Block(order=order, lines=_shown(lines)))

    def add_section(self, title: str, lines: Sequence[str], *, order: int) -> None:
        """Add a section of its own, printed as ``=== probability: <title> ===``. A section
        with no lines (or only blank ones) is not added: no extension prints an empty
        header."""
        kept = _shown(lines)
        if any(line.strip() for line in kept):
            self.sections.append(Section(order=order, title=visible(title), lines=kept))

    def set_json(self, key: str, value: Any) -> None:
        """Set a top-level JSON key (by convention, the extension's name)."""
        self.json[key] = value

    def add_row_json(self, row_key: str, fields: Mapping[str, Any]) -> None:
        """Add fields to one row of the JSON report."""
        self.row_json.setdefault(row_key, {}).update(fields)

    def add_totals_json(self, fields: Mapping[str, Any]) -> None:
        """Add fields to the JSON ``totals`` object."""
        self.totals_json.update(fields)

    def add_record_finisher(self, finish: Callable[[dict[str, Any]], None]) -> None:
        """Have ``finish`` prepare each run record as the reports write it (the JSON and
        HTML ``records``), for work worth doing only then (rounding sums for display).

        It is called once per record as the record is written, with a shallow copy of it:
        set keys on the copy, and replace nested values rather than change them (they are
        the session's own, which later hooks and reports read).
        """
        self.record_finishers.append(finish)

    def warn(self, message: str) -> None:
        """Note a problem met while building; shown in the terminal and the JSON."""
        self.warnings.append(message)


def _shown(lines: Sequence[Any]) -> list[str]:
    """Terminal lines as printed: each made text, its escapes visible."""
    return [visible(str(line)) for line in lines]


def render_table(builder: ReportBuilder) -> list[str]:
    """The rows of the main section, aligned as the spec prints them."""
    if not builder.rows:
        return []
    label_width = max(len(display) for _, display in builder.rows)
    columns = sorted(builder.columns, key=lambda c: (c.align == "free", c.order))
    widths = {
        id(c): max((len(c.cells.get(key, "")) for key, _ in builder.rows), default=0)
        for c in columns
    }
    lines = []
    for key, display in builder.rows:
        parts = [INDENT + display.ljust(label_width)]
        for column in columns:
            cell = column.cells.get(key, "")
            width = widths[id(column)]
            if column.align == "free":
                if cell:
                    parts.append(cell)
            elif width:
                parts.append(cell.rjust(width) if column.align == "right" else cell.ljust(width))
        lines.append(GAP.join(parts).rstrip())
    return lines


def render_summaries(summaries: Sequence[Summary]) -> list[str]:
    """``Overall: …`` style lines, values aligned after the longest label."""
    ordered = sorted(summaries, key=lambda s: s.order)
    if not ordered:
        return []
    width = max(len(s.label) for s in ordered) + 1
    lines = []
    for summary in ordered:
        for index, text in enumerate(summary.lines):
            label = summary.label if index == 0 else ""
            lines.append((INDENT + label.ljust(width) + text).rstrip())
    return lines


def render_main(builder: ReportBuilder) -> list[str]:
    """The whole ``probability`` section body."""
    lines = render_table(builder)
    summary = render_summaries(builder.summaries)
    if summary:
        lines += ["", *summary] if lines else summary
    for block in sorted(builder.blocks, key=lambda b: b.order):
        lines += ["", *block.lines] if lines else block.lines
    if builder.warnings:
        lines += ["", *(f"{INDENT}warning: {visible(w)}" for w in builder.warnings)]
    return lines


def print_report(terminalreporter: Any, builder: ReportBuilder) -> None:
    """Print the ``probability`` section (when something ran: ``--prob-plan`` has only the
    extensions' sections) and every extension section, in their order."""
    main = render_main(builder)
    if main:
        terminalreporter.write_sep("=", "probability")
        for line in main:
            terminalreporter.write_line(line)
    for section in sorted(builder.sections, key=lambda s: s.order):
        terminalreporter.write_sep("=", f"probability: {section.title}")
        for line in section.lines:
            terminalreporter.write_line(line)
