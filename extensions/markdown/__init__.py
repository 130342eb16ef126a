"""The ``markdown`` extension: a Markdown summary of the session for CI pages.

``--prob-markdown=PATH`` (or ``prob_markdown``) writes it to PATH, and when
``GITHUB_STEP_SUMMARY`` is set (GitHub Actions) it is appended to that file, so the job's
summary page shows the fraction table, the gates, the comparisons and the cost.

Extensions add sections of their own through ``pytest_prob_markdown_sections``, building
their Markdown with the helpers the public API publishes (``Markdown``, ``MarkdownSection``,
``markdown_escape``, ``markdown_table``; every text escaped unless it is ``Markdown``). The
package imports nothing itself.

PYTEST_DONT_REWRITE
"""
