"""Every feature gives the same report under pytest-xdist as in one process: the names are
registered in the controller (which computes the intervals, metrics and verdicts) as in
each worker, and everything the report needs travels in the run records."""

from __future__ import annotations

import pytest
from conftest import section

ALL = (
    "--prob-runs=6",
    "--example-names",
    "--prob-method=jeffreys",
    "--prob-metric=majority",
    "--example-max-errors=1",
    "--example-summary",
)


@pytest.mark.subprocess
def test_same_under_xdist(suite: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    serial = suite.runpytest_subprocess(*ALL)
    parallel = suite.runpytest_subprocess(*ALL, "-n", "2")
    assert parallel.ret == serial.ret == pytest.ExitCode.TESTS_FAILED
    for title in ("probability", "probability: metrics", "probability: gates"):
        assert section(parallel.outlines, title) == section(serial.outlines, title)
    assert section(parallel.outlines, "probability: example") == [
        "  most runs passed in  2 of 5 cases",
        "  errored runs         2 of 30, in 1 case",
    ]
    assert "  api::steady  6/6  [67%, 100%]" in parallel.outlines
    assert section(parallel.outlines, "probability: metrics") == [
        "  api  majority  N=5 inputs  40.0%"
    ]
    assert section(parallel.outlines, "probability: gates") == [
        "  api::errors  2 errored of 6  ≤1  FAIL"
    ]
