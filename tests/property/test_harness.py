"""The property suite's own machinery: the generator's model matches what pytest collects, and
the invariants fail when they should (each is shown a session that breaks it)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
from prop_harness import RELATIONS, SESSION_CHECKS, Runner, Session
from prop_invariants import check_same_everything, stopped_line, verdicts_follow_numbers
from prop_suites import ARM_AXIS, INPUT_AXIS, Axis, Example, Flags, Function, Suite

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
