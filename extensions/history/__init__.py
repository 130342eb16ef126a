"""The ``history`` extension: how each case's pass rate moved across sessions, and which
moves are real.

``--prob-history=DIR`` (or ``prob_history``) adds each session's JSON report to ``DIR``,
named by time and git commit; ``prob_history_keep`` prunes the oldest. ``python -m
pytest_probability history DIR`` reads such a directory (or any reports, of any version of
the plugin or of the spec's format) and writes one offline HTML page, a Markdown summary and
a JSON summary that lead with the moves that are real: for each case, exact two-sample tests
of the latest session against the one before and against the window before it, with the
Benjamini–Hochberg procedure across all cases at once.

The reading (:mod:`.sessions`), the statistics (:mod:`.moves`) and the renderers never
import pytest; only :mod:`.plugin` (the session's writer) does.

PYTEST_DONT_REWRITE
"""
