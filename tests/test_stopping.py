"""The stopping extension: --prob-stop=curtail gives the verdicts of running every run."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from helpers import load_json, section
from pytest_probability.extensions.stopping.curtail import (
    FAIL,
    PASS,
    UNDECIDED,
    Thresholds,
    curtail,
)
from pytest_probability.extensions.stopping.sequence import confidence_sequence
from pytest_probability.stats.rate_intervals import (
    Interval,
    bayes,
    clopper_pearson,
    wilson,
)

#: The spec's curtailment example: identify_pii fails run 38 only, never passes runs 1-3.
STOP_BENCH = """
import pytest
from pytest_probability import current_run, record_cost

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("kind", ["is_question", "identify_pii", "never"])
def bench_classify(kind):
    record_cost(0.001)
    run = current_run().run
    if kind == "identify_pii":
        assert run != 38
    elif kind == "never":
        assert run in (1, 2, 3)
"""


def test_spec_curtail_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=STOP_BENCH)
    result = pytester.runpytest("--prob-runs=40", "--prob-stop=curtail", "--prob-json=r.json")
    assert section(result.outlines) == [
        "  classify::is_question   40/40  [91%, 100%]  $0.0400",
        "  classify::identify_pii  37/38  [86%,  99%]  $0.0380  FLAKY  decided after 38/40",
        "  classify::never          3/12  [ 5%,  57%]  $0.0120  FLAKY  decided after 12/40",
        "",
        "  Overall: 80/90 passed (89%)",
        "  Gates:   1 passed, 1 failed, 1 undecided",
        "  Stopped: 2 cases early, saving 30 of 120 runs (25%), about $0.0300 not spent",
        "  Cost:    $0.0900",
    ]
    # the same verdicts and exit status as running every run
    full = pytester.runpytest("--prob-runs=40", "--prob-json=full.json")
    assert result.ret == full.ret == 1
    stopped, every = load_json(pytester.path / "r.json"), load_json(pytester.path / "full.json")
    assert [r["gate"]["verdict"] for r in stopped["rows"]] == [
        r["gate"]["verdict"] for r in every["rows"]
    ]
    assert stopped["rows"][2]["stopped"] == {
        "verdict": "fail",
        "after": 12,
        "planned": 40,
        "skipped": 28,
        "in_flight": 0,
    }
    assert stopped["rows"][0]["stopped"] is None
    assert stopped["stopping"] == {
        "mode": "curtail",
        "stopped_cases": 2,
        "runs_saved": 30,
        "runs_planned": 120,
        "runs_in_flight": 0,
        "cost_avoided": pytest.approx(0.03),
        "spread_cases": 0,
        "kept_cases": 0,
        "kept_runs": 0,
    }
    assert [r["kept_running"] for r in stopped["rows"]] == [None, None, None]
    skipped = [r for r in stopped["records"] if r["outcome"] == "skip"]
    assert skipped[0]["message"] == "decided after 38/40 (UNDECIDED)"
    # skips, not samples: pytest reports them as skipped
    result.assert_outcomes(passed=81, failed=2, skipped=30, xfailed=10)


def test_transposed_runs_stop_the_same_way(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=STOP_BENCH)
    result = pytester.runpytest("--prob-runs=40", "--prob-stop=curtail", "--prob-transpose")
    assert section(result.outlines)[-2] == (
        "  Stopped: 2 cases early, saving 30 of 120 runs (25%), about $0.0300 not spent"
    )


def test_shuffled_runs_stop_as_their_order_allows(pytester: pytest.Pytester) -> None:
    """Runs in another order (pytest-randomly shuffles them; here a conftest reverses them)
    still stop a case: each stops after the runs its own order needed, replayed with the
    curtailment rule, and every verdict is the one of running every run."""
    pytester.makepyfile(bench_classify=STOP_BENCH)
    pytester.makeconftest(
        """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    items.reverse()
"""
    )
    result = pytester.runpytest("--prob-runs=40", "--prob-stop=curtail", "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")
    verdict = _rate_verdict("exact", 0.9)
    thresholds = [Thresholds(verdict)]
    expected = {}
    for case, passing in [
        ("classify::is_question", lambda run: True),
        ("classify::identify_pii", lambda run: run != 38),
        ("classify::never", lambda run: run in (1, 2, 3)),
    ]:
        passes = judged = 0
        stop = None
        for run in range(40, 0, -1):  # the reversed order
            found = curtail(thresholds, passes, judged, run)
            if found is not None:
                stop = {
                    "verdict": found,
                    "after": judged,
                    "planned": 40,
                    "skipped": run,
                    "in_flight": 0,
                }
                break
            passes += passing(run)
            judged += 1
        expected[case] = (verdict(passes, judged), stop)
    assert {r["case"]: (r["gate"]["verdict"].upper(), r["stopped"]) for r in report["rows"]} == {
        case: (found.upper(), stop) for case, (found, stop) in expected.items()
    }
    assert expected["classify::never"][1] is not None  # it does stop, earlier than in order
    assert expected["classify::identify_pii"][1] is not None
    saved = sum(stop["skipped"] for _, stop in expected.values() if stop)
    assert report["stopping"]["runs_saved"] == saved > 0
    full = pytester.runpytest("--prob-runs=40", "--prob-json=full.json")
    every = load_json(pytester.path / "full.json")
    assert [r["gate"]["verdict"] for r in report["rows"]] == [
        r["gate"]["verdict"] for r in every["rows"]
    ]
    assert result.ret == full.ret == 1


def test_count_gate_and_latency_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_c="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_passes=3, runs=10)
def bench_count():
    pass

@pytest.mark.probability(min_rate=0.5, max_latency=10.0)
def bench_timed():
    assert current_run().run > 100
"""
    )
    result = pytester.runpytest("--prob-stop=curtail", "--prob-runs=10")
    lines = section(result.outlines)
    # min_passes=3 is settled after 3 passes; the rate gate is certainly FAIL after 9 runs,
    # so the case is FAIL whatever its latency gate (which cannot say when it is settled)
    # gives: it stops then (issue 27), and its latency check is judged on the 9 runs made
    assert lines[0] == "  count  3/3  [29%, 100%]  decided after 3/10"
    assert lines[1] == "  timed  0/9  [ 0%,  34%]  FAIL  decided after 9/10"
    assert lines[5] == "  Stopped: 2 cases early, saving 8 of 20 runs (40%)"
    assert not [line for line in lines if "kept running" in line]
    assert section(result.outlines, "probability: gates") == ["  timed  0/9  [0%, 34%]  ≥50%  FAIL"]


def test_latency_gate_holds_a_case_whose_rate_gate_passes(pytester: pytest.Pytester) -> None:
    """A PASS settled by the rate gate is not the case's verdict until its latency gate is
    settled too, which it cannot say: the case runs every run."""
    pytester.makepyfile(
        bench_c="""
import pytest

@pytest.mark.probability(min_rate=0.5, max_latency=10.0)
def bench_timed():
    pass
"""
    )
    result = pytester.runpytest("--prob-stop=curtail", "--prob-runs=10")
    lines = section(result.outlines)
    assert lines[0] == "  timed  10/10  [69%, 100%]  kept running after 9/10"


MAX_FAILS_CONFTEST = """
from pytest_probability.extensions.gates.registry import GateResult


def _limit(value, config=None):
    return int(value)


def pytest_prob_addoption(options):
    options.add("max_fails", parse=_limit, mark=True, help="at most this many failing runs",
                owner="max-fails")


def _verdict_at(limit, passes, n, config):
    return "fail" if n - passes > limit else "pass"


def _judge(limit, case, config):
    verdict = _verdict_at(limit, case.passes, case.passes + case.fails + case.errors, config)
    return GateResult("fails", verdict, f"{case.fails} failed  ≤{limit}  {verdict.upper()}")


def pytest_prob_register_gates(register, config):
    register("fails", configure=lambda mark, config: mark.get("max_fails"), judge=_judge,
             describe=lambda limit: f"max_fails={limit}", verdict_at=_verdict_at)
"""


def test_a_gate_certainly_failing_stops_the_case(pytester: pytest.Pytester) -> None:
    """A case's verdict is the worst of its checks: after 4 failed runs of 10, a third
    party's ``max_fails=3`` is certainly FAIL, and the case stops then although its rate
    gate could still end UNDECIDED (issue 27: it ran 9 of 10 runs before, until the rate
    gate was settled too)."""
    pytester.makeconftest(MAX_FAILS_CONFTEST)
    pytester.makepyfile(
        bench_c="""
import pytest

@pytest.mark.probability(min_rate=0.5, max_fails=3)
def bench_two():
    assert False
"""
    )
    result = pytester.runpytest("--prob-stop=curtail", "--prob-runs=10", "--prob-json=r.json")
    (row,) = load_json(pytester.path / "r.json")["rows"]
    assert row["stopped"] == {
        "verdict": "fail",
        "after": 4,
        "planned": 10,
        "skipped": 6,
        "in_flight": 0,
    }
    assert row["gate"]["verdict"] == "fail"
    assert [c["verdict"] for c in row["gate"]["checks"]] == ["undecided", "fail"]
    assert section(result.outlines)[0] == "  two  0/4  [0%, 60%]  FAIL  decided after 4/10"
    off = pytester.runpytest("--prob-runs=10", "--prob-json=full.json")
    (full,) = load_json(pytester.path / "full.json")["rows"]
    assert (full["gate"]["verdict"], off.ret, result.ret) == ("fail", 1, 1)


def test_function_level_interval_hidden_over_stopped_cases(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_f="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("item", range(10))
def bench_f(item):
    assert item > 0 or current_run().run > 8
"""
    )
    result = pytester.runpytest("--prob-stop=curtail", "--prob-runs=20", "--prob-json=r.json")
    assert section(result.outlines)[-1] == (
        "  f  N=10 inputs × k=14–15  94.3%  ρ=0.54  (interval hidden: 10 cases were stopped "
        "early and lean toward their verdicts)"
    )
    (line,) = load_json(pytester.path / "r.json")["aggregates"]
    assert (line["ci"]["low"], line["ci"]["high"]) == (None, None)
    assert line["hidden"].startswith("10 cases were stopped early")


def test_bad_stop_value_and_gates_disabled(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    bad = pytester.runpytest("--prob-stop=early")
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["ERROR: --prob-stop=early: expected one of off, curtail*"])
    off = pytester.runpytest("--prob-stop=curtail", "-p", "no:probability.gates")
    assert off.ret == 4
    off.stderr.fnmatch_lines(["ERROR: --prob-stop=curtail stops gated cases and needs*"])


BROKEN_RULES = """
def pytest_prob_register_stopping_rules(register, config):
    register("curtail", lambda context: None)
"""


def test_a_broken_rule_registration_is_a_usage_error_at_start_up(
    pytester: pytest.Pytester,
) -> None:
    """The rules are registered at ``pytest_configure`` in every session that registers the
    stopping extension (a conftest implementing its hook registers it), so a conftest's broken
    ``pytest_prob_register_stopping_rules`` stops any session, without ``--prob-stop`` or
    bench files too; a conftest found while collecting is called on registration (the hook
    is historic) and fails its directory's collection."""
    pytester.makeconftest(BROKEN_RULES)
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    for args in ([], ["--prob-stop=curtail"]):
        result = pytester.runpytest(*args)
        assert result.ret == 4
        result.stderr.fnmatch_lines(
            [
                "ERROR: registering stopping rules failed: stopping rule 'curtail' is registered twice"
            ]
        )
    (pytester.path / "conftest.py").unlink()
    later = pytester.mkdir("later")
    (later / "conftest.py").write_text(BROKEN_RULES)
    (later / "test_b.py").write_text("def test_b():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*UsageError: registering stopping rules failed: stopping rule 'curtail' is registered twice"
        ]
    )


@pytest.mark.subprocess
@pytest.mark.parametrize("dist", [[], ["--dist", "loadgroup"]])
def test_xdist_never_stops_from_a_partial_view(pytester: pytest.Pytester, dist: list[str]) -> None:
    pytester.makepyfile(bench_classify=STOP_BENCH)
    full = pytester.runpytest_subprocess("--prob-runs=40", "--prob-json=full.json")
    result = pytester.runpytest_subprocess(
        "--prob-runs=40", "--prob-stop=curtail", "-n", "2", *dist, "--prob-json=r.json"
    )
    assert result.ret == full.ret == 1
    report, every = load_json(pytester.path / "r.json"), load_json(pytester.path / "full.json")
    assert [r["gate"]["verdict"] for r in report["rows"]] == [
        r["gate"]["verdict"] for r in every["rows"]
    ]
    # each case's runs on one worker: the cases stop exactly as in the serial session
    assert report["stopping"]["spread_cases"] == 0
    assert (report["stopping"]["stopped_cases"], report["stopping"]["runs_saved"]) == (2, 30)
    assert [r["stopped"] for r in report["rows"]] == [
        None,
        {"verdict": "undecided", "after": 38, "planned": 40, "skipped": 2, "in_flight": 0},
        {"verdict": "fail", "after": 12, "planned": 40, "skipped": 28, "in_flight": 0},
    ]


# -- curtailment proved by enumeration ---------------------------------------------------------
METHODS = {
    "exact": lambda p, n, level: clopper_pearson(p, n, level),
    "wilson": lambda p, n, level: wilson(p, n, level),
    "bayes": lambda p, n, level: bayes(p, n, level, (1.0, 1.0)),
    "seq": lambda p, n, level: Interval(*confidence_sequence(p, n, level)),
}


def _rate_verdict(method: str, bar: float, level: float = 0.95):
    def verdict(passes: int, n: int) -> str:
        if n == 0:
            return UNDECIDED
        found = METHODS[method](passes, n, level)
        if found.low > bar:
            return PASS
        if found.high < bar:
            return FAIL
        return UNDECIDED

    return verdict


def _replay(thresholds: list[Thresholds], verdict, outcomes: tuple[str, ...]) -> tuple[str, str]:
    """(verdict on the runs made with curtailment, verdict on every run); outcomes are
    ``p`` (pass), ``f`` (fail) and ``s`` (a run that is not judged: a skip)."""
    full = verdict(sum(o == "p" for o in outcomes), sum(o in "pf" for o in outcomes))
    passes = judged = 0
    for index, outcome in enumerate(outcomes):
        if curtail(thresholds, passes, judged, len(outcomes) - index) is not None:
            return verdict(passes, judged), full
        passes += outcome == "p"
        judged += outcome in "pf"
    return verdict(passes, judged), full


@pytest.mark.parametrize("method", sorted(METHODS))
@pytest.mark.parametrize("bar", [0.5, 0.8, 0.9])
def test_curtailed_verdict_equals_the_full_run_verdict(method: str, bar: float) -> None:
    verdict = _rate_verdict(method, bar)
    thresholds = [Thresholds(verdict)]
    # pass/fail sequences up to 10 runs, and sequences with unjudged runs (skips) up to 6
    for planned in range(1, 11):
        for outcomes in itertools.product("pf", repeat=planned):
            made, full = _replay(thresholds, verdict, outcomes)
            assert made == full, (method, bar, outcomes)
    for planned in range(1, 7):
        for outcomes in itertools.product("pfs", repeat=planned):
            made, full = _replay(thresholds, verdict, outcomes)
            assert made == full, (method, bar, outcomes)


def test_count_gate_curtailment_by_enumeration() -> None:
    for min_passes in range(1, 8):

        def verdict(passes: int, n: int, _m: int = min_passes) -> str:
            return PASS if passes >= _m else FAIL

        thresholds = [Thresholds(verdict)]
        for outcomes in itertools.product("pf", repeat=8):
            made, full = _replay(thresholds, verdict, outcomes)
            assert made == full


def test_thresholds_match_a_scan() -> None:
    verdict = _rate_verdict("exact", 0.9)
    thresholds = Thresholds(verdict)
    for n in range(0, 60):
        passing = [p for p in range(n + 1) if verdict(p, n) == PASS]
        failing = [p for p in range(n + 1) if verdict(p, n) == FAIL]
        assert thresholds.pass_min(n) == (min(passing) if passing else n + 1)
        assert thresholds.fail_max(n) == (max(failing) if failing else -1)


# -- sequential ----------------------------------------------------------------------------------
SEQ_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("kind", ["solid", "weak"])
def bench_classify(kind):
    if kind == "weak":
        assert current_run().run % 4 != 0
"""


def test_spec_sequential_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=SEQ_BENCH)
    result = pytester.runpytest("--prob-runs=100", "--prob-stop=sequential", "--prob-json=r.json")
    assert section(result.outlines)[:2] == [
        "  classify::solid  53/53  [90%, 100%] seq  decided after 53/100",
        "  classify::weak   45/60  [55%,  90%] seq  FLAKY  decided after 60/100",
    ]
    assert result.ret == 1
    rows = load_json(pytester.path / "r.json")["rows"]
    assert [row["ci"]["method"] for row in rows] == ["seq", "seq"]
    assert [row["gate"]["verdict"] for row in rows] == ["pass", "fail"]
    # the same cases under curtailment need many more runs (96 for the clear one)
    curtailed = pytester.runpytest("--prob-runs=100", "--prob-stop=curtail")
    assert section(curtailed.outlines)[0] == (
        "  classify::solid  96/96  [96%, 100%]  decided after 96/100"
    )


def test_sequential_count_gate_falls_back_to_curtailment(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_c="""
import pytest

@pytest.mark.probability(min_passes=3, runs=10)
def bench_count():
    pass
"""
    )
    result = pytester.runpytest("--prob-stop=sequential")
    assert section(result.outlines)[0] == "  count  3/3  [29%, 100%]  decided after 3/10"


@pytest.mark.parametrize(("passes", "runs"), [(0, 1), (1, 1), (53, 53), (45, 60), (3, 10), (0, 40)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_confidence_sequence_against_the_mixture(passes: int, runs: int, level: float) -> None:
    from pytest_probability.extensions.stopping.sequence import confidence_sequence
    from scipy.special import betaln

    def log_m(p: float) -> float:
        value = betaln(0.5 + passes, 0.5 + runs - passes) - betaln(0.5, 0.5)
        return value - passes * math.log(p) - (runs - passes) * math.log1p(-p)

    bound = math.log(1 / (1 - level))
    low, high = confidence_sequence(passes, runs, level)
    grid = [i / 4000 for i in range(1, 4000)]
    kept = [p for p in grid if log_m(p) < bound]
    assert min(kept) >= low - 1e-12 and max(kept) <= high + 1e-12
    assert min(kept) - low < 1 / 4000 + 1e-12 or low == 0.0
    assert high - max(kept) < 1 / 4000 + 1e-12 or high == 1.0
    for end in (low, high):
        if 0.0 < end < 1.0:
            assert abs(log_m(end) - bound) < 1e-6


@pytest.mark.slow
def test_confidence_sequence_is_time_uniformly_valid() -> None:
    """The chance that the sequence ever excludes the true rate within 1000 runs stays at
    most α (Ville's inequality), checked directly on the mixture martingale."""
    from pytest_probability.extensions.stopping.sequence import log_mixture

    rng = random.Random(11)
    alpha = 0.05
    bound = math.log(1 / alpha)
    for p in (0.5, 0.9, 0.97):
        replicates, misses = 1500, 0
        for _ in range(replicates):
            passes = 0
            for n in range(1, 1001):
                passes += rng.random() < p
                if log_mixture(p, passes, n) >= bound:
                    misses += 1
                    break
        rate = misses / replicates
        assert rate <= alpha + 3 * (alpha * (1 - alpha) / replicates) ** 0.5, (p, rate)


def test_comparison_and_metric_intervals_over_stopped_cases_are_hidden(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        bench_ab="""
import pytest

@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("item", range(10))
def bench_ab(item, arm):
    pass
"""
    )
    result = pytester.runpytest(
        "--prob-stop=curtail",
        "--prob-runs=20",
        "--prob-compare=arm",
        "--prob-metric=pass^2",
        "--prob-json=r.json",
    )
    (line,) = section(result.outlines, "probability: comparisons")
    assert line == (
        "  ab[arm]  b − a  10 paired  (difference, interval and p hidden: 20 cases were stopped "
        "early and lean toward their verdicts)"
    )
    metrics = section(result.outlines, "probability: metrics")
    assert metrics[0].endswith(
        "interval hidden: 20 cases were stopped early and lean toward their verdicts"
    )
    (comparison,) = load_json(pytester.path / "r.json")["comparisons"]
    assert (comparison["low"], comparison["high"], comparison["verdict"]) == (None, None, None)
    assert (comparison["difference"], comparison["p"], comparison["inputs"]) == (None, None, [])
    assert comparison["hidden"].startswith("20 cases were stopped early")


def _plain_bisection(passes: int, runs: int, level: float) -> tuple[float, float]:
    """The sequence's interval by plain bisection from ``[0, x/n]`` and ``[x/n, 1]`` (the
    reference the Newton-started search must agree with)."""
    from pytest_probability.extensions.stopping.sequence import log_mixture

    if runs == 0:
        return 0.0, 1.0
    bound = math.log(1 / (1 - level))
    centre = passes / runs
    ends = []
    for outside, kept, present in ((0.0, centre, passes > 0), (1.0, centre, passes < runs)):
        if not present:
            ends.append(outside)
            continue
        for _ in range(200):
            middle = (outside + kept) / 2
            if middle in (outside, kept):
                break
            if log_mixture(middle, passes, runs) < bound:
                kept = middle
            else:
                outside = middle
        ends.append(kept)
    return ends[0], ends[1]


BARS = (0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.96, 0.97, 0.98, 0.99)


@pytest.mark.parametrize(
    "run_counts",
    [
        pytest.param(range(1, 61), id="n<=60"),
        # every 7th run count above 60 (all of them took 75 s of CPU for the same coverage of
        # the ragged ends: the search is the same code at every n)
        pytest.param(range(61, 401, 7), id="61<=n<=400", marks=pytest.mark.slow),
    ],
)
def test_confidence_sequence_agrees_with_plain_bisection(run_counts: range) -> None:
    """Rounding makes log M ragged within ~1e-15 of an end, so two searches may stop a few
    floats apart; no verdict against a bar and no printed percent may depend on it."""
    for level in (0.8, 0.9, 0.95, 0.99):
        for runs in run_counts:
            for passes in range(runs + 1):
                found = confidence_sequence(passes, runs, level)
                reference = _plain_bisection(passes, runs, level)
                assert found == pytest.approx(reference, rel=1e-13, abs=1e-300)
                assert [round(end * 100) for end in found] == [
                    round(end * 100) for end in reference
                ]
                for bar in BARS:
                    assert (found[0] > bar, found[1] < bar) == (
                        reference[0] > bar,
                        reference[1] < bar,
                    ), (passes, runs, level, bar)
