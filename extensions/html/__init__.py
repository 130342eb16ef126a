"""The ``html`` extension: ``--prob-html=PATH`` writes the session's report as one
self-contained HTML page (inline SVG plots, no network), and
``python -m pytest_probability html REPORT.json -o PATH`` renders a saved JSON report.

Extensions add panels to the page through ``pytest_prob_html_panels``, building their HTML
with the helpers the public API publishes (``HtmlPanel``, ``Markup``, ``element``,
``html_escape``, ``html_table``; every text escaped unless it is ``Markup``). The package
imports nothing itself: a session without the page loads only the modules it uses.

PYTEST_DONT_REWRITE
"""
