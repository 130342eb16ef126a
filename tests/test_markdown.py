"""The markdown extension: --prob-markdown, GITHUB_STEP_SUMMARY, the renderer, its hooks."""

from __future__ import annotations

import copy
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import WRITTEN_LINE
from pytest_probability.extensions.markdown import render as render_module
from pytest_probability.extensions.markdown.markup import Markdown, MarkdownSection, escape, table
from pytest_probability.extensions.markdown.render import render_markdown
from pytest_probability.loader import BUNDLED
from pytest_probability.report import writing

#: Before the extension is registered in the loader, sessions load it explicitly.
EXPLICIT = ("-p", "pytest_probability.extensions.markdown.plugin")
PLUGIN = () if any(name == "markdown" for name, _ in BUNDLED) else EXPLICIT

#: A small deterministic suite: a rate gate, an arm comparison, recorded cost and usage, a
#: failure message with HTML and a pipe, an error with backticks.
BENCH = """
import pytest
from pytest_probability import current_run, record_cost, record_usage


@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("kind", ["ok", "half", "never"])
def bench_classify(kind):
    record_usage(model="m-small", input_tokens=10, output_tokens=2, cost=0.001)
    run = current_run().run
    if kind == "half":
        assert run % 2, "<b>odd</b> runs | only"
    elif kind == "never":
        raise ConnectionError("upstream `timed` out")


@pytest.mark.parametrize("style", ["terse", "long"])
@pytest.mark.parametrize("text", ["refund", "crash"])
def bench_triage(text, style):
    record_cost(0.0001 if style == "terse" else 0.0004)
    run = current_run().run
    if style == "terse":
        assert run != 3
"""
ARGS = ("--prob-runs=6", "--prob-compare=style", "-o", "prob_min_inputs=2", "-W", "ignore")

GOLDEN = """\
## pytest-probability

- **Overall:** 31/42 passed (74%)
- **Gates:** 1 passed, 1 failed, 1 undecided
- **Cost:** \\$0.0240

### Cases

| Case | Passed | Interval | Status | Gate | Cost |
| :--- | ---: | :--- | :--- | :--- | ---: |
| classify::ok | 6/6 | [54%, 100%] | PASS | ≥50% PASS | \\$0.0060 |
| classify::half | 3/6 | [12%, 88%] | FLAKY | ≥50% UNDECIDED | \\$0.0060 |
| classify::never | 0/6 | [0%, 46%] | ERROR | ≥50% FAIL | \\$0.0060 |
| triage::refund-terse | 5/6 | [36%, 99%] | FLAKY | | \\$0.0006 |
| triage::refund-long | 6/6 | [54%, 100%] | PASS | | \\$0.0024 |
| triage::crash-terse | 5/6 | [36%, 99%] | FLAKY | | \\$0.0006 |
| triage::crash-long | 6/6 | [54%, 100%] | PASS | | \\$0.0024 |

### Functions

| Function | Inputs | Runs | Mean | Interval | ρ |
| :--- | ---: | ---: | ---: | :--- | ---: |
| classify | 3 | 6 | 50.0% | [0.0%, 100.0%] | 0.70 |
| triage | 4 | 6 | 91.7% | [83.3%, 100.0%] | 0.00 |
| Overall | 7 | 6 | 73.8% | [45.2%, 95.2%] | 0.58 |

### Gates

| Case | Gate | Result | Interval | Verdict |
| :--- | :--- | ---: | :--- | :--- |
| classify::half | ≥50% | 3/6 | [12%, 88%] | UNDECIDED |
| classify::never | ≥50% | 0/6 | [0%, 46%] | FAIL |

### Comparisons

| Comparison | Difference | p | Paired | Cost |
| :--- | :--- | :--- | ---: | ---: |
| triage\\[style] long − terse | +17 pp [+17, +17] | 0.50 | 2 | ×4.0 |

### Tokens

| Model | Input tokens | Output tokens | Cached input tokens | Cost |
| :--- | ---: | ---: | ---: | ---: |
| m-small | 180 | 36 | 0 | \\$0.0180 |

### Failures

The first run of each case that did not pass:

| Case | Run | Outcome | Message |
| :--- | ---: | :--- | :--- |
| classify::half | 2 | fail | &lt;b&gt;odd&lt;/b&gt; runs \\| only |
| classify::never | 1 | error | ConnectionError: upstream \\`timed\\` out |
| triage::refund-terse | 3 | fail | assert 3 != 3 |
| triage::crash-terse | 3 | fail | assert 3 != 3 |
"""

HOSTILE_BENCH = """
import pytest

@pytest.mark.parametrize("x", [
    pytest.param(1, id="a|b`c`<script>alert(1)</script>"),
    pytest.param(2, id="*em* _u_ [l](http://e.vil) $x$ ~~s~~ \\\\|"),
    pytest.param(3, id="- <img src=x onerror=alert(1)> & ok"),
])
def bench_h(x):
    assert x != 2, "bad | `msg` <b>x</b>\\n| second | line |"
"""


@pytest.fixture(autouse=True)
def _no_job_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions in these tests never append to a real job summary (under GitHub Actions the
    variable is set for the whole job)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(bench_demo=BENCH)
    return pytester.runpytest(*PLUGIN, *ARGS, *args)


def cells(line: str) -> list[str]:
    """The cells of one table line, split on the pipes that are not escaped."""
    assert line.startswith("| ") or line.startswith("|"), line
    return re.split(r"(?<!\\)\|", line)[1:-1]


# -- the session ---------------------------------------------------------------------------------
def test_golden_markdown(pytester: pytest.Pytester) -> None:
    result = session(pytester, "--prob-markdown=out/deep/summary.md")
    assert (pytester.path / "out" / "deep" / "summary.md").read_text(encoding="utf-8") == GOLDEN
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "WARNING" not in result.stdout.str()
    assert [p.name for p in (pytester.path / "out" / "deep").iterdir()] == ["summary.md"]


def test_ini_key_and_an_existing_file_is_replaced(pytester: pytest.Pytester) -> None:
    (pytester.path / "from_ini.md").write_text("old content\n")
    session(pytester, "-o", "prob_markdown=from_ini.md")
    assert (pytester.path / "from_ini.md").read_text(encoding="utf-8") == GOLDEN


def test_step_summary_is_appended(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = pytester.path / "step_summary.md"
    summary.write_text("## An earlier step\n\nIt built the wheel.", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = session(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    earlier = "## An earlier step\n\nIt built the wheel.\n\n"
    assert summary.read_text(encoding="utf-8") == earlier + GOLDEN
    session(pytester)  # a second session in the same step appends again
    assert summary.read_text(encoding="utf-8") == earlier + GOLDEN + "\n" + GOLDEN


def test_step_summary_created_and_both_targets(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = pytester.path / "new_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    session(pytester, "--prob-markdown=copy.md")
    assert summary.read_text(encoding="utf-8") == GOLDEN
    assert (pytester.path / "copy.md").read_text(encoding="utf-8") == GOLDEN
    # the same file named twice is written once, not written and appended
    session(pytester, f"--prob-markdown={summary}")
    assert summary.read_text(encoding="utf-8") == GOLDEN


def test_nothing_written_without_results_or_a_target(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_demo=BENCH)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest(*PLUGIN, "--collect-only", "--prob-markdown=none.md")
    pytester.runpytest(*PLUGIN, "-k", "no_such_case", "--prob-markdown=none.md")
    assert not summary.exists() and not (pytester.path / "none.md").exists()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "")
    pytester.runpytest(*PLUGIN, *ARGS)
    assert sorted(p.name for p in pytester.path.iterdir() if p.suffix == ".md") == []


# pytest 7.4's own old-style helpconfig wrapper re-raises argparse's error for the blocked
# extension's flag, and pluggy >= 1.4 warns about that (pytest 8 has no such wrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
def test_disabled_with_p_no(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    summary.write_text("before\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = session(pytester, "-p", "no:probability.markdown")
    assert summary.read_text() == "before\n"
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "  Overall: 31/42 passed (74%)" in result.outlines
    # and its flag with it
    result = session(pytester, "-p", "no:probability.markdown", "--prob-markdown=x.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "x.md").exists()


def test_hostile_case_ids_and_messages(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_h=HOSTILE_BENCH)
    pytester.makeconftest(
        """
def pytest_prob_build_report(report, results, config):
    raise KeyError("<script>x</script> | `y`\\n- item")
"""
    )
    pytester.runpytest(*PLUGIN, "--prob-runs=2", "--prob-markdown=h.md", "-W", "ignore")
    text = (pytester.path / "h.md").read_text(encoding="utf-8")
    assert "<" not in text and ">" not in text.replace("&gt;", "")
    lines = text.splitlines()
    start = lines.index("### Cases") + 2
    rows = lines[start : start + 5]
    assert [len(cells(line)) for line in rows] == [4, 4, 4, 4, 4]
    assert [cells(line)[0].strip() for line in rows[2:]] == [
        "h::a\\|b\\`c\\`&lt;script&gt;alert(1)&lt;/script&gt;",
        "h::\\*em\\* \\_u\\_ \\[l](http\\://e.vil) \\$x\\$ \\~\\~s\\~\\~ \\\\\\\\\\|",
        "h::- &lt;img src=x onerror=alert(1)&gt; &amp; ok",
    ]
    failure = lines[lines.index("### Failures") + 6]
    assert cells(failure)[3].strip() == "bad \\| \\`msg\\` &lt;b&gt;x&lt;/b&gt;"
    warning = lines[lines.index("### Warnings") + 2]
    assert warning.startswith("- extension '") and "conftest.py' failed in " in warning
    assert warning.endswith("KeyError: '&lt;script&gt;x&lt;/script&gt; \\| \\`y\\`\\\\n- item'")


def test_unwritable_path_warns_and_keeps_the_exit_status(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path))  # a directory
    # (a --prob-markdown path that cannot take the file is a usage error before anything
    # runs, as for every writer: tests/test_writing.py; a missing directory is created)
    result = pytester.runpytest(*PLUGIN, "--prob-runs=2", "--prob-markdown=out/summary.md")
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "out" / "summary.md").is_file()
    warnings = [line for line in result.outlines if line.startswith("WARNING:")]
    assert warnings == [
        f"WARNING: could not append the Markdown summary to {pytester.path}: it is a directory",
    ]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert section_after(result.outlines) == warnings


def section_after(lines: list[str]) -> list[str]:
    """The lines after the ``probability`` section's last line and before pytest's final
    summary line, but the lines naming the files written (``--- probability: JSON report
    r.json (1 kB) ---``)."""
    end = max(i for i, line in enumerate(lines) if line.startswith("=") and "passed" in line)
    start = max(i for i, line in enumerate(lines) if "Overall:" in line)
    return [
        line for line in lines[start + 1 : end] if line.strip() and not WRITTEN_LINE.match(line)
    ]


def test_a_failed_write_is_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")

    def full(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "write_atomic", full)
    result = pytester.runpytest(*PLUGIN, "--prob-runs=2", "--prob-markdown=r.md")
    assert "WARNING: could not write the Markdown summary to r.md: No space left on device" in (
        result.outlines
    )
    assert "Traceback" not in result.stdout.str() and result.ret == pytest.ExitCode.OK


def test_a_renderer_bug_is_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")

    def broken(document: Any, sections: Any = ()) -> str:
        raise ZeroDivisionError("on purpose")

    monkeypatch.setattr(render_module, "render_markdown", broken)
    result = pytester.runpytest(*PLUGIN, "--prob-markdown=r.md")
    assert (
        "WARNING: could not build the Markdown summary: ZeroDivisionError: on purpose"
        in result.outlines
    )
    assert result.ret == pytest.ExitCode.OK and not (pytester.path / "r.md").exists()


SECTIONS = """
from pytest_probability.extensions.markdown.markup import Markdown, MarkdownSection, table

class Good:
    def pytest_prob_markdown_sections(self, report, config):
        runs = [r for r in report["records"] if r["case"] == "classify::half"]
        rows = [(r["run"], r["outcome"]) for r in runs[:2]]
        return [MarkdownSection("Runs <of half>", table(["Run", "Outcome"], rows, "rl")),
                MarkdownSection("Empty", ""), MarkdownSection("Blank", Markdown("  \\n ")),
                MarkdownSection("Note", "plain *text*\\nsecond line")]

class Broken:
    def pytest_prob_markdown_sections(self, report, config):
        raise RuntimeError("section bug")

class Wrong:
    def pytest_prob_markdown_sections(self, report, config):
        return ["not a section"]

def pytest_configure(config):
    for plugin in (Good(), Broken(), Wrong()):
        config.pluginmanager.register(plugin, type(plugin).__name__.lower())
"""


def test_sections_from_extensions(pytester: pytest.Pytester) -> None:
    """Sections in hook order; a failing extension is named; an empty or blank section is
    not shown (as in the terminal)."""
    pytester.makeconftest(SECTIONS)
    result = session(pytester, "--prob-markdown=s.md")
    text = (pytester.path / "s.md").read_text(encoding="utf-8")
    assert text.startswith(GOLDEN)
    # in the order pytest calls the implementations: the last registered first
    assert text[len(GOLDEN) :] == (
        "\n### wrong (failed)\n\n"
        "extension 'wrong' failed: TypeError: expected MarkdownSection objects, got str\n\n"
        "### broken (failed)\n\n"
        "extension 'broken' failed: RuntimeError: section bug\n\n"
        "### Runs &lt;of half&gt;\n\n"
        "| Run | Outcome |\n| ---: | :--- |\n| 1 | pass |\n| 2 | fail |\n\n"
        "### Note\n\nplain \\*text\\*\\\nsecond line\n"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_step_summary_hook_names_another_file_or_none(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    github = pytester.path / "github.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(github))
    pytester.makeconftest(
        """
import os

def pytest_prob_markdown_step_summary(config):
    return os.environ.get("OTHER_CI_SUMMARY")
"""
    )
    monkeypatch.setenv("OTHER_CI_SUMMARY", "reports/ci.md")
    (pytester.path / "reports").mkdir()
    session(pytester)
    assert (pytester.path / "reports" / "ci.md").read_text(encoding="utf-8") == GOLDEN
    assert not github.exists()
    monkeypatch.setenv("OTHER_CI_SUMMARY", "")  # "": no job summary at all
    session(pytester)
    assert not github.exists()
    monkeypatch.delenv("OTHER_CI_SUMMARY")  # None: the default answers
    session(pytester)
    assert github.read_text(encoding="utf-8") == GOLDEN


@pytest.mark.subprocess
def test_under_xdist_the_controller_writes_the_same_markdown(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(bench_demo=BENCH)
    summary = pytester.path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    serial = pytester.runpytest_subprocess(*PLUGIN, *ARGS, "--prob-markdown=serial.md")
    parallel = pytester.runpytest_subprocess(
        *PLUGIN, *ARGS, "-n", "2", "--prob-markdown=parallel.md"
    )
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    written = [
        (pytester.path / n).read_text(encoding="utf-8") for n in ("serial.md", "parallel.md")
    ]
    assert written == [GOLDEN, GOLDEN]
    # one append per session: the controller's, never a worker's
    assert summary.read_text(encoding="utf-8") == GOLDEN + "\n" + GOLDEN
    assert sorted(p.name for p in pytester.path.iterdir() if p.suffix == ".md") == [
        "parallel.md",
        "serial.md",
        "step.md",
    ]


@pytest.mark.subprocess
def test_the_renderer_loads_with_the_extension(pytester: pytest.Pytester) -> None:
    """The renderer loads with the extension (imported eagerly since extensions register
    only when a session needs them, issue 34); only a session with a summary to write
    writes one."""
    pytester.makeconftest(
        """
import sys

def pytest_unconfigure(config):
    loaded = "pytest_probability.extensions.markdown.render" in sys.modules
    print(f"RENDERER LOADED: {loaded}")
"""
    )
    pytester.makepyfile(bench_one="def bench_one():\n    pass\n")
    plain = pytester.runpytest_subprocess(*PLUGIN, "--prob-runs=2", "-s")
    assert "RENDERER LOADED: True" in plain.outlines
    assert not (pytester.path / "r.md").exists()
    written = pytester.runpytest_subprocess(*PLUGIN, "--prob-runs=2", "-s", "--prob-markdown=r.md")
    assert "RENDERER LOADED: True" in written.outlines
    assert (pytester.path / "r.md").read_text().startswith("## pytest-probability\n")


# -- the renderer --------------------------------------------------------------------------------
def test_escape_keeps_text_and_breaks_nothing() -> None:
    assert escape("a|b`c`<script>&$x$") == "a\\|b\\`c\\`&lt;script&gt;&amp;\\$x\\$"
    assert escape("identify_pii _x_ *y* [l](u) ~~s~~ \\") == (
        "identify_pii \\_x\\_ \\*y\\* \\[l](u) \\~\\~s\\~\\~ \\\\"
    )
    assert escape(" line\nbreak\r\nand\u2028more\tnul\x00 ") == "line break and more nul\u2400"
    assert escape("- item") == "\\- item" and escape("# head") == "\\# head"
    assert escape("1. first") == "1\\. first" and escape("---") == "\\---"
    assert escape("0.50") == "0.50" and escape("a - b") == "a - b"
    assert escape("see http://x.y and www.z.org") == "see http\\://x.y and www\\.z.org"
    assert escape(None) == "" and escape(Markdown("**kept**")) == "**kept**"


def test_table_cells_stay_in_their_columns() -> None:
    shown = table(
        ["A", "B|C"],
        [["x|y", Markdown("**z**\n|w")], [None], ["1", "2", "dropped"]],
        "lr",
    )
    assert shown == ("| A | B\\|C |\n| :--- | ---: |\n| x\\|y | **z** \\|w |\n| | |\n| 1 | 2 |")


SYNTHETIC: dict[str, Any] = {
    "totals": {"passes": 57, "fails": 3, "errors": 1, "count": 61, "pass_rate": 93.4},
    "rows": [
        {
            "case": "api::search",
            "passes": 40,
            "fails": 0,
            "errors": 0,
            "total": 40,
            "planned": 40,
            "ci": {"low": 0.912, "high": 1.0},
            "status": "pass",
            "gate": {
                "verdict": "fail",
                "checks": [
                    {
                        "kind": "latency",
                        "verdict": "fail",
                        "quantile": 0.95,
                        "max_latency": 0.5,
                        "estimate": 0.769,
                        "low": 0.6,
                        "high": None,
                    }
                ],
            },
        },
        {
            "case": "api::count",
            "passes": 9,
            "fails": 2,
            "errors": 1,
            "total": 12,
            "planned": 40,
            "subset": "selected",
            "ci": {"low": 0.43, "high": 0.95},
            "xfail": True,
            "gate": {
                "verdict": "fail",
                "checks": [
                    {
                        "kind": "count",
                        "verdict": "fail",
                        "min_passes": 10,
                        "passes": 9,
                        "n": 12,
                        "low": 0.43,
                        "high": 0.95,
                    },
                    {
                        "kind": "rate",
                        "verdict": "pass",
                        "min_rate": 0.025,
                        "passes": 9,
                        "n": 12,
                        "low": 0.43,
                        "high": 0.95,
                    },
                ],
            },
        },
        {
            "case": "api::stop",
            "passes": 8,
            "fails": 1,
            "errors": 0,
            "total": 9,
            "planned": 40,
            "stopped": {"verdict": "fail", "after": 9, "planned": 40},
            "budget_skipped": 3,
            "ci": {"low": 0.52, "high": 0.997},
        },
        {
            "case": "api::skip",
            "passes": 0,
            "fails": 0,
            "errors": 0,
            "skipped": 2,
            "total": 0,
            "planned": 2,
        },
    ],
    "aggregates": [
        {
            "label": "api",
            "inputs": 3,
            "runs_min": 9,
            "runs_max": 40,
            "estimate": 0.9,
            "icc": -0.05,
            "ci": {"low": None, "high": None},
            "hidden": "2 cases were stopped early",
        }
    ],
    "comparisons": [
        {
            "label": "api",
            "axis": "mode",
            "arm": "fast",
            "baseline": "slow",
            "difference": -0.031,
            "low": -0.09,
            "high": 0.02,
            "p": 0.0004,
            "p_adjusted": 0.0012,
            "adjust": "holm",
            "paired": 12,
            "cost_ratio": None,
            "margin": 0.02,
            "equivalence": True,
            "verdict": "undecided",
            "unpaired": [{"input": "x|y", "only": "fast"}],
        },
        {
            "label": "api",
            "axis": "mode",
            "arm": "odd",
            "baseline": "slow",
            "difference": None,
            "low": None,
            "high": None,
            "p": None,
            "paired": 0,
            "error": "ZeroDivisionError: boom",
        },
    ],
    "baseline": {
        "path": "main.toml",
        "margin": 0.05,
        "functions": [
            {
                "label": "api",
                "difference": 0.0049,
                "low": -0.1,
                "high": 0.1,
                "p": 1.0,
                "paired": 3,
                "margin": 0.05,
                "equivalence": False,
                "verdict": "pass",
                "new": ["api::new"],
                "removed": [],
            }
        ],
        "not_run": [f"other::c{i}" for i in range(12)],
    },
    "warnings": ["extension 'probability.x' failed in pytest_prob_build_report: KeyError: '- <b>'"],
}

SYNTHETIC_MARKDOWN = """\
## pytest-probability

- **Overall:** 57/61 passed (93%)

### Cases

| Case | Passed | Interval | Status | Gate |
| :--- | ---: | :--- | :--- | :--- |
| api::search | 40/40 | [91%, 100%] | PASS | p95 ≤500ms FAIL |
| api::count | 9/12 | [43%, 95%] | FLAKY (1 errored) (xfail), of 40 planned, selected subset | ≥10/40, ≥2.5% FAIL |
| api::stop | 8/9 | [52%, 99%] | FLAKY, decided after 9/40, cut short (37/40) | |
| api::skip | 0/0 | | SKIPPED | |

### Functions

| Function | Inputs | Runs | Mean | Interval | ρ |
| :--- | ---: | ---: | ---: | :--- | ---: |
| api | 3 | 9–40 | 90.0% | hidden: 2 cases were stopped early | −0.05 |

### Gates

| Case | Gate | Result | Interval | Verdict |
| :--- | :--- | ---: | :--- | :--- |
| api::search | p95 ≤500ms | p95 769ms | [600ms, —] | FAIL |
| api::count | ≥10/40 | 9/12 | [43%, 95%] | FAIL |

### Comparisons

| Comparison | Difference | p | Paired | Margin | Verdict | Note |
| :--- | :--- | :--- | ---: | :--- | :--- | :--- |
| api\\[mode] fast − slow | −3 pp [−9, +2] | 0.001 (holm) | 12 | ±2 pp | UNDECIDED | not compared: x\\|y (fast only) |
| api\\[mode] odd − slow | | | 0 | | | could not be computed: ZeroDivisionError: boom |

### Baseline

Against main.toml (margin 5 pp): now − baseline.

| Function | Difference | p | Paired | Margin | Verdict | Note |
| :--- | :--- | :--- | ---: | :--- | :--- | :--- |
| api | 0 pp [−10, +10] | 1 | 3 | ≥−5 pp | PASS | 1 new |

Baseline cases whose function did not run (12): other::c0, other::c1, other::c2, other::c3, \
other::c4, other::c5, other::c6, other::c7, other::c8, other::c9, …

### Mine

**kept**

### Plain \\#

a \\*b\\*\\
c

### Warnings

- extension 'probability.x' failed in pytest_prob_build_report: KeyError: '- &lt;b&gt;'
"""


def test_rare_parts_of_a_report() -> None:
    sections = [
        MarkdownSection("Mine", Markdown("**kept**")),
        MarkdownSection("Plain #", "a *b*\nc"),
    ]
    assert render_markdown(SYNTHETIC, sections) == SYNTHETIC_MARKDOWN


def test_a_long_table_keeps_the_cases_that_need_attention() -> None:
    rows: list[dict[str, Any]] = [
        {"case": f"c::{i}", "passes": 3, "fails": 0, "errors": 0, "total": 3} for i in range(8)
    ]
    rows[2]["fails"] = rows[5]["errors"] = 1
    rows[6]["gate"] = {"verdict": "undecided", "checks": []}
    text = render_markdown({"rows": rows}, max_rows=5)
    shown = [line.split(" | ")[0][2:] for line in text.splitlines() if line.startswith("| c::")]
    assert shown == ["c::2", "c::5", "c::6"]
    assert "8 cases: shown are the 3 that did not pass every run or their gate; the other 5" in (
        text
    )
    text = render_markdown({"rows": rows}, max_rows=2)
    assert [line[:8] for line in text.splitlines() if line.startswith("| c::")] == [
        "| c::2 |",
        "| c::5 |",
    ]
    assert "shown are the first 2 of the 3 that did not pass" in text


JUNK = [None, "x", 3, -1.5, float("nan"), float("inf"), [], {}, [1, "a"], {"a": None}, True]


def test_malformed_documents_never_break_the_renderer() -> None:
    rng = random.Random(1)
    for _ in range(300):
        document = copy.deepcopy(SYNTHETIC)
        for _ in range(4):
            target: Any = document
            while isinstance(target, (dict, list)) and target:
                key = rng.choice(list(target) if isinstance(target, dict) else range(len(target)))
                if not isinstance(target[key], (dict, list)) or rng.random() < 0.3:
                    target[key] = copy.deepcopy(rng.choice(JUNK))
                    break
                target = target[key]
        text = render_markdown(document)
        assert text.startswith("## pytest-probability\n") and text.endswith("\n")
    assert render_markdown({}) == "## pytest-probability\n\nNo bench run produced a result.\n"


def test_the_renderer_never_imports_pytest() -> None:
    code = (
        "import sys\n"
        "import pytest_probability.extensions.markdown.render\n"
        "loaded = [m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert render_module.__doc__ and "never imports pytest" in render_module.__doc__
