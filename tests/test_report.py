"""The terminal table and the Overall line, exactly as the spec prints them."""

from __future__ import annotations

import pytest
from helpers import section

pytestmark = pytest.mark.usefixtures("kernel_only")


def test_spec_table_exactly(spec_bench: pytest.Pytester) -> None:
    result = spec_bench.runpytest("--prob-runs=10")
    assert section(result.outlines) == [
        "  classify::is_question            10/10",
        "  classify::identify_pii            7/10  FLAKY",
        "  classify::extract_amount          0/10  FAIL",
        "  triage::refund-terse              8/10  FLAKY",
        "  triage::refund-chain_of_thought  10/10",
        "",
        "  Overall: 35/50 passed (70%)",
    ]
    result.assert_outcomes(passed=35, failed=15)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


STATUS_BENCH = """
import pytest
from pytest_probability import current_run

# (passes, fails, errors) over 10 runs, decided by the run index
PLANS = {
    "all_pass": (10, 0, 0),
    "flaky": (7, 3, 0),
    "fail": (0, 10, 0),
    "errored": (7, 0, 3),
    "error": (0, 0, 10),
    "fail_errored": (0, 8, 2),
    "flaky_errored": (5, 3, 2),
}


@pytest.mark.parametrize("plan", list(PLANS))
def bench_status(plan):
    passes, fails, errors = PLANS[plan]
    run = current_run().run
    if run <= passes:
        return
    if run <= passes + fails:
        assert False, "wrong"
    raise TimeoutError("no answer")
"""


def test_status_words(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_status=STATUS_BENCH)
    result = pytester.runpytest("--prob-runs=10")
    assert section(result.outlines) == [
        "  status::all_pass       10/10",
        "  status::flaky           7/10  FLAKY",
        "  status::fail            0/10  FAIL",
        "  status::errored         7/10  3 ERRORED",
        "  status::error           0/10  ERROR",
        "  status::fail_errored    0/10  FAIL (2 errored)",
        "  status::flaky_errored   5/10  FLAKY (2 errored)",
        "",
        "  Overall: 29/70 passed (41%)",
    ]
    result.assert_outcomes(passed=29, failed=41)


def test_overall_rounds_half_up(pytester: pytest.Pytester) -> None:
    # 1/8 = 12.5% must print 13% (half-up), not 12% (banker's rounding)
    pytester.makepyfile(
        bench_round="""
        from pytest_probability import current_run

        def bench_one():
            assert current_run().run == 1
        """
    )
    result = pytester.runpytest("--prob-runs=8")
    assert section(result.outlines) == ["  one  1/8  FLAKY", "", "  Overall: 1/8 passed (13%)"]


def test_no_section_without_bench_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert not any("= probability" in line for line in result.outlines)
    result.assert_outcomes(passed=1)


def test_section_printed_when_fractions_extension_disabled(spec_bench: pytest.Pytester) -> None:
    result = spec_bench.runpytest("--prob-runs=2", "-p", "no:probability.fractions")
    # the kernel still lists the cases; the fraction and status columns are gone
    assert section(result.outlines) == [
        "  classify::is_question",
        "  classify::identify_pii",
        "  classify::extract_amount",
        "  triage::refund-terse",
        "  triage::refund-chain_of_thought",
    ]


def test_same_function_name_in_two_files_never_pools(pytester: pytest.Pytester) -> None:
    body = """
    import pytest

    @pytest.mark.parametrize("x", [1], ids=["case"])
    def bench_classify(x):
        assert {ok}
    """
    pytester.makepyfile(bench_a=body.format(ok="True"), bench_b=body.format(ok="False"))
    result = pytester.runpytest("--prob-runs=2")
    assert section(result.outlines) == [
        "  bench_a.py::classify::case  2/2",
        "  bench_b.py::classify::case  0/2  FAIL",
        "",
        "  Overall: 2/4 passed (50%)",
    ]


def test_failing_extension_report_hook_is_contained(spec_bench: pytest.Pytester) -> None:
    spec_bench.makeconftest(
        """
        def pytest_prob_build_report(report, results, config):
            raise RuntimeError("boom")
        """
    )
    result = spec_bench.runpytest("--prob-runs=1", "--prob-json=r.json")
    lines = section(result.outlines)
    assert lines[:3] == [
        "  classify::is_question            1/1",
        "  classify::identify_pii           1/1",
        "  classify::extract_amount         0/1  FAIL",
    ]
    failed = [s for s in result.outlines if "(failed) =" in s]
    assert len(failed) == 1 and "probability: " in failed[0]
    assert "  RuntimeError: boom" in result.outlines
    assert (spec_bench.path / "r.json").exists()
