"""The history page: one static, offline HTML document drawn from a :class:`~.sessions.History`
and its :class:`~.moves.Assessment`.

The page leads with the moves that are real (the assessment's headline, each case linked to
its card), then says how they were found (the method, α, the window, the number of tests),
which sessions it spans, and what could not be read. Then one section per function: its
pooled pass rate per session with an interval band, its cost per run and latency where the
reports recorded them, and a grid of small multiples, one card per case, each with the
case's pass rate per session (the x axis is every session of the history, so the cards
align; a gap where the case did not run), its interval band, the latest value and interval,
the change since the previous session, a badge when the move is real, and the gate's
verdicts over time.

Every plot is drawn in Python, as inline SVG (:mod:`.cards` draws the functions' sections
and the cards, :mod:`.sparklines` the plots); the page's script (``history.js``) only
filters and sorts the cards by their ``data-*`` attributes, and keeps that view in the URL
fragment (``#q=refund&show=worse&sort=-rate``). The stylesheet (``history.css``) and the
script are inlined, and a Content-Security-Policy allows nothing else: no network at all,
only the page's own script (by its hash). Every string from a report (case ids, function
names, commits, times, file names, reasons) is escaped; case ids and other names sit in
``<bdi>`` so that right-to-left marks in them cannot reorder the text around them; lone
surrogates become visible ``\\udcxx`` escapes. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

from pytest_probability.api import escape_surrogates, html_escape, plugin_version

from .cards import bdi, function_section, plural, pools, session_name, when
from .moves import BETTER, METHOD, WORSE, Assessment, CaseMove
from .sessions import History, Session

TITLE = "pytest-probability history"
#: How many cases each headline line names (the rest: "and N more", linked to the filter).
HEADLINE_LIMIT = 5
#: The page's stylesheet and script, package data beside this module.
CSS = Path(__file__).with_name("history.css").read_text(encoding="utf-8")
SCRIPT = Path(__file__).with_name("history.js").read_text(encoding="utf-8")
#: The status filter's choices and the sort order's, as the form offers them.
SHOW_CHOICES = (
    ("", "all cases"),
    ("real", "real moves"),
    ("worse", "worse"),
    ("better", "better"),
    ("gated", "gated"),
    ("new", "new"),
)
SORT_CHOICES = (
    ("", "page order"),
    ("name", "name"),
    ("-name", "name, Z to A"),
    ("rate", "latest rate, lowest first"),
    ("-rate", "latest rate, highest first"),
    ("change", "change, biggest drop first"),
    ("-change", "change, biggest rise first"),
    ("p", "adjusted p, smallest first"),
)


def script_hash(script: str = SCRIPT) -> str:
    """The CSP source expression allowing exactly this script (``'sha256-…'``)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


# -- the parts of the page -------------------------------------------------------------------
def _linked_line(
    line: str, start: str, moves: Sequence[CaseMove], anchors: dict[str, str], status: str
) -> str:
    """A headline line with each case it names linked to its card, and its "and N more"
    linked to the status filter. The line is checked against the cases piece by piece;
    whatever does not match stays plain text."""
    out: list[str] = []
    done, cursor = 0, len(start)
    for move in moves:
        anchor = anchors.get(move.case)
        if anchor is None or not line.startswith(move.case, cursor):
            break
        out.append(html_escape(line[done:cursor]))
        out.append(f'<a href="#{anchor}">{bdi(move.case)}</a>')
        done = cursor + len(move.case)
        close = line.find(")", done)
        if close < 0:
            break
        cursor = close + len("), ")
    rest = line[done:]
    tail = re.search(r"and \d+ more\Z", rest)
    if tail:
        out.append(html_escape(rest[: tail.start()]))
        out.append(f'<a href="#show={status}">{html_escape(tail.group())}</a>')
    else:
        out.append(html_escape(rest))
    return "".join(out)


def _headline(assessment: Assessment, anchors: dict[str, str]) -> str:
    """The assessment's headline lines as a list, the cases they name linked."""
    starts: list[tuple[str, str, list[CaseMove]]] = []
    if assessment.previous is not None:
        for status, moves in ((WORSE, assessment.worse), (BETTER, assessment.better)):
            cases = "case" if len(moves) == 1 else "cases"
            start = f"{len(moves)} {cases} got {status} since {assessment.previous.label}: "
            starts.append((status, start, moves[:HEADLINE_LIMIT]))
    items = []
    for line in assessment.headline(HEADLINE_LIMIT):
        css, body = "none", html_escape(line)
        for status, start, moves in starts:
            if moves and line.startswith(start):
                css, body = status, _linked_line(line, start, moves, anchors, status)
                break
        items.append(f'<li class="h-{css}">{body}</li>')
    return f'<ul class="headline">{"".join(items)}</ul>'


def _session_text(session: Session) -> str:
    """``2026-10-01 09:00:00 (a1b2c3d)``, as HTML."""
    commit = f" ({html_escape(session.short_commit)})" if session.short_commit else ""
    return f"{bdi(when(session))}{commit}"


def _about(
    history: History, assessment: Assessment, anchors: dict[str, str], level: float, cases: int
) -> str:
    """The section the page leads with: the real moves, the method, the span, the skipped."""
    parts = [_headline(assessment, anchors)]
    if assessment.gone:
        shown = ", ".join(
            f'<a href="#{anchors[case]}">{bdi(case)}</a>' if case in anchors else bdi(case)
            for case in assessment.gone[:HEADLINE_LIMIT]
        )
        more = len(assessment.gone) - HEADLINE_LIMIT
        verb = "case" if len(assessment.gone) == 1 else "cases"
        parts.append(
            f'<p class="gone">{len(assessment.gone)} {verb} of the previous session did not '
            f"run in the latest one: {shown}{f', and {more} more' if more > 0 else ''}.</p>"
        )
    if assessment.tests:
        parts.append(
            f'<p class="method">{html_escape(METHOD)} (α = {assessment.alpha:g}, window of '
            f"{plural(assessment.window, 'session')}, {plural(assessment.tests, 'test')}). "
            f"Bands and brackets are {level * 100:g}% Clopper–Pearson intervals.</p>"
        )
    sessions = history.sessions
    if sessions:
        span = f"{plural(len(sessions), 'session')}, {plural(cases, 'case')} in "
        span += f"{plural(len(history.functions()), 'function')}: "
        if len(sessions) == 1:
            span += _session_text(sessions[0])
        else:
            span += f"from {_session_text(sessions[0])} to {_session_text(sessions[-1])}"
        parts.append(f'<p class="span">{span}.</p>')
    if history.skipped:
        lines = "".join(f"<li>{bdi(skipped.line)}</li>" for skipped in history.skipped)
        count = len(history.skipped)
        parts.append(
            f'<details class="skipped"><summary>{count} {"file" if count == 1 else "files"} '
            f"skipped or read in part</summary><ul>{lines}</ul></details>"
        )
    return (
        '<section id="moves" class="moves" aria-labelledby="h-moves">'
        f'<h2 id="h-moves">What moved</h2>{"".join(parts)}</section>'
    )


def _options(choices: Sequence[tuple[str, str]]) -> str:
    """The ``<option>`` elements of a ``<select>``."""
    return "".join(
        f'<option value="{value}">{html_escape(text)}</option>' for value, text in choices
    )


def _form(cases: int) -> str:
    """The filter bar, hidden until the script shows it (the page is whole without it)."""
    return (
        '<form id="filters" class="filters" role="search" '
        'aria-label="Filter and sort the cases" hidden>'
        '<label>Find <input id="f-q" type="search" placeholder="case or function" '
        'autocomplete="off"></label>'
        f'<label>Show <select id="f-show">{_options(SHOW_CHOICES)}</select></label>'
        f'<label>Sort <select id="f-sort">{_options(SORT_CHOICES)}</select></label>'
        f'<output id="f-count" aria-live="polite">showing {cases} of {cases} cases</output>'
        "</form>"
    )


def _legend(history: History, level: float) -> str:
    """One paragraph saying how to read a card."""
    count = len(history.sessions)
    return (
        '<p class="legend">Each card: the case\'s pass rate in each of the '
        f"{plural(count, 'session')}, oldest on the left (a gap where the case did not run), "
        f"with its {level * 100:g}% Clopper–Pearson interval as a band and the latest value as "
        "a dot; under it, when the case is gated, the gate's verdict in each session (green "
        "pass, red fail, amber undecided). Hover a session for its numbers. The text: the "
        "latest pass rate and interval, the change in points since the previous session, and "
        "a badge when the move is real.</p>"
    )


# -- the page --------------------------------------------------------------------------------
def render_page(
    history: History, assessment: Assessment, *, level: float = 0.95, title: str = TITLE
) -> str:
    """The history page for ``history`` and its ``assessment`` (see the module's
    docstring): one self-contained HTML5 document. ``level`` is the confidence level of the
    intervals drawn; ``title`` is the page's title and heading (plain text)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    functions = history.functions()
    names = [session_name(session, number) for number, session in enumerate(history.sessions, 1)]
    moves = {move.case: move for move in assessment.moves}
    anchors: dict[str, str] = {}
    order = [(function, case) for function, cases in functions.items() for case in cases]
    for index, (_, case) in enumerate(order):
        anchors.setdefault(case, f"c-{index}")
    sums = pools(history)
    sections, nav = [], []
    first = 0
    for number, (function, cases) in enumerate(functions.items()):
        nav.append(
            f'<a href="#f-{number}">{bdi(function)} <span class="muted">{len(cases)}</span></a>'
        )
        sections.append(
            function_section(
                number,
                function,
                cases,
                first,
                history,
                moves,
                sums.get(function, []),
                names,
                level,
            )
        )
        first += len(cases)
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {script_hash()}; base-uri 'none'; form-action 'none'"
    )
    body = [f'<header class="top"><h1>{html_escape(title)}</h1></header>']
    body.append(_about(history, assessment, anchors, level, len(order)))
    if sections:
        body.append(f'<nav class="toc" aria-label="Functions">{"".join(nav)}</nav>')
        body.append(_form(len(order)))
        body.append(_legend(history, level))
        body.extend(sections)
    footer = (
        f"Written by pytest-probability {html_escape(plugin_version)} from "
        f"{plural(len(history.sessions), 'JSON report')}; they hold every number unrounded."
    )
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta name="generator" content="pytest-probability {html_escape(plugin_version)}">\n'
        f"<title>{html_escape(title)}</title>\n"
        '<link rel="icon" href="data:,">\n'
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + f"\n<footer><p>{footer}</p></footer>\n</main>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
    return escape_surrogates(page)
