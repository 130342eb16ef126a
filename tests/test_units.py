"""Pure modules: value parsers, status words, table rendering, steps, results."""

from __future__ import annotations

import pytest
from pytest_probability import parsers
from pytest_probability.execution.steps import Step, is_step, steps_from_return, truncate
from pytest_probability.formatting.fractions import whole_percent
from pytest_probability.report.builder import ReportBuilder, Summary, render_main, render_summaries
from pytest_probability.report.results import Results, row_status


@pytest.mark.parametrize(("raw", "value"), [(1, 1), ("10", 10), (" 3 ", 3), (4.0, 4)])
def test_positive_int_accepts(raw: object, value: int) -> None:
    assert parsers.parse_positive_int(raw) == value


@pytest.mark.parametrize("raw", [0, -1, "0", "2.5", 2.5, True, "x", None, [3]])
def test_positive_int_refuses(raw: object) -> None:
    with pytest.raises(ValueError, match="expected a whole number of at least 1"):
        parsers.parse_positive_int(raw)


@pytest.mark.parametrize("raw", ["-0.1", "nan", "inf", "x", True])
def test_nonnegative_float_refuses(raw: object) -> None:
    with pytest.raises(ValueError):
        parsers.parse_nonnegative_float(raw)


def test_bool_and_patterns() -> None:
    assert [parsers.parse_bool(v) for v in ("true", "No", "1", "off", True)] == [
        True,
        False,
        True,
        False,
        True,
    ]
    with pytest.raises(ValueError, match="expected true or false, got 'maybe'"):
        parsers.parse_bool("maybe")
    assert parsers.parse_patterns("bench_*.py, eval_*.py") == ("bench_*.py", "eval_*.py")


@pytest.mark.parametrize(
    ("counts", "status"),
    [
        ((10, 0, 0), ("", "pass")),
        ((7, 3, 0), ("FLAKY", "flaky")),
        ((0, 10, 0), ("FAIL", "fail")),
        ((7, 0, 3), ("3 ERRORED", "errored")),
        ((0, 0, 10), ("ERROR", "error")),
        ((0, 8, 2), ("FAIL (2 errored)", "fail")),
        ((5, 3, 2), ("FLAKY (2 errored)", "flaky")),
        ((0, 0, 0), ("", "skipped")),
    ],
)
def test_row_status(counts: tuple[int, int, int], status: tuple[str, str]) -> None:
    assert row_status(*counts) == status


@pytest.mark.parametrize(
    ("passes", "total", "text"),
    [
        (35, 50, "70%"),
        (80, 120, "67%"),
        (80, 90, "89%"),
        (1, 8, "13%"),
        (1, 200, "1%"),
        (1, 201, "1%"),
        (199, 200, "99%"),
        (200, 200, "100%"),
        (0, 3, "0%"),
        (0, 0, "—"),
    ],
)
def test_whole_percent_half_up(passes: int, total: int, text: str) -> None:
    assert whole_percent(passes, total) == text


@pytest.mark.parametrize(
    ("fraction", "whole", "one_decimal"),
    [
        (-0.0, "0%", "0.0%"),
        (-0.004, "0%", "-0.4%"),
        (-0.0004, "0%", "0.0%"),
        (-0.006, "-1%", "-0.6%"),
    ],
)
def test_a_change_that_rounds_to_nothing_has_no_sign(
    fraction: float, whole: str, one_decimal: str
) -> None:
    """The explain reading of an input-only ρ = 1 said "narrow the interval by -0%"."""
    from pytest_probability.formatting.percentages import percent, percent1

    assert (percent(fraction), percent1(fraction)) == (whole, one_decimal)


def test_render_aligned_and_free_columns() -> None:
    builder = ReportBuilder(rows=[("a", "classify::solid"), ("b", "classify::weak")])
    builder.add_column("fraction", {"a": "53/53", "b": "45/60"}, order=100)
    builder.add_column(
        "interval", {"a": "[90%, 100%] seq", "b": "[55%,  90%] seq"}, order=200, align="left"
    )
    builder.add_column("status", {"a": "", "b": "FLAKY"}, order=900, align="free")
    builder.add_column(
        "stop", {"a": "decided after 53/100", "b": "decided after 60/100"}, order=950, align="free"
    )
    builder.add_summary("Overall:", "98/113 passed (87%)", order=100)
    builder.add_summary("Tokens:", ["m-small  1 in", "m-large  2 in"], order=300)
    builder.add_block(["  classify  N=2"], order=10)
    assert render_main(builder) == [
        "  classify::solid  53/53  [90%, 100%] seq  decided after 53/100",
        "  classify::weak   45/60  [55%,  90%] seq  FLAKY  decided after 60/100",
        "",
        "  Overall: 98/113 passed (87%)",
        "  Tokens:  m-small  1 in",
        "           m-large  2 in",
        "",
        "  classify  N=2",
    ]


def test_blank_columns_take_no_space() -> None:
    builder = ReportBuilder(rows=[("a", "x")])
    builder.add_column("empty", {}, order=150)
    builder.add_column("fraction", {"a": "1/1"}, order=100)
    assert render_main(builder) == ["  x  1/1"]


def test_summaries_align_on_longest_label() -> None:
    lines = render_summaries(
        [
            Summary(order=2, label="Stopped:", lines=["2 cases"]),
            Summary(order=1, label="Cost:", lines=["$1"]),
        ]
    )
    assert lines == ["  Cost:    $1", "  Stopped: 2 cases"]


def test_steps_duck_typing() -> None:
    assert is_step(Step("a", True)) and is_step({"label": "a", "passed": False})
    assert not is_step({"label": "a"}) and not is_step("label") and not is_step(Step)
    assert steps_from_return([Step("a", True), 3]) == []
    assert steps_from_return(Step("a", True)) == [Step("a", True)]
    assert truncate("x" * 10, limit=4) == "xxxx… [truncated: 6 more characters]"


def _record(key: str, run: int, outcome: str, order: int, case: str = "f::c") -> dict[str, object]:
    return {
        "key": f"bench_{key}.py::bench_f::c",
        "case": case,
        "label": "f",
        "run": run,
        "outcome": outcome,
        "order": order,
        "runs": 2,
        "module": f"bench_{key}.py",
        "nodeid": f"bench_{key}.py::bench_f::c[run{run}]",
    }


def test_results_order_and_display_ids_independent_of_arrival() -> None:
    results = Results()
    for record in [
        _record("b", 2, "fail", 1),
        _record("a", 1, "pass", 0),
        _record("b", 1, "pass", 1),
        _record("a", 2, "error", 0),
    ]:
        results.add(record)
    cases = results.cases()
    assert [c.display for c in cases] == ["bench_a.py::f::c", "bench_b.py::f::c"]
    assert [(c.passes, c.fails, c.errors) for c in cases] == [(1, 0, 1), (1, 1, 0)]
    assert [r["run"] for r in results.records()] == [1, 2, 1, 2]
    totals = results.totals()
    assert (totals.passes, totals.fails, totals.errors, totals.count) == (2, 1, 1, 4)


def test_teardown_failure_turns_pass_into_error() -> None:
    results = Results()
    results.add(dict(_record("a", 1, "pass", 0), steps=[{"label": "f", "passed": True}]))
    record = results.teardown_failed("bench_a.py::bench_f::c[run1]", "teardown failed: OSError: x")
    assert (
        record is not None
        and record["outcome"] == "error"
        and record["steps"][0]["passed"] is False
    )
    assert results.teardown_failed("unknown", "x") is None
