"""The Markdown summary of a session, rendered from its JSON report document.

The summary holds what a CI page needs at a glance: the ``Overall:``, ``Gates:`` and
``Cost:`` lines, the fraction table, the function-level lines, the gates that did not pass,
the comparisons, the baseline check, the tokens per model, the first failing run of each
case, extensions' sections and the report's warnings. Numbers print as in the terminal
(STATISTICS.md, "Printing"), through the bundled extensions' pure formatting modules.

A document may come from an earlier version, a third-party extension or a hand edit: every
field is read defensively, and a missing or malformed one leaves its cell empty. Every text
passes through :func:`~.markup.escape`. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pytest_probability.api import (
    count_text,
    fraction,
    integer,
    items,
    num,
    obj,
    objects,
    percent_of,
    row_status,
    text,
    whole_percent,
)
from pytest_probability.api import duration as _duration
from pytest_probability.api import limit as _limit
from pytest_probability.api import money as _money
from pytest_probability.api import percent as _percent
from pytest_probability.api import percent1 as _percent1
from pytest_probability.api import quantile_label as _quantile_label

from .markup import Markdown, MarkdownSection, escape, table

#: The summary's heading (level 2: a job summary page holds several steps' summaries).
TITLE = "pytest-probability"
#: The most case rows the table shows (GitHub accepts 1 MiB of summary per step).
MAX_ROWS = 1000
#: Longest warning or note shown; the JSON report keeps the whole text.
MESSAGE_LIMIT = 500
#: The most cases the failures section lists, and the longest message it shows.
MAX_FAILURES = 50
FAILURE_LIMIT = 200
MISSING = "\u2014"
#: pytest's exit status of an interrupted session (Ctrl-C, SIGTERM)
INTERRUPTED = 2
MINUS = "\u2212"
SUBSET_WORDS = {"selected": "selected subset", "stopped": "session stopped early"}
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")


def shorten(value: str, limit: int = MESSAGE_LIMIT) -> str:
    """``value`` cut to ``limit`` characters, with ``…`` when cut."""
    return value if len(value) <= limit else value[:limit] + "\u2026"


def _shown(number: float | None, show: Callable[[float], str], absent: str = MISSING) -> str:
    return absent if number is None else show(number)


def percent(value: Any) -> str:
    """A fraction in whole percent (row bounds: ``35%``); ``—`` if absent."""
    return _shown(fraction(value), _percent)


def percent1(value: Any) -> str:
    """A fraction with one decimal (aggregates: ``81.0%``); ``—`` if absent."""
    return _shown(fraction(value), _percent1)


def money(value: Any) -> str:
    """``$0.0400``; empty if absent."""
    return _shown(num(value), _money, "")


def duration(value: Any) -> str:
    """Seconds as the terminal prints them (``769ms``); ``—`` if absent."""
    number = num(value)
    return _shown(None if number is None or number < 0 else number, _duration)


def _half_up(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def signed_points(value: Any) -> str:
    """A difference of fractions in whole percentage points: ``+20``, ``−11``, ``0``."""
    number = num(value)
    if number is None:
        return MISSING
    points = percent_of(number)
    if points == 0:
        return "0"
    return f"{'+' if points > 0 else MINUS}{abs(points):f}"


def p_value(value: Any) -> str:
    """``1``, ``<0.001``, ``0.004`` (3 decimals below 0.01), ``0.47``; empty if absent."""
    p = num(value)
    if p is None:
        return ""
    if p >= 1.0:
        return "1"
    if p < 0.001:
        return "<0.001"
    exact = Decimal(repr(p))
    if p < 0.01:
        return f"{_half_up(exact, 3):f}"
    rounded = _half_up(exact, 2)
    return "1" if rounded >= 1 else f"{rounded:f}"


def as_written(value: float) -> str:
    """A fraction in percent as written, without padding zeros: ``0.025`` → ``2.5``."""
    return f"{(Decimal(repr(value)) * 100).normalize():f}"


def _part(title: str, *blocks: str | None) -> Markdown:
    """``### title`` and its blocks (``None`` left out), a blank line between them."""
    return Markdown("\n\n".join([f"### {title}", *(block for block in blocks if block)]))


def _label(value: Any, show: Callable[[float], str], absent: str) -> str:
    """``show(value)``; ``absent`` for a missing value, or one ``show`` refuses (a quantile
    that is not a usable fraction)."""
    try:
        return _shown(num(value), show, absent)
    except ValueError:
        return absent


def quantile(value: Any) -> str:
    """``p95`` for 0.95; ``p?`` when the quantile is not a usable fraction."""
    return _label(value, _quantile_label, "p?")


def _summary(document: Mapping[str, Any]) -> Markdown | None:
    """The ``Overall:``, ``Gates:`` and ``Cost:`` lines, as a list (after an interruption,
    an ``Interrupted:`` line first: a CI page must not read the numbers as a whole run)."""
    totals = obj(document.get("totals"))
    lines: list[tuple[str, str]] = []
    if integer(document.get("exit_status")) == INTERRUPTED:
        lines.append(("Interrupted", "exit status 2; the numbers cover the runs made before it"))
    passes, count = integer(totals.get("passes")), integer(totals.get("count"))
    if passes is not None and count:
        lines.append(("Overall", f"{passes}/{count} passed ({whole_percent(passes, count)})"))
    gates = obj(document.get("gates"))
    counts = [(integer(gates.get(key)) or 0, key) for key in ("passed", "failed", "undecided")]
    if any(number for number, _ in counts):
        lines.append(("Gates", ", ".join(f"{n} {word}" for n, word in counts if n)))
    cost = money(totals.get("cost"))
    if cost:
        lines.append(("Cost", cost))
    if not lines:
        return None
    return Markdown("\n".join(f"- **{label}:** {escape(value)}" for label, value in lines))


def _status(row: Mapping[str, Any]) -> str:
    """The status word (``PASS`` for a row whose runs all passed) and the row's notes."""
    passes, fails, errors = (integer(row.get(k)) or 0 for k in ("passes", "fails", "errors"))
    word, _ = row_status(passes, fails, errors)
    if passes + fails + errors == 0:
        word = "SKIPPED"
    elif not word:
        word = "PASS"
    elif row.get("xfail") is True:
        word += " (xfail)"
    notes = [word]
    planned = integer(row.get("planned"))
    stopped = obj(row.get("stopped"))
    if stopped:
        notes.append(f"decided after {text(stopped.get('after'))}/{text(stopped.get('planned'))}")
    subset = SUBSET_WORDS.get(text(row.get("subset")))
    if subset and planned is not None:
        notes.append(f"of {planned} planned, {subset}")
    cut = integer(row.get("budget_skipped"))
    if cut and planned is not None:
        notes.append(f"cut short ({planned - cut}/{planned})")
    return ", ".join(notes)


def _bar(check: Mapping[str, Any], planned: int | None) -> str:
    """One gate's bar: ``≥90%``, ``≥19/20``, ``p95 ≤2s``, or the kind's name."""
    kind = text(check.get("kind")) or "gate"
    rate = num(check.get("min_rate"))
    if kind == "rate" and rate is not None:
        return f"≥{as_written(rate)}%"
    if kind == "count" and integer(check.get("min_passes")) is not None:
        return f"≥{check['min_passes']}/{planned if planned is not None else '?'}"
    if kind == "latency":
        return f"{quantile(check.get('quantile'))} ≤{_label(check.get('max_latency'), _limit, '?')}"
    return kind


def _gate_cell(row: Mapping[str, Any]) -> str:
    gate = obj(row.get("gate"))
    if not gate:
        return ""
    planned = integer(row.get("planned"))
    bars = ", ".join(_bar(check, planned) for check in objects(gate.get("checks")))
    return f"{bars} {text(gate.get('verdict')).upper()}".strip()


def _interval(low: Any, high: Any, show: Callable[[Any], str] = percent) -> Markdown:
    """``[35%, 93%]``; empty when both ends are missing. (Numbers only: safe Markdown.)"""
    if num(low) is None and num(high) is None:
        return Markdown("")
    return Markdown(f"[{show(low)}, {show(high)}]")


def _needs_attention(row: Mapping[str, Any]) -> bool:
    """Whether a row did not pass every run, or did not pass its gate."""
    passes, fails, errors = (integer(row.get(k)) or 0 for k in ("passes", "fails", "errors"))
    verdict = obj(row.get("gate")).get("verdict")
    return bool(fails or errors or not passes) or verdict not in (None, "pass")


def _shown_rows(
    rows: list[Mapping[str, Any]], max_rows: int
) -> tuple[list[Mapping[str, Any]], str | None]:
    """The rows the table shows, and a note when it leaves some out."""
    if len(rows) <= max_rows:
        return rows, None
    attention = [row for row in rows if _needs_attention(row)]
    shown = attention[:max_rows]
    if len(attention) > max_rows:
        which = f"the first {len(shown):,} of the {len(attention):,} that did not pass every run "
        which += "or their gate."
    else:
        which = f"the {len(shown):,} that did not pass every run or their gate; the other "
        which += f"{len(rows) - len(shown):,} passed every run."
    return (
        shown,
        f"{len(rows):,} cases: shown are {which} The JSON report (--prob-json) has every case.",
    )


def _cases(document: Mapping[str, Any], max_rows: int) -> Markdown | None:
    """The fraction table: case, ``k/N``, interval, status, and gate and cost columns when
    some row has them."""
    rows = objects(document.get("rows"))
    if not rows:
        return None
    shown, note = _shown_rows(rows, max_rows)
    gated = any(obj(row.get("gate")) for row in rows)
    costed = any(num(row.get("cost")) is not None for row in rows)
    headers = ["Case", "Passed", "Interval", "Status", *["Gate"] * gated, *["Cost"] * costed]
    align = "lrll" + "l" * gated + "r" * costed
    body = []
    for row in shown:
        passes, total = integer(row.get("passes")), integer(row.get("total"))
        ci = obj(row.get("ci"))
        cells = [
            text(row.get("case")),
            MISSING if passes is None or total is None else f"{passes}/{total}",
            _interval(ci.get("low"), ci.get("high")) if (total or 0) > 1 else "",
            _status(row),
        ]
        if gated:
            cells.append(_gate_cell(row))
        if costed:
            cells.append(money(row.get("cost")))
        body.append(cells)
    return _part("Cases", table(headers, body, align), escape(note) if note else None)


def _functions(document: Mapping[str, Any]) -> Markdown | None:
    """The function-level and Overall lines (``aggregates``)."""
    lines = objects(document.get("aggregates"))
    if not lines:
        return None
    body = []
    for line in lines:
        ci = obj(line.get("ci"))
        low, high = integer(line.get("runs_min")), integer(line.get("runs_max"))
        runs = "" if low is None else (f"{low}" if low == high or high is None else f"{low}–{high}")
        icc = num(line.get("icc"))
        rho = "" if icc is None else f"{icc:.2f}".replace("-", MINUS)
        hidden = text(line.get("hidden"))
        interval = _interval(ci.get("low"), ci.get("high"), percent1)
        interval = escape(f"hidden: {shorten(hidden)}") if hidden else interval
        label, inputs = text(line.get("label")), text(integer(line.get("inputs")))
        body.append([label, inputs, runs, percent1(line.get("estimate")), interval, rho])
    headers = ["Function", "Inputs", "Runs", "Mean", "Interval", "ρ"]
    return _part("Functions", table(headers, body, "lrrrlr"))


def _gates(document: Mapping[str, Any]) -> Markdown | None:
    """The gates that did not pass, one line per check (as the terminal's gates section)."""
    rows = [row for row in objects(document.get("rows")) if obj(row.get("gate"))]
    if not rows:
        return None
    body = []
    for row in rows:
        gate = obj(row.get("gate"))
        if gate.get("verdict") == "pass":
            continue
        planned = integer(row.get("planned"))
        for check in objects(gate.get("checks")):
            verdict = text(check.get("verdict"))
            if verdict == "pass":
                continue
            if check.get("kind") == "latency":
                result = f"{quantile(check.get('quantile'))} {duration(check.get('estimate'))}"
                shown = _interval(check.get("low"), check.get("high"), duration)
            elif integer(check.get("passes")) is not None and integer(check.get("n")) is not None:
                result = f"{check['passes']}/{check['n']}"
                shown = _interval(check.get("low"), check.get("high"))
            else:
                result = shown = ""
            body.append(
                [text(row.get("case")), _bar(check, planned), result, shown, verdict.upper()]
            )
    if not body:
        every = "The gated case" if len(rows) == 1 else f"All {len(rows):,} gated cases"
        return _part("Gates", f"{every} passed.")
    return _part("Gates", table(["Case", "Gate", "Result", "Interval", "Verdict"], body, "llrll"))


def _difference(line: Mapping[str, Any]) -> Markdown:
    """``+20 pp [−11, +51]``, or ``+20 pp`` without an interval; empty without a number.
    (Numbers only: safe Markdown.)"""
    if num(line.get("difference")) is None:
        return Markdown("")
    shown = f"{signed_points(line.get('difference'))} pp"
    if num(line.get("low")) is not None and num(line.get("high")) is not None:
        shown += f" [{signed_points(line.get('low'))}, {signed_points(line.get('high'))}]"
    return Markdown(shown)


def _p(line: Mapping[str, Any]) -> str:
    adjusted = p_value(line.get("p_adjusted"))
    if adjusted:
        return f"{adjusted} ({text(line.get('adjust'))})"
    return p_value(line.get("p"))


def _margin(line: Mapping[str, Any]) -> str:
    margin = num(line.get("margin"))
    if margin is None:
        return ""
    shown = as_written(abs(margin))
    return f"±{shown} pp" if line.get("equivalence") is True else f"≥{MINUS}{shown} pp"


def _notes(line: Mapping[str, Any]) -> str:
    notes = []
    if line.get("error"):
        notes.append(f"could not be computed: {text(line.get('error'))}")
    elif line.get("hidden"):  # over cases stopped early: nothing that leans is shown
        notes.append(f"difference, interval and p hidden: {text(line.get('hidden'))}")
    elif num(line.get("difference")) is None:
        notes.append("no paired inputs")
    unpaired = objects(line.get("unpaired"))
    if unpaired:
        shown = ", ".join(f"{text(u.get('input'))} ({text(u.get('only'))} only)" for u in unpaired)
        notes.append(f"not compared: {shown}")
    for key in ("new", "removed"):
        names = line.get(key)
        if isinstance(names, list) and names:
            notes.append(f"{len(names)} {key}")
    return shorten("; ".join(notes))


def _comparison_table(labelled: Sequence[tuple[str, Mapping[str, Any]]], first: str) -> Markdown:
    """One row per comparison line; columns empty in every row are left out."""
    headers = [first, "Difference", "p", "Paired", "Cost", "Margin", "Verdict", "Note"]
    align = "lllrrlll"
    rows = []
    for label, line in labelled:
        ratio = num(line.get("cost_ratio"))
        cost = "" if ratio is None else f"×{_half_up(Decimal(repr(ratio)), 1):f}"
        paired, verdict = text(integer(line.get("paired"))), text(line.get("verdict")).upper()
        cells = [_difference(line), _p(line), paired, cost, _margin(line), verdict, _notes(line)]
        rows.append([label, *cells])
    keep = [i for i in range(len(headers)) if i < 2 or any(row[i] for row in rows)]
    return table(
        [headers[i] for i in keep],
        [[row[i] for i in keep] for row in rows],
        "".join(align[i] for i in keep),
    )


def _comparisons(document: Mapping[str, Any]) -> Markdown | None:
    """The comparisons of arms with their baseline arm (``comparisons``)."""
    lines = objects(document.get("comparisons"))
    if not lines:
        return None
    labelled = []
    for line in lines:
        arms = f"{text(line.get('arm'))} {MINUS} {text(line.get('baseline'))}"
        labelled.append((f"{text(line.get('label'))}[{text(line.get('axis'))}] {arms}", line))
    return _part("Comparisons", _comparison_table(labelled, "Comparison"))


def _baseline(document: Mapping[str, Any]) -> Markdown | None:
    """The regression check against an earlier report (``baseline``)."""
    baseline = obj(document.get("baseline"))
    if not baseline:
        return None
    margin = num(baseline.get("margin"))
    rule = f"margin {as_written(abs(margin))} pp" if margin is not None else "no margin"
    against = f"Against {escape(text(baseline.get('path')) or '?')} ({rule}): now {MINUS} baseline."
    functions = objects(baseline.get("functions"))
    labelled = [(text(line.get("label")), line) for line in functions]
    not_run = [text(name) for name in items(baseline.get("not_run")) if name is not None]
    names = ", ".join(not_run[:10]) + (", …" if len(not_run) > 10 else "")
    return _part(
        "Baseline",
        against,
        _comparison_table(labelled, "Function") if functions else None,
        escape(f"Baseline cases whose function did not run ({len(not_run)}): {names}")
        if not_run
        else None,
    )


def _tokens(document: Mapping[str, Any]) -> Markdown | None:
    """Tokens and cost per model (``totals.usage``)."""
    usage = obj(obj(document.get("totals")).get("usage"))
    if not usage:
        return None
    body = []
    for model, totals in usage.items():
        fields = obj(totals)
        counts = [count_text(fields.get(key)) for key in TOKEN_FIELDS]  # (1.000000e+5000 kept)
        body.append([model, *(n or "" for n in counts), money(fields.get("cost"))])
    headers = ["Model", "Input tokens", "Output tokens", "Cached input tokens", "Cost"]
    return _part("Tokens", table(headers, body, "lrrrr"))


def first_failures(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The first run of each case that failed or errored, in record order."""
    found: dict[str, Mapping[str, Any]] = {}
    for record in records:
        if isinstance(record, Mapping) and record.get("outcome") in ("fail", "error"):
            found.setdefault(text(record.get("case")), record)
    return list(found.values())


def _failures(document: Mapping[str, Any]) -> Markdown | None:
    """The first failing or errored run of each case, with the first line of its message."""
    found = first_failures(objects(document.get("records")))
    if not found:
        return None
    body = []
    for record in found[:MAX_FAILURES]:
        lines = text(record.get("message")).strip().splitlines()
        case, outcome = text(record.get("case")), text(record.get("outcome"))
        message = shorten(lines[0], FAILURE_LIMIT) if lines else ""
        body.append([case, text(integer(record.get("run"))), outcome, message])
    more = len(found) - MAX_FAILURES
    return _part(
        "Failures",
        "The first run of each case that did not pass:",
        table(["Case", "Run", "Outcome", "Message"], body, "lrll"),
        f"{more:,} more cases had failing runs: the JSON report has every run."
        if more > 0
        else None,
    )


def _warnings(document: Mapping[str, Any]) -> Markdown | None:
    """The report's ``warnings``, one item each."""
    shown = [text(w) for w in items(document.get("warnings")) if w is not None]
    if not shown:
        return None
    return _part("Warnings", "\n".join(f"- {escape(shorten(message))}" for message in shown))


def _section(section: MarkdownSection) -> Markdown:
    """An extension's section: a :class:`Markdown` body as it is, any other as plain text
    (every line escaped, lines kept as hard line breaks, blank lines between paragraphs)."""
    if isinstance(section.body, Markdown):
        shown = section.body.strip("\n")
    else:
        paragraphs = re.split(r"\n[ \t]*\n", str(section.body).replace("\r\n", "\n"))
        lines = [[escape(line) for line in paragraph.split("\n")] for paragraph in paragraphs]
        shown = "\n\n".join(filter(None, ("\\\n".join(filter(None, found)) for found in lines)))
    # a heading's closing ``#`` run would be dropped: escape it
    title = re.sub(r"(^|\s)(#+)$", r"\1\\\2", escape(section.title)) or "(untitled)"
    return _part(title, shown)


def render_markdown(
    document: Mapping[str, Any],
    sections: Sequence[MarkdownSection] = (),
    *,
    max_rows: int = MAX_ROWS,
) -> str:
    """The whole summary: ``## pytest-probability``, the summary lines, the case table, the
    function lines, gates, comparisons, baseline, tokens, the first failure of each case
    (from ``records``: only the first failing run of each case is needed there),
    ``sections`` (in order) and the report's warnings, each part only when the report has
    it. Ends with one newline."""
    parts: list[str | None] = [f"## {TITLE}", _summary(document), _cases(document, max_rows)]
    if not objects(document.get("rows")):
        parts.append("No bench run produced a result.")
    parts += [
        _functions(document),
        _gates(document),
        _comparisons(document),
        _baseline(document),
        _tokens(document),
        _failures(document),
    ]
    # a section with nothing in it is not shown, as in the terminal (docs/hooks.rst)
    parts += [_section(section) for section in sections if str(section.body).strip()]
    parts.append(_warnings(document))
    return "\n\n".join(part for part in parts if part) + "\n"
