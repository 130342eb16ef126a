"""The ``html`` extension: ``--prob-html=PATH`` writes the session's report as one
self-contained HTML page (inline SVG plots, no network), and
``python -m pytest_probability html REPORT.json -o PATH`` renders a saved JSON report.

Extensions add panels to the page through ``pytest_prob_html_panels``, building their HTML
with the helpers exported here (every text escaped unless it is :class:`Markup`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .markup import HtmlPanel, Markup, class_list, css_token, element, escape, join, table
from .svg import interval_bar

if TYPE_CHECKING:
    from .render import ReportError, load_report, render_report

#: what :mod:`.render` provides, imported on first use: the page's modules take a few
#: milliseconds to import, which a session without ``--prob-html`` need not pay
_FROM_RENDER = frozenset({"ReportError", "load_report", "render_report"})


def __getattr__(name: str) -> Any:
    if name in _FROM_RENDER:
        from . import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HtmlPanel",
    "Markup",
    "ReportError",
    "class_list",
    "css_token",
    "element",
    "escape",
    "interval_bar",
    "join",
    "load_report",
    "render_report",
    "table",
]
