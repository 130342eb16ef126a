"""Kernel hooks as a conftest or third party uses them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from helpers import load_json, section

VERDICT_CONFTEST = """
import pytest
from pytest_probability.collection.verdict_items import VerdictRequest

SEEN = []

def pytest_prob_logrecord(record, config):
    SEEN.append((record["case"], record["run"], record["outcome"]))

def pytest_prob_collect_verdicts(case, config):
    if case.param_id == "never":
        return None

    def judge(item):
        passes = sum(1 for c, _, o in SEEN if c == case.case_id and o == "pass")
        if passes < case.runs:
            raise AssertionError(f"{case.case_id}: {passes}/{case.runs} below the bar")

    return [VerdictRequest("gate", judge, "all runs must pass")]
"""

VERDICT_BENCH = """
import pytest

@pytest.mark.parametrize("x", ["solid", "never", "weak"], ids=["solid", "never", "weak"])
def bench_g(x):
    assert x != "weak"
"""

pytestmark = pytest.mark.usefixtures("kernel_only")


def test_verdict_items_follow_each_case(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(VERDICT_CONFTEST)
    pytester.makepyfile(bench_g=VERDICT_BENCH)
    result = pytester.runpytest("--prob-runs=2", "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "bench_g.py::bench_g::solid[run1]",
        "bench_g.py::bench_g::solid[run2]",
        "bench_g.py::bench_g::solid[gate]",
        "bench_g.py::bench_g::never[run1]",
        "bench_g.py::bench_g::never[run2]",
        "bench_g.py::bench_g::weak[run1]",
        "bench_g.py::bench_g::weak[run2]",
        "bench_g.py::bench_g::weak[gate]",
    ]
    result = pytester.runpytest("--prob-runs=2", "--prob-transpose", "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "bench_g.py::bench_g::solid[run1]",
        "bench_g.py::bench_g::never[run1]",
        "bench_g.py::bench_g::weak[run1]",
        "bench_g.py::bench_g::solid[run2]",
        "bench_g.py::bench_g::solid[gate]",
        "bench_g.py::bench_g::never[run2]",
        "bench_g.py::bench_g::weak[run2]",
        "bench_g.py::bench_g::weak[gate]",
    ]


def test_verdict_items_pass_fail_and_reach_junit_and_lf(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(VERDICT_CONFTEST)
    pytester.makepyfile(bench_g=VERDICT_BENCH)
    result = pytester.runpytest("--prob-runs=2", "-v", "--junitxml=j.xml")
    result.stdout.fnmatch_lines(
        [
            "bench_g.py::bench_g::solid[[]gate[]] PASSED*",
            "bench_g.py::bench_g::weak[[]gate[]] FAILED*",
        ]
    )
    assert "g::weak: 0/2 below the bar" in result.outlines
    # verdict items are not runs: the table counts runs only
    assert section(result.outlines)[-1] == "  Overall: 4/6 passed (67%)"
    cases = ET.parse(pytester.path / "j.xml").getroot().iter("testcase")
    assert [c.get("name") for c in cases if c.find("failure") is not None] == [
        "weak[run1]",
        "weak[run2]",
        "weak[gate]",
    ]
    result = pytester.runpytest("--prob-runs=2", "--lf", "-q")
    result.assert_outcomes(failed=3, deselected=5)


def test_skip_run_hook_skips_without_sampling(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_prob_skip_run(item, case):
            if item.run > 3:
                return f"decided after 3/{case.runs} runs"
            return None
        """
    )
    pytester.makepyfile(bench_s="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=5", "-rs", "--prob-json=r.json")
    result.assert_outcomes(passed=3, skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED [[]2[]] *decided after 3/5 runs"])
    assert section(result.outlines)[0] == "  a  3/3"
    report = load_json(pytester.path / "r.json")
    assert [r["outcome"] for r in report["records"]] == ["pass"] * 3 + ["skip"] * 2
    assert report["records"][3]["message"] == "decided after 3/5 runs"
    assert report["rows"][0]["skipped"] == 2 and report["rows"][0]["planned"] == 5


def test_classify_outcome_can_be_overridden(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_prob_classify_outcome(item, call):
            if call.excinfo is not None and call.excinfo.errisinstance(TimeoutError):
                return "fail"
            return None
        """
    )
    pytester.makepyfile(bench_c="def bench_a():\n    raise TimeoutError('slow model')\n")
    result = pytester.runpytest()
    assert section(result.outlines)[0] == "  a  0/1  FAIL"


def test_run_finished_sees_the_item_and_the_record(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        from pytest_probability.collection.collector import CONTEXT_KEY

        def pytest_prob_run_finished(item, record):
            record["seen_by_conftest"] = item.stash[CONTEXT_KEY].data.get("note")
        """
    )
    pytester.makepyfile(
        bench_r="""
        from pytest_probability import current_run

        def bench_a():
            current_run().data["note"] = current_run().run * 2
        """
    )
    pytester.runpytest("--prob-runs=2", "--prob-json=r.json")
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["seen_by_conftest"] for r in records] == [2, 4]


def test_raising_record_hooks_are_contained(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_prob_run_finished(item, record):
            raise KeyError("bad extension")

        def pytest_prob_logrecord(record, config):
            raise ValueError("worse extension")
        """
    )
    pytester.makepyfile(bench_e="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json")
    result.assert_outcomes(passed=3, warnings=2)
    conftest = str(pytester.path / "conftest.py")
    assert section(result.outlines) == [
        "  a  3/3",
        "",
        "  Overall: 3/3 passed (100%)",
        "",
        f"  warning: extension {conftest!r} failed in pytest_prob_run_finished: KeyError: 'bad extension'",
        f"  warning: extension {conftest!r} failed in pytest_prob_logrecord: ValueError: worse extension",
    ]
    report = load_json(pytester.path / "r.json")
    assert len(report["records"]) == 3
    assert "KeyError: 'bad extension'" in report["records"][0]["warnings"][0]


@pytest.mark.subprocess
def test_non_json_record_values_cross_xdist_as_text(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        class Opaque:
            def __repr__(self):
                return "Opaque()"
            __str__ = __repr__

        def pytest_prob_run_finished(item, record):
            record["opaque"] = {1: Opaque(), "t": (1, 2)}
        """
    )
    pytester.makepyfile(bench_e="def bench_a():\n    pass\n")
    result = pytester.runpytest_subprocess("--prob-runs=2", "-n", "2", "--prob-json=r.json")
    result.assert_outcomes(passed=2)
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["opaque"] for r in records] == [{"1": "Opaque()", "t": [1, 2]}] * 2


def test_current_run_in_a_function_fixture_and_option_value(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest
        from pytest_probability import current_run, option_value

        TEARDOWNS = []

        @pytest.fixture
        def seed(request):
            assert option_value(request.config, "runs") == 3
            yield f"{current_run().case_id}#{current_run().run}"
            TEARDOWNS.append(current_run().run)  # still current after the body
        """
    )
    pytester.makepyfile(
        bench_f="""
        SEEDS = []

        def bench_a(seed):
            SEEDS.append(seed)

        def test_seeds():
            import conftest
            assert SEEDS == ["a#1", "a#2", "a#3"]
            assert conftest.TEARDOWNS == [1, 2, 3]
        """
    )
    pytester.runpytest("--prob-runs=3", "-p", "no:randomly").assert_outcomes(passed=4)


def test_failure_headline_reads_like_the_node_id(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_h="""
        import pytest

        @pytest.mark.parametrize("x", [1], ids=["one"])
        def bench_a(x):
            assert x == 2
        """
    )
    result = pytester.runpytest("--prob-runs=2")
    # one traceback per case (--prob-failures=grouped): its first failing run's
    result.stdout.fnmatch_lines(["*_ bench_a::one[[]run1[]] _*"])
    result = pytester.runpytest("--prob-runs=2", "--prob-failures=all")
    result.stdout.fnmatch_lines(["*_ bench_a::one[[]run1[]] _*", "*_ bench_a::one[[]run2[]] _*"])
