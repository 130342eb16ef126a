"""The budget extension: --prob-budget, --prob-budget-runs, --prob-budget-ok."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import pytest_probability.extensions.budget as package
from helpers import load_json, section
from pytest_probability.collection.distribution import make_scheduler
from pytest_probability.extensions.budget.scheduling import AT_A_TIME, Dealing, run_case, wrap
from xdist.scheduler import LoadScheduling
from xdist.scheduler.protocol import Scheduling

BENCH = """
import pytest
from pytest_probability import record_cost

@pytest.mark.parametrize("item", range(4))
def bench_b(item):
    record_cost(0.5)
"""


def test_budget_cuts_the_session_evenly_with_transpose(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_b=BENCH)
    result = pytester.runpytest(
        "--prob-runs=5", "--prob-budget=5", "--prob-transpose", "--prob-json=r.json", "-rs"
    )
    assert result.ret == 1
    assert section(result.outlines) == [
        "  b::0  3/3  [29%, 100%]  $1.5000  cut short (3/5)",
        "  b::1  3/3  [29%, 100%]  $1.5000  cut short (3/5)",
        "  b::2  2/2  [16%, 100%]  $1.0000  cut short (2/5)",
        "  b::3  2/2  [16%, 100%]  $1.0000  cut short (2/5)",
        "",
        "  Overall: 10/10 passed (100%)",
        "  Budget:  $5.00 reached after 10 of 20 runs; 10 skipped",
        "           a session cut by its budget fails (--prob-budget-ok accepts a cut)",
        "  Cost:    $5.0000",
    ]
    assert "SKIPPED [10] bench_b.py:4: budget of $5.00 reached" in result.outlines
    budget = load_json(pytester.path / "r.json")["budget"]
    assert budget == {
        "amount": 5.0,
        "runs_limit": None,
        "spent": 5.0,
        "runs": 10,
        "planned": 20,
        "skipped": 10,
        "reached": True,
        "overshoot": None,
        "ok": False,
        "uncounted": 0,
        "crashed": 0,
    }


def test_budget_ok_and_runs_budget(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_b=BENCH)
    accepted = pytester.runpytest("--prob-runs=5", "--prob-budget=5", "--prob-budget-ok")
    assert accepted.ret == 0
    runs = pytester.runpytest("--prob-runs=5", "--prob-budget-runs=7")
    assert "  Budget:  7 runs reached after 7 of 20 runs; 13 skipped" in section(runs.outlines)
    assert runs.ret == 1


def test_budget_not_reached(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_b=BENCH)
    result = pytester.runpytest("--prob-runs=2", "--prob-budget=100")
    assert result.ret == 0
    assert "  Budget:  $4.0000 of $100.00 spent; no run skipped" in section(result.outlines)


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_bad_budget(pytester: pytest.Pytester, value: str) -> None:
    pytester.makepyfile(bench_b=BENCH)
    result = pytester.runpytest(f"--prob-budget={value}")
    assert result.ret == 4
    result.stderr.fnmatch_lines([f"ERROR: --prob-budget={value}: expected an amount greater*"])


#: CASES cases of 10 ms that record $0.50 each run
PAID_BENCH = """
import pytest, time
from pytest_probability import record_cost

@pytest.mark.parametrize("item", range({cases}))
def bench_b(item):
    time.sleep(0.01)
    record_cost(0.5)
"""

#: a conftest that hides the controller's tally file from the workers, as on another machine
#: (``--tx ssh=…``): the controller's scheduling alone stops them
REMOTE_WORKERS = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if hasattr(config, "workerinput") and "prob_budget_tally" in config.workerinput:
        config.workerinput["prob_budget_tally"] = "/nonexistent/machine/tally.json"
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", ["local", "remote"])
def test_the_budget_is_global_under_xdist(pytester: pytest.Pytester, workers: str) -> None:
    if workers == "remote":
        pytester.makeconftest(REMOTE_WORKERS)
    pytester.makepyfile(bench_b=PAID_BENCH.format(cases=20))
    result = pytester.runpytest_subprocess(
        "--prob-runs=5", "--prob-budget=10", "-n", "2", "--prob-json=r.json"
    )
    assert result.ret == 1
    budget = load_json(pytester.path / "r.json")["budget"]
    assert budget["skipped"] > 0 and budget["reached"]
    # two workers each finishing the case they were running: never two workers' full budget
    assert 10 <= budget["spent"] <= 10 + 2 * 5 * 0.5 + 0.5
    if workers == "remote":  # the controller hands them no more runs: at most two each past it
        assert budget["spent"] <= 10 + 2 * AT_A_TIME * 0.5
        assert budget["runs"] + budget["skipped"] == budget["planned"] == 100


def test_an_undecided_gate_says_the_budget_cut_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_g="""
import pytest
from pytest_probability import record_cost

@pytest.mark.probability(min_rate=0.5)
def bench_g():
    record_cost(1.0)
"""
    )
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-budget=3", "-W", "ignore::pytest.PytestWarning"
    )
    lines = section(result.outlines)
    assert "           1 gate(s) UNDECIDED after the budget cut their runs: g" in lines
    assert "  Budget:  $3.00 reached after 3 of 20 runs; 17 skipped" in lines


@pytest.mark.subprocess
def test_transpose_keeps_the_cut_even_under_xdist(pytester: pytest.Pytester) -> None:
    """With --prob-transpose and a budget, -n deals the runs out run-major (pytest-xdist's
    own load scheduling) instead of case by case: every case gets its first run before any
    case gets a third."""
    pytester.makepyfile(bench_b=PAID_BENCH.format(cases=10))
    result = pytester.runpytest_subprocess(
        "--prob-runs=5", "--prob-budget=10", "-n", "2", "--prob-transpose", "--prob-json=r.json"
    )
    assert result.ret == 1
    report = load_json(pytester.path / "r.json")
    made = {row["case"]: row["total"] for row in report["rows"]}
    assert len(made) == 10 and min(made.values()) >= 1 and max(made.values()) <= 3
    assert {record["worker"] for record in report["records"]} == {"gw0", "gw1"}
    assert (
        "  Workers: runs dealt in run-major order (--prob-transpose with a budget): an even cut"
    ) in section(result.outlines)


def test_the_budget_touches_no_private_part_of_pytest_xdist() -> None:
    """Issue 34: the budget used to wrap pytest-xdist's ``WorkerInteractor.handle_command``
    on every worker to hear the controller's tally. It now speaks only public means: the
    scheduler protocol (wrapping whichever scheduler ``pytest_xdist_make_scheduler`` chose),
    hooks, and the tally file."""
    forbidden = ("WorkerInteractor", "handle_command", "sendcommand", "setcallback", "channel")
    sources = {path.name: path.read_text() for path in Path(package.__file__).parent.glob("*.py")}
    assert "scheduling.py" in sources and "session.py" in sources
    found = [(name, word) for name, text in sources.items() for word in forbidden if word in text]
    assert found == []


def test_the_wrapper_speaks_the_whole_scheduler_protocol() -> None:
    """Every member of pytest-xdist's ``Scheduling`` protocol is passed on (a member added
    upstream fails here, not in the middle of a session)."""
    members = {name for name in vars(Scheduling) if not name.startswith("_")}
    assert members and members <= set(vars(Dealing))


def test_which_node_ids_are_runs() -> None:
    """Runs are withheld; verdict items and other tests are not."""
    assert run_case("bench_x.py::bench_a::one[run3]") == "bench_x.py::bench_a::one"
    assert run_case("bench_x.py::bench_smoke[run2]") == "bench_x.py::bench_smoke"
    assert run_case("bench_x.py::bench_smoke") == "bench_x.py::bench_smoke"  # one run
    assert run_case("bench_x.py::bench_a::one[run1]@grp") == "bench_x.py::bench_a::one"
    assert run_case("bench_x.py::bench_a::one[weakest]") == "bench_x.py::bench_a::one[weakest]"
    for other in (
        "bench_x.py::bench_a::one[gate]",
        "bench_x.py::bench_a::one[baseline]",
        "bench_x.py::bench_b[compare:q]",
        "bench_x.py::bench_b[weakest]",
        "test_y.py::test_z[1]",
        "test_y.py::test_z",
    ):
        assert run_case(other) is None, other


#: a case's runs and its gate item, five cases, and a test
DEALT = [
    nodeid
    for case in range(5)
    for nodeid in [f"bench_b.py::bench_b::{case}[run{run}]" for run in range(1, 6)]
    + [f"bench_b.py::bench_b::{case}[gate]"]
] + ["test_t.py::test_t"]


class Worker:
    """What a scheduler sees of a pytest-xdist worker; like one, it starts an item only
    once it holds the next one (or was told to shut down)."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.held: list[int] = []
        self.most = 0

    def send_runtest_some(self, indices: list[int]) -> None:
        assert not self.shutting_down
        self.held.extend(indices)
        self.most = max(self.most, len(self.held))

    def shutdown(self) -> None:
        self.shutting_down = True


@pytest.mark.parametrize("scheduler", ["case-aware", "run-major"])
def test_no_run_goes_to_a_worker_that_cannot_read_the_tally_once_it_is_reached(
    scheduler: str,
) -> None:
    """``gw0`` reads the tally file, ``gw1`` cannot (another machine): ``gw1`` holds at most
    two runs at a time, and gets no run once the controller's tally reaches the budget; the
    runs it is not given are done for the scheduler, and counted (``withheld``). ``gw0``
    gets everything, and skips (as the tally file tells it)."""
    config = SimpleNamespace(
        getvalue=lambda name: ["2*popen"] if name == "tx" else None,
        getoption=lambda name: None,
        option=SimpleNamespace(loadscopereorder=False),
    )
    log = SimpleNamespace(loadscopesched=lambda *a: None, loadsched=lambda *a: None)
    inner = (
        make_scheduler(config, log) if scheduler == "case-aware" else LoadScheduling(config, log)
    )
    limit = 8
    made: list[tuple[str, str]] = []  # (worker, node id) of every run made
    skipped: list[str] = []
    dealing = wrap(
        inner,
        reached=lambda: len(made) >= limit,
        sharing=lambda: True,
        reads=lambda node: node.gateway.id == "gw0",
    )
    assert type(dealing).__name__ == type(inner).__name__  # (pytest-xdist -v prints it)
    workers = [Worker("gw0"), Worker("gw1")]
    for worker in workers:
        dealing.add_node(worker)
    for worker in workers:
        dealing.add_node_collection(worker, DEALT)
    dealing.schedule()
    others: list[str] = []
    after: list[str] = []  # runs gw1 made after the budget was reached
    while True:
        ready = [w for w in workers if len(w.held) >= 2 or (w.held and w.shutting_down)]
        if not ready:
            break
        for worker in ready:
            index = worker.held.pop(0)
            nodeid = DEALT[index]
            if run_case(nodeid) is None:
                others.append(nodeid)
            elif len(made) >= limit and worker.gateway.id == "gw0":
                skipped.append(nodeid)  # it read the tally file
            else:
                if len(made) >= limit:
                    after.append(nodeid)
                made.append((worker.gateway.id, nodeid))
            dealing.mark_test_complete(worker, index)
    assert dealing.tests_finished and not dealing.has_pending
    assert workers[1].most <= AT_A_TIME
    assert len(after) <= AT_A_TIME
    assert limit <= len(made) <= limit + AT_A_TIME
    assert sorted(others) == sorted(n for n in DEALT if run_case(n) is None)  # all of them
    assert dealing.withheld and all(run_case(nodeid) is not None for nodeid in dealing.withheld)
    assert any(worker == "gw1" for worker, _ in made)  # (it did get runs before)
    assert len(made) + len(skipped) + len(dealing.withheld) == 25
    for worker in workers:
        assert dealing.remove_node(worker) is None


#: CASES cases of five runs; each run made writes a line to made.txt
COUNTED_BENCH = """
import pytest, time

@pytest.mark.parametrize("item", range({cases}))
def bench_b(item):
    time.sleep(0.01)
    with open({made!r}, "a") as made:
        made.write("run\\n")
"""


@pytest.mark.subprocess
def test_the_controller_stops_handing_out_runs(pytester: pytest.Pytester) -> None:
    """Workers that cannot read the tally file (as on other machines) skip nothing
    themselves: the controller stops them by handing out no more runs once the budget is
    reached, and at most two runs at a time before that. Without it they would make all
    100 runs."""
    made = pytester.path / "made.txt"
    pytester.makeconftest(REMOTE_WORKERS)
    pytester.makepyfile(bench_b=COUNTED_BENCH.format(cases=20, made=str(made)))
    result = pytester.runpytest_subprocess(
        "--prob-runs=5", "--prob-budget-runs=10", "-n", "2", "--prob-json=r.json"
    )
    assert result.ret == 1
    count = len(made.read_text().splitlines())
    assert 10 <= count <= 10 + 2 * 2  # the budget, and two runs per worker already handed out
    assert "skipped" not in result.parseoutcomes()  # no worker skipped a run
    budget = load_json(pytester.path / "r.json")["budget"]
    assert (budget["runs"], budget["skipped"], budget["planned"]) == (count, 100 - count, 100)
    assert f"  Budget:  10 runs reached after {count} of 100 runs; {100 - count} skipped" in (
        section(result.outlines)
    )


CRASHING_BENCH = """
import os
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", range(4))
def bench_b(item):
    if item == 1 and current_run().run == 1:
        os._exit(1)  # the worker dies before reporting the run
"""


@pytest.mark.subprocess
def test_a_run_whose_worker_crashed_counts_as_made_with_its_spend_unknown(
    pytester: pytest.Pytester,
) -> None:
    """The crashed run is the case's first record: the case still plans all its runs, the
    budget counts the run as made and says its spend is unknown. (pytest-rerunfailures,
    installed here, reads ``sched.config`` from the wrapped scheduler at the crash.)"""
    pytester.makepyfile(bench_b=CRASHING_BENCH)
    result = pytester.runpytest_subprocess(
        "--prob-runs=10", "--prob-budget-runs=12", "-n", "2", "--prob-json=r.json"
    )
    assert result.ret == 1
    assert "INTERNALERROR" not in result.stdout.str()
    report = load_json(pytester.path / "r.json")
    budget = report["budget"]
    assert (budget["crashed"], budget["uncounted"], budget["planned"]) == (1, 0, 40)
    assert budget["runs"] + budget["skipped"] == 40
    crashed = next(row for row in report["rows"] if row["case"] == "b::1")
    assert (crashed["planned"], crashed["total"], crashed["status"]) == (10, 1, "error")
    lines = section(result.outlines)
    assert "  b::1    0/1               ERROR  cut short (1/10)" in lines
    assert "           1 run(s) crashed with their worker: spend unknown" in lines


@pytest.mark.subprocess
def test_without_a_budget_a_crashed_first_run_keeps_the_cases_planned_runs(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_b=CRASHING_BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=10", "-n", "2", "--prob-json=r.json")
    assert result.ret == 1
    rows = {row["case"]: row for row in load_json(pytester.path / "r.json")["rows"]}
    assert [(rows[f"b::{i}"]["planned"], rows[f"b::{i}"]["total"]) for i in range(4)] == [
        (10, 10)
    ] * 4
    assert "  b::1   9/10  [55%,  99%]  1 ERRORED" in section(result.outlines)


def test_the_wrapper_passes_other_attributes_on_to_the_scheduler_it_wraps() -> None:
    """Plugins read the scheduler's attributes (pytest-rerunfailures: ``sched.config``)."""
    inner = SimpleNamespace(config="the config", log="the log")
    dealing = wrap(inner, reached=lambda: False, sharing=lambda: True, reads=lambda _: True)
    assert (dealing.config, dealing.log) == ("the config", "the log")
    with pytest.raises(AttributeError):
        dealing.missing  # noqa: B018
