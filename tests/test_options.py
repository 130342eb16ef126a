"""Settings: --prob-runs / prob_runs / runs=, delay, transpose; precedence and validation."""

from __future__ import annotations

import pytest
from helpers import RecordedClock, section

ONE_CASE = """
import pytest

def bench_a():
    pass
"""

pytestmark = pytest.mark.usefixtures("kernel_only")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prob-runs=0"], "ERROR: --prob-runs=0: expected a whole number of at least 1, got '0'"),
        (
            ["--prob-runs=-3"],
            "ERROR: --prob-runs=-3: expected a whole number of at least 1, got '-3'",
        ),
        (
            ["--prob-runs=2.5"],
            "ERROR: --prob-runs=2.5: expected a whole number of at least 1, got '2.5'",
        ),
        (
            ["--prob-runs=ten"],
            "ERROR: --prob-runs=ten: expected a whole number of at least 1, got 'ten'",
        ),
        (
            ["--prob-delay=-1"],
            "ERROR: --prob-delay=-1: expected a finite number of at least 0, got '-1'",
        ),
        (
            ["--prob-delay=soon"],
            "ERROR: --prob-delay=soon: expected a number of at least 0, got 'soon'",
        ),
    ],
)
def test_bad_cli_values_are_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    pytester.makepyfile(bench_a=ONE_CASE)
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.errlines
    assert not any("Traceback" in line for line in result.errlines + result.outlines)


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        (
            "prob_runs = 0",
            "ERROR: ini option prob_runs=0: expected a whole number of at least 1, got '0'",
        ),
        (
            "prob_delay = x",
            "ERROR: ini option prob_delay=x: expected a number of at least 0, got 'x'",
        ),
        (
            "prob_transpose = maybe",
            "ERROR: ini option prob_transpose=maybe: expected true or false, got 'maybe'",
        ),
    ],
)
def test_bad_ini_values_are_usage_errors(pytester: pytest.Pytester, ini: str, message: str) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(bench_a=ONE_CASE)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.errlines


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        (
            "runs=0",
            "bench_m.py::bench_a: probability mark argument runs=0: expected a whole number of at least 1, got 0",
        ),
        (
            "runs='many'",
            "bench_m.py::bench_a: probability mark argument runs='many': expected a whole number of at least 1, got 'many'",
        ),
        (
            "rusn=3",
            "bench_m.py::bench_a: unknown probability mark argument rusn=3 (did you mean 'runs'?); valid: concurrency, runs, threads",
        ),
    ],
)
def test_bad_mark_values_are_collection_errors_naming_the_case(
    pytester: pytest.Pytester, mark: str, message: str
) -> None:
    pytester.makepyfile(
        bench_m=f"""
        import pytest

        @pytest.mark.probability({mark})
        def bench_a():
            pass

        def bench_fine():
            pass
        """
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert message in result.outlines
    assert "ERROR bench_m.py::bench_a" in result.outlines


def test_bad_mark_on_a_param_names_the_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_m="""
        import pytest

        @pytest.mark.parametrize("x", [1, pytest.param(2, id="two", marks=pytest.mark.probability(runs=-1))])
        def bench_a(x):
            pass
        """
    )
    result = pytester.runpytest()
    assert (
        "bench_m.py::bench_a::two: probability mark argument runs=-1: "
        "expected a whole number of at least 1, got -1"
    ) in result.outlines


def test_runs_precedence_mark_over_cli_over_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nprob_runs = 4\n")
    pytester.makepyfile(
        bench_p="""
        import pytest

        pytestmark = pytest.mark.probability(runs=5)

        @pytest.mark.parametrize("x", [
            pytest.param(1, id="case_mark", marks=pytest.mark.probability(runs=2)),
            pytest.param(2, id="function_mark"),
        ])
        @pytest.mark.probability(runs=3)
        def bench_marked(x):
            pass

        def bench_module_mark():
            pass
        """,
        bench_q="def bench_unmarked():\n    pass\n",
    )
    assert section(pytester.runpytest().outlines)[:4] == [
        "  marked::case_mark      2/2",
        "  marked::function_mark  3/3",
        "  module_mark            5/5",
        "  unmarked               4/4",
    ]
    assert (
        section(pytester.runpytest("--prob-runs=6").outlines)[3] == "  unmarked               6/6"
    )


def test_case_major_and_transposed_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_order="""
        import pytest

        @pytest.mark.parametrize("c", ["alpha", "beta"])
        def bench_o(c):
            pass

        def bench_z():
            pass
        """
    )

    def order(*args: str) -> list[str]:
        result = pytester.runpytest("--collect-only", "-q", "--prob-runs=2", *args)
        return [line for line in result.outlines if "::" in line]

    assert order() == [
        "bench_order.py::bench_o::alpha[run1]",
        "bench_order.py::bench_o::alpha[run2]",
        "bench_order.py::bench_o::beta[run1]",
        "bench_order.py::bench_o::beta[run2]",
        "bench_order.py::bench_z[run1]",
        "bench_order.py::bench_z[run2]",
    ]
    transposed = [
        "bench_order.py::bench_o::alpha[run1]",
        "bench_order.py::bench_o::beta[run1]",
        "bench_order.py::bench_z[run1]",
        "bench_order.py::bench_o::alpha[run2]",
        "bench_order.py::bench_o::beta[run2]",
        "bench_order.py::bench_z[run2]",
    ]
    assert order("--prob-transpose") == transposed
    pytester.makeini("[pytest]\nprob_transpose = true\n")
    assert order() == transposed


def test_transpose_spans_files_and_keeps_rows_in_case_order(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_one="def bench_a():\n    pass\n", bench_two="def bench_b():\n    assert False\n"
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-transpose", "-v")
    result.stdout.fnmatch_lines(
        [
            "bench_one.py::bench_a[[]run1[]] PASSED*",
            "bench_two.py::bench_b[[]run1[]] FAILED*",
            "bench_one.py::bench_a[[]run2[]] PASSED*",
            "bench_two.py::bench_b[[]run2[]] FAILED*",
        ]
    )
    assert section(result.outlines)[:2] == ["  a  2/2", "  b  0/2  FAIL"]


def test_delay_sleeps_between_runs_never_before_the_first(
    pytester: pytest.Pytester, recorded_clock: RecordedClock
) -> None:
    pytester.makepyfile(
        bench_delay="""
        from recorded_clock import clock
        from pytest_probability import current_run

        def bench_a():
            clock.note("run", current_run().run)

        def bench_b():
            clock.note("b", current_run().run)
        """
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-delay=0.2")
    result.assert_outcomes(passed=4)
    # a sleep between executions (also between two cases), none before the first
    assert recorded_clock.events == [
        ("run", 1),
        ("sleep", 0.2),
        ("run", 2),
        ("sleep", 0.2),
        ("b", 1),
        ("sleep", 0.2),
        ("b", 2),
    ]


def test_ini_delay(pytester: pytest.Pytester, recorded_clock: RecordedClock) -> None:
    pytester.makeini("[pytest]\nprob_delay = 0.15\n")
    pytester.makepyfile(bench_a=ONE_CASE)
    pytester.runpytest("--prob-runs=2").assert_outcomes(passed=2)
    assert recorded_clock.events == [("sleep", 0.15)]


def test_no_delay_never_sleeps(pytester: pytest.Pytester, recorded_clock: RecordedClock) -> None:
    pytester.makepyfile(bench_a=ONE_CASE)
    pytester.runpytest("--prob-runs=3").assert_outcomes(passed=3)
    assert recorded_clock.events == []


def test_json_path_in_a_missing_directory_creates_it(pytester: pytest.Pytester) -> None:
    """As --junitxml does (every writer: tests/test_writing.py)."""
    pytester.makepyfile(bench_a=ONE_CASE)
    result = pytester.runpytest("--prob-json=missing_dir/r.json")
    assert result.ret == pytest.ExitCode.OK
    assert (pytester.path / "missing_dir" / "r.json").is_file()


def test_unwritable_json_path_is_a_usage_error_before_running(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a=ONE_CASE)
    (pytester.path / "afile").write_text("a file, not a directory")
    result = pytester.runpytest("--prob-json=afile/r.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: --prob-json=afile/r.json: cannot write the report: 'afile' is not a directory"
    ) in result.errlines
    assert "passed" not in result.stdout.str()
    result = pytester.runpytest(f"--prob-json={pytester.path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: --prob-json={pytester.path}: cannot write the report: it is a directory"
    ) in result.errlines


# -- merging probability(...) marks: alternatives ("min_rate or min_passes") --------------------
def _registry():
    from pytest_probability.options import OptionRegistry

    options = OptionRegistry()
    options.alternatives("min_rate", "min_passes")
    return options


def test_marks_merge_key_by_key_closest_first() -> None:
    merged = _registry().merge_marks([[{"runs": 3}], [{"runs": 5, "confidence": 0.9}], []])
    assert merged == {"runs": 3, "confidence": 0.9}


@pytest.mark.parametrize(
    ("levels", "merged"),
    [
        # a case's count under its function's rate: the count only
        ([[{"min_passes": 15}], [{"min_rate": 0.6, "runs": 20}]], {"min_passes": 15, "runs": 20}),
        # and the other way round
        ([[{"min_rate": 0.5}], [{"min_passes": 3}]], {"min_rate": 0.5}),
        # a level silent on both keeps looking farther out
        (
            [[{"runs": 4}], [], [{"min_passes": 2}], [{"min_rate": 0.9}]],
            {"runs": 4, "min_passes": 2},
        ),
        # the same kind closer and farther: the closer value, as for any key
        ([[{"min_rate": 0.5}], [{"min_rate": 0.9}]], {"min_rate": 0.5}),
    ],
)
def test_a_closer_alternative_replaces_the_farther_ones(
    levels: list[list[dict[str, object]]], merged: dict[str, object]
) -> None:
    assert _registry().merge_marks(levels) == merged


@pytest.mark.parametrize(
    "level",
    [[{"min_rate": 0.5, "min_passes": 1}], [{"min_rate": 0.5}, {"min_passes": 1}]],
    ids=["one-mark", "two-marks-one-place"],
)
def test_one_place_setting_two_alternatives_is_an_error(level: list[dict[str, object]]) -> None:
    from pytest_probability.options import OptionError

    with pytest.raises(OptionError) as raised:
        _registry().merge_marks([[{"runs": 2}], level])
    assert str(raised.value) == (
        "probability mark sets min_rate=0.5 and min_passes=1: a mark takes min_rate or "
        "min_passes, not both"
    )


def test_alternatives_need_two_keys() -> None:
    with pytest.raises(ValueError, match="at least two mark keys"):
        _registry().alternatives("min_rate")
