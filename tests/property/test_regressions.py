"""Examples the property suite found, shrunk, as plain deterministic tests.

Each test names the invariant it checks (tests/property/prop_invariants.py). A seam that
still fails is marked ``xfail(strict=True)`` with the reason the property suite's filter
cites, so the test turns into a failure (XPASS) the day the seam is fixed: then remove the
mark and the filter.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from prop_harness import RELATIONS, Runner, Session, run_relation
from prop_invariants import LINES_PER_CASE, sequential_comparisons, verdicts, work_conftest
from prop_suites import Axis, Example, Flags, Function, Suite, dedent

pytestmark = [pytest.mark.property]


@pytest.fixture
def runner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Runner:
    return Runner(pytester, monkeypatch)


def sessions(runner: Runner, source: str, **variants: Flags) -> dict[str, Session]:
    runner.prepare(files={"bench_0.py": dedent(source)})
    return {name: runner.run(name, flags) for name, flags in variants.items()}


SKIPPED_FIRST = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(min_rate=0.3, runs=2)
    def bench_f0():
        if current_run().run == 1:
            pytest.skip("not this run")
    """


@pytest.mark.parametrize("stop", ["curtail", "sequential"])
def test_stopping_before_any_judged_run_keeps_the_verdict(runner: Runner, stop: str) -> None:
    """Invariant "curtail keeps verdicts" / "sequential keeps other verdicts"."""
    found = sessions(runner, SKIPPED_FIRST, off=Flags(), stopped=Flags(stop=stop))
    off, stopped = found["off"], found["stopped"]
    assert off.report and stopped.report
    assert verdicts(off.report) == {
        ("gate", "f0"): "undecided",
        ("check", "f0", "0", "rate"): "undecided",
    }
    assert verdicts(stopped.report) == verdicts(off.report)
    assert (off.ret, stopped.ret) == (1, 1)


ERROR_AFTER_THE_STOP = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(min_passes=1, runs=2)
    def bench_f0():
        if current_run().run == 2:
            raise ValueError("harness broke in run 2")
    """


@pytest.mark.parametrize("stop", ["curtail", "sequential"])
def test_stopping_that_skips_an_error_keeps_the_exit_status(runner: Runner, stop: str) -> None:
    """Invariant "curtail keeps verdicts" (the exit status); shrunk by the slow profile from
    ``--prob-undecided=pass`` and a rate gate. The errored run of a gated case once failed
    the session whatever the verdict, so skipping it changed the exit status: now the
    verdict decides errored runs too (xfailed), and the exit status is the verdict's."""
    found = sessions(runner, ERROR_AFTER_THE_STOP, off=Flags(), stopped=Flags(stop=stop))
    off, stopped = found["off"], found["stopped"]
    assert off.report and stopped.report
    assert verdicts(off.report) == {
        ("gate", "f0"): "pass",
        ("check", "f0", "0", "count"): "pass",
    }
    assert verdicts(stopped.report) == verdicts(off.report)
    assert off.outcomes() == {"passed": 2, "xfailed": 1}  # run 1, the [gate] item; run 2
    assert stopped.outcomes() == {"passed": 2, "skipped": 1}
    assert (off.ret, stopped.ret) == (0, 0)


COMPARED_ERRORS = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(compare="arm")
    @pytest.mark.parametrize("arm", ["arm0", "arm1"])
    def bench_f0(arm):
        raise ValueError(f"harness broke in run {current_run().run}")
    """


@pytest.mark.parametrize("stop", ["curtail", "sequential"])
def test_explain_reads_a_comparison_over_stopped_cases(runner: Runner, stop: str) -> None:
    """Invariant "the session ran": the explain extension read a comparison whose interval
    stopping hid and raised ``TypeError`` (a warning in every stopped session with a
    comparison, with or without --prob-explain; issue 20 §1)."""
    flags = Flags(runs=2, min_rate=0.3, stop=stop)
    found = sessions(runner, COMPARED_ERRORS, plain=flags, explain=replace(flags, explain=True))
    for session in found.values():
        assert session.ret == 1
        assert not [line for line in session.lines if "failed in pytest_prob_explain" in line]
    assert "probability: explained" in found["explain"].sections()


AT_THE_BAR = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(min_rate=0.5, runs=2)
    @pytest.mark.parametrize("rate", ["half", "all"])
    def bench_f0(rate):
        assert rate == "all" or current_run().run == 1
    """


def test_runs_to_settle_work_is_bounded_at_the_bar(runner: Runner) -> None:
    """Invariant "report work is linear": each case costs the report phase at most
    LINES_PER_CASE lines. Two cases, 1/2 and 2/2, both UNDECIDED at 50%; the report phase of
    the session must cost at most a case's bound more than that of the same session without
    the case at the bar."""
    cap = 3 * LINES_PER_CASE
    runner.prepare(files={"bench_0.py": dedent(AT_THE_BAR)}, conftest=work_conftest(cap))
    both = runner.run("both", Flags())
    runner.prepare(
        files={"bench_0.py": dedent(AT_THE_BAR).replace('["half", "all"]', '["all"]')},
        conftest=work_conftest(cap),
    )
    one = runner.run("one", Flags())
    assert both.ret == one.ret == 1
    lines = both.extra["work"]["lines"], one.extra["work"]["lines"]
    assert lines[0] - lines[1] <= LINES_PER_CASE, (
        f"report-phase lines with and without 1/2: {lines}"
    )


def test_report_work_of_a_suite_that_crosses_a_threshold(runner: Runner) -> None:
    """Invariant "report work is linear", on the suite the slow profile shrank to when the
    relation doubled from 1x: from 3 to 6 to 12 cases the second doubling added 3.5 times
    the first (function-level lines appear as cases are added); the relation now doubles
    from 2x, past such thresholds."""
    suite = Suite(
        (
            Function(name="f0", outcomes=(("", "p"),)),
            Function(
                name="f1",
                axes=(Axis("q", ("in0",)), Axis("arm", ("arm0", "arm1"))),
                mark=(("runs", 2),),
                outcomes=(("in0-arm0", "p"), ("in0-arm1", "fppp")),
            ),
        )
    )
    item = next(item for item in RELATIONS if item.name == "report work is linear")
    run_relation(runner, item, Example(suite, Flags(bootstrap=200, min_inputs=2)))


BUDGET_CUTS_A_MARGIN = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(compare="arm", margin=0.35)
    @pytest.mark.parametrize("arm", ["arm0", "arm1"])
    def bench_f0(arm):
        if arm == "arm0":
            raise ValueError(f"harness broke in run {current_run().run}")
    """


def test_a_budget_cut_before_a_margins_last_look(runner: Runner) -> None:
    """Invariant "sequential comparisons are read from their sequence", shrunk by the ci
    profile once the any-flags relation drew ``--prob-budget-runs`` with sequential
    stopping: the budget (2 runs of 6) skips the runs after it, so the margin's last look
    (3 pairs) never comes. The check said "a margin always settles by its last look"; under
    a budget it is unsettled and judged on the one pair made (UNDECIDED), and the check now
    allows that (docs/budget.rst: the budget skips every remaining run)."""
    flags = Flags(runs=3, bootstrap=50, stop="sequential", budget_runs=2)
    session = sessions(runner, BUDGET_CUTS_A_MARGIN, cut=flags)["cut"]
    assert session.report
    (line,) = session.report["comparisons"]
    assert (line["detail"]["pairs"], line["detail"]["settled"], line["verdict"]) == (
        1,
        None,
        "undecided",
    )
    assert session.ret == 1  # (the budget cut the session, and the margin is UNDECIDED)
    sequential_comparisons(Example(Suite(()), flags), session)


SKIPS_BEFORE_A_MARGINS_LAST_LOOK = """
    import pytest
    from pytest_probability import current_run


    @pytest.mark.probability(compare="arm", margin=0.6)
    @pytest.mark.parametrize("arm", ["arm0", "arm1"])
    def bench_f0(arm):
        if arm == "arm1" and current_run().run % 2:
            pytest.skip("not this run")
    """


def test_skipped_runs_before_a_margins_last_look(runner: Runner) -> None:
    """Invariant "sequential comparisons are read from their sequence", found by the ci
    profile: an arm that skips every other run makes 2 pairs of the 4 planned, so the
    margin's last look (4 pairs) never comes, as under a budget: it is unsettled and judged
    on the pairs made (UNDECIDED), and the check allows that."""
    flags = Flags(runs=4, bootstrap=50, stop="sequential")
    session = sessions(runner, SKIPS_BEFORE_A_MARGINS_LAST_LOOK, short=flags)["short"]
    assert session.report
    (line,) = session.report["comparisons"]
    detail = line["detail"]
    assert (detail["pairs"], detail["planned_pairs"], detail["settled"], line["verdict"]) == (
        2,
        4,
        None,
        "undecided",
    )
    sequential_comparisons(Example(Suite(()), flags), session)
