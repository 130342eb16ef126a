"""Results, table and JSON are identical with pytest-xdist (-n 2) and without."""

from __future__ import annotations

import pytest
from helpers import SPEC_BENCH, load_json, section, stable

pytestmark = [pytest.mark.subprocess, pytest.mark.usefixtures("kernel_only")]


MORE_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.fixture
def broken():
    raise ConnectionError("down")

def bench_fixture_error(broken):
    pass

@pytest.mark.parametrize("i", range(12))
def bench_many(i):
    run = current_run().run
    if i % 4 == 0:
        raise ValueError("harness")
    assert (i + run) % 3 != 0

def bench_skips():
    if current_run().run == 1:
        pytest.skip("not this one")

def bench_steps():
    yield {"label": "one", "passed": True}
    yield {"label": "two", "passed": current_run().run != 2, "message": "nope"}
"""


@pytest.mark.parametrize("transpose", [False, True])
def test_parallel_report_equals_serial(pytester: pytest.Pytester, transpose: bool) -> None:
    pytester.makepyfile(bench_spec=SPEC_BENCH, bench_more=MORE_BENCH)
    extra = ["--prob-transpose"] if transpose else []
    serial = pytester.runpytest_subprocess("--prob-runs=10", "--prob-json=serial.json", *extra)
    parallel = pytester.runpytest_subprocess(
        "--prob-runs=10", "--prob-json=parallel.json", "-n", "2", *extra
    )
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    assert section(serial.outlines) == section(parallel.outlines)
    assert [line for line in section(serial.outlines) if "::" in line][-5:] == [
        "  classify::is_question            10/10",
        "  classify::identify_pii            7/10  FLAKY",
        "  classify::extract_amount          0/10  FAIL",
        "  triage::refund-terse              8/10  FLAKY",
        "  triage::refund-chain_of_thought  10/10",
    ]
    one, two = load_json(pytester.path / "serial.json"), load_json(pytester.path / "parallel.json")
    assert stable(one) == stable(two)
    workers = {r["worker"] for r in two["records"]}
    assert workers == {"gw0", "gw1"}
    assert {r["worker"] for r in one["records"]} == {None}
    assert one["totals"]["count"] == 50 + 10 + 120 + 9 + 10


def test_workers_never_write_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=4", "--prob-json=r.json", "-n", "2")
    assert [p.name for p in pytester.path.iterdir() if p.suffix in (".json", ".tmp")] == ["r.json"]
    report = load_json(pytester.path / "r.json")
    assert report["totals"]["count"] == 20
    assert report["exit_status"] == result.ret == 1


def test_delay_applies_per_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_d="""
        import pytest

        @pytest.mark.parametrize("i", range(4))
        def bench_d(i):
            pass
        """
    )
    result = pytester.runpytest_subprocess("--prob-runs=2", "--prob-delay=0.1", "-n", "2")
    result.assert_outcomes(passed=8)
    assert section(result.outlines)[-1] == "  Overall: 8/8 passed (100%)"


def test_a_worker_with_another_plugin_version_fails_its_collection(
    pytester: pytest.Pytester,
) -> None:
    """A worker host with another install of the plugin (issue 37 §9): the controller hands
    each worker its version (``workerinput``), and a worker whose version differs fails its
    collection with one message naming both versions — no worker crash-and-restart loop, no
    runs, exit status 1. (The conftest plays a controller of version 0.0.9.)"""
    pytester.makepyfile(bench_v="def bench_a():\n    pass\n")
    pytester.makeconftest(
        """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_configure_node(node):
    node.workerinput["probability_version"] = "0.0.9"
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=2", "-n", "2", "-p", "no:randomly")
    assert result.ret == 1
    from pytest_probability import __version__

    for worker in ("gw0", "gw1"):
        result.stdout.fnmatch_lines(
            [
                f"pytest-probability {__version__} on worker {worker} but 0.0.9 on the "
                "controller: install the same version of the plugin on every host the session "
                "runs on (--tx)"
            ]
        )
    assert "Traceback" not in result.stdout.str() and "crashed" not in result.stdout.str()
    assert "2 errors" in result.stdout.lines[-1]


def test_workers_of_the_same_version_run(pytester: pytest.Pytester) -> None:
    """The controller's version reaches every worker, which matches it and runs."""
    pytester.makepyfile(bench_v="def bench_a():\n    pass\n")
    pytester.makeconftest(
        """
import pytest

seen = []

@pytest.hookimpl(trylast=True)
def pytest_configure_node(node):
    seen.append(node.workerinput["probability_version"])

def pytest_sessionfinish(session):
    if seen:
        print("versions handed:", sorted(seen))
"""
    )
    result = pytester.runpytest_subprocess("--prob-runs=2", "-n", "2", "-p", "no:randomly", "-s")
    assert result.ret == 0
    from pytest_probability import __version__

    assert f"versions handed: ['{__version__}', '{__version__}']" in result.stdout.str()
