"""Faults and hostile input: the session goes on, the report stays valid JSON."""

from __future__ import annotations

import json

import pytest
from helpers import load_json, section


@pytest.mark.subprocess
def test_a_worker_that_dies_leaves_a_complete_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_c="""
import os
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", ["a", "b"])
def bench_c(item):
    if item == "b" and current_run().run == 2:
        os._exit(1)
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=3", "-n", "2", "--prob-json=r.json")
    assert result.ret == 1
    assert section(result.outlines)[:2] == [
        "  c::a  3/3  [29%, 100%]",
        "  c::b  2/3  [ 9%,  99%]  1 ERRORED",
    ]
    report = load_json(pytester.path / "r.json")
    crashed = [r for r in report["records"] if r["outcome"] == "error"]
    assert len(crashed) == 1 and crashed[0]["run"] == 2
    assert crashed[0]["error"] == "WorkerCrashed"
    assert crashed[0]["message"].startswith("worker 'gw")
    assert "crashed while running 'bench_c.py::bench_c::b[run2]'" in crashed[0]["message"]
    assert report["exit_status"] == 1


@pytest.mark.subprocess
def test_keyboard_interrupt_in_a_body_writes_the_runs_done(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_k="""
from pytest_probability import current_run

def bench_k():
    if current_run().run == 3:
        raise KeyboardInterrupt
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=5", "--prob-json=r.json")
    assert result.ret == 2
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    assert [r["outcome"] for r in report["records"]] == ["pass", "pass"]


def test_an_empty_suite_still_writes_a_valid_report(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--prob-json=r.json")
    assert result.ret == 5
    report = load_json(pytester.path / "r.json")
    assert (report["exit_status"], report["rows"], report["records"]) == (5, [], [])


def test_only_skipped_cases(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_s="import pytest\n\n@pytest.mark.skip('off')\ndef bench_s():\n    pass\n"
    )
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json")
    assert result.ret == 0
    report = load_json(pytester.path / "r.json")
    assert report["totals"]["skipped"] == 3 and report["totals"]["count"] == 0


def test_unwritable_and_full_report_paths(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    (pytester.path / "afile").write_text("")  # (a missing directory would be created)
    missing = pytester.runpytest("--prob-json=afile/such/dir/r.json")
    assert missing.ret == 4
    assert missing.errlines[0].startswith("ERROR: --prob-json=afile/such/dir/r.json: cannot write")


def test_hostile_ids_and_values_keep_the_json_valid(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_run_finished(item, record):
    record["third_party"] = {"nan": float("nan"), "inf": float("inf"), "obj": object()}
"""
    )
    pytester.makepyfile(
        bench_h="""
import pytest
from pytest_probability import record_usage

IDS = ["a::b", "x[1]", "line\\nbreak", "ünïcødé ✓", "w" * 300]

@pytest.mark.parametrize("text", IDS, ids=IDS)
def bench_hostile(text):
    record_usage(model="m", input_tokens=10**30, output_tokens=0)
    assert text == "never", "x" * 1_000_000

def bench_returns_a_huge_object():
    return list(range(1_000_000))
"""
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json")
    assert result.ret == 1
    text = (pytester.path / "r.json").read_text(encoding="utf-8")
    report = json.loads(text, parse_constant=lambda c: pytest.fail(f"not RFC 8259: {c}"))
    assert len(report["rows"]) == 6
    failing = [r for r in report["records"] if r["outcome"] == "fail"]
    assert len(failing) == 10
    message = failing[0]["message"]
    assert len(message) < 20_000 and "truncated" in message
    assert report["records"][0]["third_party"]["nan"] is None
    assert report["totals"]["usage"]["m"]["input_tokens"] == 10 * 10**30  # 5 cases × 2 runs
    assert len(text) < 5_000_000
