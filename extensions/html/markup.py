"""Escaping and building HTML safely: the helpers every section and third-party panel uses.

Text is escaped unless it is :class:`Markup` (already HTML). Building pages from
:func:`element`, :func:`join` and :func:`table` keeps every case id, message and label
inert, whatever characters it holds (``<``, ``&``, quotes, newlines, control characters,
non-ASCII). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: C0 control characters (except tab, newline, carriage return) and DEL become their visible
#: "control picture" (U+2400 block): NUL is ``␀``, ESC ``␛``, so nothing invisible reaches
#: the page and nothing breaks the HTML parser.
_CONTROLS = {code: 0x2400 + code for code in range(32) if code not in (9, 10, 13)}
_CONTROLS[127] = 0x2421
_HAS_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: What a class token may hold; anything else in text made into one becomes ``-``.
_NOT_TOKEN = re.compile(r"[^A-Za-z0-9_-]+")
#: Longest class token made from text (a status or verdict key is a word).
TOKEN_LIMIT = 64
#: A tag or attribute name :func:`element` accepts (HTML's own names, ``data-*``, SVG's).
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_:.-]*\Z")

#: Elements without an end tag.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


class Markup(str):
    """A string that is already HTML: :func:`escape` and :func:`element` leave it as is.

    Wrap only HTML you produced yourself (``Markup("<b>ok</b>")``); wrap nothing that holds
    text from a report without escaping it first.
    """

    __slots__ = ()

    def __html__(self) -> str:
        return str(self)


def escape(value: object) -> Markup:
    """``value`` as HTML text: ``None`` is empty, :class:`Markup` is returned as it is,
    anything else is converted with ``str`` and escaped (``&``, ``<``, ``>``, both quotes;
    control characters become visible symbols). Safe in text and in quoted attributes."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("")
    text = str(value)
    if _HAS_CONTROL.search(text):
        text = text.translate(_CONTROLS)
    return Markup(html.escape(text, quote=True))


def css_token(value: object) -> str:
    """``value`` as one CSS class token: letters, digits, ``-`` and ``_`` kept, every other
    run of characters (spaces, quotes, ``<``, ``"``) turned into one ``-``, at most
    :data:`TOKEN_LIMIT` characters; empty for ``None``. Use it wherever text from a report
    (a status, a verdict, an outcome) becomes part of a class name (``s-{token}``): text
    can then neither add a second class nor leave the attribute.

    >>> css_token('flaky x"><meta')
    'flaky-x-meta'
    """
    if value is None:
        return ""
    return _NOT_TOKEN.sub("-", str(value)).strip("-")[:TOKEN_LIMIT]


def class_list(value: object) -> str:
    """A ``class`` attribute's value: each space-separated word through :func:`css_token`
    (empty words dropped). Not escaped again: the result holds no character to escape."""
    words = (css_token(word) for word in ("" if value is None else str(value)).split())
    return " ".join(word for word in words if word)


def _name(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not an HTML tag or attribute name: {name!r}")
    return name


def _attribute(name: str, value: object) -> str:
    if value is None or value is False:
        return ""
    name = _name(name.rstrip("_").replace("_", "-"))  # class_ → class, data_x → data-x
    if value is True:
        return f" {name}"
    return f' {name}="{class_list(value) if name == "class" else escape(value)}"'


def element(tag: str, *children: object, **attributes: object) -> Markup:
    """``<tag attributes>children</tag>`` with every child and attribute value escaped.

    Children that are :class:`Markup` are kept as they are; ``None`` children are skipped.
    Attribute names lose a trailing ``_`` and turn ``_`` into ``-`` (``class_="x"``,
    ``data_sort="rate"``); a ``True`` value writes the bare attribute, ``None`` or ``False``
    leaves it out. A ``class_`` value is a list of class tokens (:func:`class_list`). Void
    elements (``br``, ``input``, …) get no end tag. A tag or attribute name that is not a
    plain name raises :class:`ValueError`.

    >>> element("td", "a<b", class_="case")
    '<td class="case">a&lt;b</td>'
    """
    start = f"<{_name(tag)}{''.join(_attribute(*pair) for pair in attributes.items())}>"
    if tag in VOID:
        return Markup(start)
    return Markup(f"{start}{join(children)}</{tag}>")


def join(parts: Iterable[object], separator: str = "") -> Markup:
    """Escape each part (``None`` skipped) and concatenate them."""
    return Markup(separator.join(escape(part) for part in parts if part is not None))


def table(
    headers: Sequence[object],
    rows: Iterable[Sequence[object]],
    *,
    caption: object = None,
    class_: str | None = None,
) -> Markup:
    """A ``<table>`` with one header row and one row per sequence of cells.

    Cells are escaped unless they are :class:`Markup`. The table scrolls sideways on narrow
    screens instead of widening the page.
    """
    head = element("tr", *(element("th", cell, scope="col") for cell in headers))
    body = join(element("tr", *(element("td", cell) for cell in row)) for row in rows)
    caption_html = None if caption is None else element("caption", caption)
    inner = join([caption_html, element("thead", head), element("tbody", body)])
    return element("div", element("table", inner, class_=class_), class_="scroll")


@dataclass(frozen=True)
class HtmlPanel:
    """One panel of the HTML report, contributed by ``pytest_prob_html_panels``.

    :ivar title: the panel's heading, plain text (escaped when shown).
    :ivar body: the panel's content. :class:`Markup` (built with :func:`element`,
        :func:`table`, :func:`join` or :func:`escape`) is inserted as HTML; a plain ``str``
        is shown as text, escaped, in a paragraph that keeps its line breaks.
    :ivar anchor: an optional id for links to the panel (``#my-panel``); by default one is
        made from the title.
    """

    title: str
    body: Markup | str = ""
    anchor: str | None = None
