"""The history page's per-function sections: the function's trends (pass rate with its
interval band, cost per run, latency) and one card per case (its sparkline, latest value
and interval, change, badge, gate strip), and the text formats they share with the page's
head. Every string from a report is escaped here; names sit in ``<bdi>``. The cards carry
what the page's script filters and sorts on as ``data-*`` attributes (``data-status``,
``data-rate``, ``data-change``, ``data-p``, ``data-gated``, ``data-i``). Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pytest_probability.api import (
    clopper_pearson_interval,
    duration,
    html_escape,
    percent,
    percent_of,
    quantile_label,
)

from .moves import NEW, WINDOW, CaseMove, Comparison
from .sessions import CasePoint, History, Session
from .sparklines import TREND_HEIGHT, TREND_WIDTH, Mark, sparkline

#: A card's status when the case did not run in the latest session.
ABSENT = "absent"
MINUS = "\u2212"
MISSING = "\u2014"
#: Characters that change the direction of the text after them.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# -- formatting --------------------------------------------------------------------------------
def points(change: float) -> str:
    """A change of pass fraction in percentage points, as the session report writes it:
    ``+20 pp``, ``−55 pp``, ``0 pp`` (half up on the decimal value)."""
    rounded = int(percent_of(change))
    if rounded == 0:
        return "0 pp"
    return f"{'+' if rounded > 0 else MINUS}{abs(rounded)} pp"


def p_text(p: float) -> str:
    """``p<0.001``, ``p=0.0031``, ``p=0.47``."""
    if p < 0.001:
        return "p<0.001"
    return f"p={p:.2g}" if p < 0.01 else f"p={p:.2f}"


def money_per_run(amount: float) -> str:
    """An amount per run: four decimals, or two significant digits when smaller
    (``$0.0015``, ``$0.000036``)."""
    if amount <= 0:
        return "$0.0000"
    places = 4
    while amount < 10 ** (1 - places) and places < 12:
        places += 1
    return f"${amount:.{places}f}"


@lru_cache(maxsize=8192)
def rate_with_interval(passes: int, total: int, level: float) -> tuple[str, float, float]:
    """``("40% [19%, 64%]", low, high)``: the pass fraction and its Clopper–Pearson
    interval at ``level``, in whole percent (the text every card and tooltip shows)."""
    interval = clopper_pearson_interval(passes, total, level)
    text = f"{percent(passes / total)} [{percent(interval.low)}, {percent(interval.high)}]"
    return text, interval.low, interval.high


def plain(text: str) -> str:
    """Text for a tooltip or an accessible name: isolated (FSI … PDI) when it holds a
    character that changes the direction of what follows, so it cannot reorder the rest."""
    return f"\u2068{text}\u2069" if _BIDI.search(text) else text


def bdi(text: str) -> str:
    """``text`` escaped in a ``<bdi>``: its direction cannot leak into the text around it."""
    return f"<bdi>{html_escape(text)}</bdi>"


def plural(number: int, word: str) -> str:
    """``1 case``, ``1,200 cases``."""
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def when(session: Session) -> str:
    """The session's time as the page shows it (``2026-10-12 09:00:00``)."""
    return session.created.replace("T", " ", 1) or "time unknown"


def session_name(session: Session, number: int) -> str:
    """How a tooltip names a session: ``#12 a1b2c3d (2026-10-12 09:00:00)``, or
    ``#12 2026-10-12 09:00:00`` without a commit."""
    shown = plain(when(session))
    return (
        f"#{number} {session.short_commit} ({shown})"
        if session.short_commit
        else f"#{number} {shown}"
    )


@dataclass
class Pool:
    """One function's sums in one session."""

    passes: int = 0
    total: int = 0
    cost: float = 0.0
    cost_runs: int = 0
    latencies: list[float] = field(default_factory=list)
    quantiles: list[float] = field(default_factory=list)

    def add(self, point: CasePoint) -> None:
        """Count one case's point of the session in."""
        self.passes += point.passes
        self.total += point.total
        if point.cost is not None:
            self.cost += point.cost
            self.cost_runs += point.total
        if point.latency is not None:
            self.latencies.append(point.latency)
            if point.latency_quantile is not None:
                self.quantiles.append(point.latency_quantile)


def _latency_name(pools: Sequence[Pool]) -> str:
    """``median p95 latency``: the quantile most of the function's cases report."""
    quantiles = Counter(q for pool in pools for q in pool.quantiles).most_common(1)
    if quantiles:
        try:
            return f"median {quantile_label(quantiles[0][0])} latency"
        except ValueError:
            pass
    return "median latency"


def _trend(caption: str, plot: str, value: str) -> str:
    """One trend: its caption, its plot, and ``value`` (HTML) under it."""
    return (
        f'<figure class="trend"><figcaption>{html_escape(caption)}</figcaption>{plot}'
        f"<p>{value}</p></figure>"
    )


def _value_trend(
    caption: str,
    values: Sequence[float | None],
    names: Sequence[str],
    shown: Callable[[float], str],
) -> str:
    """A cost or latency trend (``shown`` prints a value): a line on a 0-to-largest scale."""
    known = [v for v in values if v is not None]
    if not known:
        return ""
    top = max(known) * 1.1 or 1.0
    marks = [
        Mark(value, title=f"{name}: {shown(value)}" if value is not None else "")
        for value, name in zip(values, names, strict=True)
    ]
    first, last = shown(known[0]), shown(known[-1])
    label = f"{caption} {first} → {last} over {plural(len(known), 'session')}"
    plot = sparkline(
        marks,
        label=label,
        top=top,
        width=TREND_WIDTH,
        height=TREND_HEIGHT,
        css="trend",
        grid=(0.0, 1.0),
    )
    lowest, highest = shown(min(known)), shown(max(known))
    text = (
        f"<b>{html_escape(last)}</b> latest · from {html_escape(first)}; "
        f"range {html_escape(lowest)}–{html_escape(highest)}"
    )
    return _trend(caption, plot, text)


def _function_trends(pools: Sequence[Pool], names: Sequence[str], level: float) -> str:
    """A function's trends over the sessions (``pools``, one per session): its pooled pass
    rate with an interval band, its cost per run and its latency where recorded."""
    if len(pools) != len(names):
        return ""
    marks, rates = [], []
    for pool, name in zip(pools, names, strict=True):
        if not pool.total:
            marks.append(Mark(None, title=f"{name}: did not run"))
            continue
        text, low, high = rate_with_interval(pool.passes, pool.total, level)
        rate = pool.passes / pool.total
        rates.append((text, rate))
        title = f"{name}: {pool.passes:,}/{pool.total:,} runs passed, {text}"
        marks.append(Mark(rate, low, high, title))
    if not rates:
        return ""
    first, last = percent(rates[0][1]), percent(rates[-1][1])
    label = f"pooled pass rate {first} → {last} over {plural(len(rates), 'session')}"
    plot = sparkline(marks, label=label, width=TREND_WIDTH, height=TREND_HEIGHT, css="trend")
    parts = [
        _trend(
            "Pass rate, runs pooled",
            plot,
            f"<b>{html_escape(rates[-1][0])}</b> latest · from {html_escape(percent(rates[0][1]))}",
        )
    ]
    costs = [pool.cost / pool.cost_runs if pool.cost_runs else None for pool in pools]
    parts.append(_value_trend("Cost per run", costs, names, money_per_run))
    latencies = [statistics.median(pool.latencies) if pool.latencies else None for pool in pools]
    parts.append(_value_trend(_latency_name(pools), latencies, names, duration))
    return f'<div class="trends">{"".join(parts)}</div>'


def _badge(move: CaseMove) -> str:
    """``worse, p<0.001`` / ``better, p=0.003`` for a real move, ``new``, or nothing."""
    comparison = move.real
    if comparison is None:
        return '<span class="badge b-new">new</span>' if move.status == NEW else ""
    return (
        f'<span class="badge b-{move.status}" title="{html_escape(_against(comparison))}">'
        f"{move.status}, {p_text(comparison.p_adjusted)}</span>"
    )


def _against(comparison: Comparison) -> str:
    """The badge's tooltip: which comparison made the move real, with its counts."""
    if comparison.against == WINDOW:
        what = f"its runs over the {comparison.sessions} sessions before the latest"
    else:
        what = f"the previous session it ran in ({plain(comparison.since.label)})"
    return (
        f"Benjamini–Hochberg adjusted p-value of Fisher's exact test against {what}: "
        f"{comparison.base_passes}/{comparison.base_total} passed, now "
        f"{comparison.latest_passes}/{comparison.latest_total}"
    )


def _card(
    index: int,
    case: str,
    series: Sequence[CasePoint | None],
    move: CaseMove | None,
    names: Sequence[str],
    level: float,
) -> str:
    """One case's card (``id="c-{index}"``): its sparkline over every session (``series``,
    one point or ``None`` per session) and what the latest session says (``move``; ``None``
    when the case did not run in it)."""
    marks: list[Mark] = []
    ran: list[tuple[int, CasePoint, str]] = []
    for number, point in enumerate(series):
        if point is None:
            marks.append(Mark(None, title=f"{names[number]}: did not run"))
            continue
        text, low, high = rate_with_interval(point.passes, point.total, level)
        ran.append((number, point, text))
        title = f"{names[number]}: {point.passes}/{point.total} passed, {text}"
        if point.gate is not None:
            title += f"; gate {plain(point.gate)}"
        marks.append(Mark(point.rate, low, high, title, point.gate))
    status = move.status if move is not None else ABSENT
    attributes = [
        f'id="c-{index}" class="case st-{status}" data-i="{index}" data-status="{status}"'
    ]
    label = "pass rate "
    if ran:
        first, last = percent(ran[0][1].rate), percent(ran[-1][1].rate)
        label += f"{first} → {last} over {plural(len(ran), 'session')}"
    if move is not None:
        attributes.append(f'data-rate="{move.latest.rate!r}"')
        if move.previous is not None:
            attributes.append(f'data-change="{move.previous.change!r}"')
        if move.comparisons:
            attributes.append(f'data-p="{min(c.p_adjusted for c in move.comparisons)!r}"')
        if move.gated:
            attributes.append("data-gated")
            label += f"; gate {plain(move.latest.gate or '')} in the latest session"
        now = [f'<span class="latest">{html_escape(ran[-1][2])}</span>']
        if move.previous is not None:
            since = html_escape(
                f"change since the previous session it ran in ({plain(move.previous.since.label)})"
            )
            now.append(f'<span class="chg" title="{since}">{points(move.previous.change)}</span>')
        if move.gated:
            verdict = move.latest.gate or ""
            kind = verdict if verdict in ("pass", "fail", "undecided") else "other"
            now.append(f'<span class="gate v-{kind}">gate {html_escape(verdict)}</span>')
        now.append(_badge(move))
    else:
        last = ran[-1] if ran else None
        where = f" in {html_escape(names[last[0]])}" if last else ""
        text = html_escape(last[2]) if last else MISSING
        now = [f'<span class="muted">not in the latest session; last {text}{where}</span>']
    plot = sparkline(marks, label=label)
    return (
        f"<article {' '.join(attributes)}><h3>{bdi(case)}</h3>{plot}"
        f'<p class="now">{"".join(now)}</p></article>'
    )


def pools(history: History) -> dict[str, list[Pool]]:
    """Each function's sums per session (every session, empty where it did not run)."""
    found: dict[str, list[Pool]] = {}
    count = len(history.sessions)
    for index, session in enumerate(history.sessions):
        for point in session.cases.values():
            found.setdefault(point.function, [Pool() for _ in range(count)])[index].add(point)
    return found


def function_section(
    number: int,
    function: str,
    cases: Sequence[str],
    first: int,
    history: History,
    moves: Mapping[str, CaseMove],
    sums: Sequence[Pool],
    names: Sequence[str],
    level: float,
) -> str:
    """The ``number``-th function's section: heading, trends (from ``sums``, its
    :func:`pools`), and a card per case, numbered from ``first`` (``id="c-{first}"``…).
    ``names`` are the sessions' tooltip names (:func:`session_name`)."""
    cards = [
        _card(first + offset, case, history.series(case), moves.get(case), names, level)
        for offset, case in enumerate(cases)
    ]
    return (
        f'<section id="f-{number}" class="fn" data-fn="{html_escape(function)}" '
        f'aria-labelledby="h-f-{number}"><h2 id="h-f-{number}">{bdi(function)} '
        f'<span class="muted">{plural(len(cases), "case")}</span></h2>'
        f"{_function_trends(sums, names, level)}"
        f'<div class="cards">{"".join(cards)}</div></section>'
    )
