"""Hooks of the ``markdown`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

    from .markup import MarkdownSection

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_prob_markdown_sections(
    report: dict[str, Any], config: pytest.Config
) -> list[MarkdownSection] | MarkdownSection | None:
    """Add sections of your own to the Markdown summary.

    Called once per session in the aggregating process (the only process, or the
    pytest-xdist controller; never a worker), at ``pytest_sessionfinish``, when a summary
    is written (``--prob-markdown``, ``prob_markdown``, or a job summary file such as
    ``GITHUB_STEP_SUMMARY``) and some bench run produced a result: after every extension
    contributed to the report, just before the summary is rendered. Each implementation is
    called on its own: one that raises, or returns something other than sections, becomes a
    section marked as failed that names the extension and the error; the other sections and
    the rest of the summary are unaffected.

    :param report: the JSON report document, exactly as ``--prob-json`` writes it (see
        :doc:`/json`): ``rows``, ``records``, ``totals`` and every extension's keys, with
        non-finite numbers already ``null``. Read it; do not change it.
    :param config: the pytest config (``option_value(config, name)`` reads any setting).
    :return: a list of :class:`~pytest_probability.api.MarkdownSection` (or one section, or
        ``None`` for none), shown in order after the built-in sections, before the report's
        warnings (see :doc:`/markdown`). A section whose body is empty or only whitespace is
        not shown (as in the terminal).
    """


@hookspec(firstresult=True)
def pytest_prob_markdown_step_summary(config: pytest.Config) -> str | None:
    """Name the file a CI system shows as the job's summary, to append the Markdown to.

    Called once per session in the aggregating process (never an xdist worker), at
    ``pytest_sessionfinish``, when some bench run produced a result, before the summary is
    rendered.

    :param config: the pytest config.
    :return: a path (relative paths are relative to the directory pytest was started in) to
        append the summary to; ``""`` to append it nowhere; ``None`` to leave the answer
        to the next implementation. The first non-``None`` answer wins. When the file is
        also the ``--prob-markdown`` path, the summary is written there once, not appended.

    The bundled ``markdown`` extension's default (``trylast``) returns the value of the
    ``GITHUB_STEP_SUMMARY`` environment variable (GitHub Actions, and runners that copy its
    conventions), or ``""`` when it is unset or empty. A rootdir ``conftest.py`` can name
    another CI system's file, or return ``""`` to keep the summary out of the job page.
    """
