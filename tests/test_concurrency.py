"""``--prob-concurrency=K``: up to K runs in flight in one process (issue 37, sections 1-4).

Nothing here times anything: concurrency is shown by counting. A body waits, by counted
attempts, until K bodies are in flight at once (``gate(k)``), so a session that does not
overlap its runs cannot pass; peaks of bodies and of live fixtures are counted the same way.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import load_json

#: counted waits shared by the bench files: ``gate(k)`` returns once k bodies are in
#: flight (or after 4000 attempts: the run then fails, saying so)
GATE = """
import asyncio
import threading
import time

STATE = {"in": 0, "peak": 0, "alive": 0, "alive_peak": 0}
LOCK = threading.Lock()


def enter():
    with LOCK:
        STATE["in"] += 1
        STATE["peak"] = max(STATE["peak"], STATE["in"])


def leave():
    with LOCK:
        STATE["in"] -= 1


async def gate(k, attempts=4000):
    enter()
    try:
        for _ in range(attempts):
            if STATE["peak"] >= k:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"never {k} in flight (peak {STATE['peak']})")
    finally:
        leave()


def gate_sync(k, attempts=4000):
    enter()
    try:
        for _ in range(attempts):
            if STATE["peak"] >= k:
                return
            time.sleep(0.005)
        raise AssertionError(f"never {k} in flight (peak {STATE['peak']})")
    finally:
        leave()
"""

FIXTURE = """
import pytest
from gates import STATE, LOCK


@pytest.fixture
def resource():
    with LOCK:
        STATE["alive"] += 1
        STATE["alive_peak"] = max(STATE["alive_peak"], STATE["alive"])
    yield object()
    with LOCK:
        STATE["alive"] -= 1


def pytest_sessionfinish(session):
    import json, pathlib
    pathlib.Path("state.json").write_text(json.dumps(STATE))
"""


def _files(pytester: pytest.Pytester, bench: str) -> None:
    pytester.makepyfile(gates=GATE)
    pytester.makeconftest(FIXTURE)
    pytester.makepyfile(bench_c=bench)
    pytester.syspathinsert()


def _state(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / "state.json").read_text(encoding="utf-8"))


ASYNC_BENCH = """
import logging
from gates import gate
from pytest_probability import current_run, record_cost


async def bench_call(resource):
    run = current_run().run
    print(f"out of run {run}")
    logging.getLogger("bench").warning("log of run %d", run)
    record_cost(run / 100)
    await gate(4)
"""


def test_k_async_runs_are_in_flight_with_a_fixture_each(pytester: pytest.Pytester) -> None:
    _files(pytester, ASYNC_BENCH)
    result = pytester.runpytest(
        "-p", "no:randomly", "-v", "--prob-runs=8", "--prob-concurrency=4",
        "--prob-json=r.json", "--junitxml=j.xml", "-o", "junit_logging=all",
    )  # fmt: skip
    result.assert_outcomes(passed=8)
    state = _state(pytester)
    assert (state["peak"], state["alive_peak"], state["alive"]) == (4, 4, 0)
    # the -v lines in item order, whatever order the bodies completed in
    lines = [line.split()[0] for line in result.outlines if " PASSED" in line]
    assert lines == [f"bench_c.py::bench_call[run{n}]" for n in range(1, 9)]
    # each run's output, log record and cost are its own
    report = load_json(pytester.path / "r.json")
    costs = {record["run"]: record["cost"] for record in report["records"]}
    assert costs == {run: pytest.approx(run / 100) for run in range(1, 9)}
    for case in ET.parse(pytester.path / "j.xml").getroot().iter("testcase"):
        run = int(re.search(r"run(\d+)", case.get("name", "")).group(1))
        out = case.find("system-out").text
        assert re.findall(r"out of run \d+", out) == [f"out of run {run}"]
        assert re.findall(r"log of run \d+", out) == [f"log of run {run}"]


SYNC_BENCH = """
import os
from gates import gate_sync


def bench_sync(resource):
    gate_sync(3, int(os.environ.get("ATTEMPTS", "4000")))
"""


def test_plain_bodies_overlap_only_with_threads(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _files(pytester, SYNC_BENCH)
    monkeypatch.setenv("ATTEMPTS", "20")
    result = pytester.runpytest("-p", "no:randomly", "--prob-runs=6", "--prob-concurrency=3")
    # without the opt-in they run one at a time: no run sees 3 in flight
    result.assert_outcomes(failed=6)
    monkeypatch.setenv("ATTEMPTS", "4000")
    assert _state(pytester)["peak"] == 1
    assert any("6/6 runs failed: never 3 in flight (peak 1)" in line for line in result.outlines)
    result = pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=6", "--prob-concurrency=3", "--prob-threads"
    )
    result.assert_outcomes(passed=6)
    state = _state(pytester)
    assert (state["peak"], state["alive_peak"]) == (3, 3)


def test_a_mark_sets_k_for_one_function(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        ASYNC_BENCH.replace(
            "async def bench_call", "@pytest.mark.probability(concurrency=4)\nasync def bench_call"
        ).replace("import logging", "import logging\nimport pytest")
        + SYNC_BENCH.replace("gate_sync(3, ", "(3, "),
    )
    result = pytester.runpytest("-p", "no:randomly", "--prob-runs=4")
    result.assert_outcomes(passed=8)
    assert _state(pytester)["peak"] == 4


def test_capture_fixtures_keep_their_runs_one_at_a_time(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        ASYNC_BENCH.replace("bench_call(resource)", "bench_call(resource, capsys)").replace(
            "await gate(4)",
            "await gate(1)\n    assert capsys.readouterr().out == f'out of run {run}\\n'",
        ),
    )
    result = pytester.runpytest("-p", "no:randomly", "--prob-runs=4", "--prob-concurrency=4")
    result.assert_outcomes(passed=4)
    assert _state(pytester)["peak"] == 1


def test_records_match_one_at_a_time(pytester: pytest.Pytester) -> None:
    """The same records, verdicts and report with and without concurrency (timings aside)."""
    _files(
        pytester,
        """
import asyncio
import pytest
from pytest_probability import current_run, record_cost


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.probability(min_rate=0.5)
async def bench_mix(n, resource):
    run = current_run().run
    record_cost(n / 1000)
    await asyncio.sleep((7 - run) / 1000)  # (later runs end first)
    assert (run + n) % 3 != 0
""",
    )
    common = ["-p", "no:randomly", "--prob-runs=6", "--prob-seed=1"]
    serial = pytester.runpytest(*common, "--prob-json=one.json")
    overlapped = pytester.runpytest(*common, "--prob-concurrency=3", "--prob-json=three.json")
    assert serial.ret == overlapped.ret == 1  # (no gate passes with 4 of 6)

    def comparable(name: str) -> dict:
        report = load_json(pytester.path / name)
        for record in report["records"]:
            record.pop("elapsed", None)
        for key in ("started", "finished", "duration", "command", "latency"):
            report.pop(key, None)
        for row in report["rows"]:
            row.pop("latency", None)
        return report

    one, three = comparable("one.json"), comparable("three.json")
    assert [r["outcome"] for r in one["records"]][:6] == [r["outcome"] for r in three["records"]][
        :6
    ]
    assert one["rows"] == three["rows"]
    assert [row["gate"]["verdict"] for row in three["rows"]] == ["undecided"] * 3


def test_maxfail_stops_starting_runs(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        """
from gates import gate
from pytest_probability import current_run


async def bench_x(resource):
    if current_run().run == 1:
        raise ValueError("first run fails")
    await gate(3)
""",
    )
    result = pytester.runpytest("-p", "no:randomly", "-x", "--prob-runs=12", "--prob-concurrency=4")
    # runs 1-4 were in flight when the failure was known: they finish and are reported;
    # no run starts after it
    result.assert_outcomes(failed=1, passed=3)
    assert _state(pytester)["peak"] == 3


#: run r ends only once the record of run r - 1 is in the results (the scheduler puts it
#: there between two turns of the loop), so when a case is decided three runs are in flight
STOP_BENCH = """
import asyncio
import pytest
from pytest_probability import current_run
from pytest_probability.api import results_of


@pytest.mark.probability(min_rate=0.9)
async def bench_never(resource):
    run = current_run()
    for _ in range(4000):
        made = results_of(run.config).get("bench_c.py::bench_never")
        if run.run == 1 or (made is not None and run.run - 1 in made.records):
            break
        await asyncio.sleep(0.005)
    assert False, "never passes"
"""


def test_stopping_keeps_and_counts_the_runs_in_flight(pytester: pytest.Pytester) -> None:
    _files(pytester, STOP_BENCH)
    result = pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=20", "--prob-stop=curtail", "--prob-concurrency=4",
        "--prob-json=r.json",
    )  # fmt: skip
    report = load_json(pytester.path / "r.json")
    stop = report["rows"][0]["stopped"]
    made = [r for r in report["records"] if r["outcome"] != "skip"]
    assert stop["after"] + stop["in_flight"] + stop["skipped"] == 20
    # (curtail: 6 fails of 20 leave at most 14/20, whose exact upper end is under 90%)
    assert (stop["verdict"], stop["after"], stop["in_flight"]) == ("fail", 6, 3)
    assert len(made) == stop["after"] + stop["in_flight"]
    flying = sorted(r["run"] for r in report["records"] if r.get("stop_in_flight"))
    assert len(flying) == stop["in_flight"]
    assert report["stopping"]["runs_in_flight"] == stop["in_flight"]
    words = "run" if stop["in_flight"] == 1 else "runs"
    assert (
        f"           {stop['in_flight']} {words} in flight when their case was decided finished "
        "and count in its row (--prob-concurrency)"
    ) in result.outlines
    assert _state(pytester)["alive_peak"] <= 4


def test_a_run_budget_counts_the_runs_in_flight(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        """
from gates import gate


async def bench_b(resource):
    await gate(4)
""",
    )
    pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=30", "--prob-concurrency=4",
        "--prob-budget-runs=10", "--prob-json=r.json",
    )  # fmt: skip
    budget = load_json(pytester.path / "r.json")["budget"]
    assert (budget["runs"], budget["skipped"]) == (10, 20)


def test_an_amount_budget_overshoots_by_at_most_k_runs(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        """
from gates import gate
from pytest_probability import record_cost


async def bench_b(resource):
    await gate(4)
    record_cost(0.01)
""",
    )
    pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=30", "--prob-concurrency=4",
        "--prob-budget=0.05", "--prob-json=r.json",
    )  # fmt: skip
    budget = load_json(pytester.path / "r.json")["budget"]
    assert 5 <= budget["runs"] <= 5 + 4, budget
    assert budget["runs"] + budget["skipped"] == 30


def test_delay_spaces_the_starts(pytester: pytest.Pytester) -> None:
    """With ``--prob-delay`` no run starts before the spacing passed since the last start:
    bodies that end at once are never two in flight."""
    _files(
        pytester,
        """
from gates import gate


async def bench_quick(resource):
    await gate(1)
""",
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=4", "--prob-concurrency=4", "--prob-delay=0.02"
    )
    result.assert_outcomes(passed=4)
    assert (_state(pytester)["peak"], _state(pytester)["alive_peak"]) == (1, 1)


def test_sigterm_cancels_runs_in_flight_and_writes_every_report(
    pytester: pytest.Pytester,
) -> None:
    _files(
        pytester,
        """
import os
import signal
from gates import gate
from pytest_probability import current_run


async def bench_t(resource):
    if current_run().run == 2:
        await gate(4)
        os.kill(os.getpid(), signal.SIGTERM)
    await gate(99)
""",
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=12", "--prob-concurrency=4", "--prob-json=r.json",
        "--junitxml=j.xml", timeout=120,
    )  # fmt: skip
    assert result.ret == 2
    output = result.stdout.str()
    assert "INTERNALERROR" not in output
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    outcomes = {r["run"]: r["outcome"] for r in report["records"]}
    assert outcomes == dict.fromkeys(range(1, 5), "error")
    messages = {r["message"] for r in report["records"]}
    assert any("interrupted" in message for message in messages), messages
    cases = list(ET.parse(pytester.path / "j.xml").getroot().iter("testcase"))
    assert [case.get("name") for case in cases] == [f"bench_t[run{n}]" for n in range(1, 5)]


#: two cases whose runs pass once four of them are in flight in one process
WORKER_BENCH = """
import pytest
from gates import gate


@pytest.mark.parametrize("n", [1, 2])
async def bench_w(n, resource):
    await gate(4)
"""


def test_workers_look_ahead_within_a_case(pytester: pytest.Pytester) -> None:
    _files(
        pytester,
        WORKER_BENCH,
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-n", "2", "--prob-runs=8", "--prob-concurrency=4", timeout=120
    )
    result.assert_outcomes(passed=16)


def test_the_private_pytest_names_keep_their_shape(pytester: pytest.Pytester) -> None:
    """The scheduler parks a run's fixture state through four private pytest names
    (core/execution/concurrency.py); this fails loudly when pytest changes their shape."""
    pytester.makeconftest(
        """
import pytest

SEEN = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    stack = item.session._setupstate.stack
    defs = [d for d in item._request._fixture_defs.values() if d.scope == "function"]
    SEEN["stack"] = isinstance(stack, dict) and item in stack
    SEEN["defs"] = bool(defs) and all(
        isinstance(d._finalizers, list) and d.cached_result is not None for d in defs
    )
    SEEN["scopes"] = all(
        isinstance(fixturedefs[-1].scope, str)
        for fixturedefs in item._fixtureinfo.name2fixturedefs.values()
    )
    return (yield)


def pytest_sessionfinish(session):
    import json, pathlib
    pathlib.Path("seen.json").write_text(json.dumps(SEEN))


@pytest.fixture
def resource():
    yield 1
"""
    )
    pytester.makepyfile(test_t="def test_t(resource):\n    assert resource == 1\n")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    seen = json.loads(Path(pytester.path / "seen.json").read_text(encoding="utf-8"))
    assert seen == {"stack": True, "defs": True, "scopes": True}


def test_the_lookahead_passes_over_a_gate_item(pytester: pytest.Pytester) -> None:
    """The runs of the next case start while the case before is still in flight: its
    ``[gate]`` item waits its turn and judges every run of its case."""
    _files(
        pytester,
        """
import pytest
from gates import gate


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.probability(min_passes=3)
async def bench_g(n, resource):
    await gate(8)
""",
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "-v", "--prob-runs=4", "--prob-concurrency=8", "--prob-json=r.json"
    )
    result.assert_outcomes(passed=10)
    assert _state(pytester)["peak"] == 8
    gates = [line.split()[0] for line in result.outlines if "[gate] PASSED" in line]
    assert gates == ["bench_c.py::bench_g::1[gate]", "bench_c.py::bench_g::2[gate]"]
    rows = load_json(pytester.path / "r.json")["rows"]
    assert [(row["passes"], row["gate"]["verdict"]) for row in rows] == [(4, "pass")] * 2


def test_workers_stop_cases_with_runs_in_flight(pytester: pytest.Pytester) -> None:
    _files(pytester, STOP_BENCH)
    pytester.runpytest_subprocess(
        "-p", "no:randomly", "-n", "2", "--prob-runs=20", "--prob-stop=curtail",
        "--prob-concurrency=4", "--prob-json=r.json", timeout=120,
    )  # fmt: skip
    report = load_json(pytester.path / "r.json")
    stop = report["rows"][0]["stopped"]
    assert (stop["verdict"], stop["after"], stop["in_flight"], stop["skipped"]) == (
        "fail",
        6,
        3,
        11,
    )
    assert report["stopping"]["spread_cases"] == 0


def test_workers_on_this_machine_overlap_runs_under_a_budget(
    pytester: pytest.Pytester,
) -> None:
    """A worker that reads the budget's tally gets every run of a case, so it looks ahead,
    and the budget still cuts the session. (Its overshoot also counts the runs whose
    reports are on their way to the controller, which no worker can see: instant runs
    like these overshoot by more than K per worker.)"""
    _files(
        pytester,
        WORKER_BENCH,
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-n", "2", "--prob-runs=30", "--prob-concurrency=4",
        "--prob-budget-runs=20", "--prob-json=r.json", timeout=120,
    )  # fmt: skip
    assert "never 4 in flight" not in result.stdout.str()
    budget = load_json(pytester.path / "r.json")["budget"]
    assert budget["reached"] and 20 <= budget["runs"] < 60, budget
    assert budget["runs"] + budget["skipped"] == 60


def test_steps_of_async_generators_attach_to_their_runs(pytester: pytest.Pytester) -> None:
    """An ``async def`` generator yielding steps, with runs in flight: each run's steps, its
    failed step's message and its outcome are its own."""
    _files(
        pytester,
        """
from gates import gate
from pytest_probability import current_run


async def bench_steps(resource):
    run = current_run().run
    yield {"label": "fetch", "passed": True}
    await gate(3)
    yield {"label": "judge", "passed": run % 3 != 0, "message": f"run {run} judged"}
""",
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "--prob-runs=6", "--prob-concurrency=3", "--prob-json=r.json"
    )
    result.assert_outcomes(passed=4, failed=2)
    assert _state(pytester)["peak"] == 3
    records = {r["run"]: r for r in load_json(pytester.path / "r.json")["records"]}
    for run, record in records.items():
        assert [step["label"] for step in record["steps"]] == ["fetch", "judge"]
        assert record["steps"][1]["message"] == f"run {run} judged"
        assert record["outcome"] == ("fail" if run % 3 == 0 else "pass")
