"""The sequential comparisons' looks kept run by run (issue 22, section 2's run-loop term).

* :class:`~.sequential.track.RunningLook` equals :func:`.sequential.rule.look_of` built
  afresh from the same records after every change: runs in order, out of order, replaced (a
  rerun), altered in place (a teardown that fails after its call passed), skipped, and with
  a fixed baseline side (``--prob-margin`` against a baseline report) — exactly, float for
  float;
* its version changes whenever the look does;
* in a session, the readers add each completed round to the sequence once: the rounds the
  run loop adds are the rounds made, where rebuilding the look at every run (the code
  before) added the rounds so far at every run, quadratic in the session.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_probability.extensions.comparisons.sequential.outcome import (
    paired_runs,
    paired_with_baseline,
)
from pytest_probability.extensions.comparisons.sequential.rule import DESIGNS, look_of
from pytest_probability.extensions.comparisons.sequential.track import (
    Fixed,
    Judged,
    RunningLook,
    Side,
)

OUTCOMES = ("pass", "fail", "error", "skip")


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    """Inputs (each an arm case and a baseline case or a fixed baseline), and a sequence
    of record changes: set a run's record (new or replacing) or alter one in place."""
    count = draw(st.integers(1, 4))
    fixed = draw(st.booleans())
    planned = [(draw(st.integers(1, 6)), draw(st.integers(1, 6))) for _ in range(count)]
    bases = [tuple(draw(st.lists(st.integers(0, 1), max_size=6))) for _ in range(count)]
    steps = draw(
        st.lists(
            st.tuples(
                st.integers(0, count - 1),
                st.integers(0, 0 if fixed else 1),
                st.integers(1, 7),
                st.sampled_from(OUTCOMES),
                st.booleans(),  # in place (when the run has a record)
            ),
            max_size=40,
        )
    )
    return {"count": count, "fixed": fixed, "planned": planned, "bases": bases, "steps": steps}


def _fresh(
    scenario: dict[str, Any], records: list[list[dict[int, Any]]], level: float, design: str
) -> Any:
    """The look built afresh as the readers once built it at every run."""
    inputs = []
    for index in range(scenario["count"]):
        arm_planned, base_planned = scenario["planned"][index]
        arm, base = records[index]
        if scenario["fixed"]:
            found = paired_with_baseline("i", arm, arm_planned, scenario["bases"][index])
        else:
            found = paired_runs("i", arm, base, arm_planned, base_planned)
        inputs.append(found)
    return look_of(inputs, level, design)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(), st.sampled_from([0.6827, 0.9, 0.95]), st.sampled_from(DESIGNS))
def test_running_look_equals_a_fresh_look_after_every_change(
    scenario: dict[str, Any], level: float, design: str
) -> None:
    count = scenario["count"]
    records: list[list[dict[int, Any]]] = [[{}, {}] for _ in range(count)]
    judged = [[Judged(), Judged()] for _ in range(count)]
    inputs = []
    for index in range(count):
        arm_planned, base_planned = scenario["planned"][index]
        arm = Side(judged[index][0], arm_planned)
        if scenario["fixed"]:
            runs = scenario["bases"][index]
            base = Side(Fixed(runs), len(runs))
        else:
            base = Side(judged[index][1], base_planned)
        inputs.append((arm, base))
    running = RunningLook(inputs, level, design)
    assert running.look() == _fresh(scenario, records, level, design)
    before = (running.version, running.look())
    for index, side, run, outcome, in_place in scenario["steps"]:
        kept = records[index][side]
        if in_place and run in kept:
            kept[run]["outcome"] = outcome  # (Results.teardown_failed alters it in place)
        else:
            kept[run] = {"outcome": outcome}  # (Results.add: new, or replacing a rerun)
        first = judged[index][side].update(kept)
        running.changed(index, first)
        look = running.look()
        assert look == _fresh(scenario, records, level, design)
        if running.version == before[0]:
            assert look == before[1]  # the version changes whenever the look does
        before = (running.version, look)


def test_judged_appends_runs_in_order_and_rereads_otherwise() -> None:
    judged = Judged()
    records: dict[int, Any] = {}
    records[1] = {"outcome": "pass"}
    assert judged.update(records) == 0 and judged.runs == [1]
    records[2] = {"outcome": "skip"}
    assert judged.update(records) == 1 and judged.runs == [1]
    records[3] = {"outcome": "error"}
    assert judged.update(records) == 1 and judged.runs == [1, 0]
    records[1]["outcome"] = "fail"  # altered in place: reread, the first changed index
    assert judged.update(records) == 0 and judged.runs == [0, 0]
    records[5] = {"outcome": "pass"}
    records[4] = {"outcome": "pass"}  # out of run order: reread
    assert judged.update(records) == 2 and judged.runs == [0, 0, 1, 1]


def test_a_look_needs_a_paired_input() -> None:
    with pytest.raises(ValueError, match="at least one paired input"):
        RunningLook([], 0.95)


#: one function, a ``prompt`` axis of two arms over ``INPUTS`` inputs: arm ``b`` passes
#: four runs in five, the baseline arm ``a`` one in two, so the comparison settles a
#: difference after some rounds
COUNTED = """
import pytest
from pytest_probability import current_run

INPUTS = [f"q{{n:02d}}" for n in range({inputs})]


@pytest.mark.probability(compare="prompt")
@pytest.mark.parametrize("prompt", ["a", "b"])
@pytest.mark.parametrize("q", INPUTS)
def bench_answer(q, prompt):
    turn = current_run().run + INPUTS.index(q)
    assert turn % 5 != 0 if prompt == "b" else turn % 2 == 0
"""

#: counts the rounds added to any sequence while runs are made (not at the session's end,
#: where the report replays the sequence)
COUNTER = """
import json

import pytest
from pytest_probability.extensions.comparisons.statistics import bernstein

ADDED = []
_original = bernstein.RoundSequence.add_round


def _counted(self, differences):
    ADDED.append(len(differences))
    return _original(self, differences)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    bernstein.RoundSequence.add_round = _counted
    try:
        return (yield)
    finally:
        bernstein.RoundSequence.add_round = _original
        with open("added.json", "w") as out:
            json.dump(ADDED, out)
"""


def test_the_run_loop_adds_each_round_once(pytester: pytest.Pytester) -> None:
    inputs, runs = 12, 20
    pytester.makepyfile(bench_counted=COUNTED.format(inputs=inputs))
    pytester.makeconftest(COUNTER)
    result = pytester.runpytest_subprocess(
        f"--prob-runs={runs}",
        "--prob-stop=sequential",
        "-o",
        "prob_compare_sequential=anytime",
        "--prob-json=out.json",
        "-p",
        "no:randomly",
    )
    assert result.ret == 1, result.stdout.str()  # (arm a's cases fail some runs)
    report = json.loads((pytester.path / "out.json").read_text())
    (line,) = report["comparisons"]
    rounds = line["detail"]["settled_after"]
    made = {row["case"]: row["total"] for row in report["rows"]}
    added = json.loads((pytester.path / "added.json").read_text())
    # the comparison settled a difference before every run was made; every case stopped
    # at that round
    assert line["detail"]["settled"] == "difference"
    assert 3 < rounds < runs, line["detail"]
    assert set(made.values()) == {rounds}, made
    # each round added while runs were made has every input, and is added once (the
    # look built afresh at every run added hundreds)
    assert added == [inputs] * rounds
