"""The history page (issue 38): what it shows, that it is one valid offline HTML5 document,
that every string from the reports stays text, and that its script filters and sorts the
cards in Chromium (the browser tests skip without Chromium, except under CI=true)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browser import (
    Element,
    Page,
    chromium,
    console_lines,
    dump_dom,
    external_urls,
    html5_problems,
    png_size,
)
from history_sessions import generate
from pytest_probability.api import clopper_pearson_interval, escape_surrogates, percent
from pytest_probability.extensions.history.cards import money_per_run, p_text, points
from pytest_probability.extensions.history.moves import METHOD, Assessment, assess
from pytest_probability.extensions.history.page import SCRIPT, render_page
from pytest_probability.extensions.history.sessions import History, read_history

#: The main history: 30 sessions of 40 cases (five functions, classify and triage gated),
#: 20 runs each, seed 2; in the latest session classify::input-000 falls to 20%,
#: triage::input-006 to 5% and classify::input-005 rises to 100%.
SESSIONS, CASES = 30, 40
CHANGES = {0: 0.2, 5: 1.0, 6: 0.05}
#: Also: route::input-039 left out of the latest session (absent), extract::input-038 out of
#: sessions 11 to 15 (a gap), summarize::input-037 only in the latest (new), and a file
#: that is not JSON.
ABSENT, GAPPED, NEW = "route::input-039", "extract::input-038", "summarize::input-037"
HEADLINE = [
    "2 cases got worse since 79bc12f: classify::input-000 (100% → 10%), "
    "triage::input-006 (70% → 15%)",
    "1 case got better since 79bc12f: classify::input-005 (60% over 5 sessions → 100%)",
]


def _drop(path: Path, case: str) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    document["rows"] = [row for row in document["rows"] if row["case"] != case]
    path.write_text(json.dumps(document), encoding="utf-8")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[History, Assessment, str]:
    directory = tmp_path_factory.mktemp("history")
    truth = generate(directory, sessions=SESSIONS, cases=CASES, changes=CHANGES, seed=2)
    _drop(truth.files[-1], ABSENT)
    for path in truth.files[10:15]:
        _drop(path, GAPPED)
    for path in truth.files[:-1]:
        _drop(path, NEW)
    (directory / "notes.json").write_text("not json", encoding="utf-8")
    history = read_history([directory])
    assessment = assess(history)
    return history, assessment, render_page(history, assessment)


@pytest.fixture(scope="module")
def page_file(
    made: tuple[History, Assessment, str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    path = tmp_path_factory.mktemp("page") / "history.html"
    path.write_text(made[2], encoding="utf-8")
    return path


class Tree(Page):
    """The page parsed as :class:`browser.Page` does, each element also keeping its text
    and child elements in document order (``text_of`` puts an element's own text first)."""

    def _open(self, tag: str, attrs: list[tuple[str, str | None]], void: bool) -> None:
        parent = self._stack[-1] if self._stack else None
        super()._open(tag, attrs, void)
        self.elements[-1].parts = []  # type: ignore[attr-defined]
        if parent is not None:
            parent.parts.append(self.elements[-1])  # type: ignore[attr-defined]

    def handle_data(self, data: str) -> None:
        super().handle_data(data)
        if self._stack:
            self._stack[-1].parts.append(data)  # type: ignore[attr-defined]


def text(element: Element) -> str:
    """All text inside an element of a :class:`Tree`, in document order."""
    return "".join(
        part if isinstance(part, str) else text(part)
        for part in element.parts  # type: ignore[attr-defined]
    )


def cards(page: Page) -> dict[str, Element]:
    """Each card by its case id (the text of its heading)."""
    return {text(card.children[0]): card for card in page.find("article")}


def by_class(element: Element, css: str) -> list[Element]:
    found = []
    for child in element.children:
        if css in child.attrs.get("class", "").split():
            found.append(child)
        found += by_class(child, css)
    return found


def by_tag(element: Element, tag: str) -> list[Element]:
    found = []
    for child in element.children:
        if child.tag == tag:
            found.append(child)
        found += by_tag(child, tag)
    return found


# -- the page as written -----------------------------------------------------------------------
def test_a_valid_offline_page(made: tuple[History, Assessment, str]) -> None:
    source = made[2]
    assert html5_problems(source) == []
    assert external_urls(source) == []
    assert not re.search(r"(?i)\b(https?|ftp|wss?):|//[a-z]", source)
    page = Tree(source)
    scripts = page.find("script")
    assert len(scripts) == 1 and scripts[0].text == SCRIPT
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    (policy,) = [
        meta.attrs["content"]
        for meta in page.find("meta")
        if meta.attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    assert "default-src 'none'" in policy and f"script-src 'sha256-{digest}'" in policy
    assert [e.tag for e in page.find("style")] == ["style"]
    source.encode("utf-8")  # (no lone surrogate left)


def test_it_leads_with_the_real_moves(made: tuple[History, Assessment, str]) -> None:
    _, assessment, source = made
    assert assessment.headline(5) == HEADLINE
    page = Tree(source)
    main = page.find("main")[0]
    assert [child.tag for child in main.children[:2]] == ["header", "section"]
    moves = main.children[1]
    assert moves.attrs["id"] == "moves" and text(moves.children[0]) == "What moved"
    items = moves.children[1].children
    assert [text(li) for li in items] == HEADLINE
    assert [li.attrs["class"] for li in items] == ["h-worse", "h-better"]
    found = cards(page)
    links = [(text(a), a.attrs["href"]) for li in items for a in li.children]
    assert [case for case, _ in links] == [
        "classify::input-000",
        "triage::input-006",
        "classify::input-005",
    ]
    for case, href in links:
        assert found[case].attrs["id"] == href.removeprefix("#")
    gone, method, span = (text(p) for p in moves.children[2:5])
    assert gone == f"1 case of the previous session did not run in the latest one: {ABSENT}."
    assert method == (
        f"{METHOD} (α = 0.05, window of 5 sessions, 76 tests). "
        "Bands and brackets are 95% Clopper–Pearson intervals."
    )
    assert assessment.tests == 76
    assert span == (
        "30 sessions, 40 cases in 5 functions: from 2026-10-01 09:00:00 (829a48d) "
        "to 2026-10-30 09:00:00 (6ffe2ca)."
    )
    skipped = moves.children[5]
    assert text(skipped.children[0]) == "1 file skipped or read in part"
    assert text(skipped.children[1]).endswith("notes.json: not JSON (line 1, column 1)")


def test_a_section_per_function_with_its_trends(made: tuple[History, Assessment, str]) -> None:
    history, _, source = made
    page = Tree(source)
    sections = page.find("section", class_="fn")
    functions = history.functions()
    assert [s.attrs["data-fn"] for s in sections] == list(functions)
    assert [text(s.children[0]) for s in sections] == [
        f"{name} {len(cases)} cases" for name, cases in functions.items()
    ]
    assert [len(by_tag(s, "article")) for s in sections] == [8, 8, 8, 8, 8]
    first = sections[0]
    figures = by_tag(first, "figure")
    assert [text(f.children[0]) for f in figures] == [
        "Pass rate, runs pooled",
        "Cost per run",
        "median p95 latency",
    ]
    latest = [history.sessions[-1].cases[c] for c in functions["classify"]]
    passes, total = sum(p.passes for p in latest), sum(p.total for p in latest)
    interval = clopper_pearson_interval(passes, total, 0.95)
    rate = f"{percent(passes / total)} [{percent(interval.low)}, {percent(interval.high)}]"
    assert text(figures[0].children[2]).startswith(f"{rate} latest · from ")
    cost = sum(p.cost or 0 for p in latest) / total
    assert text(figures[1].children[2]).startswith(f"{money_per_run(cost)} latest")
    svg = figures[0].children[1]
    assert svg.attrs["aria-label"].startswith("pooled pass rate ")
    assert svg.attrs["aria-label"].endswith(" over 30 sessions")
    assert len(by_tag(svg, "title")) == SESSIONS


def test_a_card_per_case_with_real_values(made: tuple[History, Assessment, str]) -> None:
    _, assessment, source = made
    found = cards(Tree(source))
    assert len(found) == CASES
    card = found["classify::input-000"]
    assert card.attrs["data-status"] == "worse" and "data-gated" in card.attrs
    interval = clopper_pearson_interval(2, 20, 0.95)
    assert (percent(interval.low), percent(interval.high)) == ("1%", "32%")
    now = by_class(card, "now")[0]
    assert text(by_class(now, "latest")[0]) == "10% [1%, 32%]"
    assert text(by_class(now, "chg")[0]) == "\u221290 pp" == points(-0.9)
    assert text(by_class(now, "gate")[0]) == "gate fail"
    move = assessment.moves[0]
    assert move.case == "classify::input-000" and move.real is not None
    assert text(by_class(now, "badge")[0]) == f"worse, {p_text(move.real.p_adjusted)}"
    assert text(by_class(now, "badge")[0]) == "worse, p<0.001"
    assert float(card.attrs["data-rate"]) == 0.1 and float(card.attrs["data-change"]) == -0.9
    svg = card.children[1]
    assert svg.attrs["aria-label"] == (
        "pass rate 100% → 10% over 30 sessions; gate fail in the latest session"
    )
    titles = [text(t) for t in by_tag(svg, "title")]
    assert len(titles) == SESSIONS
    assert titles[-1] == "#30 6ffe2ca (2026-10-30 09:00:00): 2/20 passed, 10% [1%, 32%]; gate fail"
    assert len(by_class(svg, "v")) == SESSIONS  # the gate strip: a square per session
    assert by_class(svg, "v")[-1].attrs["class"] == "v v-fail"
    better = found["classify::input-005"]
    assert text(by_class(better, "badge")[0]) == "better, p=0.003"
    assert better.attrs["data-status"] == "better"
    plain = found["summarize::input-002"]  # not gated: no strip, no gate text
    assert by_class(plain, "v") == [] and by_class(plain, "gate") == []
    assert "data-gated" not in plain.attrs and plain.attrs["data-status"] == "steady"


def test_gaps_new_and_absent_cases(made: tuple[History, Assessment, str]) -> None:
    history, _, source = made
    found = cards(Tree(source))
    gapped = found[GAPPED]
    titles = [text(t) for t in by_tag(gapped.children[1], "title")]
    assert [i for i, t in enumerate(titles) if t.endswith(": did not run")] == list(range(10, 15))
    assert len(by_class(gapped, "line")) == 2  # the line breaks at the gap
    assert gapped.children[1].attrs["aria-label"].endswith("over 25 sessions")
    new = found[NEW]
    assert new.attrs["data-status"] == "new" and text(by_class(new, "badge")[0]) == "new"
    assert "data-change" not in new.attrs and "data-p" not in new.attrs
    assert len(by_class(new, "end")) == 1 and by_class(new, "line") == []
    absent = found[ABSENT]
    assert absent.attrs["data-status"] == "absent" and "data-rate" not in absent.attrs
    point = history.sessions[-2].cases[ABSENT]
    interval = clopper_pearson_interval(point.passes, point.total, 0.95)
    shown = f"{percent(point.rate)} [{percent(interval.low)}, {percent(interval.high)}]"
    assert text(by_class(absent, "now")[0]) == (
        f"not in the latest session; last {shown} in #29 79bc12f (2026-10-29 09:00:00)"
    )


def test_the_level_and_the_title(made: tuple[History, Assessment, str]) -> None:
    history, assessment, _ = made
    source = render_page(history, assessment, level=0.8, title="Nightly <evals> & co")
    page = Tree(source)
    assert text(page.find("title")[0]) == text(page.find("h1")[0]) == "Nightly <evals> & co"
    interval = clopper_pearson_interval(2, 20, 0.8)
    latest = by_class(cards(page)["classify::input-000"], "latest")[0]
    assert text(latest) == f"10% [{percent(interval.low)}, {percent(interval.high)}]"
    assert "Bands and brackets are 80% Clopper–Pearson intervals." in source
    with pytest.raises(ValueError, match="level"):
        render_page(history, assessment, level=1.0)


def test_more_moves_than_the_headline_names(tmp_path: Path) -> None:
    generate(tmp_path, sessions=8, cases=20, changes=dict.fromkeys(range(8), 0.0), seed=3)
    history = read_history([tmp_path])
    assessment = assess(history)
    page = Tree(render_page(history, assessment))
    line = page.find("li", class_="h-worse")[0]
    assert text(line) == assessment.headline(5)[0]
    assert text(line).endswith(", and 3 more")
    links = [a.attrs["href"] for a in line.children]
    assert len(links) == 6 and links[-1] == "#show=worse"
    assert html5_problems(render_page(history, assessment)) == []


@pytest.mark.parametrize("sessions", [0, 1])
def test_empty_and_single_session_histories(tmp_path: Path, sessions: int) -> None:
    if sessions:
        generate(tmp_path, sessions=1, cases=3, seed=1)
    history = read_history([tmp_path]) if sessions else History()
    source = render_page(history, assess(history))
    assert html5_problems(source) == [] and external_urls(source) == []
    page = Tree(source)
    headline = [text(li) for li in page.find("li", class_="h-none")]
    if sessions:
        label = history.sessions[0].label
        assert headline == [f"One session ({label}): nothing to compare yet."]
        assert len(page.find("article")) == 3
        assert {c.attrs["data-status"] for c in page.find("article")} == {"new"}
    else:
        assert headline == ["No session to read."] and page.find("form") == []


# -- hostile text ------------------------------------------------------------------------------
HOSTILE = [
    "<script>alert(1)</script>",
    'say "hi"',
    "it's",
    "fish & chips",
    "</svg><b>bold</b>",
    "lone \udcff surrogate",
    "\u202eevil\u202c rtl",
    "</title><img src=x onerror=alert(1)>",
]
LABEL = "fn<i>\"'&\u202e"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[History, str, list[str]]:
    directory = tmp_path_factory.mktemp("hostile")
    truth = generate(directory, sessions=3, cases=len(HOSTILE), seed=5)
    ids = [f"{LABEL}::{text}" for text in HOSTILE]
    for number, path in enumerate(truth.files):
        document = json.loads(path.read_text(encoding="utf-8"))
        for row, case in zip(document["rows"], ids, strict=True):
            row.update(case=case, label=LABEL)
        document.pop("history")
        document["created"] = f"2026-10-0{number + 1}T09:00:00 </title><script>x()</script>\u202e"
        path.unlink()
        name = f"{number} <script>'&\".json"
        (directory / name).write_text(json.dumps(document), encoding="utf-8")
    bad = directory / "bad \udcff <b>x.json"
    bad.write_text("{", encoding="utf-8")
    history = read_history([directory])
    return history, render_page(history, assess(history)), ids


def test_every_string_from_the_reports_stays_text(
    hostile: tuple[History, str, list[str]],
) -> None:
    history, source, ids = hostile
    assert len(history.sessions) == 3 and len(history.skipped) == 1
    assert html5_problems(source) == [] and external_urls(source) == []
    source.encode("utf-8")
    page = Tree(source)
    assert len(page.find("script")) == 1 and page.find("img") == []
    assert [e for e in page.find("b") if "bold" in text(e) or text(e) == "x"] == []
    assert [e.tag for e in page.elements if e.tag == "i"] == []
    shown = [escape_surrogates(case) for case in ids]
    assert sorted(cards(page)) == sorted(shown)
    for card in page.find("article"):
        assert card.children[0].children[0].tag == "bdi"  # the id isolated from its neighbours
    assert page.find("section", class_="fn")[0].attrs["data-fn"] == LABEL
    assert text(page.find("h2", id="h-f-0")[0]) == f"{LABEL} {len(ids)} cases"
    title = text(by_tag(page.find("article")[0], "title")[-1])
    created = "2026-10-03 09:00:00 </title><script>x()</script>\u202e"
    assert title.startswith(f"#3 \u2068{created}\u2069: ")  # isolated: the mark ends there
    skipped = text(page.find("details")[0].children[1])
    assert skipped.endswith("bad \\udcff <b>x.json: not JSON (line 1, column 2)")
    assert "\\udcff" in source and "\udcff" not in source


# -- in a browser ------------------------------------------------------------------------------
def shown_cards(dom: str) -> list[tuple[str, str]]:
    """``(case, status)`` of the cards left visible, in page order."""
    page = Tree(dom)
    hidden = {
        id(e) for s in page.find("section") if "hidden" in s.attrs for e in by_tag(s, "article")
    }
    return [
        (text(card.children[0]), card.attrs["data-status"])
        for card in page.find("article")
        if "hidden" not in card.attrs and id(card) not in hidden
    ]


def test_the_script_runs_without_console_errors(page_file: Path, tmp_path: Path) -> None:
    shot = tmp_path / "history.png"
    result = chromium(
        page_file.resolve().as_uri(),
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,1600",
        "--enable-logging=stderr",
        "--v=0",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert png_size(shot) == (1280, 1600) and shot.stat().st_size > 20_000
    assert console_lines(result.stderr) == []
    dom = dump_dom(page_file, tmp_path / "dom")
    page = Tree(dom)
    assert "hidden" not in page.find("form", id="filters")[0].attrs  # the script ran
    assert text(page.find("output", id="f-count")[0]) == f"showing {CASES} of {CASES} cases"
    assert len(shown_cards(dom)) == CASES


def test_filters_and_sorts_from_the_url(
    made: tuple[History, Assessment, str], page_file: Path, tmp_path: Path
) -> None:
    history, assessment, _ = made
    dom = dump_dom(page_file, tmp_path / "a", "show=real&sort=change")
    shown = shown_cards(dom)
    # sorted within each function: classify's two cards by change, then triage's one
    assert shown == [
        ("classify::input-000", "worse"),
        ("classify::input-005", "better"),
        ("triage::input-006", "worse"),
    ]
    page = Tree(dom)
    visible = [
        s.attrs["data-fn"] for s in page.find("section", class_="fn") if "hidden" not in s.attrs
    ]
    assert visible == ["classify", "triage"]
    assert text(page.find("output", id="f-count")[0]) == f"showing 3 of {CASES} cases"

    # the text filter matches function names too; ties keep the page order
    dom = dump_dom(page_file, tmp_path / "b", "q=TRIAGE&sort=-rate")
    rates = {move.case: move.latest.rate for move in assessment.moves}
    triage = history.functions()["triage"]
    expected = sorted(triage, key=lambda case: -rates[case])
    assert expected != triage and [case for case, _ in shown_cards(dom)] == expected

    dom = dump_dom(page_file, tmp_path / "c", "show=gated&q=input-00&sort=p")
    assert shown_cards(dom) == [
        ("classify::input-000", "worse"),
        ("classify::input-005", "better"),
        ("triage::input-006", "worse"),
        ("triage::input-001", "steady"),
    ]
    dom = dump_dom(page_file, tmp_path / "d", "show=new")
    assert shown_cards(dom) == [(NEW, "new")]


def test_hostile_page_in_the_browser(
    hostile: tuple[History, str, list[str]], tmp_path: Path
) -> None:
    _, source, ids = hostile
    path = tmp_path / "hostile.html"
    path.write_text(source, encoding="utf-8")
    result = chromium(
        path.resolve().as_uri(), tmp_path / "p", "--dump-dom", "--enable-logging=stderr", "--v=0"
    )
    assert result.returncode == 0 and console_lines(result.stderr) == []
    page = Tree(result.stdout)
    assert len(page.find("script")) == 1 and page.find("img") == []
    assert sorted(cards(page)) == sorted(escape_surrogates(case) for case in ids)
    dom = dump_dom(path, tmp_path / "q", "q=%3Cscript%3E")
    assert [case for case, _ in shown_cards(dom)] == [f"{LABEL}::<script>alert(1)</script>"]


@pytest.mark.subprocess
def test_the_page_modules_never_import_pytest() -> None:
    code = (
        "import sys\n"
        "import pytest_probability.extensions.history.page\n"
        "print(sorted(m for m in ('pytest', '_pytest') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
