"""Hostile report data never becomes markup: every field of a report holding hostile text
leaves the rendered page, as Chromium builds it, with only the renderer's own elements,
attributes and class names (issue 21 §4).

A real session's report (gates, comparisons, a baseline, metrics, latency, stopping,
explanations, cost, a plan) is rewritten so that every string, every map key holding data
(models, metrics, glossary terms) and every scalar holds text that tries each way out of an
HTML context: closing the attribute or the element, a ``<meta http-equiv=refresh>``, event
handler attributes, a second class token, ``<script>``, ``<style>``, a comment. Each hostile
string carries a number, so a failure names the field it came from.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from browser import BENCH, Element, Page, dump_dom, text_of
from pytest_probability.__main__ import main
from pytest_probability.extensions.html.markup import HtmlPanel, Markup, escape
from pytest_probability.extensions.html.render import TITLE, render_report

HTML_SOURCES = Path(__file__).resolve().parents[1] / "extensions" / "html"
#: A latency-gated function besides the BENCH's gated and compared ones.
LATENCY_BENCH = """

@pytest.mark.probability(max_latency=10.0)
def bench_quick():
    pass
"""
SESSION = ("-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", "-W", "ignore")
ANALYSES = ("--prob-runs=6", "--prob-compare=style", "--prob-metric=pass^3")
ANALYSES += ("-o", "prob_min_inputs=2", "--prob-latency", "--prob-explain")
#: Map keys whose keys are data (model names, metric names, glossary terms), not field names.
OPEN_MAPS = {"usage", "glossary", "metrics"}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The elements the renderer (and the page script) ever make.
TAGS = _words(
    """a b body button caption circle code dd details div dl dt footer form h1 h2 h3 head
    header html input label li link main meta nav ol option output p path pre rect script
    section select small span strong style summary svg table tbody td text th thead title tr
    ul wbr"""
)
#: The attributes it ever writes (``data-*`` sort keys apart).
ATTRIBUTES = _words(
    """aria-hidden aria-label aria-live aria-sort aria-labelledby autocomplete charset class
    colspan content cx cy d height hidden href http-equiv id lang name placeholder r rel role
    scope text-anchor title type value viewbox width x y open selected"""
)
DATA_ATTRIBUTE = re.compile(r"data-(i|fn|status|rate|low|high|n|gate|lat|cost|m\d+|param|sort)")
#: A class token made from report text: a prefix and a sanitized word.
DATA_CLASS = re.compile(r"[svo]-[A-Za-z0-9_-]+")
SAFE_ID = re.compile(r"[A-Za-z0-9_-]+")


def hostile(number: int) -> str:
    """Text trying every way out of an HTML text or attribute context, tagged ``number``."""
    return (
        f'"><x-probe data-probe="{number}"></x-probe>'
        f'<meta http-equiv="refresh" content="0;url=data:text/html,probe{number}">'
        f"' onmouseover='probe({number})' x=' probe{number} "
        f"</script><script>probe({number})</script><img src=x onerror=probe({number})>"
        f"<style>*{{display:none}}</style><svg onload=probe({number})>]]>"
        f"javascript:probe({number}) &amp; \x00\x1b[2J \u202e ünï <!--"
    )


def class_words() -> set[str]:
    """Every word of the html extension's source: a superset of the class names it uses."""
    words: set[str] = set()
    for source in HTML_SOURCES.glob("*.py"):
        words |= set(re.findall(r"[A-Za-z][A-Za-z0-9_-]*", source.read_text(encoding="utf-8")))
    return {word for word in words if "probe" not in word}


class Hostile:
    """Numbers hostile strings: the same text always gets the same number (so a case id
    still matches its records), and each number remembers the field it was first put in."""

    def __init__(self) -> None:
        self.numbers: dict[object, int] = {}
        self.fields: dict[int, str] = {}

    def __call__(self, value: object, where: str) -> str:
        key = (type(value).__name__, value) if not isinstance(value, str) else value
        if key not in self.numbers:
            self.numbers[key] = len(self.numbers) + 1
            self.fields[self.numbers[key]] = where
        return hostile(self.numbers[key])

    def fresh(self, where: str) -> str:
        return self(object(), where)


def rewrite(value: Any, swap: Callable[[Any, str], Any], where: str = "") -> Any:
    """``value`` with every leaf replaced by ``swap(leaf, path)`` (recursively)."""
    if isinstance(value, dict):
        return {
            key: rewrite(child, swap, f"{where}.{key}" if where else str(key))
            for key, child in value.items()
        }
    if isinstance(value, list):
        return [rewrite(child, swap, f"{where}[{i}]") for i, child in enumerate(value)]
    return swap(value, where)


def with_hostile_keys(value: Any, mark: Hostile, where: str = "", parent: str = "") -> Any:
    """Data keys (under :data:`OPEN_MAPS`) replaced, and one extra hostile field in every
    object."""
    if isinstance(value, dict):
        rebuilt: dict[str, Any] = {}
        for key, child in value.items():
            path = f"{where}.{key}" if where else str(key)
            new_key = mark(key, path) if parent in OPEN_MAPS and key not in ("lines",) else key
            rebuilt[new_key] = with_hostile_keys(child, mark, path, str(key))
        rebuilt[mark.fresh(f"{where} (extra key)")] = mark.fresh(f"{where} (extra value)")
        return rebuilt
    if isinstance(value, list):
        return [
            with_hostile_keys(child, mark, f"{where}[{i}]", parent) for i, child in enumerate(value)
        ]
    return value


def strings_hostile(document: dict[str, Any], mark: Hostile) -> dict[str, Any]:
    """Every string (consistently) and every data key hostile; an extra field everywhere."""
    swapped = rewrite(document, lambda v, w: mark(v, w) if isinstance(v, str) else v)
    return with_hostile_keys(swapped, mark)


def scalars_hostile(document: dict[str, Any], mark: Hostile) -> dict[str, Any]:
    """Every scalar (numbers, booleans, ``null`` too) a hostile string."""
    return rewrite(document, lambda v, w: mark.fresh(w))


def panels(mark: Hostile) -> list[HtmlPanel]:
    return [
        HtmlPanel(mark.fresh("panel title"), mark.fresh("panel text"), mark.fresh("anchor")),
        HtmlPanel(mark.fresh("panel 2 title"), Markup(escape(mark.fresh("panel markup")))),
    ]


def injected(dom: str, mark: Hostile, words: set[str]) -> list[str]:
    """What in the DOM could only have come from the data: an element, an attribute, a class
    token, an id or a link the renderer never makes. Names the field when it can."""
    page = Page(dom)
    found: list[str] = []

    def origin(element: Element) -> str:
        numbers = re.findall(r"probe\(?(\d+)", json.dumps(element.attrs) + element.tag)
        return ", ".join(sorted({mark.fields.get(int(n), "?") for n in numbers})) or "?"

    for element in page.elements:
        where = f"<{element.tag} {element.attrs}> from {origin(element)}"
        if element.tag not in TAGS:
            found.append(f"element {where}")
        for name, value in element.attrs.items():
            if name.startswith("data-") and DATA_ATTRIBUTE.fullmatch(name):
                continue
            if name not in ATTRIBUTES:
                found.append(f"attribute {name!r} on {where}")
            elif name == "class":
                for token in value.split():
                    if token not in words and not DATA_CLASS.fullmatch(token):
                        found.append(f"class token {token!r} on {where}")
            elif name == "id" and not SAFE_ID.fullmatch(value):
                found.append(f"id {value!r} on {where}")
            elif name == "href" and not (value.startswith("#") or value == "data:,"):
                found.append(f"link {value!r} on {where}")
    counts = {tag: len(page.find(tag)) for tag in ("meta", "script", "style", "h1", "head")}
    if counts != {"meta": 5, "script": 1, "style": 1, "h1": 1, "head": 1}:
        found.append(f"element counts {counts}")
    head = [child.tag for head in page.find("head") for child in head.children]
    if sorted(head) != ["link", "meta", "meta", "meta", "meta", "meta", "style", "title"]:
        found.append(f"the head holds {head}")
    if not any(text_of(h1) == TITLE for h1 in page.find("h1")):
        found.append("the report's title is gone (the page navigated away?)")
    return found


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real session's report with every section: a baseline run, then the session with
    stopping against that baseline, and a plan's ``plan`` object added."""
    directory = tmp_path_factory.mktemp("fuzz")
    (directory / "bench_demo.py").write_text(BENCH + LATENCY_BENCH)

    def run(*args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "pytest", *SESSION, *args],
            cwd=directory,
            capture_output=True,
            check=False,
        )

    run(*ANALYSES, "--prob-json=base.json")
    run(*ANALYSES, "--prob-stop=curtail", "--prob-baseline=base.json", "--prob-json=r.json")
    run("--prob-plan", "--prob-plan-report=r.json", "--prob-json=plan.json")
    document = json.loads((directory / "r.json").read_text(encoding="utf-8"))
    document["plan"] = json.loads((directory / "plan.json").read_text(encoding="utf-8"))["plan"]
    document["warnings"] = ["an extension failed"]
    document["records"][0]["warnings"] = ["a warning on a run"]
    expected = {"baseline", "stopping", "comparisons", "metrics", "aggregates", "plan", "gates"}
    assert expected <= set(document), sorted(document)
    return document


@pytest.mark.parametrize("variant", [strings_hostile, scalars_hostile])
def test_no_element_or_attribute_comes_from_the_data(
    full_report: dict[str, Any], variant: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    words = class_words()
    clean = render_report(full_report, latency=True)
    assert injected(clean, Hostile(), words) == []  # the checker accepts the renderer's page
    mark = Hostile()
    document = variant(copy.deepcopy(full_report), mark)
    page = render_report(document, panels(mark), latency=True)
    assert injected(page, mark, words) == []  # as Python's parser reads it
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    dom = dump_dom(path, tmp_path / "profile")
    assert injected(dom, mark, words) == []  # as Chromium built it, after the script ran
    shown = {int(n) for n in re.findall(r"probe\((\d+)\)", html_text(dom))}
    assert len(shown) > 40, "the hostile text did not reach the page"


def html_text(dom: str) -> str:
    """All text of the DOM (attribute values left out)."""
    return "".join(text_of(element) for element in Page(dom).find("body"))


def test_hostile_filters_in_the_url_stay_text(full_report: dict[str, Any], tmp_path: Path) -> None:
    """The page script puts values from the URL into the filter form: as text only."""
    mark = Hostile()
    document = strings_hostile(copy.deepcopy(full_report), mark)
    path = tmp_path / "report.html"
    path.write_text(render_report(document), encoding="utf-8")
    value = quote(hostile(999), safe="")
    dom = dump_dom(path, tmp_path / "profile", f"filter={value}&fn={value}&q={value}&sort={value}")
    assert injected(dom, mark, class_words()) == []


#: A third party's row status key that closes the ``class`` attribute of the interval bar.
REFRESH = 'x"><meta http-equiv="refresh" content="0;url=data:text/html,gone">'
ROW_STATUS = f"""
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_prob_row_status(case, config):
    return "ODD", {REFRESH!r}
"""


def test_a_row_status_from_a_hook_stays_one_class_token(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """The issue's instance: ``<svg class="bar s-{status}">`` took the key unescaped, and
    Chromium followed the injected refresh."""
    pytester.makeconftest(ROW_STATUS)
    pytester.makepyfile(bench_one="def bench_one():\n    pass\n")
    pytester.runpytest("--prob-runs=2", "--prob-html=r.html", "--prob-json=r.json")
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert injected(page, Hostile(), class_words()) == []
    bars = Page(page).find("svg")
    assert any(
        bar.attrs.get("class")
        == "bar s-x-meta-http-equiv-refresh-content-0-url-data-text-html-gone"
        for bar in bars
    )
    dom = dump_dom(pytester.path / "r.html", tmp_path / "profile")
    assert injected(dom, Hostile(), class_words()) == []
    # the same report rendered by the command line
    done = subprocess.run(
        [sys.executable, "-m", "pytest_probability", "html", "r.json", "-o", "cli.html"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    cli = (pytester.path / "cli.html").read_text(encoding="utf-8")
    assert injected(cli, Hostile(), class_words()) == []


def _nested(depth: int) -> str:
    """A report whose first row's explanation nests arrays ``depth`` levels deep."""
    inner = "[" * depth + "]" * depth
    return f'{{"schema_version": 1, "rows": [{{"case": "a", "explanation": {inner}}}]}}'


@pytest.mark.parametrize("depth", [100_000, 500])
def test_a_deeply_nested_report_is_a_clear_error(tmp_path: Path, depth: int) -> None:
    """100,000 levels made Python's parser raise RecursionError (a traceback); 500 levels
    parse, and would recurse while drawn."""
    (tmp_path / "deep.json").write_text(_nested(depth), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_probability", "html", "deep.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "python -m pytest_probability: error: deep.json: nested more than 100 levels deep; a "
        "pytest-probability report is nested a few levels (this file is not one, or it was "
        "damaged)"
    ]
    assert not (tmp_path / "deep.html").exists()


def test_nesting_within_the_limit_renders(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(_nested(97), encoding="utf-8")  # 100 levels in all
    assert main(["html", str(tmp_path / "deep.json")]) == 0
    assert "<h1>pytest-probability report</h1>" in (tmp_path / "deep.html").read_text()


def test_class_tokens_and_names_from_text() -> None:
    from pytest_probability.extensions.html.markup import class_list, css_token, element

    assert css_token('flaky x"><meta') == "flaky-x-meta"
    assert css_token(None) == "" and css_token("pass") == "pass" and len(css_token("a" * 99)) == 64
    assert class_list('badge s-x" onclick="y  v-pass') == "badge s-x onclick-y v-pass"
    assert element("td", "x", class_='a"><b') == '<td class="a-b">x</td>'
    for tag, attributes in [("td onclick=x", {}), ("td", {'title="x" onclick': "y"})]:
        with pytest.raises(ValueError, match="not an HTML tag or attribute name"):
            element(tag, "x", **attributes)
