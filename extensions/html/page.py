"""The page around the sections: head (charset, viewport, a strict Content-Security-Policy),
title, navigation and footer.

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

from pytest_probability.api import integer, obj, plugin_version, text
from pytest_probability.api import items as json_array

from . import fmt
from .markup import Markup, class_list, escape
from .script import SCRIPT, script_hash
from .style import CSS

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
