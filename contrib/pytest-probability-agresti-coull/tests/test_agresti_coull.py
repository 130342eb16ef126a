"""The agresti-coull method: against statsmodels, and end to end through the plugin."""

from __future__ import annotations

import json

import pytest
from pytest_probability_agresti_coull.plugin import agresti_coull
from statsmodels.stats.proportion import proportion_confint

BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("fails_on", [(), (2, 5, 9)], ids=["solid", "flaky"])
def bench_a(fails_on):
    assert current_run().run not in fails_on
"""


@pytest.mark.parametrize("total", [1, 2, 5, 10, 37, 100, 1000])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_matches_statsmodels(total: int, level: float) -> None:
    for passes in sorted({0, 1, total // 3, total // 2, total - 1, total}):
        low, high = agresti_coull(passes, total, level)
        ref_low, ref_high = proportion_confint(
            passes, total, alpha=1 - level, method="agresti_coull"
        )
        assert low == pytest.approx(max(0.0, ref_low), abs=1e-12)
        assert high == pytest.approx(min(1.0, ref_high), abs=1e-12)


def test_selected_by_option_and_in_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_ac=BENCH)
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-method=agresti-coull", "--prob-json=r.json"
    )
    low, high = agresti_coull(7, 10, 0.95)
    assert (round(low, 4), round(high, 4)) == (0.3923, 0.8967)
    result.stdout.fnmatch_lines(
        ["  a::solid  10/10  [[]68%, 100%[]]", "  a::flaky   7/10  [[]39%,  90%[]]  FLAKY"]
    )
    rows = json.loads((pytester.path / "r.json").read_text())["rows"]
    assert rows[1]["ci"] == {"method": "agresti-coull", "level": 0.95, "low": low, "high": high}


def test_selected_by_mark(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_ac="import pytest\n\npytestmark = pytest.mark.probability(method='agresti-coull')\n"
        + BENCH
    )
    result = pytester.runpytest("--prob-runs=10")
    result.stdout.fnmatch_lines(["  a::flaky   7/10  [[]39%,  90%[]]  FLAKY"])


def test_listed_among_registered_methods(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_ac=BENCH)
    result = pytester.runpytest("--prob-method=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: --prob-method=nope: unknown interval method 'nope'; "
        "registered: exact, wilson, bayes, agresti-coull, seq"
    ) in result.errlines


def test_disabled_with_p_no(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_ac=BENCH)
    result = pytester.runpytest("-p", "no:probability.agresti-coull", "--prob-method=agresti-coull")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: --prob-method=agresti-coull: unknown interval method 'agresti-coull'; "
        "registered: exact, wilson, bayes, seq"
    ) in result.errlines
