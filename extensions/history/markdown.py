"""The Markdown form of a history (``history --markdown``): sized for a pull-request comment
or a GitHub job summary (``GITHUB_STEP_SUMMARY``). Pure: never imports pytest.

It leads with the moves that are real: the headline lines, then a table of the real moves
(worse first, the smallest adjusted p-value first), then one row per function (cases, the
latest pooled pass rate, its change since the previous session and a sparkline of the
last :data:`SPARK_SESSIONS` sessions), then the cases the latest session did not run, then
the method. The whole is at most :data:`MARKDOWN_CAP` bytes of UTF-8: past it, the document
is cut between two lines (never inside a table's head) with a note saying so, and the
method line still ends it.

Every text from a report (case ids, function names, file names, commits) goes through
:func:`pytest_probability.api.markdown_escape` and is cut to :data:`TEXT_LIMIT` characters.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_probability.api import Markdown, whole_percent
from pytest_probability.api import markdown_escape as escape
from pytest_probability.api import markdown_table as table

from .moves import METHOD, WINDOW, WORSE, Assessment, CaseMove, Comparison
from .sessions import History, Session
from .summary import read_line

#: The most bytes (UTF-8) the Markdown holds: under GitHub's 65,536-character limit for a
#: pull-request comment (a character is at least one byte), far under a job summary's 1 MiB.
MARKDOWN_CAP = 60_000
#: The page's and the Markdown's default title.
TITLE = "pytest-probability history"
#: How many of the latest sessions a function's sparkline shows.
SPARK_SESSIONS = 20
SPARKS = "▁▂▃▄▅▆▇█"
#: The narrowest span of rates a sparkline's scale covers (10 points).
SPARK_SPAN = 0.10
#: A text from a report (case id, function, file) is cut to this many characters.
TEXT_LIMIT = 200
#: A headline line is cut to this many characters (it names up to five cases).
HEADLINE_LIMIT = 1_500
MINUS = "\u2212"
MISSING = "\u2014"


def render_markdown(
    history: History,
    assessment: Assessment,
    *,
    title: str = TITLE,
    cap: int = MARKDOWN_CAP,
) -> str:
    """The Markdown document (at most ``cap`` bytes of UTF-8, see the module's docstring)."""
    chunks: list[str] = [_heading(title), *_headline(history, assessment)]
    chunks += _moves(assessment)
    chunks += _functions(history, assessment)
    chunks += _gone(assessment)
    return _capped(chunks, _method(assessment), cap)


def shorten(value: str, limit: int = TEXT_LIMIT) -> str:
    """``value`` cut to ``limit`` characters, with ``…`` when cut."""
    return value if len(value) <= limit else value[:limit] + "\u2026"


def sparkline(rates: Sequence[float | None]) -> str:
    """One block per rate (``·`` where there is none), from ``▁`` at the bottom of the scale
    to ``█`` at its top. The scale spans the rates shown, and at least :data:`SPARK_SPAN`
    (centred on them, inside 0 to 1), so that a wobble of a point or two stays small."""
    known = [rate for rate in rates if rate is not None]
    if not known:
        return ""
    low, high = min(known), max(known)
    if high - low < SPARK_SPAN:
        low = min(max(0.0, (low + high - SPARK_SPAN) / 2), 1.0 - SPARK_SPAN)
        high = low + SPARK_SPAN
    top = len(SPARKS) - 1

    def block(rate: float | None) -> str:
        if rate is None:
            return "·"
        share = min(1.0, max(0.0, (rate - low) / (high - low)))
        return SPARKS[round(share * top)]

    return "".join(block(rate) for rate in rates)


def points(change: float) -> str:
    """A change of fraction in percentage points, one decimal, a real minus sign:
    ``−55.0``, ``+2.5``, ``0.0``."""
    value = round(change * 100, 1)
    if value == 0:
        return "0.0"
    return f"{MINUS}{-value:.1f}" if value < 0 else f"+{value:.1f}"


def p_text(p: float) -> str:
    """A p-value with two significant digits: ``0.012``, ``3.1e-06``, ``1``."""
    return f"{p:.2g}"


# -- sections ----------------------------------------------------------------------------
def _heading(title: str) -> str:
    # a heading's closing ``#`` run would be dropped: escape it
    text = re.sub(r"(^|\s)(#+)$", r"\1\\\2", escape(shorten(title))) or "(untitled)"
    return f"## {text}\n"


def _headline(history: History, assessment: Assessment) -> list[str]:
    chunks = [f"\n{escape(shorten(line, HEADLINE_LIMIT))}\n" for line in assessment.headline()]
    read = read_line(history, assessment)
    skipped = len(history.skipped)
    if skipped:
        read += f"; {skipped} file{'' if skipped == 1 else 's'} skipped or read in part"
    chunks.append(f"\n_{escape(read[:1].upper() + read[1:] + '.')}_\n")
    return chunks


def _moves(assessment: Assessment) -> list[str]:
    real = [move for move in assessment.moves if move.real is not None]
    real.sort(key=lambda move: (move.status != WORSE, _real(move).p_adjusted))
    chunks: list[str] = []
    if real:
        rows = [
            [
                escape(shorten(move.case)),
                _earlier(_real(move)),
                _rate(_real(move).latest_passes, _real(move).latest_total),
                f"{points(_real(move).change)} ({move.status})",
                p_text(_real(move).p_adjusted),
                Markdown(f"yes ({escape(shorten(move.latest.gate or ''))})")
                if move.gated
                else "no",
            ]
            for move in real
        ]
        headers = ["Case", "Earlier", "Latest", "Change (points)", "Adjusted p", "Gated"]
        chunks += _table("Real moves", headers, rows, "llrrrl")
    fresh = len([move for move in assessment.moves if not move.comparisons])
    if fresh:
        cases = "case runs" if fresh == 1 else "cases run"
        chunks.append(f"\n{fresh} {cases} for the first time (nothing to compare with).\n")
    return chunks


def _functions(history: History, assessment: Assessment) -> list[str]:
    if assessment.latest is None:
        return []
    latest, previous = assessment.latest, assessment.previous
    shown = history.sessions[-SPARK_SESSIONS:]
    rows = []
    for function, cases in history.functions().items():
        now = _pooled(latest, cases)
        before = _pooled(previous, cases) if previous is not None else None
        trend = [_pooled(session, cases) for session in shown]
        known = [rate for rate in trend if rate is not None]
        span = _span(min(known), max(known)) if known else ""
        count = len([case for case in cases if case in latest.cases])
        rows.append(
            [
                escape(shorten(function)),
                str(count),
                _pooled_text(latest, cases),
                MISSING if now is None else ("new" if before is None else points(now - before)),
                Markdown(f"{sparkline(trend)} {span}".strip()),
            ]
        )
    headers = [
        "Function",
        "Cases",
        "Latest",
        "Change (points)",
        f"Last {len(shown)} session{'' if len(shown) == 1 else 's'}",
    ]
    return _table("Functions", headers, rows, "lrrrl")


def _gone(assessment: Assessment) -> list[str]:
    if not assessment.gone or assessment.previous is None:
        return []
    count = len(assessment.gone)
    since = escape(shorten(assessment.previous.label))
    lead = (
        f"\n### Not in the latest session\n\n{count} case{'' if count == 1 else 's'} of the "
        f"previous session ({since}) did not run:\n\n"
    )
    items = [f"- {escape(shorten(case))}\n" for case in assessment.gone]
    return [lead + items[0], *items[1:]]


def _method(assessment: Assessment) -> str:
    window = f"window of {assessment.window} session{'' if assessment.window == 1 else 's'}"
    text = f"{METHOD}; α = {assessment.alpha:g}, {window}."
    return f"\n_Method: {escape(text)}_\n"


# -- pieces ------------------------------------------------------------------------------
def _table(title: str, headers: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A section's chunks: the heading, the table's head and first row together (a cut
    never leaves a head without rows), then one chunk per row."""
    lines = table(headers, rows, align).split("\n")
    return [f"\n### {title}\n\n" + "\n".join(lines[:3]) + "\n"] + [
        line + "\n" for line in lines[3:]
    ]


def _real(move: CaseMove) -> Comparison:
    comparison = move.real
    assert comparison is not None
    return comparison


def _rate(passes: int, total: int) -> str:
    return f"{passes}/{total} ({whole_percent(passes, total)})"


def _earlier(comparison: Comparison) -> Markdown:
    since = escape(shorten(comparison.since.label))
    if comparison.against == WINDOW:
        which = f"window of {comparison.sessions} sessions since {since}"
    else:
        which = f"previous session {since}"
    return Markdown(f"{_rate(comparison.base_passes, comparison.base_total)}, {which}")


def _pooled(session: Session | None, cases: list[str]) -> float | None:
    if session is None:
        return None
    points_ = [session.cases[case] for case in cases if case in session.cases]
    total = sum(point.total for point in points_)
    return sum(point.passes for point in points_) / total if total else None


def _pooled_text(session: Session, cases: list[str]) -> str:
    points_ = [session.cases[case] for case in cases if case in session.cases]
    if not points_:
        return "not run"
    return _rate(sum(p.passes for p in points_), sum(p.total for p in points_))


def _span(low: float, high: float) -> str:
    low_text, high_text = f"{low:.0%}", f"{high:.0%}"
    return low_text if low_text == high_text else f"{low_text}–{high_text}"


def _capped(chunks: list[str], method: str, cap: int) -> str:
    """The chunks that fit in ``cap`` bytes with ``method`` after them; when some do not,
    a note saying so takes their place (the first chunk, the heading, is always kept)."""
    whole = "".join(chunks) + method
    if len(whole.encode("utf-8")) <= cap:
        return whole
    sizes = [len(chunk.encode("utf-8")) for chunk in chunks]
    tail = len(method.encode("utf-8")) + len(_note(cap, sum(sizes)).encode("utf-8"))
    kept, used = 0, 0
    while kept < len(chunks) and used + sizes[kept] + tail <= cap:
        used += sizes[kept]
        kept += 1
    kept = max(kept, 1)
    left = sum(chunk.count("\n") for chunk in chunks[kept:])
    return "".join(chunks[:kept]) + _note(cap, left) + method


def _note(cap: int, lines: int) -> str:
    return (
        f"\n_Cut here: this summary stops at {cap:,} bytes so that it fits a pull-request "
        f"comment (GitHub takes at most 65,536 characters); {lines:,} more "
        f"line{'' if lines == 1 else 's'} left out. The JSON summary (`--json`) and the "
        "page (`-o`) hold every case._\n"
    )
