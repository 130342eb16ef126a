"""The report's header: totals, exit status, cost, the settings that produced the numbers,
and the extensions' warnings. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_probability.api import integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .cases import STATUS_WORDS
from .latency import latency_note
from .markup import Markup, class_list, css_token, escape
from .summaries import status_counts
from .svg import stacked_bar

EXIT_STATUSES = {
    0: "all passed",
    1: "failures",
    2: "interrupted",
    3: "internal error",
    4: "usage error",
    5: "no tests collected",
}


def _card(label: str, value: object, note: object = None, css: str = "", plot: str = "") -> str:
    extra = f'<div class="note">{escape(note)}</div>' if note else ""
    class_ = class_list(f"card {css}")
    return (
        f'<div class="{class_}"><div class="label">{escape(label)}</div>'
        f'<div class="value">{escape(value)}</div>{extra}{plot}</div>'
    )


def _runs_bar(totals: Mapping[str, Any]) -> Markup:
    parts = [
        (integer(totals.get("passes")) or 0, "s-pass", "passed"),
        (integer(totals.get("fails")) or 0, "s-fail", "failed"),
        (integer(totals.get("errors")) or 0, "s-error", "errored"),
        (integer(totals.get("skipped")) or 0, "s-skipped", "skipped"),
    ]
    return stacked_bar([(n, css, f"{n:,} {word}") for n, css, word in parts], width=240)


def _cases_bar(counts: Mapping[str, int]) -> Markup:
    parts = [
        (
            counts[status],
            f"s-{css_token(status)}",
            f"{counts[status]:,} {STATUS_WORDS.get(status, status)}",
        )
        for status in [*STATUS_WORDS, *sorted(set(counts) - set(STATUS_WORDS))]
        if counts.get(status)
    ]
    return stacked_bar(parts, width=240)


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
        words = ", ".join(
            f"{n:,} {STATUS_WORDS.get(s, s.upper()).lower()}" for s, n in counts.items()
        )
        cards.append(_card("Cases", f"{sum(counts.values()):,}", words, plot=_cases_bar(counts)))
    count = integer(totals.get("count"))
    if count is not None:
        passes = integer(totals.get("passes")) or 0
        detail = (
            f"{passes:,} passed, {integer(totals.get('fails')) or 0:,} failed, "
            f"{integer(totals.get('errors')) or 0:,} errored, "
            f"{integer(totals.get('skipped')) or 0:,} skipped"
        )
        value = f"{passes:,}/{count:,} ({fmt.rate(totals.get('pass_rate'))})"
        cards.append(_card("Runs passed", value, detail, plot=_runs_bar(totals)))
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


def _settings(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, value)`` pairs describing how the numbers were produced."""
    found: list[tuple[str, str]] = []
    if document.get("runs") is not None:
        found.append(("Runs per case", text(document.get("runs"))))
    methods: dict[str, None] = {}
    for row in objects(document.get("rows")):
        ci = obj(row.get("ci"))
        if ci:
            level = num(ci.get("level"))
            shown = f"{level * 100:g}%" if level is not None else "?"
            methods[f"{text(ci.get('method'), '?')} at {shown}"] = None
    if methods:
        found.append(("Case intervals", ", ".join(methods)))
    aggregates = objects(document.get("aggregates"))
    if aggregates:
        first = aggregates[0]
        found.append(
            (
                "Bootstrap",
                f"{fmt.count(first.get('resamples'))} resamples, seed {text(first.get('seed'))}",
            )
        )
    gates = obj(document.get("gates"))
    if gates:
        undecided = "fail" if gates.get("undecided_fails", True) else "pass"
        found.append(
            ("Gates", f"undecided verdicts {undecided}; errored runs {text(gates.get('errors'))}")
        )
    latency = latency_note(document)
    if latency:
        found.append(("Latency", latency))
    tests = {
        f"{text(c.get('test'))}, adjust {text(c.get('adjust'))}": None
        for c in objects(document.get("comparisons"))
    }
    if tests:
        found.append(("Comparisons", "; ".join(tests)))
    metrics = [text(m) for m in json_array(obj(document.get("metrics")).get("metrics"))]
    if metrics:
        found.append(("Metrics", ", ".join(metrics)))
    stopping = obj(document.get("stopping"))
    if stopping:
        found.append(("Stopping", text(stopping.get("mode"))))
    baseline = obj(document.get("baseline"))
    if baseline:
        found.append(("Baseline", text(baseline.get("path"))))
    if document.get("schema_version") is not None:
        found.append(("Report schema", text(document.get("schema_version"))))
    return found


def render_settings(document: Mapping[str, Any]) -> Markup:
    """The settings as a definition list (may be empty)."""
    pairs = _settings(document)
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
