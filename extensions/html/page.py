"""The page around the sections: head (charset, viewport, a strict Content-Security-Policy),
title, the header (totals, exit status, cost, the settings that produced the numbers),
navigation and footer, and the extensions' warnings.

The policy allows no network access at all (``default-src 'none'``), inline styles, images
from ``data:`` URLs, and exactly one script, the page's own, by its hash; so the file works
from ``file://`` and as a CI artefact, and text that slipped through escaping could still
not run. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import integer, num, obj, objects, plugin_version, text
from pytest_probability.api import items as json_array

from . import fmt
from .cases import STATUSES
from .markup import Markup, class_list, css_token, escape
from .style import CSS, SCRIPT, script_hash
from .summaries import latency_note, status_counts
from .svg import stacked_bar

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


def _policy() -> str:
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {script_hash()}; base-uri 'none'; form-action 'none'"
    )


def _subtitle(document: Mapping[str, Any]) -> str:
    parts = []
    if document.get("created"):
        parts.append(f"created {text(document.get('created')).replace('T', ' ')}")
    rows = json_array(document.get("rows"))
    if rows:
        parts.append(fmt.plural(len(rows), "case"))
    runs = integer(document.get("runs"))
    if runs is not None:
        parts.append(f"{fmt.plural(runs, 'run')} per case")
    if obj(document.get("plan")):
        parts.append("planning session: nothing ran")
    return " · ".join(parts)


def _title(document: Mapping[str, Any]) -> str:
    totals = obj(document.get("totals"))
    rows = json_array(document.get("rows"))
    if not rows:
        return TITLE
    return f"{TITLE}: {fmt.plural(len(rows), 'case')}, {fmt.rate(totals.get('pass_rate'))} passed"


def render_page(document: Mapping[str, Any], header: Markup, sections: Sequence[Section]) -> str:
    """The whole HTML document."""
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
    footer = (
        f"Written by pytest-probability {escape(plugin_version)} from its JSON report "
        f"(schema {escape(text(document.get('schema_version'), '?'))}); the JSON holds every "
        "number unrounded and every message whole."
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_policy()}">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f'<meta name="generator" content="pytest-probability {escape(plugin_version)}">\n'
        f"<title>{escape(_title(document))}</title>\n"
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
            f"{counts[status]:,} {status.upper() if status in STATUSES else status}",
        )
        for status in [*STATUSES, *sorted(set(counts) - set(STATUSES))]
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
        words = ", ".join(f"{n:,} {s.upper().lower()}" for s, n in counts.items())
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
