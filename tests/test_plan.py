"""The plan extension: --prob-plan budgets, power, flakes, sequential expectations."""

from __future__ import annotations

import random
import re
import tomllib

import pytest
from helpers import load_json, section
from pytest_probability.extensions.plan.power import (
    catch_chance,
    pass_chance,
    runs_for_power,
    runs_to_catch,
)
from pytest_probability.extensions.stopping.curtail import FAIL, PASS, UNDECIDED, Thresholds
from pytest_probability.extensions.stopping.planning import expected_runs_sequential
from pytest_probability.stats.rate_intervals import clopper_pearson
from scipy import stats

PLAN_BENCH = """
import pytest

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("kind", ["is_question", "identify_pii"])
def bench_classify(kind):
    raise AssertionError("a plan runs nothing")

@pytest.mark.probability(min_passes=19, runs=20)
def bench_count():
    raise AssertionError("a plan runs nothing")

def bench_smoke():
    raise AssertionError("a plan runs nothing")
"""


def _exact_verdict(bar: float):
    def verdict(passes: int, n: int) -> str:
        if n == 0:
            return UNDECIDED
        found = clopper_pearson(passes, n, 0.95)
        return PASS if found.low > bar else FAIL if found.high < bar else UNDECIDED

    return verdict


def _tail_verdict(bar: float):  # the gate's own (binomial tail) form of the exact verdict
    from pytest_probability.extensions.gates.rate import RateSpec, rate_verdict
    from pytest_probability.extensions.intervals.service import Settings

    spec = RateSpec(bar, Settings("exact", 0.95, (1.0, 1.0)))
    return lambda passes, n: rate_verdict(spec, passes, n, None)  # type: ignore[arg-type]


def test_plan_prints_a_budget_and_runs_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_plan=PLAN_BENCH)
    result = pytester.runpytest("--prob-runs=40", "--prob-plan", "--prob-json=r.json")
    assert result.ret == 0
    result.assert_outcomes()  # nothing ran
    lines = section(result.outlines, "probability: plan")
    assert lines[0] == "  assuming each run passes with probability 0.97; nothing ran"
    assert lines[1].split() == [
        "case", "runs", "gate", "min", "runs", "80%", "power", "P(pass)", "seq", "E[runs]",
        "catch", "10%", "catch", "1%",
    ]  # fmt: skip
    thresholds = Thresholds(_exact_verdict(0.9))
    power = runs_for_power(thresholds, 0.97, start=36)
    chance = pass_chance(thresholds, 40, 0.97)
    cells = lines[2].split()
    assert cells[:5] == ["classify::is_question", "40", "≥90%", "36", str(power)]
    assert cells[5] == f"{round(chance * 100)}%"
    assert cells[-2:] == ["99%", "33%"]  # 1 − 0.9⁴⁰, 1 − 0.99⁴⁰
    count = lines[4].split()
    assert count[:4] == ["count", "20", "≥19/20", "19"]
    assert count[5] == f"{round(stats.binom.sf(18, 20, 0.97) * 100)}%"
    assert lines[5].split()[:4] == ["smoke", "40", "—", "—"]
    assert (
        lines[-2] == "  with 95% probability: 29 runs catch a 10% flake, 299 runs catch a 1% flake"
    )
    assert lines[-1] == "  140 runs planned"
    plan = load_json(pytester.path / "r.json")["plan"]
    assert plan["assume"] == 0.97 and plan["total_runs"] == 140
    assert plan["runs_to_catch"] == {"10%": 29, "1%": 299}
    first = plan["cases"][0]
    assert (first["min_runs"], first["power_runs"], first["gate"]) == (36, power, "≥90%")
    assert first["pass_chance"] == pytest.approx(chance)


def _cp_low(passes: int, n: int) -> float:
    """The exact (Clopper–Pearson) 95% interval's low end, from scipy."""
    return 0.0 if passes == 0 else float(stats.beta.ppf(0.025, passes, n - passes + 1))


#: A third party's count-like gate kind next to the rate gate (one mark cannot hold both
#: bundled gates: ``min_rate`` and ``min_passes`` are one choice, docs/gates.rst).
FLOOR_CONFTEST = """
from pytest_probability.extensions.gates.registry import GateResult


def _verdict(spec, passes, n, config):
    return "pass" if passes >= spec else "fail"


def pytest_prob_register_gates(register, config):
    floors = {0.8: 39, 0.9: 30}
    register(
        "floor",
        configure=lambda mark, config: floors.get(mark.get("min_rate")),
        judge=lambda spec, case, config: GateResult(
            "floor", _verdict(spec, case.passes, case.total, config), f">= {spec}"
        ),
        minimum_runs=lambda spec, config: spec,
        describe=lambda spec: f"floor={spec}",
        verdict_at=_verdict,
    )
"""


@pytest.mark.parametrize(
    ("bar", "floor", "needed"),
    [
        (0.8, 39, lambda k_rate: max(k_rate, 39)),
        (0.9, 30, lambda k_rate: max(k_rate, 30)),
    ],
    ids=["count-stricter", "rate-stricter"],
)
def test_a_case_with_two_gates_is_planned_on_both(
    pytester: pytest.Pytester, bar: float, floor: int, needed
) -> None:
    """A case held to a rate and a second pass-count gate (a third party's) passes only
    when both pass: its P(pass), power and min runs are those of the stricter of the two at
    each run count (binomial tails from scipy), and no sequential expectation is given
    without ``--prob-stop`` (the column is about a lone rate gate)."""
    pytester.makeconftest(FLOOR_CONFTEST)
    pytester.makepyfile(
        bench_both=f"""
import pytest

@pytest.mark.probability(min_rate={bar}, runs=40)
def bench_both():
    raise AssertionError("a plan runs nothing")
"""
    )
    result = pytester.runpytest("--prob-plan", "--prob-json=r.json")
    assert result.ret == 0
    shown = f"≥{round(bar * 100)}% & floor={floor}"

    def k_rate(n: int) -> int:  # the fewest passes of n the rate gate passes with
        return next((k for k in range(n + 1) if _cp_low(k, n) > bar), n + 1)

    def chance(n: int) -> float:
        k = needed(k_rate(n))
        return 0.0 if k > n else float(stats.binom.sf(k - 1, n, 0.97))

    min_runs = max(next(n for n in range(1, 200) if k_rate(n) <= n), floor)
    power = next(n for n in range(min_runs, 2000) if chance(n) >= 0.8)
    row = load_json(pytester.path / "r.json")["plan"]["cases"][0]
    assert row["gate"] == shown
    assert (row["min_runs"], row["power_runs"]) == (min_runs, power)
    assert row["pass_chance"] == pytest.approx(chance(40), abs=1e-12)
    assert row["sequential_runs"] is None
    cells = section(result.outlines, "probability: plan")[2].split()
    assert cells[:7] == ["both", "40", *shown.split(), str(min_runs), str(power)]


def test_plan_report_costs_and_toml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_plan="""
from pytest_probability import record_cost

def bench_paid():
    record_cost(0.002)
"""
    )
    pytester.runpytest("--prob-runs=5", "--prob-json=earlier.json")
    result = pytester.runpytest(
        "--prob-runs=40",
        "--prob-plan",
        "--prob-plan-report=earlier.json",
        "--prob-plan-write=plan.toml",
        "--prob-plan-flake=0.05",
    )
    assert result.ret == 0
    lines = section(result.outlines, "probability: plan")
    assert lines[2].split() == ["paid", "40", "—", "—", "—", "—", "—", "87%", "$0.0800"]
    assert lines[-1] == "  40 runs planned, about $0.0800 at the cost per run of earlier.json"
    tight = pytester.runpytest(
        "--prob-runs=40", "--prob-plan", "--prob-plan-report=earlier.json", "--prob-budget=0.05"
    )
    assert section(tight.outlines, "probability: plan")[-1] == (
        "  40 runs planned, about $0.0800 at the cost per run of earlier.json; over the budget "
        "of $0.0500 by $0.0300"
    )
    written = tomllib.loads((pytester.path / "plan.toml").read_text())
    assert written["flakes"] == [0.05]
    assert written["cases"][0]["cost"] == pytest.approx(0.08)
    assert written["runs_to_catch"] == {"5%": 59}


def test_a_projected_cost_past_the_largest_float_is_a_clear_note(
    pytester: pytest.Pytester,
) -> None:
    """Two cases costing 1.7e308 a run (issue 21 §2): ``math.fsum`` raised "intermediate
    overflow", so the plan section was lost to a failed-extension section and the plan file
    was never written."""
    pytester.makepyfile(
        bench_plan="""
from pytest_probability import record_cost

def bench_a():
    record_cost(1.7e308)

def bench_b():
    record_cost(1.7e308)
"""
    )
    pytester.runpytest("--prob-json=earlier.json")
    result = pytester.runpytest(
        "--prob-plan",
        "--prob-plan-report=earlier.json",
        "--prob-plan-write=plan.toml",
        "--prob-json=plan.json",
        "--prob-budget=5",
    )
    assert result.ret == 0
    assert not any("failed" in line for line in result.outlines)
    lines = section(result.outlines, "probability: plan")
    assert [line.split()[-1] for line in lines[2:4]] == ["$1.7e+308", "$1.7e+308"]
    reason = (
        "the projected costs add up to more than the largest number a float holds, about 1.8e308"
    )
    assert lines[-1] == (
        f"  2 runs planned, about overflow at the cost per run of earlier.json ({reason}); "
        "over the budget of $5.0000"
    )
    note = (
        f"the plan's projected cost overflowed: {reason}; it is shown as 'overflow' and written "
        "as null (inf in the plan file)"
    )
    document = load_json(pytester.path / "plan.json")
    assert document["warnings"] == [note]
    assert f"  warning: {note}" in result.outlines
    assert document["plan"]["total_cost"] is None
    assert [case["cost"] for case in document["plan"]["cases"]] == [1.7e308, 1.7e308]
    written = tomllib.loads((pytester.path / "plan.toml").read_text(encoding="utf-8"))
    assert written["total_cost"] == float("inf")
    assert [case["cost"] for case in written["cases"]] == [1.7e308, 1.7e308]


def test_plan_toml_prints_readable_decimals(pytester: pytest.Pytester) -> None:
    # 6 runs of 0.00075 cost 0.0045; 0.0045 / 6 * 10 is 0.007499999999999999 in floats
    pytester.makepyfile(
        bench_plan="""
import pytest
from pytest_probability import record_cost

@pytest.mark.probability(min_rate=0.9)
def bench_paid():
    record_cost(0.00075)
"""
    )
    pytester.runpytest("--prob-runs=6", "--prob-json=earlier.json")
    result = pytester.runpytest(
        "--prob-runs=10",
        "--prob-plan",
        "--prob-plan-report=earlier.json",
        "--prob-plan-write=plan.toml",
        "--prob-json=plan.json",
    )
    assert result.ret == 0
    text = (pytester.path / "plan.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert "cost = 0.0075" in lines and "total_cost = 0.0075" in lines
    as_json = load_json(pytester.path / "plan.json")["plan"]["cases"][0]
    assert as_json["cost"] == 0.0045 / 6 * 10 == 0.007499999999999999  # the JSON: as computed
    written = tomllib.loads(text)["cases"][0]
    assert written["cost"] == 0.0075
    # every float at most 15 significant digits, and within a float's noise of the JSON's
    chance = as_json["catch"][1]["chance"]  # 1 − 0.99**10: 16 significant digits
    assert chance == catch_chance(10, 0.01) and len(repr(chance).lstrip("0.")) > 15
    assert written["catch"][1]["chance"] == float(f"{chance:.15g}") != chance
    assert written["pass_chance"] == float(f"{as_json['pass_chance']:.15g}")
    for number in re.findall(r"[0-9][0-9.e+-]*", text):
        digits = number.split("e")[0].replace(".", "").lstrip("0")
        assert len(digits) <= 15, number


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prob-plan", "-n", "2"], "ERROR: --prob-plan runs nothing and plans from the*"),
        (["--prob-plan-report=x.json"], "ERROR: --prob-plan-report needs --prob-plan"),
        (["--prob-plan", "--prob-plan-flake=10"], "ERROR: --prob-plan-flake=10: expected*"),
        (["--prob-plan", "--prob-plan-report=missing.json"], "ERROR: --prob-plan-report=*"),
    ],
)
def test_plan_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile(bench_plan=PLAN_BENCH)
    result = pytester.runpytest(*args)
    assert result.ret == 4
    result.stderr.fnmatch_lines([message])


# -- the numbers ----------------------------------------------------------------------------------
def test_spec_figures() -> None:
    assert runs_to_catch(0.1) == 29  # 29 runs catch a 10% flake with 95% probability
    assert catch_chance(29, 0.1) >= 0.95 > catch_chance(28, 0.1)
    assert runs_to_catch(0.01) == 299


@pytest.mark.parametrize(
    ("bar", "rate", "start"),
    [(0.9, 0.97, 36), (0.8, 0.9, 17), (0.5, 0.7, 1), (0.96, 0.97, 1), (0.95, 0.97, 1)],
)
def test_runs_for_power_is_the_first_run_count_reaching_80(
    bar: float, rate: float, start: int
) -> None:
    thresholds = Thresholds(_exact_verdict(bar))
    found = runs_for_power(thresholds, rate, start=start)
    assert found is not None
    # scan every run count (each threshold from its neighbour's): none earlier reaches 80%
    tail = Thresholds(_tail_verdict(bar))
    guess = 0
    for n in range(start, found):
        guess = tail.pass_min_near(n, guess)
        assert guess > n or stats.binom.sf(guess - 1, n, rate) < 0.8, n
    assert pass_chance(thresholds, found, rate) >= 0.8
    # and the power is what a simulation of the gate says
    if found > 500:
        return  # the simulation below is for the small cases
    rng = random.Random(5)
    replicates = 4000
    passing = 0
    for _ in range(replicates):
        passes = sum(rng.random() < rate for _ in range(found))
        passing += _exact_verdict(bar)(passes, found) == PASS
    assert abs(passing / replicates - pass_chance(thresholds, found, rate)) < 4 * 0.5 / 63


def test_unreachable_power() -> None:
    thresholds = Thresholds(_exact_verdict(0.99))
    assert runs_for_power(thresholds, 0.97, start=300) is None


@pytest.mark.parametrize(("bar", "planned", "rate"), [(0.9, 100, 0.97), (0.9, 100, 0.8)])
def test_expected_sequential_runs_match_a_simulation(bar: float, planned: int, rate: float) -> None:
    """The expectation is that of the stopper's own rule (the registered ``sequential``
    rule, asked before each run after the first, UNDECIDED stops included), simulated here
    run by run; tests/test_plan_stopping.py holds the exact and the 10⁵-path checks."""
    from pytest_probability.extensions.stopping.plugin import sequential_rule
    from pytest_probability.extensions.stopping.sequence import confidence_sequence
    from pytest_probability.extensions.stopping.service import StopContext

    def seq_verdict(passes: int, n: int) -> str:
        if n == 0:
            return UNDECIDED
        low, high = confidence_sequence(passes, n, 0.95)
        return PASS if low > bar else FAIL if high < bar else UNDECIDED

    gate = Thresholds(seq_verdict)
    rng = random.Random(9)
    replicates = 3000
    total = 0
    for _ in range(replicates):
        passes = made = 0
        while made < planned:
            context = StopContext(None, passes, made, planned - made, planned, (gate,), ("rate",))  # type: ignore[arg-type]
            if made and sequential_rule(context) is not None:
                break
            passes += rng.random() < rate
            made += 1
        total += made
    expected = expected_runs_sequential(bar, 0.95, planned, rate)
    assert abs(total / replicates - expected) < 1.0


def test_plan_with_a_metric_prints_no_empty_metrics_section(pytester: pytest.Pytester) -> None:
    """Nothing ran under --prob-plan, so the metrics extension has no lines: no empty
    ``probability: metrics`` header after the plan (issue 27)."""
    pytester.makepyfile(
        bench_a="""
import pytest

@pytest.mark.probability(min_rate=0.5)
def bench_a():
    pass
"""
    )
    result = pytester.runpytest("--prob-plan", "--prob-metric=pass^2")
    headers = [line for line in result.outlines if "probability" in line and "===" in line]
    assert len(headers) == 1 and "probability: plan" in headers[0], headers


def test_no_extension_prints_an_empty_section(pytester: pytest.Pytester) -> None:
    """A kernel rule: a section with no lines, or only blank ones, is not printed,
    whichever extension contributes it (here a third party's, from a conftest)."""
    pytester.makeconftest(
        """
def pytest_prob_build_report(report, results, config):
    report.add_section("empty", [], order=10)
    report.add_section("blank", ["", "   "], order=11)
    report.add_section("full", ["  one line"], order=12)
"""
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=2")
    text = "\n".join(result.outlines)
    assert "probability: empty" not in text and "probability: blank" not in text
    result.stdout.fnmatch_lines(["*= probability: full =*", "  one line"])
