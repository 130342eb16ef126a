"""Failure output that grows with cases, not with runs (the ``failures`` extension).

Exact terminal output of ``--prob-failures=grouped|first|all`` under every ``--tb`` style and
``-r`` character, the grouping rule and its hook, ``rows[].failures`` in the JSON report, and
everything that must not change: every run stays its own report for ``-x``, ``--lf``, JUnit
XML, pytest-xdist and ``records[]``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from helpers import section
from pytest_probability.extensions.failures.grouping import (
    ShapeKey,
    group_failures,
    merged_text,
    more_line,
    runs_text,
    shape_key,
    split_values,
    summary_message,
)

#: The bench of docs/running.rst: phone_number fails 9 runs of 10 in three ways.
BENCH = """
import pytest
from pytest_probability import current_run

#: what the "model" answers in each run of the phone-number case (None: it crashes)
ANSWERS = [None, "phone", "other", "other", None, "other", "billing", None, "other", "other", "other"]


def classify(text):
    if text.endswith("?"):
        return "question"
    answer = ANSWERS[current_run().run]
    if answer is None:
        raise KeyError("amount")
    return answer


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("is this a question?", "question", id="is_question"),
    pytest.param("call me on 555-0199", "phone", id="phone_number"),
])
def bench_classify(text, expected):
    assert classify(text) == expected
"""

TRACEBACK = [
    "______________________ bench_classify::phone_number[run2] ______________________",
    "bench_classify.py:22: in bench_classify",
    "    assert classify(text) == expected",
    "E   AssertionError: assert 'other' == 'phone'",
    "E     - phone",
    "E     + other",
]
MORE = (
    "… 8 more failing runs of classify::phone_number: 6 × assert '…' == 'phone' "
    "(runs 3, 5, 6, 8–10), 2 × KeyError: 'amount' (runs 4, 7)"
)
CASE_LINE = (
    "FAILED bench_classify.py::bench_classify::phone_number - 9/10 runs failed: "
    "assert '…' == 'phone' ×7, KeyError ×2"
)

ANSWER_KEY = """
import re

ANSWER = re.compile(r"assert '(?P<answer>[^']*)' == ")


def pytest_prob_failure_key(record, config):
    found = ANSWER.match(record["message"] or "")
    return f"answered {found['answer']!r}" if found and record["outcome"] == "fail" else None
"""


@pytest.fixture(autouse=True)
def _whole_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest prints short-summary messages whole on CI and cuts them to the width
    elsewhere: print them whole, so that the lines compared are the lines made."""
    monkeypatch.setenv("CI", "1")


def _normal(lines: list[str]) -> list[str]:
    """Lines without trailing blanks, pytest ≥ 8's blank ``E`` line before a diff, the
    worker line pytest-xdist puts at the top of a traceback, and the timing."""
    out = [line.rstrip() for line in lines]
    out = [re.sub(r" in \d+\.\d+s( \(.*\))?", " in <time>", line) for line in out]
    return [line for line in out if line != "E" and not re.match(r"\[gw\d+\] ", line)]


def failure_sections(lines: list[str]) -> list[str]:
    """Everything from ``FAILURES`` (or ``ERRORS``) to the ``probability`` section."""
    start = next(
        (i for i, line in enumerate(lines) if re.match(r"=+ (FAILURES|ERRORS) =+$", line)), None
    )
    if start is None:
        return []
    end = next(i for i, line in enumerate(lines) if re.match(r"=+ probability =+$", line))
    return _normal(lines[start:end])


def short_summary(lines: list[str]) -> list[str]:
    """The short test summary's lines, then the final counts line (``-q``)."""
    return _normal(section(lines, "short test summary info"))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(bench_classify=BENCH)
    return pytester.runpytest("--prob-runs=10", "-q", *args)


# -- the default: one traceback and one line per case ----------------------------------------
def test_grouped_shows_one_traceback_and_one_summary_line_per_case(
    pytester: pytest.Pytester,
) -> None:
    result = run(pytester, "--tb=short")
    assert failure_sections(result.outlines) == [
        "=================================== FAILURES ===================================",
        *TRACEBACK,
        MORE,
    ]
    assert short_summary(result.outlines) == [
        CASE_LINE,
        "9 failed, 11 passed in <time>",
    ]
    # the counts line counts runs, and the table is the usual one
    result.assert_outcomes(passed=11, failed=9)
    assert section(result.outlines) == [
        "  classify::is_question   10/10  [69%, 100%]",
        "  classify::phone_number   1/10  [ 1%,  45%]  FLAKY (2 errored)",
        "",
        "  Overall: 11/20 passed (55%)",
    ]


def test_ini_and_cli_select_the_mode(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nprob_failures = first\n")
    first = run(pytester, "--tb=short")
    assert failure_sections(first.outlines) == [
        "=================================== FAILURES ===================================",
        *TRACEBACK,
        "… 8 more failing runs of classify::phone_number (runs 3–10)",
    ]
    assert short_summary(first.outlines)[0] == (
        "FAILED bench_classify.py::bench_classify::phone_number - 9/10 runs failed"
    )
    grouped = run(pytester, "--tb=short", "--prob-failures=grouped")
    assert failure_sections(grouped.outlines)[-1] == MORE


def test_all_is_pytests_own_output(pytester: pytest.Pytester) -> None:
    every = run(pytester, "--tb=short", "--prob-failures=all")
    without = run(pytester, "--tb=short", "-p", "no:probability.failures")
    assert failure_sections(every.outlines) == failure_sections(without.outlines)
    assert short_summary(every.outlines) == short_summary(without.outlines)
    titles = [line for line in every.outlines if line.startswith("____")]
    assert [re.search(r"\[run(\d+)\]", t).group(1) for t in titles] == [
        "2", "3", "4", "5", "6", "7", "8", "9", "10"
    ]  # fmt: skip
    failed = [line for line in short_summary(every.outlines) if line.startswith("FAILED")]
    assert len(failed) == 9
    assert failed[2] == (
        "FAILED bench_classify.py::bench_classify::phone_number[run4] - KeyError: 'amount'"
    )


def test_bad_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--prob-failures=some")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --prob-failures=some: expected one of grouped, first, all, got 'some'" in (
        result.errlines
    )
    result = run(pytester, "-o", "prob_failures=none")
    assert "ERROR: ini option prob_failures=none: expected one of grouped, first, all, " in (
        " ".join(result.errlines)
    )


# -- pytest's options keep their meaning, per case ------------------------------------------
def test_tb_line_shows_one_line_per_case(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--tb=line")
    crash = [line for line in failure_sections(result.outlines) if "bench_classify.py:" in line]
    assert crash == [
        f"{pytester.path}/bench_classify.py:22: AssertionError: assert 'other' == 'phone'"
    ]
    assert short_summary(result.outlines)[0] == CASE_LINE


def test_tb_no_keeps_the_case_lines(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--tb=no")
    assert failure_sections(result.outlines) == []
    assert short_summary(result.outlines)[0] == CASE_LINE


def test_tb_long_is_the_first_runs_long_traceback(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--tb=long")
    lines = failure_sections(result.outlines)
    assert lines[1] == TRACEBACK[0]
    assert lines.count(TRACEBACK[0]) == 1
    assert "    def bench_classify(text, expected):" in lines
    assert lines[-2:] == ["bench_classify.py:22: AssertionError", MORE]


def test_report_chars_list_cases(pytester: pytest.Pytester) -> None:
    everything = run(pytester, "--tb=no", "-rA")
    assert short_summary(everything.outlines) == [
        "PASSED bench_classify.py::bench_classify::is_question - 10/10 runs passed",
        CASE_LINE,
        "9 failed, 11 passed in <time>",
    ]
    passes_only = run(pytester, "--tb=no", "-rp")
    assert short_summary(passes_only.outlines)[:-1] == [
        "PASSED bench_classify.py::bench_classify::is_question - 10/10 runs passed"
    ]
    nothing = run(pytester, "--tb=no", "-rN")
    assert section(nothing.outlines, "short test summary info") == []


#: A case whose runs print: odd runs pass, even runs fail.
TALK = """
from pytest_probability import current_run


def bench_talk():
    run = current_run().run
    print(f"asked in run {run}")
    assert run % 2, f"even run {run}"
"""

TALK_FAILURE = [
    "_______________________________ bench_talk[run2] _______________________________",
    "bench_talk.py:7: in bench_talk",
    '    assert run % 2, f"even run {run}"',
    "E   AssertionError: even run 2",
    "E   assert (2 % 2)",
    "----------------------------- Captured stdout call -----------------------------",
    "asked in run 2",
    "… 1 more failing run of talk: 1 × even run 4 (run 4)",
]


def test_captured_output_and_passes_are_per_case(pytester: pytest.Pytester) -> None:
    """The line about the other runs comes after the shown run's captured output; ``-rP``
    (in ``-rA``) prints one ``PASSES`` entry per case, not one per passing run."""
    pytester.makepyfile(bench_talk=TALK)
    result = pytester.runpytest("--prob-runs=4", "-q", "--tb=short", "-rA", "-p", "no:randomly")
    assert failure_sections(result.outlines) == [
        "=================================== FAILURES ===================================",
        *TALK_FAILURE,
        "==================================== PASSES ====================================",
        "_______________________________ bench_talk[run1] _______________________________",
        "----------------------------- Captured stdout call -----------------------------",
        "asked in run 1",
        "… 1 more passing run of talk (run 3)",
    ]
    assert short_summary(result.outlines) == [
        "FAILED bench_talk.py::bench_talk - 2/4 runs failed: even run …",
        "2 failed, 2 passed in <time>",
    ]
    quiet = pytester.runpytest(
        "--prob-runs=4", "-q", "--tb=short", "-rP", "--show-capture=no", "-p", "no:randomly"
    )
    assert failure_sections(quiet.outlines) == [
        "=================================== FAILURES ===================================",
        *TALK_FAILURE[:5],
        TALK_FAILURE[-1],
        "==================================== PASSES ====================================",
        "_______________________________ bench_talk[run1] _______________________________",
        "… 1 more passing run of talk (run 3)",
    ]
    # --prob-failures=all: pytest's own PASSES section, an entry per passing run
    every = pytester.runpytest("--prob-runs=4", "-q", "--tb=short", "-rP", "--prob-failures=all")
    without = pytester.runpytest(
        "--prob-runs=4", "-q", "--tb=short", "-rP", "-p", "no:probability.failures"
    )
    assert failure_sections(every.outlines) == failure_sections(without.outlines)
    assert failure_sections(every.outlines).count("asked in run 3") == 1
    assert not any(line.startswith("…") for line in every.outlines)


def test_a_one_run_case_prints_what_pytest_prints(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_one="""
import pytest

@pytest.mark.parametrize("n", [1, 2])
def bench_one(n):
    assert n == 1
"""
    )
    args = ("-q", "--tb=short", "-rA")
    grouped = pytester.runpytest(*args)
    plain = pytester.runpytest(*args, "-p", "no:probability.failures")
    assert _normal(grouped.outlines) == _normal(plain.outlines)
    assert short_summary(grouped.outlines) == [
        "PASSED bench_one.py::bench_one::1",
        "FAILED bench_one.py::bench_one::2 - assert 2 == 1",
        "1 failed, 1 passed in <time>",
    ]


def test_setup_errors_and_tests_group_per_case(pytester: pytest.Pytester) -> None:
    """A fixture that fails at setup fills pytest's ERRORS section: grouped the same way.
    A plain test's failure keeps its place and its lines."""
    pytester.makeconftest(
        """
import pytest
from pytest_probability import current_run

@pytest.fixture
def client():
    raise ConnectionError(f"connection {current_run().run} refused")
"""
    )
    pytester.makepyfile(
        bench_net="""
def bench_fetch(client):
    pass

def bench_ok():
    pass
""",
        test_plain="def test_fails():\n    assert 1 == 2\n",
    )
    result = pytester.runpytest("--prob-runs=3", "-q", "--tb=line", "-rfE")
    assert short_summary(result.outlines) == [
        "FAILED test_plain.py::test_fails - assert 1 == 2",
        "ERROR bench_net.py::bench_fetch - 3/3 runs errored: ConnectionError",
        "1 failed, 3 passed, 3 errors in <time>",
    ]
    result = pytester.runpytest("--prob-runs=3", "-q", "--tb=short", "-p", "no:randomly")
    sections = failure_sections(result.outlines)
    assert sections[0] == (
        "==================================== ERRORS ===================================="
    )
    more = [line for line in sections if line.startswith("…")]
    assert more == [
        "… 2 more errored runs of fetch: 2 × ConnectionError: connection … refused (in setup) "
        "(runs 2, 3)"
    ]
    titles = [line.strip("_ ") for line in sections if line.startswith("____")]
    assert titles == ["ERROR at setup of bench_fetch[run1]", "test_fails"]


def test_a_gated_case_is_unaffected(pytester: pytest.Pytester) -> None:
    """Its failing runs are xfailed: only its [gate] item is a failure, as before."""
    pytester.makepyfile(
        bench_g="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.9)
def bench_never():
    assert current_run().run == 1, f"wrong answer {current_run().run}"
"""
    )
    result = pytester.runpytest("--prob-runs=10", "-q", "--tb=short", "--prob-json=r.json")
    result.assert_outcomes(passed=1, failed=1, xfailed=9)
    sections = failure_sections(result.outlines)
    assert [line.strip("_ ") for line in sections if line.startswith("____")] == [
        "bench_never[gate]"
    ]
    assert not any(line.startswith("…") for line in sections)
    assert short_summary(result.outlines)[0].startswith("FAILED bench_g.py::bench_never[gate]")
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["rows"][0]["failures"] == [
        {"text": "wrong answer …", "outcome": "fail", "count": 9, "runs": list(range(2, 11))}
    ]


# -- only the terminal changes ---------------------------------------------------------------
def test_json_lists_the_groups_and_keeps_every_record(pytester: pytest.Pytester) -> None:
    run(pytester, "--tb=no", "--prob-json=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    rows = {row["case"]: row for row in report["rows"]}
    assert rows["classify::is_question"]["failures"] == []
    assert rows["classify::phone_number"]["failures"] == [
        {"text": "assert '…' == 'phone'", "outcome": "fail", "count": 7,
         "runs": [2, 3, 5, 6, 8, 9, 10]},
        {"text": "KeyError: 'amount'", "outcome": "error", "count": 2, "runs": [4, 7]},
    ]  # fmt: skip
    messages = {
        r["run"]: r["message"].splitlines()[0]
        for r in report["records"]
        if r["case"] == "classify::phone_number" and r["outcome"] != "pass"
    }
    assert messages[6] == "assert 'billing' == 'phone'"
    assert messages[4] == "KeyError: 'amount'"
    assert len(messages) == 9
    # the same with the terminal's per-run output
    run(pytester, "--tb=no", "--prob-json=all.json", "--prob-failures=all")
    again = json.loads((pytester.path / "all.json").read_text())
    assert [row["failures"] for row in again["rows"]] == [row["failures"] for row in report["rows"]]


def test_junit_xml_has_every_failing_run(pytester: pytest.Pytester) -> None:
    run(pytester, "--tb=short", "--junitxml=j.xml")
    root = ET.parse(pytester.path / "j.xml").getroot()
    failed = {
        case.get("name"): case.find("failure").get("message")
        for case in root.iter("testcase")
        if case.find("failure") is not None
    }
    assert sorted(failed, key=lambda n: int(n.split("[run")[1][:-1])) == [
        f"phone_number[run{k}]" for k in (2, 3, 4, 5, 6, 7, 8, 9, 10)
    ]
    assert failed["phone_number[run4]"] == "KeyError: 'amount'"
    assert failed["phone_number[run6]"].startswith("AssertionError: assert 'billing' == 'phone'")


def test_exitfirst_stops_at_the_first_failing_run(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--tb=short", "-x", "-k", "phone_number")
    result.assert_outcomes(passed=1, failed=1)
    assert failure_sections(result.outlines) == [
        "=================================== FAILURES ===================================",
        *TRACEBACK,
    ]
    assert short_summary(result.outlines)[0] == (
        "FAILED bench_classify.py::bench_classify::phone_number - 1/2 runs failed "
        "(of 10 planned): assert 'other' == 'phone'"
    )


def test_last_failed_reruns_exactly_the_failing_runs(pytester: pytest.Pytester) -> None:
    run(pytester, "--tb=no")
    again = run(pytester, "--tb=short", "--lf")
    again.assert_outcomes(failed=9)
    assert failure_sections(again.outlines)[-1] == MORE
    assert short_summary(again.outlines)[0] == (
        "FAILED bench_classify.py::bench_classify::phone_number - 9/9 runs failed "
        "(of 10 planned): assert '…' == 'phone' ×7, KeyError ×2"
    )


@pytest.mark.subprocess
def test_xdist_prints_the_same_cases(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_classify=BENCH, bench_more=BENCH.replace("classify", "sort"), bench_talk=TALK
    )
    args = ("--prob-runs=10", "-q", "--tb=short", "-rA", "-p", "no:randomly", "--prob-json=r.json")
    serial = pytester.runpytest_subprocess(*args)
    serial_json = json.loads((pytester.path / "r.json").read_text())
    parallel = pytester.runpytest_subprocess(*args, "-n", "2")
    parallel_json = json.loads((pytester.path / "r.json").read_text())
    assert failure_sections(parallel.outlines) == failure_sections(serial.outlines)
    assert short_summary(parallel.outlines) == short_summary(serial.outlines)
    assert len([line for line in parallel.outlines if line.startswith("… 8 more")]) == 2
    assert "… 4 more failing runs of talk: 4 × even run … (runs 4, 6, 8, 10)" in (
        failure_sections(parallel.outlines)
    )
    assert "… 4 more passing runs of talk (runs 3, 5, 7, 9)" in failure_sections(parallel.outlines)
    assert [row["failures"] for row in parallel_json["rows"]] == [
        row["failures"] for row in serial_json["rows"]
    ]


# -- the grouping rule and its hook ----------------------------------------------------------
def test_the_hook_replaces_the_rule(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(ANSWER_KEY)
    result = run(pytester, "--tb=short", "--prob-json=r.json")
    assert failure_sections(result.outlines)[-1] == (
        "… 8 more failing runs of classify::phone_number: 5 × answered 'other' "
        "(runs 3, 5, 8–10), 2 × KeyError: 'amount' (runs 4, 7), 1 × answered 'billing' (run 6)"
    )
    assert short_summary(result.outlines)[0] == (
        "FAILED bench_classify.py::bench_classify::phone_number - 9/10 runs failed: "
        "answered 'other' ×6, KeyError ×2, answered 'billing' ×1"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    assert [(g["text"], g["count"]) for g in report["rows"][1]["failures"]] == [
        ("answered 'other'", 6),
        ("KeyError: 'amount'", 2),
        ("answered 'billing'", 1),
    ]


def test_a_failing_hook_falls_back_to_the_rule(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "def pytest_prob_failure_key(record, config):\n    raise ValueError('broken')\n"
    )
    result = run(pytester, "--tb=short")
    assert MORE in failure_sections(result.outlines)  # (then pytest's warnings summary)
    result.stdout.fnmatch_lines(
        [
            "  warning: extension '*conftest.py' failed in pytest_prob_failure_key: ValueError: broken"
        ]
    )


def test_shape_takes_out_numbers_and_quoted_values() -> None:
    assert split_values("assert 'other' == 'phone'") == (
        ["assert ", " == ", ""],
        ["'other'", "'phone'"],
    )
    # an apostrophe inside a word and digits inside a name are text
    assert split_values("don't retry run3 after 2.5s") == (
        ["don't retry run3 after ", "s"],
        ["2.5"],
    )

    def record(message: str, outcome: str = "fail", error: str | None = None) -> dict[str, Any]:
        return {"message": message, "outcome": outcome, "error": error, "phase": "call"}

    a, b = record("assert 'other' == 'phone'\n  - phone"), record("assert 'bill' == 'phone'")
    assert shape_key(a) == shape_key(b) == "fail: assert '…' == '…'"
    assert isinstance(shape_key(a), ShapeKey)
    assert merged_text([a, b]) == "assert '…' == 'phone'"
    assert shape_key(record("KeyError: 'x'", "error", "KeyError")) != shape_key(
        record("KeyError: 'x'")
    )
    assert shape_key(record("took 350ms")) == shape_key(record("took 1200ms"))
    assert shape_key(record("")) == "fail: AssertionError"
    groups = group_failures(
        [
            (5, record("KeyError: 'x'", "error", "KeyError"), "k"),
            (2, a, shape_key(a)),
            (3, b, shape_key(b)),
        ]
    )
    assert [(g.text, g.short, g.runs) for g in groups] == [
        ("assert '…' == 'phone'", "assert '…' == 'phone'", [2, 3]),
        ("k", "k", [5]),
    ]


def test_run_lists_and_messages() -> None:
    assert runs_text([3]) == "run 3"
    assert runs_text([2, 3, 4, 6, 9, 10]) == "runs 2–4, 6, 9, 10"
    assert runs_text(range(1, 40, 2)) == "runs 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, …"
    assert summary_message(1, 1, 1, []) == "1/1 run failed"
    assert summary_message(3, 10, 10, [], verb="errored") == "3/10 runs errored"
    groups = group_failures((k, {"message": f"m{k % 7}"}, f"m{k % 7}") for k in range(1, 15))
    assert more_line("c", groups) == (
        "… 14 more failing runs of c: 2 × m1 (runs 1, 8), 2 × m2 (runs 2, 9), 2 × m3 "
        "(runs 3, 10), 2 × m4 (runs 4, 11), 2 × m5 (runs 5, 12), 4 × 2 other messages"
    )
    assert summary_message(14, 20, 20, groups).endswith("m5 ×2, 2 others ×4")


def test_terminal_lines_grow_with_cases_not_runs(pytester: pytest.Pytester) -> None:
    """The issue's measure on a small scale: 20 cases × 10 runs, half failing every run."""
    pytester.makepyfile(
        bench_many="""
import pytest

@pytest.mark.parametrize("n", range(20))
def bench_many(n):
    assert n % 2 == 0, f"odd input {n}"
"""
    )
    grouped = pytester.runpytest("--prob-runs=10", "-q", "--tb=short")
    every = pytester.runpytest("--prob-runs=10", "-q", "--tb=short", "--prob-failures=all")
    failure_lines = len(grouped.outlines) - len(section(grouped.outlines, hint=True))
    assert failure_lines <= 15 * 10
    assert len(every.outlines) > 5 * len(grouped.outlines)
    grouped.assert_outcomes(passed=100, failed=100)


def test_the_failures_fields_are_documented(pytester: pytest.Pytester) -> None:
    from test_docs import _doc, _json_sections

    run(pytester, "--tb=no", "--prob-json=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    sections = _json_sections(_doc("json.rst"))
    assert "failures" in sections["``rows[]``"]
    fields = {key for row in report["rows"] for group in row["failures"] for key in group}
    assert fields == {"text", "outcome", "count", "runs"}
    assert fields <= set(sections["``rows[].failures[]``"])


def test_the_html_case_detail_shows_the_groups(pytester: pytest.Pytester) -> None:
    run(pytester, "--tb=no", "--prob-html=r.html")
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert (
        '<ul class="fgroups" title="failing runs by kind">'
        "<li>7 × <code>assert &#x27;…&#x27; == &#x27;phone&#x27;</code> "
        '<span class="same">(runs 2, 3, 5, 6, 8–10)</span></li>'
        "<li>2 × <code>KeyError: &#x27;amount&#x27;</code> "
        '<span class="same">(runs 4, 7)</span></li></ul>'
    ) in page
    assert page.count('class="fgroups"') == 1  # the passing case has none


@pytest.mark.parametrize(
    ("flags", "regrouped"),
    [
        (["--tb=no", "-rN"], []),  # nothing of pytest's failure output is printed
        (["--tb=no", "-rf"], [9]),  # the short summary of failed runs only
        (["--tb=short", "-rN"], [9, 0]),  # the FAILURES and ERRORS sections only
        (["--tb=short", "-rfE"], [9, 0, 9, 0]),  # both
    ],
)
def test_only_printed_output_is_regrouped(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    regrouped: list[int],
) -> None:
    """The stand-in lists are built only for what pytest prints: ``--tb=no`` prints no
    FAILURES/ERRORS section and ``-rN`` no short summary, so nothing is grouped for them
    (the bench's 9 failing runs are all "failed" reports: its errors are raised in the
    body)."""
    from pytest_probability.extensions.failures import plugin

    asked: list[int] = []
    original = plugin.regroup

    def counting(reports: list[Any], *args: Any) -> Any:
        asked.append(len(reports))
        return original(reports, *args)

    monkeypatch.setattr(plugin, "regroup", counting)
    pytester.makepyfile(bench_fails=BENCH)
    result = pytester.inline_run("--prob-runs=10", "-p", "no:randomly", *flags)
    assert result.ret == 1
    assert asked == regrouped


TEARDOWN_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.fixture
def noisy():
    yield
    if current_run().run == 1:
        print("closing the connection of run 1")

def bench_teardown(noisy):
    assert current_run().run == 5
"""


def _count_teardown_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of the list pytest scans each time it looks for a shown report's
    teardown output (``TerminalReporter._get_teardown_reports``), one entry per look."""
    from _pytest.terminal import TerminalReporter

    scanned: list[int] = []
    original = TerminalReporter._get_teardown_reports

    def counting(self: TerminalReporter, nodeid: Any) -> Any:
        scanned.append(len(self.getreports("")))
        return original(self, nodeid)

    monkeypatch.setattr(TerminalReporter, "_get_teardown_reports", counting)
    return scanned


def test_teardown_output_is_shown_and_scanned_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest finds a shown report's teardown output by scanning every passed setup and
    teardown report, for each report it shows (quadratic in runs); while the grouped
    sections print, that list holds only the teardown reports with output, and the output
    is shown exactly as pytest shows it."""
    scanned = _count_teardown_scans(monkeypatch)
    pytester.makepyfile(bench_teardown=TEARDOWN_BENCH)
    result = pytester.runpytest("--prob-runs=5", "-p", "no:randomly", "-rN", "--tb=short")
    assert result.ret == 1
    assert scanned == [1]  # one report shown, one teardown report with output
    result.stdout.fnmatch_lines(
        [
            "E   AssertionError: assert 1 == 5",
            "*Captured stdout teardown*",
            "closing the connection of run 1",
        ]
    )
    result.stdout.fnmatch_lines(["*4 failed, 1 passed*"])


def test_every_run_shown_is_pytests_own_output_scanned_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``--prob-failures=all`` pytest prints every failing run itself; the list it
    scans for each one's teardown output holds only the teardown reports with output while
    it prints, and the section is line for line what pytest prints from the whole list."""
    from pytest_probability.extensions.failures import plugin

    scanned = _count_teardown_scans(monkeypatch)
    pytester.makepyfile(bench_teardown=TEARDOWN_BENCH)
    args = ("--prob-runs=5", "-p", "no:randomly", "-rN", "--tb=short", "--prob-failures=all")
    narrowed = pytester.runpytest(*args)
    assert scanned == [1, 1, 1, 1]  # four failing runs shown, one teardown with output
    monkeypatch.setattr(plugin, "_narrow_phases", lambda config, stats: None)
    scanned.clear()
    whole = pytester.runpytest(*args)
    assert scanned == [10, 10, 10, 10]  # (5 setup + 5 teardown reports of passed phases)

    def failures(result: Any) -> list[str]:
        lines = result.outlines
        start = next(n for n, line in enumerate(lines) if "FAILURES" in line)
        end = next(n for n, line in enumerate(lines) if "probability" in line and n > start)
        return [re.sub(r"0x[0-9a-f]+", "0x…", line) for line in lines[start:end]]

    assert failures(narrowed) == failures(whole)
    assert "closing the connection of run 1" in failures(narrowed)
    assert sum("_ bench_teardown" in line for line in failures(narrowed)) == 4
