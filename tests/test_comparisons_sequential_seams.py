"""Sequential comparisons at their seams (issue 25 with the seams rule of issue 20).

* ``--prob-baseline … --prob-margin`` is monitored under ``--prob-stop=sequential`` on the
  same rule as an axis margin, and its cases stop only once it is settled;
* stopping never changes a verdict or the exit status: each seeded example is run stopped
  and as a reference session that makes every run (a conftest reader that never settles
  holds every case) under the same sequential judging, and the verdicts, the comparison
  lines and the exit status are equal;
* a comparison without a margin gets no ``[compare:ARM]`` item, and under pytest-xdist its
  function still stays on one worker;
* ``pytest_prob_stop_readers`` is asked only when ``--prob-stop`` is on.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import EXPLORATORY_BENCH, load_json, section

#: inputs whose pass rate is ``low`` + 3 points per input + the shift in ``shift.txt``
#: (0 for the baseline report, then the change under test); each run's outcome is seeded
BENCH = """
import random
from pathlib import Path

import pytest
from pytest_probability import current_run

INPUTS = [f"q{{n:02d}}" for n in range({inputs})]


@pytest.mark.parametrize("q", INPUTS)
def bench_answer(q):
    shift = float(Path(__file__).with_name("shift.txt").read_text())
    rate = min(0.98, max(0.02, {low} + 0.03 * INPUTS.index(q) + shift))
    assert random.Random(f"{{q}}-{{shift}}-{{current_run().run}}").random() < rate
"""

#: a reader that never settles: the reference session makes every planned run
HOLD = """
from pytest_probability.extensions.stopping.service import StopReader

def pytest_prob_stop_readers(case, config):
    return [StopReader("the reference session (every run)")]
"""

BASELINE_TITLE = "probability: baseline"
COMPARE_TITLE = "probability: comparisons"


def _baseline_sessions(
    pytester: pytest.Pytester, shift: float, margin: float, runs: int, *extra: str
) -> tuple[Any, Any, dict[str, Any], dict[str, Any]]:
    """The baseline report (shift 0), then the shifted session stopped and held: their
    results and JSON reports."""
    (pytester.path / "shift.txt").write_text("0")
    pytester.runpytest(f"--prob-runs={runs}", "--prob-json=base.json")
    (pytester.path / "shift.txt").write_text(repr(shift))
    args = (
        f"--prob-runs={runs}",
        "--prob-stop=sequential",
        "--prob-baseline=base.json",
        f"--prob-margin={margin}",
        *extra,
    )
    stopped = pytester.runpytest(*args, "--prob-json=s.json")
    pytester.makeconftest(HOLD)
    held = pytester.runpytest(*args, "--prob-json=h.json")
    (pytester.path / "conftest.py").unlink()
    return stopped, held, load_json(pytester.path / "s.json"), load_json(pytester.path / "h.json")


def _verdicts(report: dict[str, Any]) -> dict[str, Any]:
    found = {
        f"gate {row['case']}": (row.get("gate") or {}).get("verdict") for row in report["rows"]
    }
    for line in report.get("comparisons") or []:
        found[f"compare {line['label']} {line['arm']}"] = line["verdict"]
    for line in (report.get("baseline") or {}).get("functions") or []:
        found[f"baseline {line['label']}"] = line["verdict"]
    return found


@pytest.mark.parametrize(
    ("inputs", "low", "shift", "margin", "runs", "verdict", "status"),
    [
        pytest.param(12, 0.4, 0.3, 0.05, 20, "pass", 0, id="better-pass"),
        pytest.param(12, 0.5, -0.45, 0.05, 20, "fail", 1, id="worse-fail"),
        pytest.param(12, 0.5, -0.05, 0.05, 6, "undecided", 1, id="boundary-undecided"),
        pytest.param(1, 0.3, 0.6, 0.1, 60, "pass", 0, id="one-input-pass"),
        pytest.param(1, 0.7, -0.6, 0.1, 60, "fail", 1, id="one-input-fail"),
    ],
)
def test_baseline_margin_is_monitored_and_stopping_keeps_its_verdict(
    pytester: pytest.Pytester,
    inputs: int,
    low: float,
    shift: float,
    margin: float,
    runs: int,
    verdict: str,
    status: int,
) -> None:
    pytester.makepyfile(bench_answer=BENCH.format(inputs=inputs, low=low))
    stopped, held, one, two = _baseline_sessions(pytester, shift, margin, runs)
    # the same verdicts, the same baseline line, the same exit status
    assert _verdicts(one) == _verdicts(two)
    assert section(stopped.outlines, BASELINE_TITLE) == section(held.outlines, BASELINE_TITLE)
    assert stopped.ret == held.ret == status
    (line,) = one["baseline"]["functions"]
    assert line["regime"] == "sequence" and line["verdict"] == verdict
    assert line["detail"]["method"] == "group-sequential"
    assert line["detail"]["settled"] == verdict
    # the reading is that of the settling look: equal however many runs the cases made
    # after it (the pairs' raw counts, rows[] and cost, are the cases' own)
    reading = ("difference", "low", "high", "p", "verdict", "regime", "detail", "paired")
    reference = two["baseline"]["functions"][0]
    assert {key: line[key] for key in reading} == {key: reference[key] for key in reading}
    (shown,) = section(stopped.outlines, BASELINE_TITLE)
    assert " seq  " in shown and shown.endswith(verdict.upper())
    # the reference made every run; the stopped session stopped every case at the settling
    # look when that came before the planned runs ran out
    assert not any(row.get("stopped") for row in two["rows"])
    after = line["detail"]["settled_after"]
    planned_looks = runs
    if after < planned_looks:
        assert {row["stopped"]["after"] for row in one["rows"]} == {after}
        assert one["comparisons_stopped"]["comparisons"] == 1
    else:
        assert not any(row.get("stopped") for row in one["rows"])


def test_a_stopped_baseline_comparison_in_the_terminal_json_and_explanation(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_answer=BENCH.format(inputs=12, low=0.4))
    (pytester.path / "shift.txt").write_text("0")
    pytester.runpytest("--prob-runs=20", "--prob-json=base.json")
    (pytester.path / "shift.txt").write_text("0.3")
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-stop=sequential", "--prob-baseline=base.json",
        "--prob-margin=0.05", "--prob-explain", "--prob-json=s.json",
    )  # fmt: skip
    assert result.ret == 0
    report = load_json(pytester.path / "s.json")
    (line,) = report["baseline"]["functions"]
    detail = line["detail"]
    after = detail["settled_after"]
    assert (detail["settled"], detail["pairs"], detail["rounds"]) == ("pass", 12 * after, after)
    assert detail["planned_pairs"] == 240 and detail["test"].startswith("group-sequential")
    # settled on the margin's boundaries before its horizon: no p of "no difference" of its
    # own (the stagewise p describes stops at zero's boundaries)
    assert line["p"] is None and detail["estimate"] in ("median-unbiased", "observed")
    # the pairs as read: each case's first `after` runs against as many dealt baseline runs
    assert {(p["arm"]["total"], p["baseline"]["total"]) for p in line["pairs"]} == {(after, after)}
    assert {p["baseline"]["total"] for p in line["pairs_full"]} == {20}
    read = sum(p["arm"]["passes"] - p["baseline"]["passes"] for p in line["pairs"])
    assert read / (12 * after) == pytest.approx(detail["observed"])
    saved = 12 * (20 - after)
    assert report["comparisons_stopped"] == {
        "comparisons": 1,
        "pairs_saved": saved,
        "pairs_planned": 240,
        "cost_avoided": None,
    }
    share = round(100 * saved / 240)
    assert any(
        text.strip() == f"1 comparison settled early (seq), saving {saved} of 240 pairs ({share}%)"
        for text in section(result.outlines)
    )
    (shown,) = section(result.outlines, BASELINE_TITLE)
    assert f"settled after {after}/20 rounds  ≥−5 pp  PASS" in shown
    text = " ".join(" ".join(section(result.outlines, "probability: explained")).split())
    assert "each run now against one of the baseline's runs, dealt in a seeded order" in text
    assert f"It settled after {after} of 20 rounds: the margin's PASS was certain." in text


def test_a_gate_that_holds_its_cases_does_not_change_the_comparison(
    pytester: pytest.Pytester,
) -> None:
    """A case whose own gate needs more runs than the comparison keeps running; the pairs it
    makes after the comparison settled are not read, so the comparison's line is that of a
    session that stopped at the settling look (here: the held reference)."""
    pytester.makepyfile(
        bench_ab="""
import random
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm", margin=0.1, min_rate=0.5)
@pytest.mark.parametrize("arm", ["old", "new"])
def bench_ab(arm):
    rate = 0.95 if arm == "new" else 0.35
    assert random.Random(f"{arm}-{current_run().run}").random() < rate
"""
    )
    args = ("--prob-runs=80", "--prob-stop=sequential")
    stopped = pytester.runpytest(*args, "--prob-json=s.json")
    pytester.makeconftest(HOLD)
    held = pytester.runpytest(*args, "--prob-json=h.json")
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "h.json")
    assert section(stopped.outlines, COMPARE_TITLE) == section(held.outlines, COMPARE_TITLE)
    reading = ("difference", "low", "high", "p", "verdict", "regime", "detail", "paired", "pairs")
    assert [{k: c[k] for k in reading} for c in one["comparisons"]] == [
        {k: c[k] for k in reading} for c in two["comparisons"]
    ]
    assert _verdicts(one)["compare ab new"] == _verdicts(two)["compare ab new"] == "pass"
    assert stopped.ret == held.ret
    rows = {row["case"]: row for row in one["rows"]}
    settled = one["comparisons"][0]["detail"]["settled_after"]
    # the old arm's gate needed more runs than the comparison: it kept making pairs
    assert rows["ab::old"]["stopped"]["after"] > settled
    assert one["comparisons"][0]["detail"]["pairs"] == settled
    # the JSON's pairs are the counts the line read; pairs_full every judged run
    (pair,) = one["comparisons"][0]["pairs"]
    (full,) = one["comparisons"][0]["pairs_full"]
    assert pair["arm"]["total"] == pair["baseline"]["total"] == settled
    assert full["baseline"]["total"] == rows["ab::old"]["stopped"]["after"] > settled
    assert pair["difference"] == pytest.approx(
        one["comparisons"][0]["detail"]["observed"]
    )  # (one input: the read pair's difference is the one over the pairs used)
    from test_docs import _doc, _json_sections

    documented = _json_sections(_doc("json.rst"))["``comparisons[]``"]
    assert [key for key in one["comparisons"][0] if key not in documented] == []


def test_an_exploratory_comparison_gets_no_compare_item(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_ab="""
import pytest

@pytest.mark.probability(compare="arm")
@pytest.mark.parametrize("arm", ["a", "b"])
def bench_ab(arm):
    pass

@pytest.mark.probability(compare="arm", margin=0.1)
@pytest.mark.parametrize("arm", ["a", "b"])
def bench_gated(arm):
    pass
"""
    )
    for stop in ("off", "sequential"):
        result = pytester.runpytest("--collect-only", "-q", "--prob-runs=2", f"--prob-stop={stop}")
        items = [line for line in result.outlines if "[compare:" in line]
        assert items == ["bench_ab.py::bench_gated[compare:b]"], stop


COUNTING = """
import json
from pathlib import Path

ASKED = []

def pytest_prob_stop_readers(case, config):
    ASKED.append(case.key)
    return []

def pytest_sessionfinish(session):
    Path("asked.json").write_text(json.dumps(ASKED))
"""


@pytest.mark.parametrize("stop", ["off", "curtail", "sequential"])
def test_stop_readers_are_asked_only_under_stopping(pytester: pytest.Pytester, stop: str) -> None:
    """Without ``--prob-stop`` nothing asks who reads a case (it costs nothing); with it,
    each case is asked about once, in the process that runs it."""
    pytester.makeconftest(COUNTING)
    pytester.makepyfile(
        bench_ab="""
import pytest

@pytest.mark.probability(compare="arm", margin=0.1, min_rate=0.2)
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("i", range(3))
def bench_ab(i, arm):
    pass
"""
    )
    pytester.runpytest("--prob-runs=5", f"--prob-stop={stop}")
    asked = json.loads((pytester.path / "asked.json").read_text())
    if stop == "off":
        assert asked == []
    else:
        assert sorted(asked) == sorted(set(asked)) and len(asked) == 6


@pytest.mark.subprocess
def test_an_exploratory_comparison_stays_on_one_worker(pytester: pytest.Pytester) -> None:
    """No compare item keeps it together: the controller reads the monitored functions from
    the order of the collection its workers send, so it stops exactly as in a serial
    session."""
    pytester.makepyfile(bench_ab=EXPLORATORY_BENCH)
    args = ("--prob-runs=30", "--prob-stop=sequential", "-p", "no:randomly")
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert serial.ret == parallel.ret
    assert section(parallel.outlines, COMPARE_TITLE) == section(serial.outlines, COMPARE_TITLE)
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert two["comparisons"] == one["comparisons"]
    assert two["comparisons_stopped"] == one["comparisons_stopped"]
    assert one["comparisons"][0]["detail"]["settled_after"] < 30
    workers = {r["worker"] for r in two["records"] if r["case"].startswith("ab::")}
    assert len(workers) == 1
    assert not any("[compare:" in r["nodeid"] for r in two["records"])


def test_the_plan_notes_a_monitored_baseline_margin(pytester: pytest.Pytester) -> None:
    """Under ``--prob-plan`` a gated case read by a monitored ``--prob-margin`` is noted as
    waiting for it (the runtime's readers can say when it is settled), not as running every
    run."""
    pytester.makepyfile(
        bench_answer=BENCH.format(inputs=3, low=0.5).replace(
            '@pytest.mark.parametrize("q", INPUTS)',
            '@pytest.mark.probability(min_rate=0.3)\n@pytest.mark.parametrize("q", INPUTS)',
        )
    )
    (pytester.path / "shift.txt").write_text("0")
    pytester.runpytest("--prob-runs=5", "--prob-json=base.json")
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-plan", "--prob-stop=sequential", "--prob-baseline=base.json",
        "--prob-margin=0.1",
    )  # fmt: skip
    lines = section(result.outlines, "probability: plan")
    note = (
        "under --prob-stop=sequential it also runs until its --prob-margin comparison with "
        "the baseline is settled"
    )
    assert sum(note in line for line in lines) == 3
    assert not any("runs every run" in line for line in lines)


def test_the_stopped_line_counts_the_money_not_spent(pytester: pytest.Pytester) -> None:
    """Each stopped case's cost per run made times its skipped runs, summed: 6 inputs, a
    cent a run for ``terse`` and two for ``cot``."""
    pytester.makepyfile(
        bench_ab="""
import pytest
from pytest_probability import current_run, record_cost

@pytest.mark.probability(compare="style")
@pytest.mark.parametrize("style", ["terse", "cot"])
@pytest.mark.parametrize("i", range(6))
def bench_ab(i, style):
    record_cost(0.02 if style == "cot" else 0.01)
    assert style == "cot" or (current_run().run + i) % 3 == 0
"""
    )
    result = pytester.runpytest("--prob-runs=30", "--prob-stop=sequential", "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")
    after = report["comparisons"][0]["detail"]["settled_after"]
    assert after < 30
    saved = report["comparisons_stopped"]
    assert (saved["pairs_saved"], saved["pairs_planned"]) == (6 * (30 - after), 180)
    assert saved["cost_avoided"] == pytest.approx(6 * 0.03 * (30 - after), abs=1e-9)
    share = round(100 * (30 - after) / 30)
    assert any(
        line.strip() == f"1 comparison settled early (seq), saving {6 * (30 - after)} of 180 pairs "
        f"({share}%), about ${6 * 0.03 * (30 - after):.4f} not spent"
        for line in section(result.outlines)
    )


def test_runs_that_skip_themselves_do_not_change_the_comparison(pytester: pytest.Pytester) -> None:
    """A run that skips itself gives no pair; the looks' cap counts it as still to come
    both while the session runs and when the report replays the looks, so the stopped
    session and the reference read the same looks."""
    pytester.makepyfile(
        bench_ab="""
import random
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm", margin=0.1)
@pytest.mark.parametrize("arm", ["old", "new"])
@pytest.mark.parametrize("i", range(4))
def bench_ab(i, arm):
    run = current_run().run
    if arm == "new" and i == 0 and run in (2, 5, 9):
        pytest.skip("no answer this time")
    rate = 0.55 if arm == "new" else 0.6
    assert random.Random(f"{i}-{arm}-{run}").random() < rate
"""
    )
    args = ("--prob-runs=12", "--prob-stop=sequential")
    stopped = pytester.runpytest(*args, "--prob-json=s.json")
    pytester.makeconftest(HOLD)
    held = pytester.runpytest(*args, "--prob-json=h.json")
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "h.json")
    assert section(stopped.outlines, COMPARE_TITLE) == section(held.outlines, COMPARE_TITLE)
    assert _verdicts(one) == _verdicts(two) and stopped.ret == held.ret
    # input 0 made 9 pairs of 12: the cap (12) was never reached, so UNDECIDED was never
    # certain before the end; the margin is judged on the last look, in both sessions
    line = one["comparisons"][0]
    assert (line["detail"]["settled"], line["verdict"], line["detail"]["rounds"]) == (
        None,
        "undecided",
        9,
    )


def test_the_controller_reads_monitored_functions_from_the_collection_order() -> None:
    """A monitored function's runs come run-major in a worker's collection, every other
    function's case by case: the order alone names the functions to keep together."""
    from pytest_probability.extensions.comparisons.sequential.runtime import (
        interleaved_functions,
    )

    collection = [
        "bench_ab.py::bench_ab::0-terse[run1]",
        "bench_ab.py::bench_ab::0-cot[run1]",
        "bench_ab.py::bench_ab::0-terse[run2]",
        "bench_ab.py::bench_ab::0-cot[run2]",
        "bench_ab.py::bench_other::0[run1]",
        "bench_ab.py::bench_other::0[run2]",
        "bench_ab.py::bench_other::1[run1]",
        "bench_ab.py::bench_other::1[run2]",
        "bench_ab.py::bench_other::1[gate]",
        "bench_ab.py::bench_single[run1]",
        "bench_ab.py::bench_single[run2]",
        "sub/bench_g.py::bench_g::x[run1]@grp",
        "sub/bench_g.py::bench_g::y[run1]@grp",
        "sub/bench_g.py::bench_g::x[run2]@grp",
        "bench_ab.py::test_plain",
    ]
    assert interleaved_functions(collection) == ["bench_ab.py::bench_ab", "sub/bench_g.py::bench_g"]
