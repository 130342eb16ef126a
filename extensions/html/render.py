"""Rendering a report document (the ``--prob-json`` dict) as one self-contained HTML page.

The pytest plugin and ``python -m pytest_probability html`` both call :func:`render_report`,
so a page rendered later from a saved report matches the one written by the session
(except for panels, which extensions add only inside a pytest session). A section that
cannot be drawn from the data it finds becomes a marked panel with the error; the rest of
the page is unaffected. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest_probability.api as api

from .cases import render_cases
from .compare import render_baseline, render_comparisons
from .explained import render_explained
from .markup import HtmlPanel, Markup, escape
from .page import Section, render_page, render_settings, render_totals, render_warnings, slug
from .summaries import render_aggregates, render_gates, render_latency, render_metrics
from .usage import render_cost, render_plan, render_stopping

Renderer = Callable[[Mapping[str, Any]], "Markup | None"]

#: The built-in sections in page order: (anchor, title, renderer). Third-party panels go
#: after ``plan``, before the case table.
BEFORE_PANELS: tuple[tuple[str, str, Renderer], ...] = (
    ("warnings", "Warnings", render_warnings),
    ("functions", "Functions and Overall", render_aggregates),
    ("gates", "Gates", render_gates),
    ("comparisons", "Comparisons", render_comparisons),
    ("baseline", "Baseline", render_baseline),
    ("metrics", "Metrics", render_metrics),
    ("latency", "Latency", render_latency),
    ("cost", "Cost and tokens", render_cost),
    ("stopping", "Early stopping", render_stopping),
    ("plan", "Run plan", render_plan),
)
AFTER_PANELS: tuple[tuple[str, str, Renderer], ...] = (
    ("case-list", "Cases", render_cases),
    ("explained", "Explained", render_explained),
)
SECTION_CLASSES = {"warnings": "panel failed"}
#: Deepest nesting of objects and arrays a report file may have (a report has about six
#: levels; extensions' own fields a few more). Deeper input is refused when loaded, rather
#: than running into Python's recursion limit while it is parsed or drawn.
MAX_DEPTH = 100


class ReportError(Exception):
    """A report file cannot be read: missing, unreadable, not JSON, or not a report."""


class FailedPanel(HtmlPanel):
    """A panel standing in for a section or an extension that raised while drawing."""


def failed_panel(source: str, exc: BaseException) -> FailedPanel:
    """The marked panel for ``source`` (a section or an extension) that raised ``exc``."""
    body = Markup(
        f"<p>This part could not be drawn: <code>{escape(type(exc).__name__)}: "
        f"{escape(exc)}</code></p><p>The rest of the report is unaffected.</p>"
    )
    return FailedPanel(title=f"{source} (failed)", body=body)


def _panel_body(panel: HtmlPanel) -> Markup:
    if isinstance(panel.body, Markup):
        return panel.body
    return Markup(f'<p class="plain">{escape(panel.body)}</p>')


def _built_in(
    document: Mapping[str, Any], specs: Iterable[tuple[str, str, Renderer]], taken: set[str]
) -> list[Section]:
    sections = []
    for anchor, title, renderer in specs:
        taken.add(anchor)
        try:
            body = renderer(document)
        except Exception as exc:  # a malformed section must not lose the rest of the page
            panel = failed_panel(title, exc)
            sections.append(Section(anchor, panel.title, _panel_body(panel), "panel failed"))
            continue
        if body:
            sections.append(Section(anchor, title, body, SECTION_CLASSES.get(anchor, "")))
    return sections


def _every_latency(document: Mapping[str, Any]) -> Markup | None:
    """The latency section of a ``--prob-latency`` session: every timed case."""
    return render_latency(document, every=True)


def render_report(
    document: Mapping[str, Any], panels: Iterable[HtmlPanel] = (), *, latency: bool = False
) -> str:
    """The HTML page for a report document, with extra ``panels`` after the summaries.

    ``latency`` says that the session ran with ``--prob-latency`` (a report written since
    records it as ``"latency": {"every_case": true}``, which counts too): the latency
    section then draws every timed case, not only latency-gated ones.
    """
    if not isinstance(document, Mapping):
        raise TypeError(f"a report is a JSON object, not {type(document).__name__}")
    asked = document.get("latency")
    latency = latency or (isinstance(asked, Mapping) and asked.get("every_case") is True)
    taken: set[str] = {"cases", "case-filters"}
    try:
        header = Markup(render_totals(document) + render_settings(document))
    except Exception as exc:
        header = _panel_body(failed_panel("Summary", exc))
    before = [
        (anchor, title, _every_latency if latency and renderer is render_latency else renderer)
        for anchor, title, renderer in BEFORE_PANELS
    ]
    sections = _built_in(document, before, taken)
    taken.update(anchor for anchor, _, _ in AFTER_PANELS)
    for panel in panels:
        title = str(panel.title)
        anchor = slug(str(panel.anchor or title or "panel"), taken, "" if panel.anchor else "x-")
        css = "panel failed" if isinstance(panel, FailedPanel) else "panel"
        sections.append(Section(anchor, title, _panel_body(panel), css))
    sections += _built_in(document, AFTER_PANELS, set())
    page = render_page(document, header, sections)
    # text from a hand-made report may hold lone surrogates, which UTF-8 cannot encode
    return page.encode("utf-8", "replace").decode("utf-8")


def load_report(path: Path) -> dict[str, Any]:
    """Read a ``--prob-json`` report; raises :class:`ReportError` with a one-line reason."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ReportError(f"{path}: is a directory") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ReportError(f"{path}: cannot read it: {reason}") from None
    try:
        document = json.loads(raw)
    except ValueError as exc:
        raise ReportError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:  # Python's parser gives up near its recursion limit
        document = None
    if document is None or too_deep(document, MAX_DEPTH):
        raise ReportError(
            f"{path}: nested more than {MAX_DEPTH} levels deep; a pytest-probability report "
            "is nested a few levels (this file is not one, or it was damaged)"
        )
    if not isinstance(document, dict) or not ({"rows", "schema_version", "plan"} & set(document)):
        raise ReportError(f"{path}: not a pytest-probability JSON report")
    return document


def too_deep(value: Any, limit: int) -> bool:
    """Whether JSON ``value`` nests objects and arrays more than ``limit`` levels deep
    (walked without recursion, stopping at the first level too deep)."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth >= limit:
            return True
        children = current.values() if isinstance(current, dict) else current
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def write_page(path: Path, page: str) -> None:
    """Write ``page`` with :func:`pytest_probability.writing.write_atomic` (missing
    directories created, a temporary file renamed over the target; raises ``OSError``)."""
    api.write_atomic(path, page)  # (read at each write: a test may replace the writer)
