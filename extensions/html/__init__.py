"""The ``html`` extension: ``--prob-html=PATH`` writes the session's report as one
self-contained HTML page (inline SVG plots, no network), and
``python -m pytest_probability html REPORT.json -o PATH`` renders a saved JSON report.

Extensions add panels to the page through ``pytest_prob_html_panels``, building their HTML
with the helpers exported here (every text escaped unless it is :class:`Markup`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from .markup import HtmlPanel, Markup, class_list, css_token, element, escape, join, table
from .render import ReportError, load_report, render_report
from .svg import interval_bar

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
