"""The ``probability: example`` section and the JSON key ``example`` (pytester), and the
pure functions behind them."""

from __future__ import annotations

import pytest
from conftest import CASES, load_json, rows_by_case, section
from pytest_probability_example.summary import Summary, render, summarize

#: BENCH with six runs: steady and flaky pass more often than not; errors errored twice
EXPECTED = [
    "  most runs passed in  2 of 5 cases",
    "  errored runs         2 of 30, in 1 case",
]


def test_section(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--example-summary")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert section(result.outlines, "probability: example") == EXPECTED


def test_json(suite: pytest.Pytester) -> None:
    suite.runpytest("--prob-runs=6", "--example-summary", "--prob-json=r.json")
    document = load_json(suite.path / "r.json")
    assert document["example"] == {
        "cases": 5,
        "majority": 2,
        "runs": 30,
        "errors": 2,
        "errored_cases": 1,
    }
    rows = rows_by_case(document)
    for case, passes, total, _ in CASES:
        assert rows[case]["example"] == {"majority": 2 * passes > total}


def test_ini_key(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_summary = true\n")
    result = suite.runpytest("--prob-runs=6", "-k", "steady or flaky")
    assert section(result.outlines, "probability: example") == [
        "  most runs passed in  2 of 2 cases",
        "  errored runs         0 of 12",
    ]


def test_off_by_default(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--prob-json=r.json")
    assert section(result.outlines, "probability: example") is None
    document = load_json(suite.path / "r.json")
    assert "example" not in document
    assert not any("example" in row for row in document["rows"])


def test_bad_ini_value_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_summary = sometimes\n")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: ini option example_summary=sometimes: expected true or false, got 'sometimes'"
    )


def test_skipped_runs_are_not_counted(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_skips="""
        import pytest
        from pytest_probability import current_run


        def bench_skips():
            if current_run().run <= 3:
                pytest.skip("rate limited")


        def bench_never():
            pytest.skip("not today")
        """
    )
    result = pytester.runpytest("--prob-runs=5", "--example-summary")
    # bench_never has no judged run, hence no row: it is not a case of the summary
    assert section(result.outlines, "probability: example") == [
        "  most runs passed in  1 of 1 case",
        "  errored runs         0 of 2",
    ]


# -- pure functions ---------------------------------------------------------------------------


def test_summarize() -> None:
    counts = [(passes, total, errors) for _, passes, total, errors in CASES]
    assert summarize(counts) == Summary(cases=5, majority=2, runs=30, errors=2, errored_cases=1)
    assert summarize([]) == Summary(cases=0, majority=0, runs=0, errors=0, errored_cases=0)


def test_render_singular_and_plural() -> None:
    assert render(Summary(cases=1, majority=1, runs=3, errors=1, errored_cases=1)) == [
        "  most runs passed in  1 of 1 case",
        "  errored runs         1 of 3, in 1 case",
    ]
    assert render(Summary(cases=4, majority=0, runs=8, errors=5, errored_cases=2)) == [
        "  most runs passed in  0 of 4 cases",
        "  errored runs         5 of 8, in 2 cases",
    ]
