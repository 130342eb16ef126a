"""The ``max_errors`` gate kind: verdicts, exit status, JSON, settings (pytester)."""

from __future__ import annotations

import pytest
from conftest import CASES, load_json, rows_by_case, section

#: twenty runs each; ``us`` errors on runs 4, 9 and 15 and passes every other run
ERRORING = """
import pytest
from pytest_probability import current_run


@pytest.mark.parametrize("region", ["eu", "us"])
def bench_api(region):
    run = current_run().run
    if region == "us" and run in (4, 9, 15):
        raise ConnectionError("upstream timed out")
"""


def test_verdicts_section_and_json(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--example-max-errors=1", "--prob-json=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "  Gates:   4 passed, 1 failed" in result.outlines
    # the section lists the gates that did not pass
    assert section(result.outlines, "probability: gates") == [
        "  api::errors  2 errored of 6  ≤1  FAIL"
    ]
    result.assert_outcomes(passed=16 + 4, failed=14 + 1)  # the runs, then one [gate] per case
    rows = rows_by_case(load_json(suite.path / "r.json"))
    for case, _, _, errors in CASES:
        verdict = "fail" if errors > 1 else "pass"
        assert rows[case]["gate"]["verdict"] == verdict
        assert rows[case]["gate"]["checks"] == [
            {"kind": "max_errors", "verdict": verdict, "max_errors": 1, "errors": errors}
        ]


def test_the_gate_item_names_the_rule(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--example-max-errors=1", "--tb=short")
    assert "api::errors  2 errored of 6  ≤1  FAIL" in result.outlines
    assert any(
        line.startswith("FAILED bench_api.py::bench_api::errors[gate]") for line in result.outlines
    )


@pytest.mark.parametrize(
    ("limit", "status", "gates", "lines"),
    [
        (3, pytest.ExitCode.OK, "  Gates:   2 passed", None),
        (2, 1, "  Gates:   1 passed, 1 failed", ["  api::us  3 errored of 20  ≤2  FAIL"]),
    ],
)
def test_it_decides_the_exit_status(
    pytester: pytest.Pytester, limit: int, status: int, gates: str, lines: list[str] | None
) -> None:
    """With ``prob_errors = exclude`` the rate gate judges ``us`` on its 17 runs that got
    through and passes it, which xfails its errored runs: only this gate can still fail it."""
    pytester.makepyfile(bench_api=ERRORING)
    pytester.makeini("[pytest]\nprob_errors = exclude\n")
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-min-rate=0.6", f"--example-max-errors={limit}"
    )
    assert result.ret == status
    assert gates in result.outlines
    assert section(result.outlines, "probability: gates") == lines


def test_without_it_the_errors_are_forgiven(pytester: pytest.Pytester) -> None:
    """The control for the test above: the rate gate alone passes ``us``."""
    pytester.makepyfile(bench_api=ERRORING)
    pytester.makeini("[pytest]\nprob_errors = exclude\n")
    result = pytester.runpytest("--prob-runs=20", "--prob-min-rate=0.6")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=37 + 2, xfailed=3)


def test_ini_key(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_max_errors = 1\n")
    result = suite.runpytest("--prob-runs=6")
    assert section(result.outlines, "probability: gates") == [
        "  api::errors  2 errored of 6  ≤1  FAIL"
    ]
    # the command line wins over the ini key
    result = suite.runpytest("--prob-runs=6", "--example-max-errors=2")
    assert "  Gates:   5 passed" in result.outlines


def test_zero_allows_no_error(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--example-max-errors=0", "-k", "errors or steady")
    assert section(result.outlines, "probability: gates") == [
        "  api::errors  2 errored of 6  ≤0  FAIL"
    ]
    assert "  Gates:   1 passed, 1 failed" in result.outlines


@pytest.mark.parametrize("value", ["-1", "x", "1.5", ""])
def test_bad_value_is_a_usage_error(suite: pytest.Pytester, value: str) -> None:
    result = suite.runpytest(f"--example-max-errors={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: --example-max-errors={value}: expected a whole number of at least 0, got {value!r}"
    )


def test_no_gate_without_the_option(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=6", "--prob-json=r.json")
    assert section(result.outlines, "probability: gates") is None
    assert not any(line.startswith("  Gates:") for line in result.outlines)
    assert all(row.get("gate") is None for row in load_json(suite.path / "r.json")["rows"])
