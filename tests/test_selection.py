"""Selection is pure pytest: -k, -m, node ids, --lf, --ff, -x, --maxfail, JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from helpers import load_json, section

SELECT_BENCH = """
import pytest

@pytest.mark.parametrize("text", ["q", "p", "a"], ids=["is_question", "identify_pii", "extract_amount"])
def bench_classify(text):
    assert text != "a"

def bench_smoke():
    pass
"""

pytestmark = pytest.mark.usefixtures("kernel_only")


@pytest.fixture
def select_bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bench_sel=SELECT_BENCH)
    return pytester


def test_k_matches_param_id_and_composed_case_id(select_bench: pytest.Pytester) -> None:
    result = select_bench.runpytest("--prob-runs=3", "-k", "identify_pii")
    result.assert_outcomes(passed=3, deselected=9)
    result = select_bench.runpytest("--prob-runs=3", "-k", "classify::identify_pii or smoke")
    result.assert_outcomes(passed=6, deselected=6)
    assert section(result.outlines) == [
        "  classify::identify_pii  3/3",
        "  smoke                   3/3",
        "",
        "  Overall: 6/6 passed (100%)",
    ]
    result = select_bench.runpytest("--prob-runs=3", "-k", "not classify")
    result.assert_outcomes(passed=3, deselected=9)


def test_node_ids_select_single_runs_and_whole_functions(select_bench: pytest.Pytester) -> None:
    result = select_bench.runpytest(
        "--prob-runs=3",
        "bench_sel.py::bench_classify::identify_pii[run2]",
        "bench_sel.py::bench_smoke[run1]",
        "--prob-json=r.json",
    )
    result.assert_outcomes(passed=2)
    # a row from some of its case's runs says so: it is not a measurement of the case
    assert section(result.outlines)[:2] == [
        "  classify::identify_pii  1/1  of 3 planned, selected subset",
        "  smoke                   1/1  of 3 planned, selected subset",
    ]
    rows = load_json(select_bench.path / "r.json")["rows"]
    assert [(r["passes"], r["planned"], r["subset"]) for r in rows] == [(1, 3, "selected")] * 2
    result = select_bench.runpytest("--prob-runs=3", "bench_sel.py::bench_classify")
    result.assert_outcomes(passed=6, failed=3)


def test_last_failed_and_failed_first(select_bench: pytest.Pytester) -> None:
    select_bench.runpytest("--prob-runs=3").assert_outcomes(passed=9, failed=3)
    result = select_bench.runpytest("--prob-runs=3", "--lf")
    result.assert_outcomes(failed=3, deselected=9)
    assert section(result.outlines)[0] == "  classify::extract_amount  0/3  FAIL"
    result = select_bench.runpytest("--prob-runs=3", "--ff", "-v")
    first = [line for line in result.outlines if "::" in line][:3]
    assert all("extract_amount" in line and "FAILED" in line for line in first)


def test_exitfirst_and_maxfail(select_bench: pytest.Pytester) -> None:
    result = select_bench.runpytest("--prob-runs=3", "-x", "--prob-json=r.json")
    result.assert_outcomes(passed=6, failed=1)
    assert section(result.outlines)[2] == (
        "  classify::extract_amount  0/1  FAIL  of 3 planned, session stopped early"
    )
    rows = load_json(select_bench.path / "r.json")["rows"]
    assert [(r["case"], r["subset"]) for r in rows] == [
        ("classify::is_question", None),
        ("classify::identify_pii", None),
        ("classify::extract_amount", "stopped"),
    ]
    result = select_bench.runpytest("--prob-runs=3", "--maxfail=2")
    result.assert_outcomes(passed=6, failed=2)


def test_junit_xml_has_one_testcase_per_run(select_bench: pytest.Pytester) -> None:
    select_bench.runpytest("--prob-runs=2", "--junitxml=junit.xml")
    root = ET.parse(select_bench.path / "junit.xml").getroot()
    cases = root.iter("testcase")
    names = [(c.get("classname"), c.get("name"), c.find("failure") is not None) for c in cases]
    assert names == [
        ("bench_sel.bench_classify", "is_question[run1]", False),
        ("bench_sel.bench_classify", "is_question[run2]", False),
        ("bench_sel.bench_classify", "identify_pii[run1]", False),
        ("bench_sel.bench_classify", "identify_pii[run2]", False),
        ("bench_sel.bench_classify", "extract_amount[run1]", True),
        ("bench_sel.bench_classify", "extract_amount[run2]", True),
        ("bench_sel", "bench_smoke[run1]", False),
        ("bench_sel", "bench_smoke[run2]", False),
    ]
    # the run records travel on the call report, never into JUnit properties
    assert not list(root.iter("property"))


def test_collect_only_tree(select_bench: pytest.Pytester) -> None:
    result = select_bench.runpytest("--prob-runs=2", "--collect-only")
    result.stdout.fnmatch_lines(
        [
            "*<BenchModule bench_sel.py>",
            "*<BenchFunction bench_classify>",
            "*<BenchRun is_question[[]run1[]]>",
        ]
    )
    assert not any("= probability" in line for line in result.outlines)
