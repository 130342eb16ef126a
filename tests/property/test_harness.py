"""The property suite's own machinery: the generator's model matches what pytest collects, and
the invariants fail when they should (each is shown a session that breaks it)."""

from __future__ import annotations

import copy
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prop_harness import RELATIONS, SESSION_CHECKS, Runner, Session
from prop_invariants import check_same_everything, stopped_line, verdicts_follow_numbers
from prop_replay import OUTCOMES, CaseModel, Check, replay, stops_where_the_replay_says
from prop_suites import (
    ARM_AXIS,
    INPUT_AXIS,
    Axis,
    Example,
    Flags,
    Function,
    Suite,
    flag_sets,
    suites,
)

pytestmark = [pytest.mark.property]

TWO_AXES = Function(
    name="f0",
    axes=(Axis(INPUT_AXIS, ("in0", "in1")), Axis(ARM_AXIS, ("arm0", "arm1"))),
    mark=(("min_rate", 0.55),),
    outcomes=(("in0-arm0", "p"), ("in0-arm1", "fp"), ("in1-arm0", "ffp"), ("in1-arm1", "s")),
    cost=0.001,
    usage="m-small",
)
REVERSED = Function(
    name="f1",
    file=1,
    axes=(Axis(ARM_AXIS, ("arm0", "arm1")), Axis(INPUT_AXIS, ("in0",))),
    outcomes=(("arm0-in0", "e"), ("arm1-in0", "pf")),
    steps=True,
)
PLAIN = Function(name="f2", outcomes=(("", "ppf"),), mark=(("runs", 3),))
SUITE = Suite((TWO_AXES, REVERSED, PLAIN), module_mark=(("runs", 4),))


@pytest.fixture
def runner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Runner:
    return Runner(pytester, monkeypatch)


def run(runner: Runner, flags: Flags, suite: Suite = SUITE) -> Session:
    runner.prepare(Example(suite, flags))
    return runner.run("session", flags)


def test_the_model_is_what_pytest_collects(runner: Runner) -> None:
    session = run(runner, Flags(runs=2, stop="curtail"))
    assert session.report is not None
    rows = session.report["rows"]
    cases = sorted(SUITE.cases(), key=lambda found: found[0].file)  # files in order
    assert [row["case"] for row in rows] == [function.case_id(s) for function, s in cases]
    assert [row["nodeid"] for row in rows] == [function.nodeid(s) for function, s in cases]
    by_case = {row["case"]: row for row in rows}
    # the outcome sequences replay by run index; the module mark gives bench_0.py's cases
    # 4 runs unless their own marks say otherwise (f2: runs=3); f1 is in bench_1.py
    assert (by_case["f2"]["passes"], by_case["f2"]["total"]) == (2, 3)
    assert by_case["f1::arm1-in0"]["planned"] == 2
    assert by_case["f0::in0-arm0"]["planned"] == 4
    assert by_case["f0::in1-arm1"]["skipped"] == 4
    for check in SESSION_CHECKS:
        check.check(Example(SUITE, session.flags), session)


def test_scaled_suites_have_that_many_times_the_cases() -> None:
    for factor in (1, 2, 4):
        scaled = SUITE.scaled(factor)
        assert len(scaled.case_ids()) == factor * len(SUITE.case_ids())
        assert len(set(scaled.case_ids())) == len(scaled.case_ids())
    grown = {f.name: f for f in SUITE.scaled(2).functions}
    assert grown["f0"].outcome_of("in3-arm1") == TWO_AXES.outcome_of("in1-arm1")
    assert {"f2c0", "f2c1"} <= set(grown)


def test_keywords_select_exactly_their_cases() -> None:
    words = [function.keyword(suffix) for function, suffix in SUITE.cases()]
    for word in words:
        inner = word.strip("()").split(" and ")[-1]
        hits = [other for other in SUITE.case_ids() if inner in other]
        assert len(hits) == 1 or inner.startswith("bench_"), (word, hits)


def test_a_relation_sees_a_difference(runner: Runner) -> None:
    one = run(runner, Flags(runs=2))
    two = runner.run("variant", Flags(runs=3))
    one.name, two.name = "reference", "variant"
    with pytest.raises(AssertionError, match=r"exit status|sections"):
        check_same_everything(Example(SUITE, one.flags), {"reference": one, "variant": two})


def test_the_stopped_line_check_counts(runner: Runner) -> None:
    session = run(runner, Flags(runs=4, stop="curtail", min_rate=0.85))
    example = Example(SUITE, session.flags)
    stopped_line(example, session)
    assert session.report is not None
    assert session.report["stopping"]["stopped_cases"] >= 1
    doctored = copy.copy(session)
    doctored.lines = [
        line.replace("saving ", "saving 1") if "Stopped:" in line else line
        for line in session.lines
    ]
    with pytest.raises(AssertionError, match="Stopped"):
        stopped_line(example, doctored)


def test_the_verdict_check_reads_the_numbers(runner: Runner) -> None:
    session = run(runner, Flags(runs=3, min_rate=0.3))
    example = Example(SUITE, session.flags)
    verdicts_follow_numbers(example, session)
    doctored = replace(session, report=copy.deepcopy(session.report))
    assert doctored.report is not None
    gated = next(row for row in doctored.report["rows"] if row.get("gate"))
    check = gated["gate"]["checks"][0]
    check["verdict"] = {"pass": "fail", "fail": "pass"}.get(check["verdict"], "pass")
    with pytest.raises(AssertionError):
        verdicts_follow_numbers(example, doctored)


def test_every_relation_has_a_name_and_a_description() -> None:
    names = [item.name for item in RELATIONS]
    assert len(set(names)) == len(names)
    assert all(item.doc for item in RELATIONS)
    assert all(check.doc.strip() for check in SESSION_CHECKS)


# -- the exact replay of --prob-stop (prop_replay) ------------------------------------------


def _model(checks: tuple[Check, ...], runs: str, *, latency: bool = False) -> CaseModel:
    outcomes = tuple(OUTCOMES[o] for o in runs)
    holders = ("latency",) if latency else ()
    return CaseModel("c", checks, latency, len(runs), outcomes, holders)


def test_the_replay_stops_the_documented_examples() -> None:
    """The worked examples of docs/stopping.rst and tests/test_stopping.py, replayed."""
    rate = Check("rate", 0.5)
    # min_rate=0.5 with a third party's max_fails=3, every run failing, 10 planned: the
    # third-party gate is certainly FAIL after 4 failures (the rate gate could still end
    # UNDECIDED), so the case stops then
    found = replay(
        _model((rate, Check("max_fails", 3)), "f" * 10), exclude_errors=False, sequential=False
    )
    assert found.stopped == {
        "verdict": "fail",
        "after": 4,
        "planned": 10,
        "skipped": 6,
        "in_flight": 0,
    }
    # min_rate=0.5 and max_latency=10, every run failing: FAIL after 9 of 10 ("timed 0/9")
    found = replay(_model((rate,), "f" * 10, latency=True), exclude_errors=False, sequential=False)
    assert found.stopped == {
        "verdict": "fail",
        "after": 9,
        "planned": 10,
        "skipped": 1,
        "in_flight": 0,
    }
    # the same case passing every run keeps running after 9/10: PASS needs the latency gate
    found = replay(_model((rate,), "p" * 10, latency=True), exclude_errors=False, sequential=False)
    assert found.stopped is None and found.kept(10) == {"after": 9, "planned": 10, "runs": 1}
    # min_passes=3 of 10, every run passing: decided after 3/10
    found = replay(_model((Check("count", 3),), "p" * 10), exclude_errors=False, sequential=False)
    assert found.stopped == {
        "verdict": "pass",
        "after": 3,
        "planned": 10,
        "skipped": 7,
        "in_flight": 0,
    }
    # the spec's "never" (passes runs 1-3 of 40, min_rate=0.9): decided after 12/40
    never = "ppp" + "f" * 37
    found = replay(_model((Check("rate", 0.9),), never), exclude_errors=False, sequential=False)
    assert found.stopped == {
        "verdict": "fail",
        "after": 12,
        "planned": 40,
        "skipped": 28,
        "in_flight": 0,
    }
    # and "identify_pii" (fails run 38 only): UNDECIDED after 38/40
    pii = "p" * 37 + "f" + "pp"
    found = replay(_model((Check("rate", 0.9),), pii), exclude_errors=False, sequential=False)
    assert found.stopped == {
        "verdict": "undecided",
        "after": 38,
        "planned": 40,
        "skipped": 2,
        "in_flight": 0,
    }
    # no judged run yet (every run so far skipped): never stopped
    found = replay(_model((rate,), "ss"), exclude_errors=False, sequential=False)
    assert found.stopped is None


def test_the_replay_stops_the_documented_sequential_example() -> None:
    """docs/stopping.rst, "Sequential stopping": ``solid`` (every run passes, min_rate=0.9)
    stops after 53 of 100 runs, on the confidence sequence."""
    solid = Check("rate", 0.9, method="seq")
    found = replay(_model((solid,), "p" * 100), exclude_errors=False, sequential=True)
    assert found.stopped == {
        "verdict": "pass",
        "after": 53,
        "planned": 100,
        "skipped": 47,
        "in_flight": 0,
    }


def test_the_replay_check_sees_a_wrong_stop(runner: Runner) -> None:
    """The session check fails when a stopped case's stop is not the replay's."""
    session = run(runner, Flags(runs=4, stop="curtail", min_rate=0.85))
    example = Example(SUITE, session.flags)
    stops_where_the_replay_says(example, session)
    assert session.extra["replay"].stopped >= 1
    doctored = replace(session, report=copy.deepcopy(session.report), extra={})
    assert doctored.report is not None
    row = next(row for row in doctored.report["rows"] if row.get("stopped"))
    row["stopped"]["after"] += 1
    with pytest.raises(AssertionError, match="the replay"):
        stops_where_the_replay_says(example, doctored)


def test_the_flag_generator_draws_every_option(pytester: pytest.Pytester) -> None:
    """Every ``--prob-*`` option of ``pytest --help`` (the bundled extensions' and the
    installed contrib ones') and every ini-only key but ``prob_pattern`` is drawn by
    ``prop_suites.flag_sets`` for the any-flags relation."""
    result = pytester.runpytest("--help")
    text = "\n".join(result.outlines)
    options = set(re.findall(r"(?<![\w-])--prob-[a-z-]+", text))
    drawn: set[str] = set()

    @settings(max_examples=400, derandomize=True, database=None, deadline=None)
    @given(data=st.data())
    def draw(data: st.DataObject) -> None:
        suite = data.draw(suites())
        flags = data.draw(flag_sets(suite, budget=True))
        for arg in flags.args():
            drawn.add(arg.split("=")[0])

    draw()
    assert options - drawn == set(), f"never drawn: {sorted(options - drawn)}"
    ini_only = {"prob_errors", "prob_min_inputs", "prob_prior", "prob_latency_quantile"}
    ini_only |= {"prob_latency_method", "prob_compare_test"}
    assert ini_only <= drawn, f"never drawn: {sorted(ini_only - drawn)}"
