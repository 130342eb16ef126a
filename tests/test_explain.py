"""The explain extension: plain-language readings, the glossary, JSON explanation fields."""

from __future__ import annotations

import pytest
from helpers import load_json, section
from pytest_probability.extensions.gates.rate import RateSpec, Settings, rate_verdict
from test_comparisons import TRIAGE_BENCH
from test_gates import GATED_BENCH
from test_latency import API_BENCH

COMPARISON_READING = (
    "10/10 against 8/10 looks like a win, but it is one input: the difference is +20 points "
    "with a 95% interval from −11 to +51, and p = 0.47 — if the two style values were equally "
    "good, a gap this big would turn up by chance about half the time. The data can't tell yet "
    "which is better. What it does show is that chain_of_thought costs 4.0 times as much per "
    "run as terse. Add inputs: with enough pairs the interval comes from a paired bootstrap "
    "over inputs and p from a sign-flip test on the per-input differences."
)


def _readings(lines: list[str]) -> dict[str, str]:
    """Topic → its reading joined back into one paragraph."""
    found: dict[str, str] = {}
    topic = None
    for line in lines:
        if line == "  Terms":
            break
        if line.startswith("    "):
            assert topic is not None
            found[topic] = (found[topic] + " " + line.strip()).strip()
        elif line.startswith("  "):
            topic = line.strip()
            found[topic] = ""
    return found


def test_comparison_reading_follows_the_spec(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=TRIAGE_BENCH)
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-compare=style", "--prob-explain", "--prob-json=r.json"
    )
    lines = section(result.outlines, "probability: explained")
    readings = _readings(lines)
    assert readings["triage[style] chain_of_thought − terse"] == COMPARISON_READING
    assert readings["triage::refund-terse"].startswith(
        "8 of 10 runs passed. With 95% confidence its pass rate is between 44% and 97%"
    )
    assert all(len(line) <= 79 for line in lines)  # wrapped to the terminal (80 columns)
    report = load_json(pytester.path / "r.json")
    assert report["comparisons"][0]["explanation"] == COMPARISON_READING
    assert report["rows"][0]["explanation"].startswith("8 of 10 runs passed.")
    assert "explanation" not in report["rows"][1]  # 10/10, ungated: nothing to explain
    # the glossary holds only the terms used, in order of first use
    assert list(report["glossary"]) == ["pass rate", "interval", "gate", "pp", "p-value"]
    terms = lines[lines.index("  Terms") + 1 :]
    assert terms[0].startswith("    pass rate: the share of runs that pass")


def _settled_at(passes: int, runs: int, bar: float) -> int:
    """Brute force: the first run count at which the observed rate decides the gate."""
    spec = RateSpec(bar, Settings("exact", 0.95, (1.0, 1.0)))
    rate = passes / runs
    n = runs
    while rate_verdict(spec, round(rate * n), n, None) == "undecided":  # type: ignore[arg-type]
        n += 1
    return n


def test_gate_readings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-runs=40", "--prob-explain")
    readings = _readings(section(result.outlines, "probability: explained"))
    settle = _settled_at(37, 40, 0.9)
    assert readings["classify::identify_pii"] == (
        "37 of 40 judged runs passed; with 95% confidence its pass rate is between 80% and "
        "98%. The interval straddles the 90% bar, so the runs cannot tell yet whether it "
        f"meets it: UNDECIDED. If it keeps passing at 92.5%, about {settle} runs would "
        "settle it."
    )
    assert readings["classify::never"].endswith(
        "All of it is below the 90% bar: FAIL. More runs will not change that; the case "
        "needs fixing."
    )
    assert "classify::is_question" not in readings  # a passing gate needs no reading


def test_hint_without_the_flag(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-runs=40")
    assert section(result.outlines, hint=True)[-2:] == [
        "",
        "  --prob-explain reads 2 of these results in plain words",
    ]
    assert section(result.outlines, "probability: explained") == []


def test_no_hint_when_everything_passed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=3")
    assert "--prob-explain" not in "\n".join(result.outlines)


def test_function_level_and_metric_readings(pytester: pytest.Pytester) -> None:
    from test_metrics import METRICS_BENCH

    pytester.makepyfile(bench_m=METRICS_BENCH)
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-metric=pass^3", "--prob-explain", "--prob-json=r.json"
    )
    readings = _readings(section(result.outlines, "probability: explained"))
    function = readings["classify"]
    assert function.startswith(
        "The mean pass fraction over its 12 inputs is 66.7%, with a 95% interval of 55.8% to "
        "77.5% from a bootstrap over inputs"
    )
    assert "ρ = " in function
    assert readings["classify pass^3"] == (
        "34.3% is the chance that 3 runs of the same input all pass, averaged over 12 inputs "
        "(interval 17.2% to 53.8%)."
    )
    report = load_json(pytester.path / "r.json")
    assert report["aggregates"][0]["explanation"] == function
    assert report["metrics"]["lines"][0]["explanation"].startswith("34.3% is the chance")


def test_latency_reading(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_api=API_BENCH)
    result = pytester.runpytest("--prob-runs=100", "--prob-explain", "-k", "search or translate")
    readings = _readings(section(result.outlines, "probability: explained"))
    assert readings["api::search"] == (
        "p95 is 769ms: 95% of its 100 runs finished within about that. With 95% confidence the "
        "true p95 is between 600ms and 933ms (distribution-free: it assumes only independent "
        "runs). All of it is below the 2s limit: PASS."
    )
    assert readings["api::translate"].endswith(
        "All of it is above the 2s limit: FAIL — it is too slow."
    )


def test_third_party_reading_and_a_broken_one(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
from pytest_probability.extensions.explain import Reading

def pytest_prob_explain(report, results, config):
    return [Reading("smoke", "Our own words.", ("widget",), definitions={"widget": "a thing."})]

class Broken:
    def pytest_prob_explain(self, report, results, config):
        raise RuntimeError("oops")

def pytest_configure(config):
    config.pluginmanager.register(Broken(), "broken-explainer")
"""
    )
    pytester.makepyfile(bench_a="def bench_smoke():\n    pass\n")
    result = pytester.runpytest("--prob-explain", "-W", "ignore::pytest.PytestWarning")
    lines = section(result.outlines, "probability: explained")
    assert lines[:2] == ["  smoke", "    Our own words."]
    assert lines[-2:] == ["  Terms", "    widget: a thing."]
    assert (
        "  warning: extension 'broken-explainer' failed in pytest_prob_explain: RuntimeError: oops"
    ) in section(result.outlines)


def test_baseline_reading(pytester: pytest.Pytester) -> None:
    bench = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", ["x", "y"])
def bench_pick(item):
    assert current_run().run <= {passes}
"""
    pytester.makepyfile(bench_pick=bench.format(passes=10))
    pytester.runpytest("--prob-runs=10", "--prob-save-baseline=base.toml")
    pytester.makepyfile(bench_pick=bench.format(passes=6))
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-baseline=base.toml", "--prob-explain", "--prob-json=r.json"
    )
    readings = _readings(section(result.outlines, "probability: explained"))
    assert readings["pick now − baseline"] == (
        "Over 2 paired inputs the mean difference is −40 points and p = 0.50 (a sign-flip test "
        "on the per-input differences); there are too few inputs for an interval yet. Add "
        "inputs: with enough pairs the interval comes from a paired bootstrap over inputs and p "
        "from a sign-flip test on the per-input differences."
    )
    report = load_json(pytester.path / "r.json")
    assert report["baseline"]["functions"][0]["explanation"] == readings["pick now − baseline"]


ERRORED_BENCH = """
import pytest
from pytest_probability import current_run


@pytest.mark.parametrize("kind", ["harness", "broken", "both"])
def bench_err(kind):
    run = current_run().run
    if kind == "harness" and run in (2, 5, 9):
        raise ConnectionError("dropped")
    if kind == "broken":
        raise ConnectionError("dropped")
    if kind == "both":
        if run == 1:
            raise ConnectionError("dropped")
        assert run != 2
"""


def test_errored_rows_are_not_called_flaky(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_err=ERRORED_BENCH)
    result = pytester.runpytest("--prob-runs=10", "--prob-explain")
    assert [line.split("  ")[-1] for line in section(result.outlines)[:3]] == [
        "3 ERRORED",
        "ERROR",
        "FLAKY (1 errored)",
    ]
    readings = _readings(section(result.outlines, "probability: explained"))
    assert readings["err::harness"] == (
        "7 of 10 runs passed and 3 errored (an exception other than a failed check). With 95% "
        "confidence its pass rate is between 35% and 93%, assuming its runs are independent "
        "repetitions. No run failed a check, so this is not flakiness in the answers: the "
        "errored runs raised an exception (the harness, a timeout, a dropped connection). "
        "Every errored run fails the session; fix the cause before reading the rate."
    )
    assert readings["err::broken"] == (
        "0 of 10 runs passed and 10 errored (an exception other than a failed check). With 95% "
        "confidence its pass rate is between 0% and 31%, assuming its runs are independent "
        "repetitions. Every run errored: fix the cause before reading any rate."
    )
    assert readings["err::both"].endswith(  # passes, a failed check and an error: flaky
        "It is flaky: every failing run fails the session. To hold it to a pass rate instead, "
        "gate it (min_rate=…) and let the verdict decide."
    )


def test_metric_readings_count_one_input_in_the_singular(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_one="""
import pytest


@pytest.mark.parametrize("x", ["a"])
def bench_one(x):
    pass


@pytest.mark.probability(runs=3)
@pytest.mark.parametrize("x", ["short"])
def bench_short(x):
    pass
"""
    )
    result = pytester.runpytest("--prob-runs=10", "--prob-metric=pass@5", "--prob-explain")
    readings = _readings(section(result.outlines, "probability: explained"))
    assert readings["one pass@5"] == (
        "100.0% is the chance that at least one of 5 runs of an input passes, averaged over "
        "1 input."
    )
    assert readings["Overall pass@5"] == (
        "100.0% is the chance that at least one of 5 runs of an input passes, averaged over "
        "1 input. 1 input had fewer than 5 runs and is left out."
    )


ROUTE_BENCH = """
import pytest

RIGHT = {  # which of 20 questions each model answers right
    "m-small": set(range(0, 12)),
    "m-large": set(range(0, 11)) | {12, 13, 14, 15, 16, 17, 18},
}


@pytest.mark.probability(compare="model")
@pytest.mark.parametrize("model", ["m-small", "m-large"])
@pytest.mark.parametrize("question", range(20))
def bench_route(question, model):
    assert question in RIGHT[model]
"""


def test_comparison_reading_reconciles_interval_and_p(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_route=ROUTE_BENCH)
    result = pytester.runpytest("--prob-explain")
    assert section(result.outlines, "probability: comparisons") == [
        "  route[model]  m-large − m-small  +30 pp [+5, +55]  p=0.07  20 paired"
    ]
    readings = _readings(section(result.outlines, "probability: explained"))
    assert readings["route[model] m-large − m-small"] == (
        "Over 20 paired inputs m-large against m-small differs by +30 points, 95% interval +5 "
        "to +55 (a paired bootstrap over inputs), p = 0.07 (a sign-flip test). The whole "
        "interval is above zero: on inputs like these it is better. The interval excludes zero "
        "while p = 0.07 is above 0.05: p comes from a sign-flip test, the interval from a "
        "paired bootstrap over inputs, two different methods that can disagree near the "
        "boundary. A margin verdict is decided by the interval, not by p."
    )


@pytest.mark.parametrize("bar", [0.3, 0.5, 0.72, 0.9, 0.95])
def test_runs_to_settle_is_the_first_settling_count_at_bounded_work(bar: float) -> None:
    """The "about N runs would settle it" search gives the brute-force scan's first settling
    count for every UNDECIDED rate gate of up to 40 runs, with a few hundred verdicts at most
    (the scan it replaced made up to 20,000 per case, issue 20)."""
    from types import SimpleNamespace

    from pytest_probability.extensions.gates.rate import runs_to_settle

    spec = RateSpec(bar, Settings("exact", 0.95, (1.0, 1.0)))
    made = []

    def verdict_at(*args: object) -> str:
        made.append(args)
        return rate_verdict(*args)  # type: ignore[arg-type]

    kind = SimpleNamespace(verdict_at=verdict_at)
    checked = 0
    for runs in (3, 10, 20, 40):
        for passes in range(runs + 1):
            if passes / runs == bar or rate_verdict(spec, passes, runs, None) != "undecided":  # type: ignore[arg-type]
                continue
            made.clear()
            assert runs_to_settle(kind, spec, passes, runs, None) == _settled_at(  # type: ignore[arg-type]
                passes, runs, bar
            ), (passes, runs)
            assert len(made) <= 300, (passes, runs, len(made))
            checked += 1
    assert checked >= 12


def test_runs_to_settle_on_the_bar_gives_up_after_a_bounded_search() -> None:
    """A rate exactly on the bar never settles: ``None`` after doubling to a million runs
    (about 20 verdicts), not a verdict per run count."""
    from types import SimpleNamespace

    from pytest_probability.extensions.gates.rate import runs_to_settle

    spec = RateSpec(0.5, Settings("exact", 0.95, (1.0, 1.0)))
    made = []

    def verdict_at(*args: object) -> str:
        made.append(args)
        return rate_verdict(*args)  # type: ignore[arg-type]

    assert runs_to_settle(SimpleNamespace(verdict_at=verdict_at), spec, 1, 2, None) is None  # type: ignore[arg-type]
    assert len(made) <= 25


#: counts each extension's notable readings both ways, and how often readings are built
COUNTING_CONFTEST = """
import json

import pytest
import pytest_probability.extensions.gates.rate as gates_rate
from pytest_probability.formatting.readings import Reading

BUILT = {"readings": 0, "runs_to_settle": 0}
_settle = gates_rate.runs_to_settle


def _counted_settle(*args, **kwargs):
    BUILT["runs_to_settle"] += 1
    return _settle(*args, **kwargs)


gates_rate.runs_to_settle = _counted_settle
_init = Reading.__init__


def _counted_init(self, *args, **kwargs):
    BUILT["readings"] += 1
    _init(self, *args, **kwargs)


Reading.__init__ = _counted_init


@pytest.hookimpl(trylast=True)
def pytest_prob_build_report(report, results, config):
    if not config.getoption("prob_opt_explain"):
        return  # the explain extension counts; nothing is built here
    hook = config.hook
    kwargs = dict(report=report, results=results, config=config)
    counts = {i.plugin_name: i.function(**kwargs) for i in hook.pytest_prob_explain_count.get_hookimpls()}
    notable = {
        i.plugin_name: sum(1 for r in i.function(**kwargs) or () if r.notable)
        for i in hook.pytest_prob_explain.get_hookimpls()
    }
    with open("counts.json", "w") as out:
        json.dump({"counts": counts, "notable": notable}, out)


def pytest_unconfigure(config):
    gates_rate.runs_to_settle = _settle  # the classes outlive this in-process session
    Reading.__init__ = _init
    with open("built.json", "w") as out:
        json.dump(BUILT, out)
"""


def _rich_suite(pytester: pytest.Pytester) -> None:
    """Every bundled explainer has something notable to read: a failing and an undecided
    gate, an undecided latency gate, a comparison, metric lines, function-level lines below
    100% and flaky ungated rows."""
    from test_metrics import METRICS_BENCH

    pytester.makepyfile(
        bench_gated=GATED_BENCH.replace("bench_classify", "bench_gated"),
        bench_api=API_BENCH,
        bench_triage=TRIAGE_BENCH,
        bench_items=METRICS_BENCH.replace("bench_classify", "bench_items"),
    )
    pytester.makeconftest(COUNTING_CONFTEST)


RICH_ARGS = ("--prob-runs=40", "--prob-compare=style", "--prob-metric=pass^3", "-p", "no:randomly")


def test_each_explain_count_is_the_number_of_its_notable_readings(
    pytester: pytest.Pytester,
) -> None:
    """The hint's count comes from ``pytest_prob_explain_count``: for every bundled
    explainer it equals the notable readings ``pytest_prob_explain`` builds on the same
    data, and each has some here (so the check is not vacuous)."""
    _rich_suite(pytester)
    explained = pytester.runpytest(*RICH_ARGS, "--prob-explain")
    found = load_json(pytester.path / "counts.json")
    bundled = ("fractions", "gates", "intervals", "metrics", "comparisons", "latency")
    assert sorted(found["counts"]) == sorted(f"probability.{name}" for name in bundled)
    assert found["counts"] == {name: found["notable"][name] for name in found["counts"]}
    assert all(count > 0 for count in found["counts"].values()), found
    # the hint, without the flag, says the same total
    hinted = pytester.runpytest(*RICH_ARGS)
    total = sum(found["notable"].values())
    assert f"  --prob-explain reads {total} of these results in plain words" in hinted.outlines
    assert explained.ret == hinted.ret == pytest.ExitCode.TESTS_FAILED


def test_the_hint_builds_no_reading(pytester: pytest.Pytester) -> None:
    """Without --prob-explain no reading is built and no "runs that would settle it" search
    runs (an UNDECIDED gate is in the suite); with it, both happen."""
    _rich_suite(pytester)
    pytester.runpytest(*RICH_ARGS)
    assert load_json(pytester.path / "built.json") == {"readings": 0, "runs_to_settle": 0}
    pytester.runpytest(*RICH_ARGS, "--prob-explain")
    built = load_json(pytester.path / "built.json")
    assert built["readings"] > 0 and built["runs_to_settle"] > 0, built
