"""The ``majority`` metric: its value per case, and end to end (pytester)."""

from __future__ import annotations

import pytest
from conftest import CASES, OTHERS, load_json, rows_by_case, section
from pytest_probability.api import MetricCase
from pytest_probability_example.majority import is_majority, majority


@pytest.mark.parametrize(
    ("outcomes", "value"),
    [
        (("pass",), 1.0),
        (("fail",), 0.0),
        (("pass", "pass", "fail"), 1.0),
        (("pass", "fail"), 0.0),  # a tie is not a majority
        (("pass", "pass", "error", "error"), 0.0),  # an error is not a pass
        (("pass", "pass", "pass", "error", "fail"), 1.0),
    ],
)
def test_value_of_one_case(outcomes: tuple[str, ...], value: float) -> None:
    assert majority(MetricCase("c", outcomes), None) == value


def test_is_majority_counts() -> None:
    assert [is_majority(p, 6) for p in range(7)] == [False] * 4 + [True] * 3


#: BENCH plus a function whose first three runs skip (not samples): runs 4 and 5 pass and
#: run 6 fails, so 2 of its 3 judged runs pass.
SKIPS = """
import pytest
from pytest_probability import current_run


def bench_skips():
    run = current_run().run
    if run <= 3:
        pytest.skip("rate limited")
    assert run != 6
"""


def test_section_and_json(suite: pytest.Pytester) -> None:
    suite.makepyfile(bench_skips=SKIPS)
    result = suite.runpytest(
        "--prob-runs=6", "--example-names", "--prob-metric=majority", "--prob-json=r.json"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # api: steady and flaky of 5 cases (2/5); skips: its one case (1/1); Overall 3/6
    assert section(result.outlines, "probability: metrics") == [
        "  api      majority  N=5 inputs   40.0%",
        "  skips    majority  N=1 input   100.0%",
        "  Overall  majority  N=6 inputs   50.0%",
    ]
    document = load_json(suite.path / "r.json")
    rows = rows_by_case(document)
    for case, passes, total, _ in CASES:
        assert rows[case]["metrics"] == {"majority": 1.0 if 2 * passes > total else 0.0}
    assert rows["skips"]["metrics"] == {"majority": 1.0}
    lines = {line["scope"]: line for line in document["metrics"]["lines"]}
    assert {scope: (line["n"], line["value"]) for scope, line in lines.items()} == {
        "api": (5, 0.4),
        "skips": (1, 1.0),
        "Overall": (6, 0.5),
    }


def test_beside_a_bundled_metric(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--example-names", "--prob-metric=pass^2,majority")
    # pass^2 of each case is C(passes, 2) / C(6, 2): (15 + 6 + 3 + 3 + 0) / 15 / 5 = 36%
    assert section(result.outlines, "probability: metrics") == [
        "  api  pass^2    N=5 inputs  36.0%",
        "       majority  N=5 inputs  40.0%",
    ]


def test_unknown_without_the_switch(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-metric=majority", *OTHERS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-metric=majority: unknown metric 'majority'; accepted: pass^K, pass@K "
        "(K a whole number >= 1)"
    )


def test_listed_with_the_switch(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-metric=nope", "--example-names", *OTHERS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-metric=nope: unknown metric 'nope'; accepted: pass^K, pass@K, majority "
        "(K a whole number >= 1)"
    )
