"""Working alongside other pytest plugins and options."""

from __future__ import annotations

import pytest
from helpers import load_json, section

BENCH = """
import asyncio, time
from pytest_probability import current_run

async def bench_async():
    await asyncio.sleep(0)
    assert current_run().run != 2

def bench_slow():
    if current_run().run == 1:
        time.sleep(3)

def bench_flaky():
    assert current_run().run != 1
"""


def test_async_bench_functions(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_c=BENCH)
    result = pytester.runpytest("--prob-runs=3", "-k", "async")
    assert section(result.outlines)[0] == "  async  2/3  [9%, 99%]  FLAKY"


@pytest.mark.subprocess
def test_a_timed_out_run_is_an_error(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_timeout")
    pytester.makepyfile(bench_c=BENCH)
    result = pytester.runpytest_subprocess(
        "--prob-runs=2", "-k", "slow", "--timeout=1", "--prob-json=r.json"
    )
    assert section(result.outlines)[0] == "  slow  1/2  [1%, 99%]  1 ERRORED"
    record = load_json(pytester.path / "r.json")["records"][0]
    assert (record["outcome"], record["error"]) == ("error", "Timeout")


def test_reruns_never_count_twice(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_rerunfailures")
    pytester.makepyfile(bench_c=BENCH)
    result = pytester.runpytest("--prob-runs=3", "-k", "flaky", "--reruns=1")
    # run 1 fails, its rerun fails again: still one run of three, not two
    assert section(result.outlines)[0] == "  flaky  2/3  [9%, 99%]  FLAKY"
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["failed"], outcomes["rerun"]) == (2, 1, 1)


@pytest.mark.parametrize(
    "args",
    [["--import-mode=importlib"], ["-p", "no:cacheprovider"], ["--strict-markers"]],
)
def test_pytest_options(pytester: pytest.Pytester, args: list[str]) -> None:
    pytester.makepyfile(bench_c=BENCH)
    result = pytester.runpytest("--prob-runs=3", "-k", "flaky or async", *args)
    assert section(result.outlines)[:2] == [
        "  async  2/3  [9%, 99%]  FLAKY",
        "  flaky  2/3  [9%, 99%]  FLAKY",
    ]
