"""The budget extension: --prob-budget, --prob-budget-runs, --prob-budget-ok."""

from __future__ import annotations

import pytest
from conftest import load_json, section

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
#: (``--tx ssh=…``): they learn the tally from the controller's messages instead
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
