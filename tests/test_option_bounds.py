"""Numeric settings have upper bounds (issue 21 §5): ``--prob-runs=100000000`` took 2.2 GB in
a minute without a word, ``--prob-bootstrap=1000000000`` hung after every run was made, and
``--prob-delay=1e308`` raised ``OverflowError`` in every run. Each is now a usage error (a
collection error for a mark) naming the setting and the valid range.

The out-of-range values are checked with ``parseconfigure`` (configuration only), so that
on code without the bounds the test fails at once instead of collecting 10^8 items.
"""

from __future__ import annotations

import pytest
from pytest_probability.extensions.intervals.plugin import MAX_RESAMPLES, parse_resamples
from pytest_probability.parsers import MAX_DELAY, MAX_RUNS, parse_delay, parse_runs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--prob-runs=100000000"],
            "--prob-runs=100000000: expected a whole number from 1 to 100,000, got '100000000'",
        ),
        (
            ["-o", "prob_runs=100001"],
            "ini option prob_runs=100001: expected a whole number from 1 to 100,000, got '100001'",
        ),
        (
            ["--prob-bootstrap=1000000000"],
            "--prob-bootstrap=1000000000: expected a whole number from 1 to 1,000,000, "
            "got '1000000000'",
        ),
        (
            ["--prob-bootstrap=1e9"],
            "--prob-bootstrap=1e9: expected a whole number of at least 1, got '1e9'",
        ),
        (
            ["--prob-delay=1e308"],
            "--prob-delay=1e308: expected a number of seconds from 0 to 3600 (an hour), "
            "got '1e308'",
        ),
        (
            ["-o", "prob_delay=3601"],
            "ini option prob_delay=3601: expected a number of seconds from 0 to 3600 (an hour), "
            "got '3601'",
        ),
    ],
)
def test_values_above_the_bound_are_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    with pytest.raises(pytest.UsageError) as raised:
        pytester.parseconfigure(*args)
    assert str(raised.value) == message


def test_the_bounds_themselves_are_valid() -> None:
    assert (MAX_RUNS, MAX_RESAMPLES, MAX_DELAY) == (100_000, 1_000_000, 3600.0)
    assert parse_runs("100000") == MAX_RUNS and parse_runs(1) == 1
    assert parse_resamples("1000000") == MAX_RESAMPLES
    assert parse_delay("3600") == MAX_DELAY and parse_delay("0") == 0.0


def test_a_run_count_above_the_bound_on_a_mark_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        bench_m="""
        import pytest

        @pytest.mark.probability(runs=100_001)
        def bench_a():
            pass

        def bench_fine():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:randomly")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert (
        "bench_m.py::bench_a: probability mark argument runs=100001: expected a whole number "
        "from 1 to 100,000, got 100001"
    ) in result.outlines


def test_a_session_with_the_largest_delay_is_not_an_overflow(pytester: pytest.Pytester) -> None:
    """One run never sleeps (the delay is between runs): 3600 is accepted and runs."""
    pytester.makepyfile(bench_one="def bench_one():\n    pass\n")
    result = pytester.runpytest("--prob-delay=3600", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
