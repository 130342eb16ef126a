"""Rendering a report document (the ``--prob-json`` dict) as one self-contained HTML page:
head (charset, viewport, a strict Content-Security-Policy), title, the header (totals, exit
status, cost, the settings that produced the numbers), navigation, the sections, footer.

The pytest plugin and ``python -m pytest_probability html`` both call :func:`render_report`,
so a page rendered later from a saved report matches the one written by the session
(except for panels, which extensions add only inside a pytest session). A section that
cannot be drawn from the data it finds becomes a marked panel with the error; the rest of
the page is unaffected.

The policy allows no network access at all (``default-src 'none'``), inline styles, images
from ``data:`` URLs, and exactly one script, the page's own, by its hash; so the file works
from ``file://`` and as a CI artefact, and text that slipped through escaping could still
not run. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest_probability.api as api
from pytest_probability.api import (
    UnreadableInput,
    integer,
    num,
    obj,
    objects,
    plugin_version,
    read_input,
    text,
)
from pytest_probability.api import items as json_array

from . import fmt
from .cases import STATUSES, render_cases
from .explained import render_explained
from .markup import HtmlPanel, Markup, class_list, css_token, escape
from .style import CSS, SCRIPT, script_hash
from .summaries import (
    latency_note,
    render_aggregates,
    render_baseline,
    render_comparisons,
    render_gates,
    render_latency,
    render_metrics,
    status_counts,
)
from .svg import stacked_bar
from .usage import render_cost, render_plan, render_stopping

TITLE = "pytest-probability report"


@dataclass
class Section:
    """One ``<section>`` of the page, listed in the navigation."""

    anchor: str
    title: str
    body: Markup
    css: str = ""


def slug(title: str, taken: set[str], prefix: str = "") -> str:
    """A fresh id made from ``title`` (``"My panel"`` → ``my-panel``), unique in ``taken``."""
    base = prefix + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section")
    anchor, number = base, 2
    while anchor in taken:
        anchor, number = f"{base}-{number}", number + 1
    taken.add(anchor)
    return anchor


def _subtitle(document: Mapping[str, Any]) -> str:
    created, runs = document.get("created"), integer(document.get("runs"))
    rows = json_array(document.get("rows"))
    parts = [
        f"created {text(created).replace('T', ' ')}" if created else "",
        fmt.plural(len(rows), "case") if rows else "",
        "" if runs is None else f"{fmt.plural(runs, 'run')} per case",
        "planning session: nothing ran" if obj(document.get("plan")) else "",
    ]
    return " · ".join(part for part in parts if part)


def render_page(document: Mapping[str, Any], header: Markup, sections: Sequence[Section]) -> str:
    nav = "".join(
        f'<a href="#{escape(section.anchor)}">{escape(section.title)}</a>' for section in sections
    )
    body = []
    for section in sections:
        css = f' class="{class_list(section.css)}"' if class_list(section.css) else ""
        body.append(
            f'<section id="{escape(section.anchor)}"{css} '
            f'aria-labelledby="h-{escape(section.anchor)}">'
            f'<h2 id="h-{escape(section.anchor)}">{escape(section.title)}</h2>'
            f"{section.body}</section>"
        )
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {script_hash()}; base-uri 'none'; form-action 'none'"
    )
    rows, totals = json_array(document.get("rows")), obj(document.get("totals"))
    rate = fmt.rate(totals.get("pass_rate"))
    title = f"{TITLE}: {fmt.plural(len(rows), 'case')}, {rate} passed" if rows else TITLE
    footer = (
        f"Written by pytest-probability {escape(plugin_version)} from its JSON report "
        f"(schema {escape(text(document.get('schema_version'), '?'))}); the JSON holds every "
        "number unrounded and every message whole."
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta name="generator" content="pytest-probability {escape(plugin_version)}">\n'
        f"<title>{escape(title)}</title>\n"
        '<link rel="icon" href="data:,">\n'
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f'<header class="top"><h1>{TITLE}</h1>'
        f'<p class="subtitle">{escape(_subtitle(document))}</p>{header}</header>\n'
        f'<nav class="toc" aria-label="Sections">{nav}</nav>\n'
        + "\n".join(body)
        + f"\n<footer><p>{footer}</p></footer>\n</main>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


EXIT_STATUSES = {
    0: "all passed",
    1: "failures",
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


#: The run totals in the Runs card: (totals key, status class, word).
RUN_OUTCOMES = (
    ("passes", "pass", "passed"),
    ("fails", "fail", "failed"),
    ("errors", "error", "errored"),
    ("skipped", "skipped", "skipped"),
)


def _card(label: str, value: object, note: object = None, css: str = "", plot: str = "") -> str:
    extra = f'<div class="note">{escape(note)}</div>' if note else ""
    class_ = class_list(f"card {css}")
    return (
        f'<div class="{class_}"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div>{extra}{plot}</div>'
    )


def _cases_bar(counts: Mapping[str, int]) -> Markup:
    return stacked_bar(
        [
            (
                counts[status],
                f"s-{css_token(status)}",
                f"{counts[status]:,} {status.upper() if status in STATUSES else status}",
            )
            for status in [*STATUSES, *sorted(set(counts) - set(STATUSES))]
            if counts.get(status)
        ]
    )


def render_totals(document: Mapping[str, Any]) -> Markup:
    """The summary cards under the title."""
    totals = obj(document.get("totals"))
    exit_status = integer(document.get("exit_status"))
    cards = []
    if exit_status is not None:
        meaning = EXIT_STATUSES.get(exit_status, "")
        css = "ok" if exit_status == 0 else "bad"
        cards.append(_card("Exit status", exit_status, meaning, css))
    counts = status_counts(document)
    if counts:
        words = ", ".join(f"{n:,} {s.upper().lower()}" for s, n in counts.items())
        cards.append(_card("Cases", f"{sum(counts.values()):,}", words, plot=_cases_bar(counts)))
    count = integer(totals.get("count"))
    if count is not None:
        runs = [(integer(totals.get(key)) or 0, css, word) for key, css, word in RUN_OUTCOMES]
        parts = [(n, f"s-{css}", f"{n:,} {word}") for n, css, word in runs]
        value = f"{runs[0][0]:,}/{count:,} ({fmt.rate(totals.get('pass_rate'))})"
        detail = ", ".join(label for *_, label in parts)
        cards.append(_card("Runs passed", value, detail, plot=stacked_bar(parts)))
    if num(totals.get("cost")) is not None:
        cards.append(_card("Cost", fmt.money(totals.get("cost")), "recorded by the runs"))
    gates = obj(document.get("gates"))
    if gates:
        cards.append(_gates_card(gates))
    return Markup(f'<div class="cards">{"".join(cards)}</div>')


def _gates_card(gates: Mapping[str, Any]) -> str:
    """The Gates card. Its headline counts the gates that fail the session: every FAIL, and
    every UNDECIDED unless ``--prob-undecided=pass`` (``undecided_fails`` false) lets them
    through; the note under it gives the three verdict counts and the policy."""
    passed, failed = integer(gates.get("passed")) or 0, integer(gates.get("failed")) or 0
    undecided = integer(gates.get("undecided")) or 0
    undecided_fail = gates.get("undecided_fails", True) is not False
    failing = failed + (undecided if undecided_fail else 0)
    note = f"{passed} passed, {failed} failed, {undecided} undecided"
    if undecided:
        note += f" (undecided {'fail' if undecided_fail else 'pass'})"
    if failing:
        verb = "fails" if failing == 1 else "fail"
        return _card("Gates", f"{failing:,} {verb} the session", note, "bad")
    if undecided:
        return _card("Gates", "none fail the session", note)
    return _card("Gates", "all passed", note, "ok")


def render_settings(document: Mapping[str, Any]) -> Markup:
    """How the numbers were produced, as a definition list (may be empty)."""
    methods: dict[str, None] = {}
    for ci in (obj(row.get("ci")) for row in objects(document.get("rows"))):
        if ci:
            level = num(ci.get("level"))
            shown = f"{level * 100:g}%" if level is not None else "?"
            methods[f"{text(ci.get('method'), '?')} at {shown}"] = None
    aggregates = objects(document.get("aggregates"))
    first = aggregates[0] if aggregates else {}
    bootstrap = f"{fmt.count(first.get('resamples'))} resamples, seed {text(first.get('seed'))}"
    gates, stopping, baseline = (
        obj(document.get(key)) for key in ("gates", "stopping", "baseline")
    )
    undecided = "fail" if gates.get("undecided_fails", True) else "pass"
    policy = f"undecided verdicts {undecided}; errored runs {text(gates.get('errors'))}"
    tests = [
        f"{text(c.get('test'))}, adjust {text(c.get('adjust'))}"
        for c in objects(document.get("comparisons"))
    ]
    metrics = [text(m) for m in json_array(obj(document.get("metrics")).get("metrics"))]
    runs, schema = document.get("runs"), document.get("schema_version")
    found = [
        ("Runs per case", None if runs is None else text(runs)),
        ("Case intervals", ", ".join(methods) if methods else None),
        ("Bootstrap", bootstrap if aggregates else None),
        ("Gates", policy if gates else None),
        ("Latency", latency_note(document) or None),
        ("Comparisons", "; ".join(dict.fromkeys(tests)) if tests else None),
        ("Metrics", ", ".join(metrics) if metrics else None),
        ("Stopping", text(stopping.get("mode")) if stopping else None),
        ("Baseline", text(baseline.get("path")) if baseline else None),
        ("Report schema", None if schema is None else text(schema)),
    ]
    pairs = [(name, value) for name, value in found if value is not None]
    if not pairs:
        return Markup("")
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in pairs)
    return Markup(f'<dl class="settings">{items}</dl>')


def render_warnings(document: Mapping[str, Any]) -> Markup | None:
    """The extensions' failures (``warnings``), or ``None`` when there were none."""
    warnings = [text(w) for w in json_array(document.get("warnings"))]
    if not warnings:
        return None
    items = "".join(f"<li>{escape(w)}</li>" for w in warnings)
    return Markup(
        f"<p>Some extensions failed; the rest of the report is unaffected.</p><ul>{items}</ul>"
    )


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
            css = "panel failed" if anchor == "warnings" else ""  # (extensions' failures)
            sections.append(Section(anchor, title, body, css))
    return sections


def render_report(
    document: Mapping[str, Any], panels: Iterable[HtmlPanel] = (), *, latency: bool = False
) -> str:
    """The HTML page for a report document, with extra ``panels`` after the summaries.

    ``latency`` says that the session ran with ``--prob-latency`` (a report written since
    records it as ``"latency": {"every_case": true}``, which counts too): the latency
    section then draws every timed case, not only latency-gated ones.
    """
    latency = latency or obj(document.get("latency")).get("every_case") is True
    taken: set[str] = {"cases", "case-filters"}
    try:
        header = Markup(render_totals(document) + render_settings(document))
    except Exception as exc:
        header = _panel_body(failed_panel("Summary", exc))
    every = partial(render_latency, every=True)  # (every timed case: --prob-latency)
    before = [
        (anchor, title, every if latency and renderer is render_latency else renderer)
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
        raw = read_input(path).decode("utf-8")
    except UnreadableInput as exc:
        raise ReportError(f"{path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: cannot read it: {exc}") from None
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
    """Write ``page`` with :func:`pytest_probability.report.writing.write_atomic` (missing
    directories created, a temporary file renamed over the target; raises ``OSError``)."""
    api.write_atomic(path, page)  # (read at each write: a test may replace the writer)
