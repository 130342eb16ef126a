"""Helpers for the HTML report tests: a structural HTML5 checker built on ``html.parser``,
headless Chromium (Debian's ``chromium`` package) to load pages after their script ran, a
synthetic report of any size, and the benchmark and panel conftest the sessions use.

Browser tests skip when Chromium is missing, except under CI (``CI=true``), where they
fail: CI installs it (``apt-get install -y chromium``) and must run them.
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
#: A console message of the page (Chromium logs every level as ``INFO:CONSOLE``).
CONSOLE = re.compile(r":CONSOLE[:(]|Uncaught")


@dataclass
class Element:
    """One start tag as parsed: its name, attributes, and the text directly inside it."""

    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)


class Page(HTMLParser):
    """Parses a page, checking that every tag is closed in order (void elements excepted)
    and collecting the elements, ids and problems found."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.doctype: str | None = None
        self.problems: list[str] = []
        self.elements: list[Element] = []
        self.ids: list[str] = []
        self._stack: list[Element] = []
        self.feed(source)
        self.close()
        if self._stack:
            self.problems.append(f"unclosed: {[e.tag for e in self._stack]}")

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def _open(self, tag: str, attrs: list[tuple[str, str | None]], void: bool) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        if "id" in element.attrs:
            self.ids.append(element.attrs["id"])
        if self._stack:
            self._stack[-1].children.append(element)
        self.elements.append(element)
        if not void:
            self._stack.append(element)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, tag in VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, True)  # <path/> in SVG

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.problems.append(f"end tag for void element </{tag}>")
        elif not self._stack or self._stack[-1].tag != tag:
            open_tags = [e.tag for e in self._stack[-3:]]
            self.problems.append(f"</{tag}> does not close the open {open_tags}")
        else:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if self._stack:
            self._stack[-1].text += data

    def find(self, tag: str, **attrs: str) -> list[Element]:
        """Elements with this tag whose attributes have these values."""
        return [
            e
            for e in self.elements
            if e.tag == tag and all(e.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]


def text_of(element: Element) -> str:
    """All text inside an element, its children's included."""
    return element.text + "".join(text_of(child) for child in element.children)


def html5_problems(source: str) -> list[str]:
    """What keeps ``source`` from being a well-formed HTML5 page for these tests."""
    page = Page(source)
    problems = list(page.problems)
    if (page.doctype or "").lower() != "doctype html":
        problems.append(f"doctype is {page.doctype!r}")
    html = page.find("html")
    if len(html) != 1 or not html[0].attrs.get("lang"):
        problems.append("<html> needs a lang")
    metas = page.find("meta")
    if not metas or metas[0].attrs.get("charset", "").lower() != "utf-8":
        problems.append('the first <meta> must be <meta charset="utf-8">')
    if not any(m.attrs.get("name") == "viewport" for m in metas):
        problems.append("no viewport <meta>")
    if len(page.find("h1")) != 1:
        problems.append(f"{len(page.find('h1'))} <h1> elements")
    head = page.find("head")
    if len(head) != 1 or [c.tag for c in head[0].children].count("title") != 1:
        problems.append("no single <title> in one <head>")
    duplicates = {i for i in page.ids if page.ids.count(i) > 1}
    if duplicates:
        problems.append(f"duplicate ids {sorted(duplicates)[:5]}")
    return problems


def external_urls(source: str) -> list[str]:
    """``src``/``href`` values that would reach the network."""
    page = Page(source)
    found = []
    for element in page.elements:
        for name in ("src", "href", "action", "xlink:href"):
            value = element.attrs.get(name, "").strip().lower()
            if value.startswith(("http:", "https:", "//", "ftp:")):
                found.append(f"<{element.tag} {name}={value}>")
    return found


def require_chromium() -> str:
    """The Chromium binary, or skip (locally) / fail (under CI) when it is missing."""
    if Path(CHROMIUM).is_file():
        return CHROMIUM
    reason = f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the browser tests must run in CI: {reason}")
    pytest.skip(reason)


def chromium(
    url: str, profile: Path, *arguments: str, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium on ``url`` (a fresh profile each time) and return its output."""
    command = [
        require_chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",
        *arguments,
        url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def dump_dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The page's DOM after its script ran, with ``#fragment`` in the URL."""
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    result = chromium(url, profile, "--dump-dom")
    assert result.returncode == 0 and "<html" in result.stdout, result.stderr[-2000:]
    return result.stdout


#: A script that writes, for each element matching ``data-probe`` of ``<html>``, its text
#: split into the lines the browser laid it out on (JSON in ``<pre id="probe">``).
LINES_PROBE = """<script>
addEventListener("load", function () {
  var found = [];
  document.querySelectorAll(document.documentElement.dataset.probe).forEach(function (el) {
    var lines = [], top = null, walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      for (var i = 0; i < node.data.length; i++) {
        var range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        var box = range.getBoundingClientRect();
        if (top === null || box.top > top + 2) { lines.push(""); top = box.top; }
        lines[lines.length - 1] += node.data[i];
      }
    }
    found.push(lines);
  });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


def laid_out_lines(source: str, selector: str, width: int, directory: Path) -> list[list[str]]:
    """The text of each element matching ``selector`` in the page ``source``, as the lines
    Chromium lays it out on in a window ``width`` pixels wide. The page's security policy is
    taken out so that a measuring script can run."""
    source = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", source)
    source = source.replace("<html ", f'<html data-probe="{selector}" ', 1)
    directory.mkdir(parents=True, exist_ok=True)
    page = directory / "probe.html"
    page.write_text(source.replace("</body>", LINES_PROBE + "</body>"), encoding="utf-8")
    result = chromium(
        page.resolve().as_uri(), directory / "profile", f"--window-size={width},900", "--dump-dom"
    )
    found = re.search(r'<pre id="probe">(.*?)</pre>', result.stdout, re.DOTALL)
    assert found, result.stderr[-2000:]
    lines: list[list[str]] = json.loads(html.unescape(found.group(1)))
    return lines


def console_lines(stderr: str) -> list[str]:
    """The page's console messages and uncaught errors in Chromium's log."""
    return [line for line in stderr.splitlines() if CONSOLE.search(line)]


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG file (raises ``ValueError`` when it is not one)."""
    data = path.read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


#: The fields every synthetic record shares.
RECORD = {
    "phase": "call",
    "xfail": False,
    "worker": None,
    "latency_source": "measured",
    "cost": 0.001,
    "usage": {"m": {"input_tokens": 10, "output_tokens": 1, "cached_input_tokens": 0}},
}
LATENCY = {"quantile": 0.95, "level": 0.95, "estimate": 0.9, "low": 0.8, "high": None}
GATE = {"kind": "rate", "verdict": "undecided", "min_rate": 0.9, "low": 0.5, "high": 0.99}


def _records(case: str, label: str, outcomes: list[str], rng: random.Random) -> list[Any]:
    records = []
    for run, outcome in enumerate(outcomes, 1):
        message = error = None
        if outcome == "fail":
            message = f"expected {rng.randint(0, 9)}\nassert {rng.random()} < 0.5"
        elif outcome == "error":
            error, message = "ConnectionError", "ConnectionError: upstream timed out after 30s"
        step = {"label": label, "passed": outcome == "pass", "elapsed": 0.01, "error": error}
        step.update(message=message, cost=0.001, usage=[])
        record = dict(RECORD, case=case, label=label, run=run, outcome=outcome, error=error)
        record.update(nodeid=f"b.py::{case}[run{run}]", elapsed=rng.random() / 10)
        record.update(message=message, steps=[step], latency=rng.random())
        records.append(record)
    return records


def synthetic(cases: int, runs: int, seed: int = 0) -> dict[str, Any]:
    """A report shaped like a real one (``--prob-json``): four functions, about one run in
    ten failing with assertion text or erroring, cost and usage on every run, latency,
    a rate gate on one function, two metrics."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    records: list[Any] = []
    for index in range(cases):
        label = ("classify", "extract", "answer", "summarize")[index % 4]
        case = f"{label}::input-{index}"
        outcomes = [rng.choice(["fail", "fail", "error"]) if rng.random() < 0.1 else "pass"]
        outcomes += ["pass" if rng.random() < 0.9 else "fail" for _ in range(runs - 1)]
        records += _records(case, label, outcomes, rng)
        passes = outcomes.count("pass")
        row = {"case": case, "label": label, "nodeid": f"b.py::{case}", "passes": passes}
        row.update(fails=outcomes.count("fail"), errors=outcomes.count("error"), skipped=0)
        row.update(total=runs, planned=runs, pass_rate=100 * passes / runs, xfail=False)
        row["status"] = "pass" if passes == runs else ("fail" if not passes else "flaky")
        share = passes / runs
        row["ci"] = {"method": "exact", "level": 0.95, "low": share * 0.7, "high": share**0.3}
        row.update(latency=dict(LATENCY, n=runs), cost=0.001 * runs, usage={})
        row["metrics"] = {"pass^3": share**3, "pass@5": 1.0}
        if label == "extract":
            row["gate"] = {"verdict": "undecided", "fails_session": True, "judged": "item"}
            row["gate"]["checks"] = [dict(GATE, passes=passes, n=runs)]
        rows.append(row)
    totals = {key: sum(row[key] for row in rows) for key in ("passes", "fails", "errors")}
    totals.update(skipped=0, count=cases * runs, pass_rate=90.0, cost=0.001 * cases * runs)
    return {
        "schema_version": 1,
        "created": "2026-11-30T12:00:00",
        "runs": runs,
        "exit_status": 1,
        "totals": dict(totals, usage={}),
        "rows": rows,
        "records": records,
        "metrics": {"metrics": ["pass^3", "pass@5"], "lines": []},
        "aggregates": [],
    }


#: The test sessions' benchmark: a gated function and a compared one.
BENCH = """
import pytest
from pytest_probability import current_run, record_cost, record_usage

@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("kind", ["ok", "half", "never"])
def bench_classify(kind):
    record_usage(model="m-small", input_tokens=10, output_tokens=2, cost=0.001)
    run = current_run().run
    if kind == "half":
        assert run % 2, "<b>odd</b> & 'only'"
    elif kind == "never":
        assert False, "never works"


@pytest.mark.parametrize("style", ["terse", "long"])
@pytest.mark.parametrize("text", ["refund", "crash"])
def bench_triage(text, style):
    record_cost(0.0001 if style == "terse" else 0.0004)
    if style == "terse":
        assert current_run().run != 3
"""

#: A conftest with three panel implementations: a good one, a raising one, a wrong one.
PANELS = """
from pytest_probability.extensions.html.markup import HtmlPanel, element, table

class Good:
    def pytest_prob_html_panels(self, report, config):
        rows = [(row["case"], row["passes"]) for row in report["rows"]]
        return [HtmlPanel("Passes <per case>", table(["Case", "Passes"], rows)),
                HtmlPanel("Note", element("p", "<plain>", id="note"))]

class Broken:
    def pytest_prob_html_panels(self, report, config):
        raise RuntimeError("panel bug")

class Wrong:
    def pytest_prob_html_panels(self, report, config):
        return ["not a panel"]

def pytest_configure(config):
    for plugin in (Good(), Broken(), Wrong()):
        config.pluginmanager.register(plugin, type(plugin).__name__.lower())
"""


def case_cells(source: str) -> list[str]:
    """The case ids of the case table's rows, as text, in page order."""
    return [text_of(th) for th in Page(source).find("th", scope="row", class_="case")]


def shown_rows(dom: str) -> list[tuple[str, str, float]]:
    """``(case, status, rate)`` of the case rows left visible, in page order."""
    page = Page(dom)
    table = page.find("table", id="cases")
    assert table, "no case table in the DOM"
    return [
        (
            text_of(body.children[0].children[0]),
            body.attrs["data-status"],
            float(body.attrs["data-rate"]),
        )
        for body in table[0].children
        if body.tag == "tbody" and "hidden" not in body.attrs
    ]
