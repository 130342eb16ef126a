"""The html extension: --prob-html, the renderer, panels, the CLI, and the page in a browser."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from browser import (
    BENCH,
    PANELS,
    Page,
    case_cells,
    chromium,
    console_lines,
    dump_dom,
    external_urls,
    html5_problems,
    laid_out_lines,
    png_size,
    shown_rows,
    synthetic,
    text_of,
)
from helpers import count_work, load_json
from pytest_probability.__main__ import main
from pytest_probability.extensions.html import render as render_module
from pytest_probability.extensions.html.fmt import money_per_run
from pytest_probability.extensions.html.markup import HtmlPanel, Markup, element, escape
from pytest_probability.extensions.html.render import render_report
from pytest_probability.extensions.html.style import CSS
from pytest_probability.loader import BUNDLED
from pytest_probability.report import writing

#: Before the extension is registered in the loader, sessions load it explicitly.
EXPLICIT = ("-p", "pytest_probability.extensions.html.plugin")
PLUGIN = () if any(name == "html" for name, _ in BUNDLED) else EXPLICIT
RICH = ("--prob-latency", "--prob-json=r.json", "-W", "ignore", "-p", "no:xdist")
HOSTILE = "a<b>&\"c'\nd ünï\x00<script>alert(1)</script>"

ARGS = ("--prob-runs=6", "--prob-compare=style", "--prob-metric=pass^3", "-o", "prob_min_inputs=2")


def session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(bench_demo=BENCH)
    return pytester.runpytest(*PLUGIN, *ARGS, "-W", "ignore", *args)


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A report from a real session with gates, comparisons, metrics, latency, cost."""
    directory = tmp_path_factory.mktemp("rich")
    (directory / "bench_demo.py").write_text(BENCH)
    subprocess.run(
        [sys.executable, "-m", "pytest", *PLUGIN, *ARGS, "-p", "no:cacheprovider", "-q", *RICH],
        cwd=directory,
        capture_output=True,
        check=False,
    )
    return json.loads((directory / "r.json").read_text(encoding="utf-8"))


# -- the renderer ------------------------------------------------------------------------------
def test_markup_helpers_escape_everything() -> None:
    assert escape('<a href="x">&\'') == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;"
    assert escape("nul\x00 esc\x1b") == "nul\u2400 esc\u241b"
    assert escape(Markup("<b>kept</b>")) == "<b>kept</b>"
    assert element("td", "<x>", Markup("<i>y</i>"), class_="a", data_k='"', hidden=True) == (
        '<td class="a" data-k="&quot;" hidden>&lt;x&gt;<i>y</i></td>'
    )


def test_rich_report_is_valid_html5_with_plots(rich: dict[str, Any]) -> None:
    page = render_report(rich, latency=True)  # the session ran with --prob-latency
    assert html5_problems(page) == []
    assert external_urls(page) == []
    parsed = Page(page)
    assert case_cells(page) == [row["case"] for row in rich["rows"]]
    for anchor in ("functions", "gates", "comparisons", "metrics", "latency", "cost", "case-list"):
        assert parsed.find("section", id=anchor), f"no {anchor} section"
    assert len(parsed.find("svg")) > len(rich["rows"])
    assert parsed.find("path", class_="zero") and parsed.find("path", class_="gate")
    assert len(parsed.find("details", class_="rundetails")) == len(rich["rows"])
    assert len(parsed.find("script")) == 1 and "'sha256-" in page


def test_hostile_text_stays_text() -> None:
    document = synthetic(3, 2)
    for row in document["rows"]:
        row["case"] = row["case"] + HOSTILE
    for record in document["records"]:
        record["case"] += HOSTILE
        record["message"] = HOSTILE
    page = render_report(document)
    assert html5_problems(page) == []
    assert "<script>alert" not in page and len(Page(page).find("script")) == 1
    shown = HOSTILE.replace("\x00", "\u2400")
    assert all(cell.endswith(shown) for cell in case_cells(page))


@pytest.mark.parametrize(
    "document",
    [
        {"schema_version": 1},
        {"rows": []},
        {"schema_version": 1, "rows": [{"case": "x"}], "records": [{"case": "x"}]},
        {"schema_version": 1, "plan": {"cases": [{"case": "a", "runs": 3, "catch": [{}]}]}},
        {"rows": [{"case": "x", "ci": {"low": None}, "gate": {"checks": [{"kind": "new"}]}}]},
    ],
)
def test_missing_optional_sections(document: dict[str, Any]) -> None:
    page = render_report(document)
    assert html5_problems(page) == []
    assert "(failed)" not in page


JUNK = [None, "x", 3, -1.5, float("nan"), [], {}, [1, "a"], {"a": None}, True]


def test_every_field_may_hold_anything(rich: dict[str, Any]) -> None:
    places = [(), ("totals",), ("rows", 0), ("records", 0), ("rows", 1, "gate")]
    places += [("comparisons", 0), ("aggregates", 0), ("metrics",), ("rows", 0, "latency")]
    for place in places:
        target: Any = rich
        for part in place:
            target = target[part]
        for key in list(target):
            for value in (None, "x", float("nan"), [1, "a"], {"a": None}, True):
                document = copy.deepcopy(rich)
                parent = document
                for part in place:
                    parent = parent[part]
                parent[key] = copy.deepcopy(value)
                page = render_report(document, latency=True)
                assert "(failed)" not in page, f"{place} {key}={value!r}"


def test_malformed_data_never_breaks_the_page(rich: dict[str, Any]) -> None:
    rng = random.Random(1)
    for _ in range(60):
        document = copy.deepcopy(rich)
        for _ in range(4):
            target: Any = document
            while isinstance(target, (dict, list)) and target:
                key = rng.choice(list(target) if isinstance(target, dict) else range(len(target)))
                if not isinstance(target[key], (dict, list)) or rng.random() < 0.3:
                    target[key] = copy.deepcopy(rng.choice(JUNK))  # no cycles
                    break
                target = target[key]
        assert html5_problems(render_report(document, latency=True)) == []


def test_a_failing_section_is_marked_and_the_rest_kept(
    rich: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(document: Any) -> None:
        raise ZeroDivisionError("on purpose")

    specs = [(a, t, broken if a == "gates" else r) for a, t, r in render_module.BEFORE_PANELS]
    monkeypatch.setattr(render_module, "BEFORE_PANELS", tuple(specs))
    page = render_report(rich)
    failed = Page(page).find("section", id="gates", class_="panel failed")
    assert failed and "ZeroDivisionError: on purpose" in text_of(failed[0])
    assert case_cells(page) == [row["case"] for row in rich["rows"]]


def test_panels_are_escaped_unless_markup() -> None:
    panels = [
        HtmlPanel("Mine <1>", Markup("<p id='ok'>fine</p>")),
        HtmlPanel("Plain", "<b>shown as text</b>\nline two"),
        render_module.failed_panel("extension 'x'", ValueError("bad")),
    ]
    page = render_report(synthetic(2, 2), panels)
    assert html5_problems(page) == []
    parsed = Page(page)
    assert parsed.find("p", id="ok") and "Mine &lt;1&gt;" in page
    assert "&lt;b&gt;shown as text&lt;/b&gt;" in page
    assert "ValueError: bad" in text_of(parsed.find("section", class_="panel failed")[0])


def test_explanations_anywhere_and_the_glossary() -> None:
    document = synthetic(2, 2)
    document["rows"][1]["explanation"] = "Row <reading>."
    document["rows"][0]["latency"]["explanation"] = "Latency reading."
    document["future"] = {"deep": [{"explanation": {"structured": 1}}]}
    document["glossary"] = {"pass rate": "the share of runs that pass"}
    page = render_report(document)
    section = text_of(Page(page).find("section", id="explained")[0])
    assert "Row <reading>." in section and "Latency reading." in section
    assert "future.deep[0]" in section and '"structured": 1' in section
    assert "the share of runs that pass" in section
    assert "Row &lt;reading&gt;." in page


def test_long_and_repeated_messages_are_shortened() -> None:
    document = synthetic(1, 3)
    for record in document["records"]:
        record["outcome"], record["message"] = "fail", "m" * 5000
    page = render_report(document)
    assert page.count("m" * 1200) == 1 and "3,800 more characters in the JSON" in page
    assert page.count("same as run 1") == 2


def test_2000_cases_of_10_runs_render_small() -> None:
    page = render_report(synthetic(2000, 10))
    size = len(page.encode("utf-8"))
    assert size < 5_000_000, f"the page is {size / 1e6:.2f} MB"
    assert len(case_cells(page)) == 2000


def test_rendering_work_grows_linearly_with_cases() -> None:
    # work counted, not timed (benchmarks/report_phase.py times it): quadrupling the cases at
    # most quadruples the Python lines executed (+10%), and a case costs a bounded number
    small, large = (count_work(render_report, synthetic(n, 10)) for n in (200, 800))
    assert large.lines <= 4.4 * small.lines, (small.lines, large.lines)
    assert large.lines <= 6000 * 800, large.lines


def _cards(page: str) -> dict[str, tuple[str, str, str]]:
    """The header's cards: label → (value, note, CSS class)."""
    found = {}
    for card in Page(page).elements:
        if card.tag == "div" and card.attrs.get("class", "").split()[:1] == ["card"]:
            parts = {child.attrs.get("class"): text_of(child) for child in card.children}
            found[parts["label"]] = (parts["value"], parts.get("note", ""), card.attrs["class"])
    return found


@pytest.mark.parametrize(
    ("counts", "undecided_fails", "value", "css"),
    [
        ((3, 3, 3), True, "6 fail the session", "card bad"),  # 3 failed + 3 undecided
        ((3, 3, 3), False, "3 fail the session", "card bad"),  # --prob-undecided=pass
        ((2, 0, 1), True, "1 fails the session", "card bad"),
        ((2, 0, 1), False, "none fail the session", "card"),
        ((4, 0, 0), True, "all passed", "card ok"),
    ],
)
def test_gates_card_counts_what_fails_the_session(
    counts: tuple[int, int, int], undecided_fails: bool, value: str, css: str
) -> None:
    passed, failed, undecided = counts
    document = synthetic(2, 2)
    document["gates"] = {"passed": passed, "failed": failed, "undecided": undecided}
    document["gates"].update(undecided_fails=undecided_fails, errors="count")
    page = render_report(document)
    policy = f" (undecided {'fail' if undecided_fails else 'pass'})" if undecided else ""
    note = f"{passed} passed, {failed} failed, {undecided} undecided{policy}"
    assert _cards(page)["Gates"] == (value, note, css)


def test_gates_card_follows_the_sessions_undecided_policy(pytester: pytest.Pytester) -> None:
    # the demo's gates: classify::ok passes, ::half is undecided, ::never fails
    session(pytester, "--prob-html=fail.html")
    session(pytester, "--prob-html=pass.html", "--prob-undecided=pass")
    pages = {name: (pytester.path / f"{name}.html").read_text("utf-8") for name in ("fail", "pass")}
    note = "1 passed, 1 failed, 1 undecided"
    assert _cards(pages["fail"])["Gates"][:2] == ("2 fail the session", f"{note} (undecided fail)")
    assert _cards(pages["pass"])["Gates"][:2] == ("1 fails the session", f"{note} (undecided pass)")


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (0.012 / 330, "$0.000036"),
        (0.00042, "$0.00042"),
        (0.000995, "$0.0010"),  # half-up carries into a new digit: still two
        (0.00015, "$0.00015"),  # half-up on the amount as written, not on its binary value
        (0.0012, "$0.0012"),
        (0.25, "$0.2500"),
        (1234.5, "$1,234.5000"),
        (0.0, "$0.0000"),
        (None, "\u2014"),
    ],
)
def test_money_per_run_keeps_two_significant_digits(amount: float | None, shown: str) -> None:
    assert money_per_run(amount) == shown


def test_per_run_costs_show_significant_digits() -> None:
    document = synthetic(1, 3)
    document["rows"][0].update(cost=0.012, total=330)
    document["totals"].update(cost=0.012, count=330, skipped=0)
    for record in document["records"]:
        record["cost"] = 0.0000364
    page = render_report(document)
    assert "<strong>Cost:</strong> $0.0120 ($0.000036 per run over 330 runs)</p>" in page
    per_run = [text_of(td) for td in Page(page).find("td")]
    assert per_run[per_run.index("$0.0120") + 1] == "$0.000036"  # the Per run column
    assert "3 runs: 3 pass · $0.000036 each" in page


def _latency_cases(page: str) -> list[str] | None:
    """The cases the latency section draws, or ``None`` when there is no such section."""
    section = Page(page).find("section", id="latency")
    if not section:
        return None
    inside = _all(section[0])
    return [text_of(th) for th in inside if th.tag == "th" and th.attrs.get("scope") == "row"]


def _all(element: Any) -> list[Any]:
    return [element] + [found for child in element.children for found in _all(child)]


def test_latency_section_only_when_latency_was_asked_for() -> None:
    document = synthetic(4, 3)  # every row is timed, as in every session
    assert _latency_cases(render_report(document)) is None
    every = _latency_cases(render_report(document, latency=True))
    assert sorted(every or []) == sorted(row["case"] for row in document["rows"])
    gated = document["rows"][2]
    gated["latency"]["max_latency"], gated["latency"]["verdict"] = 2.0, "pass"
    assert _latency_cases(render_report(document)) == [gated["case"]]  # a gate asks for it
    assert _latency_cases(render_report(document, latency=True))[0] == gated["case"]
    gated["latency"]["max_latency"] = None
    gated["gate"] = {"verdict": "pass", "checks": [{"kind": "latency", "verdict": "pass"}]}
    assert _latency_cases(render_report(document)) == [gated["case"]]


LATENCY_GATED = """
import pytest

@pytest.mark.probability(max_latency=60.0)
def bench_api():
    pass

@pytest.mark.parametrize("kind", ["a", "b"])
def bench_plain(kind):
    pass
"""


def test_latency_section_in_sessions(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_demo=BENCH)
    runs = (*PLUGIN, "--prob-runs=3", "-W", "ignore", "--prob-json=r.json")
    pytester.runpytest(*runs, "--prob-html=plain.html")
    pytester.runpytest(*runs, "--prob-html=asked.html", "--prob-latency")
    plain, asked = ((pytester.path / n).read_text("utf-8") for n in ("plain.html", "asked.html"))
    assert _latency_cases(plain) is None and "Latency" not in [
        text_of(a) for a in Page(plain).find("a")
    ]
    assert sorted(_latency_cases(asked) or []) == sorted(case_cells(asked))
    # the report records --prob-latency, so a page rendered later from it draws the same
    assert load_json(pytester.path / "r.json")["latency"] == {"every_case": True}
    assert main(["html", str(pytester.path / "r.json"), "-o", str(pytester.path / "a.html")]) == 0
    later = (pytester.path / "a.html").read_text("utf-8")
    assert sorted(_latency_cases(later) or []) == sorted(case_cells(asked))
    (pytester.path / "bench_demo.py").unlink()
    pytester.makepyfile(bench_gated=LATENCY_GATED)
    pytester.runpytest(*runs, "--prob-html=gated.html")
    gated = (pytester.path / "gated.html").read_text("utf-8")
    assert _latency_cases(gated) == ["api"]
    # the page rendered later from the JSON report draws the same section
    assert main(["html", str(pytester.path / "r.json"), "-o", str(pytester.path / "c.html")]) == 0
    assert _latency_cases((pytester.path / "c.html").read_text("utf-8")) == ["api"]


LONG_ID = "extract::amount_from_a_very_long_invoice-description.text_with_many_words"


def _css_rule(selector: str) -> str:
    found = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", CSS)
    assert found, selector
    return " ".join(found.group(1).split())


def test_case_ids_break_only_at_natural_points() -> None:
    for selector in ("table.cases th.case", 'table.forest-table th[scope="row"]'):
        rule = _css_rule(selector)
        assert "overflow-wrap: break-word" in rule and "anywhere" not in rule, rule
    assert _css_rule(".id") == "white-space: nowrap;"
    document = synthetic(3, 2)
    cases = ["classify::identify_pii", LONG_ID, "z" * 90]  # the second is gated
    for row, case in zip(document["rows"], cases, strict=True):
        row["case"] = case
    page = render_report(document)
    assert case_cells(page) == ["classify::identify_pii", LONG_ID, "z" * 90]
    assert (
        '<th scope="row" class="case"><span class="id">classify::identify_pii</span></th>' in page
    )
    assert (
        "extract::<wbr>amount_<wbr>from_<wbr>a_<wbr>very_<wbr>long_<wbr>invoice-<wbr>"
        "description.<wbr>text_<wbr>with_<wbr>many_<wbr>words</th>"
    ) in page
    assert f"{'z' * 40}<wbr>{'z' * 40}<wbr>{'z' * 10}</th>" in page  # the last resort
    gates = Page(page).find("section", id="gates")[0]
    assert any(th.tag == "th" and text_of(th) == LONG_ID for th in _all(gates))


def test_case_ids_stay_whole_in_a_browser(tmp_path: Path) -> None:
    document = synthetic(8, 5)  # gate, latency, cost and two metric columns: a crowded table
    names = ["classify::identify_pii", LONG_ID, "triage::refund-chain_of_thought"]
    for row, case in zip(document["rows"], names, strict=False):
        row["case"] = case
    page = render_report(document)
    for width in (1024, 1280):
        lines = laid_out_lines(page, "table.cases tbody th.case", width, tmp_path / str(width))
        assert lines[0] == ["classify::identify_pii"] and lines[2] == [names[2]], width
        assert "".join(lines[1]) == LONG_ID and len(lines[1]) > 1
        assert all(line.endswith((":", "_", "-", ".")) for line in lines[1][:-1]), lines[1]


# -- the plugin --------------------------------------------------------------------------------
def test_prob_html_writes_the_page(pytester: pytest.Pytester) -> None:
    result = session(pytester, "--prob-html=report.html")
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert html5_problems(page) == [] and external_urls(page) == []
    assert len(case_cells(page)) == 7 and "&lt;b&gt;odd&lt;/b&gt;" in page
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert [p.name for p in pytester.path.iterdir() if p.name.startswith(".report")] == []


def test_page_matches_the_cli_rendering_of_the_json(pytester: pytest.Pytester) -> None:
    session(pytester, "--prob-html=s.html", "--prob-json=s.json", "-o", "prob_html=ignored.html")
    assert main(["html", str(pytester.path / "s.json"), "-o", str(pytester.path / "c.html")]) == 0
    created = re.compile(r"created [0-9-]+ [0-9:]+")
    written, rendered = ((pytester.path / n).read_text("utf-8") for n in ("s.html", "c.html"))
    assert created.sub("", written) == created.sub("", rendered)


def test_ini_key_and_nothing_written_without_results(pytester: pytest.Pytester) -> None:
    session(pytester, "-o", "prob_html=from_ini.html")
    assert (pytester.path / "from_ini.html").is_file()
    pytester.runpytest(*PLUGIN, "--collect-only", "--prob-html=none.html")
    assert not (pytester.path / "none.html").exists()


def test_unwritable_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "afile").write_text("")  # (a missing directory would be created)
    result = pytester.runpytest(*PLUGIN, "--prob-html=afile/r.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --prob-html=afile/r.html: cannot write the report: 'afile' is not a directory"]
    )


def test_a_failed_write_is_one_error_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")

    def full(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "write_atomic", full)
    result = pytester.runpytest(*PLUGIN, "--prob-runs=2", "--prob-html=r.html")
    assert "ERROR: could not write the HTML report to r.html: No space left on device" in (
        result.outlines
    )
    assert "Traceback" not in result.stdout.str() and result.ret == pytest.ExitCode.TESTS_FAILED


def test_panels_from_extensions(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PANELS)
    result = session(pytester, "--prob-html=p.html")
    page = (pytester.path / "p.html").read_text(encoding="utf-8")
    parsed = Page(page)
    assert html5_problems(page) == []
    titles = [text_of(h) for h in parsed.find("h2")]
    assert "Passes <per case>" in titles and "Note" in titles
    assert text_of(parsed.find("p", id="note")[0]) == "<plain>"
    failed = " ".join(text_of(s) for s in parsed.find("section", class_="panel failed"))
    assert "'broken'" in failed and "RuntimeError: panel bug" in failed
    assert "'wrong'" in failed and "expected HtmlPanel objects, got str" in failed
    assert len(case_cells(page)) == 7 and result.ret == pytest.ExitCode.TESTS_FAILED


def test_under_xdist_the_controller_writes_the_whole_page(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(bench_demo=BENCH)
    pytester.runpytest_subprocess(*PLUGIN, *ARGS, "-n", "2", "--prob-html=x.html", "-W", "ignore")
    page = (pytester.path / "x.html").read_text(encoding="utf-8")
    assert len(case_cells(page)) == 7 and page.count("<tr><td>6</td>") == 7
    assert sorted(p.name for p in pytester.path.iterdir() if "x.html" in p.name) == ["x.html"]


# -- the command line --------------------------------------------------------------------------
def test_cli_renders_a_saved_report(tmp_path: Path, rich: dict[str, Any]) -> None:
    (tmp_path / "old.json").write_text(json.dumps(rich), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest_probability", "html", str(tmp_path / "old.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert html5_problems((tmp_path / "old.html").read_text(encoding="utf-8")) == []
    version = subprocess.run(
        [sys.executable, "-m", "pytest_probability", "--version"], capture_output=True, text=True
    )
    assert version.stdout.strip() == "pytest-probability 0.1.0"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no such file"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not a pytest-probability JSON report"),
        (b"\xff\xfe", "cannot read it"),
    ],
)
def test_cli_refuses_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, reason: str
) -> None:
    source = tmp_path / "r.json"
    if isinstance(content, bytes):
        source.write_bytes(content)
    elif content is not None:
        source.write_text(content)
    assert main(["html", str(source), "-o", str(tmp_path / "r.html")]) == 2
    error = capsys.readouterr().err.strip()
    assert reason in error and len(error.splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_cli_refuses_an_unwritable_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "r.json").write_text(json.dumps(synthetic(1, 1)))
    (tmp_path / "afile").write_text("")  # (a missing directory would be created)
    assert main(["html", str(tmp_path / "r.json"), "-o", str(tmp_path / "afile" / "r.html")]) == 2
    assert "cannot write" in capsys.readouterr().err


# -- in a browser ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory, rich: dict[str, Any]) -> Path:
    path = tmp_path_factory.mktemp("page") / "report.html"
    path.write_text(render_report(rich, latency=True), encoding="utf-8")
    return path


def test_script_filters_and_sorts_from_the_url(
    page_file: Path, rich: dict[str, Any], tmp_path: Path
) -> None:
    dom = dump_dom(page_file, tmp_path / "a")
    assert [case for case, *_ in shown_rows(dom)] == [row["case"] for row in rich["rows"]]
    assert "hidden" not in Page(dom).find("form", id="case-filters")[0].attrs  # the script ran
    assert "7 of 7 cases shown" in dom
    dom = dump_dom(page_file, tmp_path / "b", "filter=FAIL,flaky&sort=fraction")
    rows = shown_rows(dom)
    assert {status for _, status, _ in rows} == {"fail", "flaky"} and len(rows) == 4
    assert [rate for *_, rate in rows] == sorted(rate for *_, rate in rows)
    assert 'aria-sort="ascending"' in dom and "4 of 7 cases shown" in dom
    dom = dump_dom(page_file, tmp_path / "c", "fn=triage&q=CRASH&sort=-case")
    assert [case for case, *_ in shown_rows(dom)] == ["triage::crash-terse", "triage::crash-long"]


def test_screenshot_without_console_errors(page_file: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    result = chromium(
        page_file.resolve().as_uri(),
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        "--enable-logging=stderr",
        "--v=0",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert png_size(shot) == (1280, 2000) and shot.stat().st_size > 20_000
    assert console_lines(result.stderr) == []


def test_console_errors_are_seen(tmp_path: Path) -> None:
    """The check above can fail: a page whose script throws is caught."""
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><title>x</title><script>missing();</script>")
    result = chromium(broken.as_uri(), tmp_path / "p", "--dump-dom", "--enable-logging=stderr")
    assert any("Uncaught ReferenceError" in line for line in console_lines(result.stderr))


@pytest.mark.subprocess
def test_the_page_modules_load_with_the_extension(pytester: pytest.Pytester) -> None:
    """The renderer loads with the extension (imported eagerly since extensions register
    only when a session needs them, issue 34); only a session with --prob-html writes a
    page."""
    pytester.makeconftest(
        """
import sys

def pytest_unconfigure(config):
    loaded = "pytest_probability.extensions.html.render" in sys.modules
    print(f"RENDERER LOADED: {loaded}")
"""
    )
    pytester.makepyfile(bench_one="def bench_one():\n    pass\n")
    plain = pytester.runpytest_subprocess(*PLUGIN, "--prob-runs=2", "-s")
    assert "RENDERER LOADED: True" in plain.outlines
    assert not (pytester.path / "r.html").exists()
    page = pytester.runpytest_subprocess(*PLUGIN, "--prob-runs=2", "-s", "--prob-html=r.html")
    assert "RENDERER LOADED: True" in page.outlines
    assert (pytester.path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_explained_readings_list_the_rows_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's readings find their row's case name without listing every row again for
    each reading (that made ``--prob-html --prob-explain`` quadratic in cases: 5,000 cases
    took 16 times what 1,000 took, benchmarks/feature_matrix.py)."""
    from pytest_probability.extensions.html import explained

    listed: list[int] = []
    original = explained.objects

    def counting(value: Any) -> Any:
        found = original(value)
        listed.append(len(found))
        return found

    monkeypatch.setattr(explained, "objects", counting)
    rows = [{"case": f"f::{i}", "explanation": f"case {i} passed"} for i in range(200)]
    readings = explained.find_readings({"rows": rows})
    assert [(r.topic, r.link) for r in readings[:2]] == [("f::0", "#c0"), ("f::1", "#c1")]
    assert len(readings) == 200
    assert listed == [200]


def test_a_stopped_comparison_says_which_estimate_it_shows() -> None:
    """A sequential comparison's note says when it settled (as the terminal line) and, after
    an early stop on a boundary, that the difference is the median-unbiased estimate and what
    the pairs used gave (as --prob-explain)."""
    from pytest_probability.extensions.html.summaries import render_comparisons

    line = {
        "label": "triage", "axis": "prompt", "arm": "new", "baseline": "old",
        "regime": "sequence", "difference": 0.24, "low": -0.03, "high": 0.53, "p": None,
        "paired": 20, "level": 0.95,
        "detail": {
            "estimate": "median-unbiased", "observed": 0.27, "settled_after": 5,
            "planned_pairs": 400,
        },
    }  # fmt: skip
    page = str(render_comparisons({"comparisons": [line]}))
    assert (
        "<td>sequence; settled after 5/20 rounds; median-unbiased for stopping early; +27 pp "
        "over the pairs used, which leans away from zero</td>"
    ) in page
    one = {**line, "paired": 1, "detail": {**line["detail"], "planned_pairs": 100}}
    one["detail"]["estimate"] = "observed"
    page = str(render_comparisons({"comparisons": [one]}))
    assert "<td>sequence; settled after 5/100 pairs</td>" in page
