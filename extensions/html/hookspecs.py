"""Hooks of the ``html`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from .markup import HtmlPanel

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_prob_html_panels(
    report: dict[str, Any], config: pytest.Config
) -> list[HtmlPanel] | HtmlPanel | None:
    """Add panels of your own to the HTML report.

    Called once per session in the aggregating process (the only process, or the
    pytest-xdist controller; never a worker), at ``pytest_sessionfinish`` when
    ``--prob-html`` (or ``prob_html``) asks for the page, after every extension contributed
    to the report and just before the page is written. Not called by
    ``python -m pytest_probability html``, which renders a saved report without a pytest
    session. Each implementation is called on its own: one that raises, or returns
    something other than panels, becomes a panel marked as failed that names the extension
    and the error; the other panels and the rest of the page are unaffected.

    :param report: the JSON report document, exactly as ``--prob-json`` writes it (see
        :doc:`/json`): ``rows``, ``records``, ``totals`` and every extension's keys, with
        non-finite numbers already ``null``. Read it; do not change it.
    :param config: the pytest config (``option_value(config, name)`` reads any setting).
    :return: a list of :class:`~pytest_probability.api.HtmlPanel` (or one panel, or ``None``
        for none), shown in order after the built-in summaries, before the case table (see
        :doc:`/html`, "Panels of your own"). The page's security policy runs no script but
        its own and loads nothing from the network: put images in ``data:`` URLs or draw
        them as inline SVG (:func:`~pytest_probability.extensions.html.svg.interval_bar`).
    """
