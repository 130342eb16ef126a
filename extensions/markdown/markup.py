"""Markdown building blocks: escaping text, tables and sections (GitHub-flavoured Markdown).

Every text a report holds may be hostile — a case id or a message can contain ``|``,
backticks, line breaks, ``<script>`` or ``$`` — and GitHub renders HTML and math in job
summaries. :func:`escape` turns any text into Markdown that renders as that text on one line:
it never ends a table cell, starts a block, opens a code span, link, emphasis or math, or
becomes HTML. Only :class:`Markdown` values are inserted as they are. Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: Characters that end a line in some renderer: each becomes one space.
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_CONTROLS: dict[int, str] = {ord(c): " " for c in _LINE_BREAKS}
_CONTROLS[ord("\t")] = " "
# the other C0 controls and DEL show as their Unicode control pictures (NUL → ␀)
_CONTROLS.update({code: chr(0x2400 + code) for code in range(0x20) if code not in _CONTROLS})
_CONTROLS[0x7F] = "\u2421"

#: ASCII punctuation with a meaning inside a line, always escaped: ``\`` escapes, backticks
#: open code spans, ``*`` emphasis, ``[`` links, images and footnotes (a ``]`` without its
#: ``[`` is plain text), ``|`` ends a table cell, ``~`` strikethrough, ``$`` math; ``&``,
#: ``<`` and ``>`` become entities (no HTML, no autolink).
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_INLINE = re.compile(
    r"[\\`*\[|~$&<>]"
    # ``_`` emphasises unless it is between two letters or digits (``identify_pii`` is safe)
    r"|(?<![^\W_])_|_(?![^\W_])"
    # GitHub turns ``http://…`` and ``www.…`` into links (an e-mail address too: that link
    # shows its own target, so it is left alone)
    r"|:(?=//)|(?<=www)\."
)
#: A line start that would begin a block: a list item, a heading, a thematic break or a
#: setext underline. Its first character (a numbered item's delimiter) is escaped.
_BLOCK_START = re.compile(r"^(?:[-+](?=\s|$)|#{1,6}(?=\s|$)|=+\s*$|-+\s*$)")
_NUMBERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_ALIGN = {"l": ":---", "r": "---:", "c": ":---:", "": "---"}


class Markdown(str):
    """Text that is already Markdown: :func:`escape`, :func:`table` and sections insert it
    as it is. Build it from escaped pieces: ``Markdown(f"**{escape(name)}**")``."""

    __slots__ = ()


def _inline(match: re.Match[str]) -> str:
    char = match.group()
    return _ENTITIES.get(char) or "\\" + char


def escape(value: Any) -> Markdown:
    """``value`` as Markdown text that renders as the text itself, on one line.

    Line breaks become spaces, other control characters their control pictures (``␀``),
    surrounding whitespace is dropped, and nothing in it can start a block, end a table
    cell or become markup or HTML. ``None`` is empty; :class:`Markdown` is returned as it is.
    """
    if isinstance(value, Markdown):
        return value
    if value is None:
        return Markdown("")
    text = str(value).replace("\r\n", "\n").translate(_CONTROLS).strip()
    text = _INLINE.sub(_inline, text)
    numbered = _NUMBERED.match(text)
    if numbered:
        text = f"{numbered.group(1)}\\{text[numbered.end(1) :]}"
    elif _BLOCK_START.match(text):
        text = "\\" + text
    return Markdown(text)


def _cell(value: Any) -> str:
    if isinstance(value, Markdown):  # kept, but it must stay in its cell
        return _UNESCAPED_PIPE.sub(r"\\|", value.replace("\r\n", " ").translate(_CONTROLS))
    return escape(value)


def table(
    headers: Sequence[Any], rows: Iterable[Sequence[Any]], align: str | Sequence[str] = ""
) -> Markdown:
    """A GitHub-flavoured Markdown table.

    :param headers: the column titles (text, escaped).
    :param rows: one sequence of cells per row: text (escaped), :class:`Markdown` (kept, its
        line breaks and unescaped ``|`` made safe for the table), or ``None`` (empty).
        Shorter rows are padded with empty cells; extra cells are dropped.
    :param align: one letter per column, ``l`` (left), ``r`` (right) or ``c`` (centre);
        missing letters mean the renderer's default.
    """
    width = len(headers)
    marks = [_ALIGN.get(align[i] if i < len(align) else "", "---") for i in range(width)]
    lines = [_line([_cell(h) for h in headers]), _line(marks)]
    for row in rows:
        cells = [_cell(cell) for cell in list(row)[:width]]
        lines.append(_line(cells + [""] * (width - len(cells))))
    return Markdown("\n".join(lines))


def _line(cells: Sequence[str]) -> str:
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


@dataclass(frozen=True)
class MarkdownSection:
    """A section of the Markdown summary: ``### title`` and its body.

    :ivar title: plain text (escaped).
    :ivar body: :class:`Markdown` (inserted as it is: tables, lists, paragraphs), or plain
        text, shown as escaped text with its lines kept.
    """

    title: str
    body: str
