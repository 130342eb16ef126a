"""Case-aware distribution over pytest-xdist workers."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from helpers import load_json, section
from pytest_probability.collection.distribution import case_scope, function_scoped, make_scheduler
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
    # both workers get a first case at the start whatever the timing (the balance itself is
    # tested on a simulated channel below: a real split depends on the machine's load)
    assert len({r["worker"] for r in records}) == 2
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


# -- the scheduler's decisions on a simulated xdist channel ------------------------------------
class FakeWorker:
    """What the scheduler sees of a pytest-xdist worker: it is sent item indices to run."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []
        self.queue: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def _collection(cases: int, runs: int) -> list[str]:
    out = []
    for case in range(cases):
        out += [f"bench_m.py::bench_m::c{case}[run{r}]" for r in range(1, runs + 1)]
        out.append(f"bench_m.py::bench_m::c{case}[gate]")
    return out


def _simulate(collection: list[str], speeds: dict[str, int]) -> tuple[Any, list[FakeWorker]]:
    """Run a collection through the case-aware scheduler with workers that finish
    ``speeds[name]`` items per step, in lockstep: a deterministic stand-in for real timing."""
    config = SimpleNamespace(
        getvalue=lambda name: [f"{len(speeds)}*popen"] if name == "tx" else None,
        option=SimpleNamespace(loadscopereorder=True),
    )
    log = SimpleNamespace(loadscopesched=lambda *args: None)
    scheduler = make_scheduler(config, log)
    workers = [FakeWorker(name) for name in speeds]
    for worker in workers:
        scheduler.add_node(worker)
    for worker in workers:
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    while any(w.queue for w in workers):
        for worker in workers:
            for _ in range(speeds[worker.gateway.id]):
                if worker.queue:
                    scheduler.mark_test_complete(worker, worker.queue.pop(0))
    return scheduler, workers


def _cases_of(worker: FakeWorker, collection: list[str]) -> set[str]:
    return {collection[i].rsplit("[", 1)[0] for i in worker.sent}


def test_scheduler_keeps_cases_whole_and_balances_equal_workers() -> None:
    collection = _collection(200, 5)
    scheduler, workers = _simulate(collection, {"gw0": 1, "gw1": 1})
    assert scheduler.tests_finished
    # every item sent exactly once, every case (its runs and its gate) to one worker
    assert sorted(i for w in workers for i in w.sent) == list(range(len(collection)))
    first, second = (_cases_of(w, collection) for w in workers)
    assert not first & second
    # equal workers: equal shares, give or take the unit each holds when the queue runs dry
    assert abs(len(first) - len(second)) <= 2, (len(first), len(second))
    # and each worker runs a case's items in collection order (runs, then the gate)
    for worker in workers:
        positions = [collection[i] for i in worker.sent]
        for case in _cases_of(worker, collection):
            mine = [p for p in positions if p.startswith(case + "[")]
            assert mine == [p for p in collection if p.startswith(case + "[")]


def test_scheduler_gives_a_faster_worker_more_cases() -> None:
    collection = _collection(200, 5)
    _, (slow, fast) = _simulate(collection, {"gw0": 1, "gw1": 3})
    slow_cases, fast_cases = len(_cases_of(slow, collection)), len(_cases_of(fast, collection))
    assert slow_cases + fast_cases == 200
    assert 2.5 * slow_cases <= fast_cases <= 3.5 * slow_cases, (slow_cases, fast_cases)


def test_scheduler_requeues_a_crashed_workers_cases_but_not_the_crashing_item() -> None:
    collection = _collection(4, 3)
    config = SimpleNamespace(
        getvalue=lambda name: ["2*popen"] if name == "tx" else None,
        option=SimpleNamespace(loadscopereorder=True),
    )
    scheduler = make_scheduler(config, SimpleNamespace(loadscopesched=lambda *args: None))
    crashing, survivor = FakeWorker("gw0"), FakeWorker("gw1")
    for worker in (crashing, survivor):
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    first = crashing.queue.pop(0)
    scheduler.mark_test_complete(crashing, first)
    crashed = scheduler.remove_node(crashing)
    assert crashed == collection[crashing.queue[0]]  # reported once as crashed
    while survivor.queue:
        scheduler.mark_test_complete(survivor, survivor.queue.pop(0))
    rerun = {collection[i] for i in survivor.sent} & {collection[i] for i in crashing.sent}
    # the crashed case's remaining items move to the survivor; the crashing item never reruns
    assert rerun == {collection[i] for i in crashing.sent} - {collection[first], crashed}
