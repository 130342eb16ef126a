"""Case ids (and other row labels) as the page shows them: whole when there is room,
broken only at natural points when there is not. Pure module: never imports pytest.

An id of up to :data:`SHORT_ID` characters is one unbreakable unit (``white-space: nowrap``),
so a table column is never narrower than ``classify::identify_pii``: the table scrolls
sideways instead of cutting the id mid-word. A longer id may wrap, but only after ``::``,
``-``, ``_``, ``/``, ``.``, ``,``, ``=``, ``+``, ``)`` or ``]`` (a ``<wbr>`` there, besides
its spaces); a stretch of more than :data:`SHORT_ID` characters without any of them is
broken every :data:`SHORT_ID` characters, as a last resort.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re

from .markup import Markup, escape

#: Longest id kept on one line whatever the width of the page.
SHORT_ID = 40
#: The points a long id may break at: after each of these.
_BREAK_AFTER = re.compile(r"(?<=::)|(?<=[-_/.,=+)\]])")


def _pieces(text: str) -> list[str]:
    """``text`` cut after every natural break point, and long stretches every
    :data:`SHORT_ID` characters."""
    pieces = []
    for piece in _BREAK_AFTER.split(text):
        pieces += [piece[i : i + SHORT_ID] for i in range(0, len(piece), SHORT_ID)]
    return [piece for piece in pieces if piece]


def case_id(value: object) -> Markup:
    """A row label as HTML: a short one in ``<span class="id">`` (never wrapped), a long
    one with ``<wbr>`` at its natural break points; :class:`Markup` is kept as it is."""
    if isinstance(value, Markup):
        return value
    text = "" if value is None else str(value)
    if len(text) <= SHORT_ID:
        return Markup(f'<span class="id">{escape(text)}</span>')
    return Markup("<wbr>".join(escape(piece) for piece in _pieces(text)))
