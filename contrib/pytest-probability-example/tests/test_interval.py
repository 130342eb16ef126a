"""The ``jeffreys`` interval method: against scipy, and end to end (pytester)."""

from __future__ import annotations

import pytest
from conftest import CASES, OTHERS, load_json, rows_by_case
from pytest_probability_example.interval import jeffreys
from scipy.stats import beta

TOTALS = [1, 2, 3, 5, 10, 37, 100, 1000]
LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]


def reference(passes: int, total: int, level: float) -> tuple[float, float]:
    """The posterior quantiles under the Jeffreys prior, from scipy, ends pinned."""
    alpha = 1 - level
    a, b = passes + 0.5, total - passes + 0.5
    low = 0.0 if passes == 0 else float(beta.ppf(alpha / 2, a, b))
    high = 1.0 if passes == total else float(beta.ppf(1 - alpha / 2, a, b))
    return low, high


@pytest.mark.parametrize("total", TOTALS)
@pytest.mark.parametrize("level", LEVELS)
def test_matches_scipy(total: int, level: float) -> None:
    for passes in sorted({0, 1, total // 3, total // 2, total - 1, total}):
        low, high = jeffreys(passes, total, level)
        ref_low, ref_high = reference(passes, total, level)
        assert abs(low - ref_low) <= 1e-9, (passes, total, level)
        assert abs(high - ref_high) <= 1e-9, (passes, total, level)
        assert 0.0 <= low < high <= 1.0


@pytest.mark.parametrize("total", TOTALS)
def test_ends_are_pinned(total: int) -> None:
    """Nothing passed: the lower end is exactly 0; everything passed: the upper end is 1.
    The other end is the posterior quantile as usual."""
    low, high = jeffreys(0, total, 0.95)
    assert low == 0.0
    assert abs(high - float(beta.ppf(0.975, 0.5, total + 0.5))) <= 1e-9
    low, high = jeffreys(total, total, 0.95)
    assert high == 1.0
    assert abs(low - float(beta.ppf(0.025, total + 0.5, 0.5))) <= 1e-9


def test_no_runs_say_nothing() -> None:
    assert jeffreys(0, 0, 0.95) == (0.0, 1.0)


#: The rows of BENCH (six runs) with --prob-method=jeffreys, from a real run; each interval
#: is checked against scipy through the JSON report in test_rows_and_json.
JEFFREYS_ROWS = [
    "  api::steady  6/6  [67%, 100%]",
    "  api::flaky   4/6  [29%,  92%]  FLAKY",
    "  api::tie     3/6  [17%,  83%]  FLAKY",
    "  api::errors  3/6  [17%,  83%]  FLAKY (2 errored)",
    "  api::down    0/6  [ 0%,  33%]  FAIL",
]


def test_rows_and_json(suite: pytest.Pytester) -> None:
    result = suite.runpytest(
        "--prob-runs=6", "--example-names", "--prob-method=jeffreys", "--prob-json=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for line in JEFFREYS_ROWS:
        assert line in result.outlines
    rows = rows_by_case(load_json(suite.path / "r.json"))
    for case, passes, total, _ in CASES:
        ci = rows[case]["ci"]
        assert ci["method"] == "jeffreys"
        assert ci["level"] == 0.95
        ref_low, ref_high = reference(passes, total, 0.95)
        assert abs(ci["low"] - ref_low) <= 1e-9
        assert abs(ci["high"] - ref_high) <= 1e-9


def test_chosen_by_mark_with_the_ini_switch(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_names = true\n")
    bench = (suite.path / "bench_api.py").read_text(encoding="utf-8")
    (suite.path / "bench_api.py").write_text(
        bench + "\npytestmark = pytest.mark.probability(method='jeffreys')\n", encoding="utf-8"
    )
    result = suite.runpytest("--prob-runs=6")
    for line in JEFFREYS_ROWS:
        assert line in result.outlines


def test_level_is_the_sessions(suite: pytest.Pytester) -> None:
    result = suite.runpytest(
        "--prob-runs=6",
        "--example-names",
        "--prob-method=jeffreys",
        "--prob-confidence=0.8",
        "--prob-json=r.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    ci = rows_by_case(load_json(suite.path / "r.json"))["api::flaky"]["ci"]
    ref_low, ref_high = reference(4, 6, 0.8)
    assert ci["level"] == 0.8
    assert abs(ci["low"] - ref_low) <= 1e-9
    assert abs(ci["high"] - ref_high) <= 1e-9


def registered(errline: str) -> list[str]:
    return errline.split("; registered: ")[1].split(", ")


def test_unknown_without_the_switch(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-method=jeffreys", *OTHERS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-method=jeffreys: unknown interval method 'jeffreys'; "
        "registered: exact, wilson, bayes, seq"
    )


def test_listed_with_the_switch(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-method=nope", "--example-names", *OTHERS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "jeffreys" in registered(result.errlines[0])
    assert registered(result.errlines[0])[:3] == ["exact", "wilson", "bayes"]
