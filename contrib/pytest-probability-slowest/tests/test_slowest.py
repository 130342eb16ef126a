"""End-to-end tests of the ``slowest`` extension (pytester), plus its pure helpers.

Run times are made deterministic by a conftest in the pytester directory that implements
``pytest_prob_run_finished`` and overwrites each record's ``elapsed`` from a table, so the
section can be asserted line by line.
"""

from __future__ import annotations

import json
import re

import pytest
from pytest_probability_slowest.timing import (
    Timing,
    case_timing,
    format_duration,
    median_low,
    parse_count,
    render,
    slowest,
)

BENCH = """
import pytest

@pytest.mark.parametrize("name", ["is_question", "identify_pii", "extract_amount"])
def bench_classify(name):
    pass

def bench_smoke():
    pass

@pytest.mark.parametrize("name", ["refund"])
def bench_triage(name):
    pass
"""

# Per case id, the elapsed seconds of runs 1, 2, 3, 4 (the conftest overwrites the kernel's).
CONFTEST = """
ELAPSED = {
    "classify::is_question": [0.000512, 0.000498, 0.00061, 0.0005],
    "classify::identify_pii": [0.010, 0.0123, 0.015, 0.0131],
    "classify::extract_amount": [1.5, 2.0, 2.25, 1.2],
    "smoke": [0.9996, 0.9996, 0.9996, 0.9996],
    "triage::refund": [0.0123, 0.0123, 0.0123, 0.0123],
}

def pytest_prob_run_finished(item, record):
    if record["elapsed"] is not None:
        record["elapsed"] = ELAPSED[record["case"]][record["run"] - 1]
"""

# Medians are the ⌈n/2⌉-th smallest time (STATISTICS.md's quantile rule), so with 4 runs the
# 2nd smallest: extract_amount 1.5 of (1.2, 1.5, 2.0, 2.25); is_question 0.0005.
EXPECTED_ALL = [
    "  classify::extract_amount  median  1.50s  max  2.25s  4 runs",
    "  smoke                     median  1.00s  max  1.00s  4 runs",
    "  classify::identify_pii    median 12.3ms  max 15.0ms  4 runs",
    "  triage::refund            median 12.3ms  max 12.3ms  4 runs",
    "  classify::is_question     median  500µs  max  610µs  4 runs",
]


def section(outlines: list[str], title: str = "slowest") -> list[str] | None:
    """The lines of ``=== probability: <title> ===``, or ``None`` when it is absent."""
    header = re.compile(rf"^=+ probability: {re.escape(title)} =+$")
    for index, line in enumerate(outlines):
        if header.match(line):
            body = []
            for rest in outlines[index + 1 :]:
                if re.match(r"^(=+|-+) .* (=+|-+)$", rest):  # (a section, or a file written)
                    break
                body.append(rest)
            return body
    return None


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bench_demo=BENCH)
    pytester.makeconftest(CONFTEST)
    return pytester


def test_section_lists_cases_by_median_aligned(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=10")
    assert result.ret == 0
    assert section(result.outlines) == EXPECTED_ALL


def test_top_n_only(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=2")
    assert section(result.outlines) == [
        "  classify::extract_amount  median 1.50s  max 2.25s  4 runs",
        "  smoke                     median 1.00s  max 1.00s  4 runs",
    ]


def test_ties_keep_collection_order(suite: pytest.Pytester) -> None:
    # identify_pii and refund both have median 12.3 ms (0.0123 s): collection order decides.
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=4", "-k", "pii or refund")
    assert section(result.outlines) == [
        "  classify::identify_pii  median 12.3ms  max 15.0ms  4 runs",
        "  triage::refund          median 12.3ms  max 12.3ms  4 runs",
    ]


def test_json_key(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=3", "--prob-json=report.json")
    assert result.ret == 0
    document = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    assert document["slowest"] == [
        {"case": "classify::extract_amount", "median": 1.5, "max": 2.25, "runs": 4},
        {"case": "smoke", "median": 0.9996, "max": 0.9996, "runs": 4},
        {"case": "classify::identify_pii", "median": 0.0123, "max": 0.015, "runs": 4},
    ]


def test_off_by_default(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=4", "--prob-json=report.json")
    assert result.ret == 0
    assert any(re.match(r"^=+ probability =+$", line) for line in result.outlines)
    assert section(result.outlines) is None
    assert "slowest" not in json.loads((suite.path / "report.json").read_text("utf-8"))


def test_zero_is_off(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=0")
    assert result.ret == 0
    assert section(result.outlines) is None


def test_ini_and_cli_precedence(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nprob_slowest = 1\n")
    result = suite.runpytest("--prob-runs=4")
    assert section(result.outlines) == [
        "  classify::extract_amount  median 1.50s  max 2.25s  4 runs"
    ]
    result = suite.runpytest("--prob-runs=4", "--prob-slowest=0")
    assert section(result.outlines) is None


def test_only_judged_timed_runs_count(pytester: pytest.Pytester) -> None:
    """Failing and erroring runs are timed; skipped runs and setup errors are not."""
    pytester.makepyfile(
        bench_mixed="""
        import pytest
        from pytest_probability import current_run

        @pytest.fixture
        def resource(request):
            if request.node.name.endswith("[run4]"):
                raise RuntimeError("no resource")

        def bench_mixed(resource):
            run = current_run().run
            if run == 1:
                assert "other" == "pii"
            if run == 2:
                raise TimeoutError("model did not answer")
            if run == 5:
                pytest.skip("not this run")
        """
    )
    pytester.makeconftest(
        """
        def pytest_prob_run_finished(item, record):
            if record["elapsed"] is not None:
                record["elapsed"] = [0.3, 0.1, 0.2, 99.0, 50.0][record["run"] - 1]
        """
    )
    result = pytester.runpytest("--prob-runs=5", "--prob-slowest=1")
    assert result.ret == 1
    # runs 1-3 are timed (fail, error, pass); run 4 failed in setup (no body), run 5 skipped.
    assert section(result.outlines) == ["  mixed  median 200ms  max 300ms  3 runs"]


def test_singular_run(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=1", "--prob-slowest=1", "-k", "smoke")
    assert section(result.outlines) == ["  smoke  median 1.00s  max 1.00s  1 run"]


def test_no_timed_runs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_skip="""
        import pytest

        @pytest.fixture
        def broken():
            raise RuntimeError("down")

        def bench_down(broken):
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-slowest=3")
    assert section(result.outlines) == ["  no timed runs"]


# pytest 7.4's own old-style helpconfig wrapper re-raises argparse's error for the blocked
# extension's flag, and pluggy >= 1.4 warns about that (pytest 8 has no such wrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
def test_disabled_with_p_no(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nprob_slowest = 2\n")
    result = suite.runpytest("--prob-runs=4", "-p", "no:probability.slowest", "--prob-json=r.json")
    assert result.ret == 0
    assert section(result.outlines) is None
    assert any(re.match(r"^=+ probability =+$", line) for line in result.outlines)
    assert "slowest" not in json.loads((suite.path / "r.json").read_text("utf-8"))
    # its flag is gone with it
    result = suite.runpytest("-p", "no:probability.slowest", "--prob-slowest=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --prob-slowest=2" in result.stderr.str()


def test_not_loaded_without_the_kernel(pytester: pytest.Pytester) -> None:
    """``-p no:probability`` keeps every entry-point extension out, this one included."""
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    pytester.makeini("[pytest]\nprob_slowest = 2\n")
    result = pytester.runpytest("-p", "no:probability")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert not any(re.match(r"^=+ probability", line) for line in result.outlines)


@pytest.mark.parametrize("value", ["x", "-1", "1.5", ""])
def test_bad_value_is_a_usage_error(suite: pytest.Pytester, value: str) -> None:
    result = suite.runpytest(f"--prob-slowest={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--prob-slowest={value}: expected a whole number of at least 0" in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_bad_ini_value_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nprob_slowest = many\n")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini option prob_slowest=many: expected a whole number of at least 0" in (
        result.stderr.str()
    )


def test_help_lists_the_option(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--help")
    result.stdout.fnmatch_lines(["*--prob-slowest=N*list the N cases with the largest median*"])


@pytest.mark.subprocess
def test_autoload_disabled_keeps_it_out(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makeini("[pytest]\nprob_slowest = 2\n")
    # Control: the same subprocess run with autoload on lists the two slowest cases.
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    result = suite.runpytest_subprocess("--prob-runs=4")
    assert result.ret == 0
    assert section(result.outlines) == [
        "  classify::extract_amount  median 1.50s  max 2.25s  4 runs",
        "  smoke                     median 1.00s  max 1.00s  4 runs",
    ]
    # With autoload off the kernel is loaded by hand; the entry-point extension stays out.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = suite.runpytest_subprocess("--prob-runs=4", "-p", "pytest_probability.plugin")
    assert result.ret == 0
    assert any(re.match(r"^=+ probability =+$", line) for line in result.outlines)
    assert section(result.outlines) is None
    result = suite.runpytest_subprocess("-p", "pytest_probability.plugin", "--prob-slowest=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.subprocess
def test_same_under_xdist(suite: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    serial = suite.runpytest_subprocess("--prob-runs=4", "--prob-slowest=10")
    parallel = suite.runpytest_subprocess("--prob-runs=4", "--prob-slowest=10", "-n", "2")
    assert parallel.ret == serial.ret == 0
    assert section(parallel.outlines) == section(serial.outlines) == EXPECTED_ALL


# -- pure helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0123, "12.3ms"),
        (0.015, "15.0ms"),
        (2, "2.00s"),
        (0.769, "769ms"),
        (12.0, "12.0s"),
        (0.000123, "123µs"),
        (0.0000005, "0.500µs"),
        (0.01225, "12.3ms"),  # half-up on the decimal value
        (0.9994, "999ms"),
        (0.9996, "1.00s"),  # rounding carries into the next unit, never "1000ms"
        (0.0009996, "1.00ms"),
        (9.996, "10.0s"),
        (99.96, "100s"),
        (1234.5, "1235s"),
        (0, "0s"),
    ],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_format_duration_refuses_non_durations(bad: float) -> None:
    with pytest.raises(ValueError):
        format_duration(bad)


@pytest.mark.parametrize(("raw", "value"), [("0", 0), (" 7 ", 7), (3, 3), (2.0, 2)])
def test_parse_count(raw: object, value: int) -> None:
    assert parse_count(raw) == value


@pytest.mark.parametrize("raw", ["x", "-1", "1.5", "", True, 1.5, None, -3])
def test_parse_count_refuses(raw: object) -> None:
    with pytest.raises(ValueError, match="expected a whole number of at least 0"):
        parse_count(raw)


def test_median_is_an_observed_time() -> None:
    assert median_low([3.0, 1.0, 2.0]) == 2.0
    assert median_low([4.0, 1.0, 3.0, 2.0]) == 2.0  # ⌈4/2⌉ = 2nd smallest
    assert median_low([5.0]) == 5.0


def test_case_timing_ignores_skips_and_untimed_runs() -> None:
    records = [
        {"outcome": "pass", "elapsed": 0.2},
        {"outcome": "fail", "elapsed": 0.4},
        {"outcome": "error", "elapsed": None},
        {"outcome": "skip", "elapsed": 9.0},
        {"outcome": "error", "elapsed": 0.1},
    ]
    assert case_timing("c", records) == Timing(case="c", median=0.2, max=0.4, runs=3)
    assert case_timing("c", [{"outcome": "skip", "elapsed": 1.0}]) is None


def test_slowest_and_render() -> None:
    timings = [
        Timing("a", 0.001, 0.002, 1),
        Timing("bb", 0.5, 0.75, 10),
        Timing("c", 0.5, 0.5, 2),
    ]
    top = slowest(timings, 2)
    assert [t.case for t in top] == ["bb", "c"]
    assert render(top) == [
        "  bb  median 500ms  max 750ms  10 runs",
        "  c   median 500ms  max 500ms   2 runs",
    ]
    assert render([]) == []
