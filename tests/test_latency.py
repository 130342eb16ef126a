"""The latency extension: timing, record_latency, the latency section, the max_latency gate."""

from __future__ import annotations

import pytest
from helpers import load_json, section
from scipy import stats

#: The spec's latency example. ``record_latency`` makes the times deterministic: with 100
#: runs the p95 estimate is the 95th smallest time and its 95% interval runs from the 90th
#: to the 100th, so those three times are the ones the spec prints.
API_BENCH = """
import pytest
from pytest_probability import current_run, record_latency

TIMES = {
    "search": (0.600, 0.769, 0.933),
    "summarize": (1.71, 2.00, 4.84),
    "translate": (2.60, 3.00, 3.25),
}


def fake(case, run):
    low, estimate, high = TIMES[case]
    if run < 90:
        return low * run / 100
    if run < 95:
        return low + (estimate - low) * (run - 90) / 5
    if run < 100:
        return estimate + (high - estimate) * (run - 95) / 5
    return high


@pytest.mark.probability(max_latency=2.0)
@pytest.mark.parametrize("case", ["search", "summarize", "translate"])
def bench_api(case):
    record_latency(fake(case, current_run().run))
"""

SPEC_LATENCY = [
    "  api::search     100 runs  p95  769ms  [600ms, 933ms]  ≤2s  PASS",
    "  api::summarize  100 runs  p95  2.00s  [1.71s, 4.84s]  ≤2s  UNDECIDED",
    "  api::translate  100 runs  p95  3.00s  [2.60s, 3.25s]  ≤2s  FAIL",
]


def test_spec_latency_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_api=API_BENCH)
    result = pytester.runpytest("--prob-runs=100", "--prob-latency", "--prob-json=r.json")
    assert section(result.outlines, "probability: latency") == SPEC_LATENCY
    assert section(result.outlines)[-1] == "  Gates:   1 passed, 1 failed, 1 undecided"
    # the latency gate takes part in the exit status and the [gate] items
    result.assert_outcomes(passed=301, failed=2)
    assert result.ret == 1
    failures = result.outlines[result.outlines.index("=" * 35 + " FAILURES " + "=" * 35) :]
    assert failures[1:5] == [  # the failure is the verdict line, without a traceback
        "__________________________ bench_api::summarize[gate] __________________________",
        "api::summarize  p95  2.00s  [1.71s, 4.84s]  ≤2s  UNDECIDED",
        "__________________________ bench_api::translate[gate] __________________________",
        "api::translate  p95  3.00s  [2.60s, 3.25s]  ≤2s  FAIL",
    ]
    assert section(result.outlines, "probability: gates") == []  # the latency section shows it
    report = load_json(pytester.path / "r.json")
    latency = report["rows"][0]["latency"]
    b = stats.binom(100, 0.95)
    assert latency == {
        "quantile": 0.95,
        "level": 0.95,
        "n": 100,
        "estimate": 0.769,
        "low": 0.6,
        "high": 0.933,
        "rank": 95,
        "low_rank": 90,
        "high_rank": 100,
        "coverage": pytest.approx(1 - b.cdf(89) - b.sf(99), abs=1e-9),
        "method": "order-statistic",
        "max_latency": 2.0,
        "verdict": "pass",
    }
    assert [row["gate"]["verdict"] for row in report["rows"]] == ["pass", "undecided", "fail"]
    assert report["rows"][2]["gate"]["checks"][0]["kind"] == "latency"
    assert {r["latency_source"] for r in report["records"]} == {"recorded"}
    assert report["records"][0]["latency"] == 0.006


def test_gated_cases_are_shown_without_the_flag(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_api=API_BENCH)
    result = pytester.runpytest("--prob-runs=100", "-k", "search")
    assert section(result.outlines, "probability: latency") == [
        "  api::search  100 runs  p95  769ms  [600ms, 933ms]  ≤2s  PASS"
    ]
    assert result.ret == 0


def test_too_few_runs_leave_the_interval_open(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_api="""
import pytest
from pytest_probability import current_run, record_latency

@pytest.mark.probability(max_latency=2.0)
def bench_search():
    record_latency(0.600 + (current_run().run - 44) / 100)
"""
    )
    result = pytester.runpytest("--prob-runs=50")
    # 50 runs: the estimate is the 48th smallest time, the lower end the 44th; no upper end
    assert section(result.outlines, "probability: latency") == [
        "  search  50 runs  p95  640ms  [600ms, —]  ≤2s  UNDECIDED",
        "  1 row has no upper end (—): p95 at 95% needs at least 72 runs, and a max_latency "
        "gate cannot pass without one",
    ]
    result.stdout.fnmatch_lines(
        [
            "*GateWarning: search: the gate cannot pass with 50 runs: "
            "max_latency=2 (p95) needs at least 72 at 95%"
        ]
    )
    assert result.ret == 1


def test_latency_gate_judges_speed_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_fast="""
import pytest
from pytest_probability import current_run, record_latency

@pytest.mark.probability(max_latency=5.0, latency_quantile=0.5)
def bench_only_latency():
    record_latency(0.1)
    assert current_run().run != 3

@pytest.mark.probability(max_latency=5.0, latency_quantile=0.5, min_rate=0.5)
def bench_latency_and_rate():
    record_latency(0.1)
    assert current_run().run != 3
"""
    )
    result = pytester.runpytest("--prob-runs=20", "-rA")
    # the latency-only case's failing run fails the session; the rate-gated one is xfailed
    result.assert_outcomes(passed=40, failed=1, xfailed=1)
    assert "FAILED bench_fast.py::bench_only_latency - 1/20 runs failed: assert 3 != 3" in (
        result.outlines
    )
    assert section(result.outlines, "probability: latency") == [
        "  only_latency      20 runs  p50  100ms  [100ms, 100ms]  ≤5s  PASS",
        "  latency_and_rate  20 runs  p50  100ms  [100ms, 100ms]  ≤5s  PASS",
    ]
    assert section(result.outlines)[-1] == "  Gates:   2 passed"
    assert result.ret == 1


def test_body_time_is_measured(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_sleep="""
import time

def bench_nap():
    time.sleep(0.02)
"""
    )
    result = pytester.runpytest("--prob-runs=6", "--prob-latency", "--prob-json=r.json")
    assert result.ret == 0
    report = load_json(pytester.path / "r.json")
    times = [record["latency"] for record in report["records"]]
    assert all(0.02 <= t < 1.0 for t in times)
    assert [record["latency_source"] for record in report["records"]] == ["measured"] * 6
    assert times == [record["elapsed"] for record in report["records"]]
    latency = report["rows"][0]["latency"]
    assert latency["estimate"] == sorted(times)[5]  # ⌈6 × 0.95⌉ = 6
    assert (latency["low_rank"], latency["high_rank"]) == (4, None)  # no upper end below 72
    line, note = section(result.outlines, "probability: latency")
    assert line.startswith("  nap  6 runs  p95  ") and line.endswith(", —]")
    assert note == "  1 row has no upper end (—): p95 at 95% needs at least 72 runs"


def test_no_section_without_flag_or_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json")
    assert section(result.outlines, "probability: latency") == []
    assert load_json(pytester.path / "r.json")["rows"][0]["latency"]["n"] == 3


def test_ini_quantile_and_flag(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_a="""
from pytest_probability import current_run, record_latency

def bench_a():
    record_latency(current_run().run / 1000)
"""
    )
    pytester.makeini("[pytest]\nprob_latency = true\nprob_latency_quantile = 0.5\n")
    result = pytester.runpytest("--prob-runs=10")
    # p50 of 1..10 ms: the 5th smallest; ranks (2, 9) at 95%
    assert section(result.outlines, "probability: latency") == [
        "  a  10 runs  p50  5.00ms  [2.00ms, 9.00ms]"
    ]


def test_skipped_and_setup_failures_are_not_timed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_a="""
import pytest
from pytest_probability import current_run, record_latency

@pytest.fixture
def flaky_setup():
    if current_run().run == 2:
        raise RuntimeError("no connection")

def bench_a(flaky_setup):
    if current_run().run == 3:
        pytest.skip("not today")
    record_latency(0.25)
"""
    )
    result = pytester.runpytest("--prob-runs=4", "--prob-latency", "--prob-json=r.json")
    assert section(result.outlines, "probability: latency") == [
        "  a  2 runs  p95  250ms  [250ms, —]",
        "  1 row has no upper end (—): p95 at 95% needs at least 72 runs",
    ]
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["latency"] for r in records] == [0.25, None, None, 0.25]


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        (
            "latency_quantile=95",
            "latency_quantile=95: expected a quantile between 0 and 1 (exclusive) such as "
            "0.95 for p95, got 95; did you mean 0.95 (p95)?",
        ),
        (
            "max_latency=-1",
            "max_latency=-1: expected a number of seconds greater than 0 such as 2.0 "
            "(0.5 for 500 ms), got -1",
        ),
        (
            "max_latency='2s'",
            "max_latency='2s': expected a number of seconds greater than 0 such as 2.0 "
            "(0.5 for 500 ms), got '2s'",
        ),
        (
            "latency_method='hdr'",
            "latency_method='hdr': unknown latency method 'hdr'; registered: order-statistic",
        ),
        (
            "max_latenc=2",
            "unknown probability mark argument max_latenc=2 (did you mean 'max_latency'?)",
        ),
    ],
)
def test_bad_mark_arguments(pytester: pytest.Pytester, mark: str, message: str) -> None:
    pytester.makepyfile(
        bench_a=f"import pytest\n\n@pytest.mark.probability({mark})\ndef bench_a():\n    pass\n"
    )
    result = pytester.runpytest("--prob-runs=3")
    assert result.ret == 2
    assert message in "\n".join(result.outlines)
    assert "Traceback" not in "\n".join(result.outlines)


def test_bad_ini_quantile(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    pytester.makeini("[pytest]\nprob_latency_quantile = 1.5\n")
    result = pytester.runpytest()
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["ERROR: ini option prob_latency_quantile=1.5: expected a quantile between 0 and 1*"]
    )


@pytest.mark.parametrize("value", ["-0.5", "float('nan')", "float('inf')", "'fast'", "True"])
def test_record_latency_refuses_bad_values(pytester: pytest.Pytester, value: str) -> None:
    pytester.makepyfile(
        bench_a=f"from pytest_probability import record_latency\n\n"
        f"def bench_a():\n    record_latency({value})\n"
    )
    result = pytester.runpytest("--prob-runs=1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*ValueError: record_latency(): seconds must be a finite number >= 0, got *"]
    )


def test_record_latency_outside_a_run() -> None:
    from pytest_probability import record_latency

    with pytest.raises(RuntimeError, match=r"record_latency\(\) can only be called from inside"):
        record_latency(1.0)


def test_gates_disabled_refuses_max_latency(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_a="import pytest\n\n@pytest.mark.probability(max_latency=1)\n"
        "def bench_a():\n    pass\n"
    )
    result = pytester.runpytest("-p", "no:probability.gates")
    assert result.ret == 2
    assert (
        "bench_a.py::bench_a: max_latency= needs the bundled gates extension: remove "
        "-p no:probability.gates" in result.outlines
    )
    assert "Traceback" not in "\n".join(result.outlines)


def test_without_intervals_the_level_is_95(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_api=API_BENCH)
    result = pytester.runpytest("--prob-runs=100", "-p", "no:probability.intervals")
    assert section(result.outlines, "probability: latency") == SPEC_LATENCY


def test_third_party_method_and_confidence_mark(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
from pytest_probability.extensions.latency.quantiles import LatencyQuantile

def pytest_prob_register_latency_methods(register, config):
    def largest(times, q, level):
        return LatencyQuantile(q, level, len(times), times[-1], times[0], times[-1],
                               len(times), 1, len(times), 1.0)
    register("largest", largest, description="the largest time")
"""
    )
    pytester.makepyfile(
        bench_a="""
import pytest
from pytest_probability import current_run, record_latency

@pytest.mark.probability(max_latency=0.05, confidence=0.8)
def bench_a():
    record_latency(current_run().run / 100)
"""
    )
    pytester.makeini("[pytest]\nprob_latency_method = largest\n")
    result = pytester.runpytest("--prob-runs=4", "--prob-json=r.json")
    assert section(result.outlines, "probability: latency") == [
        "  a  4 runs  p95  40.0ms  [10.0ms, 40.0ms]  ≤50ms  PASS"
    ]
    latency = load_json(pytester.path / "r.json")["rows"][0]["latency"]
    assert (latency["method"], latency["level"]) == ("largest", 0.8)
    # no warning: a third-party method's minimum runs are unknown
    assert "GateWarning" not in "\n".join(result.outlines)


def test_broken_third_party_method_is_named(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_register_latency_methods(register, config):
    register("order-statistic", lambda times, q, level: None)
"""
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: registering latency methods failed: latency method 'order-statistic' is "
            "registered twice"
        ]
    )


def test_a_broken_method_in_a_conftest_collection_imports_fails_there(
    pytester: pytest.Pytester,
) -> None:
    """A conftest below the rootdir registers after ``pytest_configure`` (the methods are
    not registered yet: nothing else registers any): its registration still runs when it
    registers, and a broken one is a collection error, bench files or not."""
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(
        "def pytest_prob_register_latency_methods(register, config):\n"
        "    register('order-statistic', lambda times, q, level: None)\n"
    )
    (sub / "test_a.py").write_text("def test_a():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["E   *latency method 'order-statistic' is registered twice", "ERROR *- *"]
    )


@pytest.mark.subprocess
@pytest.mark.parametrize("dist", [[], ["--dist", "loadgroup"]])
def test_xdist_gives_the_same_latency(pytester: pytest.Pytester, dist: list[str]) -> None:
    pytester.makepyfile(bench_api=API_BENCH)
    serial = pytester.runpytest_subprocess("--prob-runs=100", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(
        "--prob-runs=100", "-n", "2", *dist, "--prob-json=p.json"
    )
    assert serial.ret == parallel.ret == 1
    assert section(parallel.outlines, "probability: latency") == SPEC_LATENCY
    workers = [line for line in section(parallel.outlines) if line.startswith("  Workers:")]
    assert workers == (
        ["  Workers: each case's runs kept on one worker (case-aware scheduling instead of "
         "--dist loadgroup)"] if dist else []
    )  # fmt: skip
    assert section(serial.outlines) == [
        line for line in section(parallel.outlines) if not line.startswith("  Workers:")
    ]
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert [r["latency"] for r in one["rows"]] == [r["latency"] for r in two["rows"]]
    assert [r["gate"]["verdict"] for r in two["rows"]] == ["pass", "undecided", "fail"]


def test_a_failing_method_on_a_gated_case_is_undecided(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_register_latency_methods(register, config):
    def broken(times, q, level):
        raise ZeroDivisionError("oops")
    register("broken", broken)
"""
    )
    pytester.makepyfile(
        bench_a="""
import pytest

@pytest.mark.probability(max_latency=1.0, latency_method="broken")
def bench_a():
    pass
"""
    )
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json")
    assert result.ret == 1
    assert "  Gates:   1 undecided" in section(result.outlines)
    assert "  ZeroDivisionError: oops" in section(
        result.outlines, "probability: probability.latency (failed)"
    )
    result.stdout.fnmatch_lines(
        ["*GateJudgeWarning: latency gate could not be judged: ZeroDivisionError: oops"]
    )
    row = load_json(pytester.path / "r.json")["rows"][0]
    assert row["gate"]["checks"] == [
        {
            "kind": "latency",
            "verdict": "undecided",
            "error": "latency gate could not be judged: ZeroDivisionError: oops",
        }
    ]
