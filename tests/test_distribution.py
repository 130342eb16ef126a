"""Case-aware distribution over pytest-xdist workers."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import load_json, section
from pytest_probability.distribution import case_scope, function_scoped
from test_stopping import SEQ_BENCH, STOP_BENCH


def test_scopes() -> None:
    collection = [
        "bench_x.py::bench_a::one[run1]",
        "bench_x.py::bench_a::one[gate]",
        "bench_x.py::bench_b::p-q[run2]",
        "bench_x.py::bench_b[compare:q]",
        "bench_x.py::bench_smoke[run3]",
        "bench_x.py::bench_smoke",
        "test_y.py::test_z[1]",
    ]
    functions = function_scoped(collection)
    assert functions == {"bench_x.py::bench_b"}
    assert [case_scope(n, functions) for n in collection] == [
        "bench_x.py::bench_a::one",
        "bench_x.py::bench_a::one",
        "bench_x.py::bench_b",
        "bench_x.py::bench_b",
        "bench_x.py::bench_smoke",
        "bench_x.py::bench_smoke",
        "test_y.py::test_z[1]",
    ]
    # a third party's verdict kinds are grouped the same way
    third = ["bench_x.py::bench_c::p[run1]", "bench_x.py::bench_c[weakest]"]
    assert [case_scope(n, function_scoped(third)) for n in third] == ["bench_x.py::bench_c"] * 2
    assert case_scope("bench_x.py::bench_a::one[weakest]", set()) == "bench_x.py::bench_a::one"
    # other tests grouped with xdist_group keep their group (pytest 7.4 with loadgroup)
    assert case_scope("test_y.py::test_z@mine", set()) == "@mine"
    # pytest 7.4 with --dist loadgroup appends "@group" to grouped node ids
    assert case_scope("bench_x.py::bench_a::one[run1]@bench_x.py::bench_a::one", set()) == (
        "bench_x.py::bench_a::one"
    )


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", ["2", "4"])
@pytest.mark.parametrize("mode", ["curtail", "sequential"])
def test_stopping_under_xdist_equals_the_serial_session(
    pytester: pytest.Pytester, workers: str, mode: str
) -> None:
    pytester.makepyfile(bench_classify=STOP_BENCH if mode == "curtail" else SEQ_BENCH)
    runs = "--prob-runs=40" if mode == "curtail" else "--prob-runs=100"
    serial = pytester.runpytest_subprocess(runs, f"--prob-stop={mode}", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(
        runs, f"--prob-stop={mode}", "-n", workers, "--prob-json=p.json"
    )
    assert serial.ret == parallel.ret == 1
    assert section(parallel.outlines) == section(serial.outlines)  # same stops, same verdicts
    report = load_json(pytester.path / "p.json")
    assert report["stopping"]["spread_cases"] == 0
    assert all(row["gate"]["judged"] == "item" for row in report["rows"])  # on the workers
    for row in report["rows"]:  # every run of a case on one worker
        workers_used = {r["worker"] for r in report["records"] if r["case"] == row["case"]}
        assert len(workers_used) == 1


@pytest.mark.subprocess
def test_load_stays_balanced(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_many="""
import pytest

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("item", range(200))
def bench_many(item):
    pass
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=5", "-n", "2", "--prob-json=r.json")
    assert result.ret == 0
    records = load_json(pytester.path / "r.json")["records"]
    per_worker = Counter(r["worker"] for r in records)
    assert len(per_worker) == 2
    assert min(per_worker.values()) >= 0.35 * len(records)  # both workers work
    per_case = {}
    for record in records:
        per_case.setdefault(record["case"], set()).add(record["worker"])
    assert all(len(w) == 1 for w in per_case.values())


@pytest.mark.subprocess
def test_compared_function_stays_on_one_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_pick="""
import pytest

@pytest.mark.probability(compare="arm", margin=0.2)
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("item", range(12))
def bench_pick(item, arm):
    pass
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=3", "-n", "2", "-rA")
    assert result.ret == 0
    assert any(
        line.startswith("PASSED bench_pick.py::bench_pick[compare:b]") for line in result.outlines
    )  # judged on the worker, not skipped to the session end
