"""Plain-language readings: every ``explanation`` field of the report, and its glossary.

The ``explain`` extension (``--prob-explain``) leaves an ``explanation`` on the JSON objects
it reads (rows, their latency, function lines, metric lines, comparisons, baselines); any
extension may add more anywhere. They are all collected here, each under a heading that
says what it is about and linking to where the numbers are. Pure module: never imports
pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import obj, objects, text

from .markup import Markup, escape
from .summaries import comparison_label

FIELD = "explanation"


@dataclass
class Reading:
    """One ``explanation`` found in the report."""

    topic: str
    link: str
    rank: int
    value: Any


def _path_text(path: tuple[Any, ...]) -> str:
    shown = ""
    for part in path:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else str(part))
    return shown or "report"


def _topic(
    rows: list[Mapping[str, Any]], path: tuple[Any, ...], found: Mapping[str, Any]
) -> tuple[str, str, int]:
    """``(topic, link, rank)`` for the object ``found`` at ``path`` holding an explanation
    (``rows``: the document's row objects, listed once per page rather than once per
    reading)."""
    if len(path) >= 2 and path[0] == "rows" and isinstance(path[1], int) and path[1] < len(rows):
        case = text(rows[path[1]].get("case"))
        if len(path) == 2:
            return case, f"#c{path[1]}", 1
        if path[2:] == ("latency",):
            return f"{case}: latency", "#latency", 6
    if len(path) == 2 and path[0] == "aggregates":
        return text(found.get("label")), "#functions", 2
    if len(path) == 3 and path[:2] == ("metrics", "lines"):
        return f"{text(found.get('scope'))} {text(found.get('metric'))}", "#metrics", 3
    if len(path) == 2 and path[0] == "comparisons":
        return comparison_label(found), "#comparisons", 4
    if len(path) == 3 and path[:2] == ("baseline", "functions"):
        return f"{text(found.get('label'))}: against the baseline", "#baseline", 5
    if len(path) == 2 and path[0] == "records":
        return f"{text(found.get('case'))}, run {text(found.get('run'))}", "", 7
    return _path_text(path), "", 8


def find_readings(document: Mapping[str, Any]) -> list[Reading]:
    """Every ``explanation`` field in the document, ordered rows, function lines, metrics,
    comparisons, baselines, latency, runs, then anything else (document order within)."""
    found: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        if type(value) is dict and FIELD in value and value[FIELD] not in (None, ""):
            found.append((path, value))
        children = value.items() if type(value) is dict else enumerate(value)
        stack.extend(
            ((*path, key), child)
            for key, child in reversed(list(children))
            if type(child) is dict or type(child) is list
        )
    rows = objects(document.get("rows"))
    readings = [Reading(*_topic(rows, path, value), value[FIELD]) for path, value in found]
    return sorted(readings, key=lambda reading: reading.rank)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return f"<p>{escape(value)}</p>"
    shown = json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return f'<pre class="msg">{escape(shown)}</pre>'


def render_explained(document: Mapping[str, Any]) -> Markup | None:
    """Every reading under its topic, then the glossary; ``None`` when there is neither."""
    readings = find_readings(document)
    glossary = obj(document.get("glossary"))
    if not readings and not glossary:
        return None
    parts = []
    for reading in readings:
        topic = escape(reading.topic)
        if reading.link:
            topic = Markup(f'<a href="{escape(reading.link)}">{topic}</a>')
        parts.append(f'<div class="reading"><h3>{topic}</h3>{_value(reading.value)}</div>')
    if glossary:
        terms = "".join(
            f"<dt>{escape(term)}</dt><dd>{escape(text(meaning))}</dd>"
            for term, meaning in glossary.items()
        )
        parts.append(f'<h3 class="terms">Terms</h3><dl class="glossary">{terms}</dl>')
    return Markup("".join(parts))
