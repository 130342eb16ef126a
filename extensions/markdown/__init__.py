"""The ``markdown`` extension: a Markdown summary of the session for CI pages.

``--prob-markdown=PATH`` (or ``prob_markdown``) writes it to PATH, and when
``GITHUB_STEP_SUMMARY`` is set (GitHub Actions) it is appended to that file, so the job's
summary page shows the fraction table, the gates, the comparisons and the cost.

Extensions add sections of their own through ``pytest_prob_markdown_sections``, building
their Markdown with the helpers exported here (every text escaped unless it is
:class:`Markdown`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .markup import Markdown, MarkdownSection, escape, table

if TYPE_CHECKING:
    from .render import render_markdown

#: what :mod:`.render` provides, imported on first use (a session without a summary need
#: not import the renderer and the formatting modules it uses)
_FROM_RENDER = frozenset({"render_markdown"})


def __getattr__(name: str) -> Any:
    if name in _FROM_RENDER:
        from . import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Markdown", "MarkdownSection", "escape", "render_markdown", "table"]
