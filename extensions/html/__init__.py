"""The ``html`` extension: ``--prob-html=PATH`` writes the session's report as one
self-contained HTML page (inline SVG plots, no network), and
``python -m pytest_probability html REPORT.json -o PATH`` renders a saved JSON report.

Extensions add panels to the page through ``pytest_prob_html_panels``, building their HTML
with the helpers exported here (every text escaped unless it is :class:`Markup`)."""

from .markup import HtmlPanel, Markup, element, escape, join, table
from .render import ReportError, load_report, render_report
from .svg import interval_bar

__all__ = [
    "HtmlPanel",
    "Markup",
    "ReportError",
    "element",
    "escape",
    "interval_bar",
    "join",
    "load_report",
    "render_report",
    "table",
]
