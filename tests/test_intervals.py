"""The intervals extension end to end: the interval column, settings, function-level lines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import load_json, section
from pytest_probability.extensions.intervals import aggregate
from pytest_probability.formatting.percentages import (
    interval_cells,
    percent,
    percent1,
    signed_percent,
)
from scipy import stats
from statsmodels.stats.proportion import proportion_confint


def test_spec_table_with_intervals(spec_bench: pytest.Pytester) -> None:
    result = spec_bench.runpytest("--prob-runs=10", "--prob-json=r.json")
    assert section(result.outlines) == [
        "  classify::is_question            10/10  [69%, 100%]",
        "  classify::identify_pii            7/10  [35%,  93%]  FLAKY",
        "  classify::extract_amount          0/10  [ 0%,  31%]  FAIL",
        "  triage::refund-terse              8/10  [44%,  97%]  FLAKY",
        "  triage::refund-chain_of_thought  10/10  [69%, 100%]",
        "",
        "  Overall: 35/50 passed (70%)",
    ]
    rows = load_json(spec_bench.path / "r.json")["rows"]
    ci = rows[1]["ci"]
    assert ci["method"] == "exact" and ci["level"] == 0.95
    ref = proportion_confint(7, 10, alpha=0.05, method="beta")
    assert ci["low"] == pytest.approx(ref[0], abs=1e-12)
    assert ci["high"] == pytest.approx(ref[1], abs=1e-12)
    assert rows[0]["ci"]["low"] == pytest.approx(0.025 ** (1 / 10), abs=1e-12)


def test_no_intervals_hides_the_column_but_not_the_json(spec_bench: pytest.Pytester) -> None:
    result = spec_bench.runpytest("--prob-runs=10", "--prob-no-intervals", "--prob-json=r.json")
    assert section(result.outlines)[1] == "  classify::identify_pii            7/10  FLAKY"
    assert "ci" in load_json(spec_bench.path / "r.json")["rows"][1]
    spec_bench.makeini("[pytest]\nprob_intervals = false\n")
    result = spec_bench.runpytest("--prob-runs=10")
    assert section(result.outlines)[1] == "  classify::identify_pii            7/10  FLAKY"


def test_one_run_rows_have_no_interval_cell(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_one="""
        import pytest

        @pytest.mark.probability(runs=4)
        def bench_many():
            pass

        def bench_single():
            pass
        """
    )
    assert section(pytester.runpytest().outlines)[:2] == [
        "  many    4/4  [40%, 100%]",
        "  single  1/1",
    ]
    pytester.makepyfile(bench_one="def bench_single():\n    pass\n")
    assert section(pytester.runpytest().outlines)[0] == "  single  1/1"


@pytest.mark.parametrize(
    ("args", "method", "reference"),
    [
        (["--prob-method=wilson"], "wilson", lambda x, n: proportion_confint(x, n, 0.05, "wilson")),
        (
            ["--prob-method=bayes", "-o", "prob_prior=0.5,0.5"],
            "bayes",
            lambda x, n: proportion_confint(x, n, 0.05, "jeffreys"),
        ),
        (
            ["--prob-method=bayes", "--prob-confidence=0.9", "-o", "prob_prior=2,3"],
            "bayes",
            lambda x, n: stats.beta.ppf([0.05, 0.95], 2 + x, 3 + n - x),
        ),
        (
            ["--prob-confidence=0.8"],
            "exact",
            lambda x, n: proportion_confint(x, n, 0.2, "beta"),
        ),
    ],
)
def test_methods_levels_and_priors(
    spec_bench: pytest.Pytester, args: list[str], method: str, reference: object
) -> None:
    spec_bench.runpytest("--prob-runs=10", "--prob-json=r.json", *args)
    rows = load_json(spec_bench.path / "r.json")["rows"]
    for row in rows:
        low, high = reference(row["passes"], row["total"])  # type: ignore[operator]
        if "prob_prior=0.5,0.5" in args and row["passes"] in (0, row["total"]):
            continue  # statsmodels' jeffreys pins the ends to 0/1; the credible interval does not
        assert row["ci"]["method"] == method
        assert row["ci"]["low"] == pytest.approx(max(low, 0.0), abs=1e-10)
        assert row["ci"]["high"] == pytest.approx(min(high, 1.0), abs=1e-10)


def test_mark_settings_override_per_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_m="""
        import pytest
        from pytest_probability import current_run

        @pytest.mark.probability(method="wilson", confidence=0.9)
        @pytest.mark.parametrize("x", [
            pytest.param(1, id="function_settings"),
            pytest.param(2, id="case_settings",
                         marks=pytest.mark.probability(method="bayes", prior=(2, 2))),
        ])
        def bench_a(x):
            assert current_run().run not in (2, 5, 9)
        """
    )
    pytester.runpytest("--prob-runs=10", "--prob-json=r.json")
    rows = load_json(pytester.path / "r.json")["rows"]
    wilson = proportion_confint(7, 10, alpha=0.1, method="wilson")
    assert rows[0]["ci"]["method"] == "wilson" and rows[0]["ci"]["level"] == 0.9
    assert rows[0]["ci"]["low"] == pytest.approx(wilson[0], abs=1e-10)
    bayes = stats.beta.ppf([0.05, 0.95], 2 + 7, 2 + 3)
    assert rows[1]["ci"]["method"] == "bayes" and rows[1]["ci"]["level"] == 0.9
    assert [rows[1]["ci"]["low"], rows[1]["ci"]["high"]] == pytest.approx(list(bayes), abs=1e-10)


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (
            ["--prob-confidence=1.5"],
            "",
            "ERROR: --prob-confidence=1.5: expected a number between 0 and 1 (exclusive), got '1.5'",
        ),
        (
            ["-o", "prob_prior=0,1"],
            "",
            "ERROR: ini option prob_prior=0,1: expected two positive numbers 'a,b' such as '1,1', got '0,1'",
        ),
        (
            ["--prob-bootstrap=0"],
            "",
            "ERROR: --prob-bootstrap=0: expected a whole number of at least 1, got '0'",
        ),
        (
            ["--prob-method=nope"],
            "",
            "ERROR: --prob-method=nope: unknown interval method 'nope'; registered: exact, wilson, bayes, seq",
        ),
        (
            [],
            "prob_min_inputs = 1",
            "ERROR: ini option prob_min_inputs=1: expected a whole number of at least 2, got '1'",
        ),
        (
            [],
            "prob_method = Exact",
            "ERROR: ini option prob_method=Exact: unknown interval method 'Exact'; registered: exact, wilson, bayes, seq",
        ),
        (
            ["--prob-seed=-1"],
            "",
            "ERROR: --prob-seed=-1: expected a whole number of at least 0, got '-1'",
        ),
    ],
)
def test_bad_settings_are_usage_errors(
    pytester: pytest.Pytester, args: list[str], ini: str, message: str
) -> None:
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest(*args, "-p", "no:probability.agresti-coull")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.errlines


def test_bad_mark_method_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_m="""
        import pytest

        @pytest.mark.probability(method="nope")
        def bench_a():
            pass
        """
    )
    result = pytester.runpytest("-p", "no:probability.agresti-coull")
    assert (
        "bench_m.py::bench_a: probability mark argument method='nope': "
        "unknown interval method 'nope'; registered: exact, wilson, bayes, seq"
    ) in result.outlines


def test_registered_by_conftest_like_a_third_party(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_prob_register_interval_methods(register, config):
            register("everything", lambda passes, total, level, prior: (0.0, 1.0))
        """
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=3", "--prob-method=everything")
    assert section(result.outlines)[0] == "  a  3/3  [0%, 100%]"


def test_broken_method_marks_its_cells_only(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        def pytest_prob_register_interval_methods(register, config):
            register("broken", lambda passes, total, level, prior: (0.9, 0.1))
        """
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=3", "--prob-method=broken")
    lines = section(result.outlines)
    assert lines[0] == "  a  3/3  [error]"
    assert lines[-1] == (
        "  warning: interval for a failed: ValueError: interval method 'broken' returned "
        "(0.9, 0.1) for 3/3; expected 0 ≤ low ≤ high ≤ 1"
    )


# -- printing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (0.3475, "35%"),
        (0.9333, "93%"),
        (0.997, "99%"),
        (0.0, "0%"),
        (1.0, "100%"),
        (0.003, "1%"),
        (0.125, "13%"),
        (0.6915, "69%"),
    ],
)
def test_percent(fraction: float, text: str) -> None:
    assert percent(fraction) == text


def test_percent1_and_signed() -> None:
    assert [percent1(x) for x in (0.81, 0.695, 0.9999, 1.0, 0.00001)] == [
        "81.0%",
        "69.5%",
        "99.9%",
        "100.0%",
        "0.1%",
    ]
    assert [signed_percent(x) for x in (-0.0077, -0.2929, 0.04, 0.0, -0.004)] == [
        "−1%",
        "−29%",
        "+4%",
        "0%",
        "0%",
    ]


def test_interval_cells_pad_each_bound_column_wide() -> None:
    cells = interval_cells({"a": (0.6915, 1.0), "b": (0.3475, 0.9333), "c": (0.0, 0.3085)})
    assert cells == {"a": "[69%, 100%]", "b": "[35%,  93%]", "c": "[ 0%,  31%]"}


# -- function-level lines --------------------------------------------------------------------


def _reference_icc(counts: list[tuple[int, int]]) -> float:
    """ICC(1) from scipy's one-way ANOVA F on the 0/1 outcomes: (F − 1)/(F + k0 − 1)."""
    groups = [[1] * x + [0] * (k - x) for x, k in counts]
    f_value = stats.f_oneway(*groups).statistic
    m = sum(k for _, k in counts)
    k0 = (m - sum(k * k for _, k in counts) / m) / (len(counts) - 1)
    return min(1.0, max(0.0, (f_value - 1) / (f_value + k0 - 1)))


@pytest.mark.parametrize(
    "counts",
    [
        [(3, 10), (10, 10), (7, 10), (0, 10), (9, 10), (5, 10)],
        [(1, 5), (4, 7), (9, 10), (2, 3), (6, 6), (0, 8), (3, 4)],
        [(x % 11, 10) for x in range(40)],
    ],
)
def test_icc_matches_anova(counts: list[tuple[int, int]]) -> None:
    assert aggregate.icc1(counts) == pytest.approx(_reference_icc(counts), abs=1e-12)


def test_icc_undefined_cases() -> None:
    assert aggregate.icc1([(5, 5), (3, 3)]) is None  # every run passed
    assert aggregate.icc1([(1, 1), (0, 1), (1, 1)]) is None  # one run per case
    assert aggregate.icc1([(3, 5)]) is None  # one case
    assert aggregate.icc1([(5, 5), (0, 5)]) == 1.0  # each input consistently right or wrong


def test_projection_reproduces_the_spec() -> None:
    # classify: ρ=0.76, k=10 → runs ×2 → −1%; inputs ×2 → −29% always
    assert signed_percent(aggregate.runs_doubling(10, 0.76)) == "−1%"
    assert signed_percent(aggregate.INPUTS_X2) == "−29%"
    w = math.sqrt((1 + 9 * 0.76) / 10)
    assert aggregate.width_factor(10, 0.76) == pytest.approx(w, abs=1e-15)
    assert aggregate.harmonic_mean([5, 10]) == pytest.approx(2 / (1 / 5 + 1 / 10))


def test_render_layout_matches_the_spec() -> None:
    lines = [
        aggregate.Aggregate(
            "classify",
            "function",
            40,
            10,
            10,
            0.81,
            0.695,
            0.908,
            0.95,
            0.76,
            aggregate.runs_doubling(10, 0.76),
            5000,
            0,
            0.04,
        ),
        aggregate.Aggregate(
            "triage", "function", 15, 5, 10, 0.593, 0.473, 0.707, 0.95, 0.09, -0.15, 5000, 0, 0.0125
        ),
        aggregate.Aggregate(
            "Overall", "overall", 55, 5, 10, 0.751, 0.66, 0.838, 0.95, 0.56, -0.02, 5000, 0, 0.0525
        ),
    ]
    assert aggregate.render(lines) == [
        "  classify  N=40 inputs × k=10    81.0%  [69.5%, 90.8%]  ρ=0.76",
        "            runs ×2 → interval −1%  ·  inputs ×2 → −29%  ·  each +$0.0400",
        "  triage    N=15 inputs × k=5–10  59.3%  [47.3%, 70.7%]  ρ=0.09",
        "            runs ×2 → interval −15%  ·  inputs ×2 → −29%  ·  each +$0.0125",
        "  Overall   N=55 inputs × k=5–10  75.1%  [66.0%, 83.8%]  ρ=0.56",
        "            runs ×2 → interval −2%  ·  inputs ×2 → −29%  ·  each +$0.0525",
    ]


FUNCTION_BENCH = """
import pytest
from pytest_probability import current_run

# passes out of 10 runs per input, decided by the run index
CLASSIFY = [10, 10, 9, 0, 7, 10, 3, 10, 8, 10, 1, 10]
TRIAGE = [6, 2, 9, 4, 5, 7, 3, 8, 6, 5]

@pytest.mark.parametrize("passes", CLASSIFY, ids=[f"c{i:02d}" for i in range(len(CLASSIFY))])
def bench_classify(passes):
    assert current_run().run <= passes

@pytest.mark.parametrize("passes", TRIAGE, ids=[f"t{i:02d}" for i in range(len(TRIAGE))])
def bench_triage(passes):
    assert current_run().run <= passes

def bench_small():
    pass
"""


def test_function_level_lines_end_to_end(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_f=FUNCTION_BENCH)
    result = pytester.runpytest("--prob-runs=10", "--prob-json=r.json")
    lines = section(result.outlines)
    block = lines[lines.index("  Overall: 153/230 passed (67%)") + 2 :]
    assert block == [
        "  classify  N=12 inputs × k=10  73.3%  [51.7%, 91.7%]  ρ=0.66",
        "            runs ×2 → interval −1%  ·  inputs ×2 → −29%",
        "  triage    N=10 inputs × k=10  55.0%  [43.0%, 68.0%]  ρ=0.10",
        "            runs ×2 → interval −13%  ·  inputs ×2 → −29%",
        "  Overall   N=23 inputs × k=10  66.5%  [53.5%, 79.1%]  ρ=0.40",
        "            runs ×2 → interval −3%  ·  inputs ×2 → −29%",
    ]
    report = load_json(pytester.path / "r.json")
    classify = report["aggregates"][0]
    assert classify["label"] == "classify" and classify["scope"] == "function"
    assert classify["inputs"] == 12 and classify["runs_min"] == classify["runs_max"] == 10
    assert classify["estimate"] == pytest.approx(88 / 120)
    assert classify["icc"] == pytest.approx(
        _reference_icc([(p, 10) for p in [10, 10, 9, 0, 7, 10, 3, 10, 8, 10, 1, 10]]), abs=1e-12
    )
    assert classify["resamples"] == 5000 and classify["seed"] == 0
    assert classify["ci"]["method"] == "bootstrap" and classify["ci"]["level"] == 0.95
    assert [a["label"] for a in report["aggregates"]] == ["classify", "triage", "Overall"]
    # an independent bootstrap (numpy) lands on the same interval within Monte Carlo error
    values = np.array([p / 10 for p in [10, 10, 9, 0, 7, 10, 3, 10, 8, 10, 1, 10]])
    rng = np.random.default_rng(1)
    means = values[rng.integers(0, len(values), size=(200_000, len(values)))].mean(axis=1)
    ref_low, ref_high = np.quantile(means, [0.025, 0.975])
    assert classify["ci"]["low"] == pytest.approx(ref_low, abs=0.02)
    assert classify["ci"]["high"] == pytest.approx(ref_high, abs=0.02)


def test_function_lines_are_deterministic_per_seed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_f=FUNCTION_BENCH)
    first = section(pytester.runpytest("--prob-runs=10").outlines)
    again = section(pytester.runpytest("--prob-runs=10", "--prob-transpose").outlines)
    other = section(pytester.runpytest("--prob-runs=10", "--prob-seed=7").outlines)
    assert first == again
    assert first != other
    fewer = section(pytester.runpytest("--prob-runs=10", "-o", "prob_min_inputs=13").outlines)
    assert not any("classify  N=" in line for line in fewer)
    assert any(line.startswith("  Overall  N=23 inputs") for line in fewer)
    assert any("classify  N=12" in line for line in first)


def test_function_line_cost_comes_from_recorded_cost(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
        import pytest
        from pytest_probability import record_cost

        @pytest.fixture(autouse=True)
        def spend():  # fixture setup runs inside the run: its cost counts
            record_cost(0.001)
        """
    )
    pytester.makepyfile(bench_f=FUNCTION_BENCH)
    lines = section(pytester.runpytest("--prob-runs=10").outlines)
    assert "            runs ×2 → interval −1%  ·  inputs ×2 → −29%  ·  each +$0.1200" in lines
    assert "            runs ×2 → interval −3%  ·  inputs ×2 → −29%  ·  each +$0.2300" in lines


@pytest.mark.subprocess
def test_parallel_intervals_equal_serial(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_f=FUNCTION_BENCH)
    serial = pytester.runpytest_subprocess("--prob-runs=10", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess("--prob-runs=10", "-n", "2", "--prob-json=p.json")
    assert section(serial.outlines) == section(parallel.outlines)
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert one["aggregates"] == two["aggregates"]
    assert [r["ci"] for r in one["rows"]] == [r["ci"] for r in two["rows"]]


# -- percentages round half up on the decimal value, everywhere ---------------------------------
@pytest.mark.parametrize(
    ("value", "whole", "one_decimal", "signed"),
    [
        (0.4125, "41%", "41.3%", "+41%"),  # 0.4125 is 0.41249999999999997… in binary
        (0.0125, "1%", "1.3%", "+1%"),
        (0.045, "5%", "4.5%", "+5%"),  # 0.04499999999999999…
        (0.285, "29%", "28.5%", "+29%"),
        (0.00125, "1%", "0.1%", "0%"),
        (-0.125, None, None, "−13%"),
    ],
)
def test_percentages_round_half_up_on_the_decimal_value(
    value: float, whole: str | None, one_decimal: str | None, signed: str
) -> None:
    if whole is not None:
        assert (percent(value), percent1(value)) == (whole, one_decimal)
    assert signed_percent(value) == signed


def test_every_percent_and_point_formatter_rounds_the_same_way() -> None:
    """The rows, aggregates, differences, HTML, Markdown, explain and plan formatters all
    round half up on the decimal value (before: the aggregates printed 0.4125 as 41.2% and
    the HTML page rounded points half to even)."""
    from pytest_probability.extensions.comparisons.report.render import signed_pp
    from pytest_probability.extensions.html import fmt as html
    from pytest_probability.extensions.markdown import render as markdown
    from pytest_probability.extensions.plan.rows import percent as chance
    from pytest_probability.formatting.fractions import whole_percent
    from pytest_probability.formatting.readings import percent as said
    from pytest_probability.formatting.rounding import ratio_percent

    assert [said(0.4125, 1), html.percent1(0.4125), markdown.percent1(0.4125)] == ["41.3%"] * 3
    assert [said(0.045), html.percent(0.045), markdown.percent(0.045), chance(0.045)] == (
        ["5%"] * 4
    )
    assert [
        f"{signed_pp(0.125)} pp",
        html.points(0.125),
        f"{markdown.signed_points(0.125)} pp",
    ] == (["+13 pp"] * 3)
    assert [signed_pp(-0.285), markdown.signed_points(-0.285)] == ["−29", "−29"]
    assert html.points(-0.285) == "−29 pp"
    assert whole_percent(1, 8) == "13%" and str(ratio_percent(1, 8)) == "13"  # 12.5 exactly


AGGREGATE_TIE_BENCH = """
import pytest
from pytest_probability import current_run

PASSES = [4, 4, 4, 4, 3, 3, 3, 3, 3, 2]  # 33 of 80: a mean of 0.4125

@pytest.mark.parametrize("passes", PASSES, ids=[f"c{i}" for i in range(len(PASSES))])
def bench_tie(passes):
    assert current_run().run <= passes
"""


def test_aggregate_line_rounds_41_25_up(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_t=AGGREGATE_TIE_BENCH)
    result = pytester.runpytest("--prob-runs=8", "--prob-json=r.json")
    (line,) = [x for x in section(result.outlines) if x.startswith("  tie  N=")]
    assert line.startswith("  tie  N=10 inputs × k=8  41.3%  [")
    assert load_json(pytester.path / "r.json")["aggregates"][0]["estimate"] == 0.4125
