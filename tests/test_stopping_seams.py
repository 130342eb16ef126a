"""Issue 20, section 1: stopping never changes a verdict or the exit status.

A case is stopped only when every verdict that reads it is settled: its gates, and the
readers other extensions name through ``pytest_prob_stop_readers`` (comparison and baseline
margins, third-party verdicts); a reader that cannot say keeps the case running, and the
``Stopped:`` line says so. Over cases that were stopped, comparisons print nothing computed
from their fractions, and the cost ratio is per run made.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, ClassVar

import pytest
from helpers import load_json, section, stable
from pytest_probability.extensions.comparisons.report.explain import comparison_text, readings
from pytest_probability.extensions.stopping.service import (
    CANNOT_SAY,
    NOT_YET,
    StopReader,
    holding,
)

#: The issue's reproduction: arm b fails runs 1-8, then passes; a comparison margin judges
#: both arms (and a rate gate each). Run indices stand in for the issue's counter.
MARGIN_BENCH = """
import pytest
from pytest_probability import current_run, record_cost


@pytest.mark.probability(compare="arm", margin=0.05, min_rate=0.3)
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("j", [pytest.param(0, id="i0")])
def bench_c(j, arm):
    record_cost(0.004 if arm == "a" else 0.001)
    assert arm == "a" or current_run().run > 8, f"run {current_run().run}"
"""

#: The same without a margin: nothing keeps the cases running.
REPORT_BENCH = MARGIN_BENCH.replace('compare="arm", margin=0.05,', 'compare="arm",')

KEPT_BY_MARGIN = (
    "           2 cases kept running for {runs} runs the rule would have skipped: the margin "
    "of c[arm] cannot say when it is settled"
)
COMPARISON_FAIL = "  c[arm]  b − a  −40 pp [−61, −16]  p=0.003  1 paired  cost ×0.3  ≥−5 pp  FAIL"


def _run(pytester: pytest.Pytester, name: str, *args: str) -> tuple[Any, dict[str, Any]]:
    result = pytester.runpytest("-o", "prob_runs=20", f"--prob-json={name}.json", *args)
    return result, load_json(pytester.path / f"{name}.json")


def _verdicts(report: dict[str, Any]) -> dict[str, Any]:
    """Every verdict of a report: gates, comparisons (with their numbers), the baseline."""
    return {
        "gates": [(row["case"], (row.get("gate") or {}).get("verdict")) for row in report["rows"]],
        "comparisons": [
            {k: c[k] for k in ("arm", "difference", "low", "high", "p", "verdict", "cost_ratio")}
            for c in report.get("comparisons", [])
        ],
        "baseline": [
            {k: f[k] for k in ("label", "difference", "low", "high", "p", "verdict")}
            for f in (report.get("baseline") or {}).get("functions", [])
        ],
        "exit_status": report["exit_status"],
    }


# -- margins keep the cases they read running ----------------------------------------------------
def test_a_comparison_margin_keeps_its_cases_running_under_curtail(
    pytester: pytest.Pytester,
) -> None:
    """The issue's reproduction: the margin FAILs and the session exits 1 with every run, so
    under curtailment too (the cases used to stop at 11/11 and 11/19, the verdict was null
    and the exit status 0)."""
    pytester.makepyfile(bench_c=MARGIN_BENCH)
    full, every = _run(pytester, "full")
    result, stopped = _run(pytester, "stopped", "--prob-stop=curtail")
    assert full.ret == result.ret == 1
    assert section(result.outlines) == [
        "  c::i0-a  20/20  [83%, 100%]  $0.0800  kept running after 11/20",
        "  c::i0-b  12/20  [36%,  81%]  $0.0200  FLAKY  kept running after 19/20",
        "",
        "  Overall: 32/40 passed (80%)",
        "  Gates:   2 passed",
        "  Stopped: 0 cases early, saving 0 of 40 runs (0%)",
        KEPT_BY_MARGIN.format(runs=10),
        "  Cost:    $0.1000",
    ]
    assert section(result.outlines, "probability: comparisons") == [COMPARISON_FAIL]
    assert section(full.outlines, "probability: comparisons") == [COMPARISON_FAIL]
    assert _verdicts(stopped) == _verdicts(every)
    assert stopped["comparisons"][0]["verdict"] == "fail"
    assert [row["kept_running"] for row in stopped["rows"]] == [
        {"after": 11, "planned": 20, "runs": 9, "reasons": ["the margin of c[arm] " + CANNOT_SAY]},
        {"after": 19, "planned": 20, "runs": 1, "reasons": ["the margin of c[arm] " + CANNOT_SAY]},
    ]
    assert [row["stopped"] for row in stopped["rows"]] == [None, None]
    assert stopped["stopping"] == {
        "mode": "curtail",
        "stopped_cases": 0,
        "runs_saved": 0,
        "runs_planned": 40,
        "runs_in_flight": 0,
        "cost_avoided": None,
        "spread_cases": 0,
        "kept_cases": 2,
        "kept_runs": 10,
    }
    held = [r["run"] for r in stopped["records"] if r.get("stop_held")]
    assert held == [*range(12, 21), 20]  # a's runs 12-20, b's run 20
    # the rows, the runs and the comparison are those of running every run
    assert stable(stopped["rows"]) == [
        {**row, "stopped": None, "kept_running": kept}
        for row, kept in zip(
            stable(every["rows"]), [r["kept_running"] for r in stopped["rows"]], strict=True
        )
    ]


def test_a_comparison_margin_is_judged_on_its_sequence_under_sequential(
    pytester: pytest.Pytester,
) -> None:
    """Under ``sequential`` the margin, like the rate gates, is judged on an anytime-valid
    sequence (issue 25), whose readers say when it is settled: arm b fails its first runs,
    so the margin FAILs after 5 pairs and both arms stop (a's gate, settled after 4 runs,
    is held one run for it) — the same FAIL and exit status as running every run. (On the
    ``anytime`` design, whose numbers this test pins; the default ``horizon`` one settles
    the same FAIL after 7 pairs.)"""
    pytester.makepyfile(bench_c=MARGIN_BENCH)
    full, every = _run(pytester, "full")
    horizon, _ = _run(pytester, "horizon", "--prob-stop=sequential")
    assert horizon.ret == 1
    assert section(horizon.outlines, "probability: comparisons") == [
        "  c[arm]  b − a  −96 pp [−100, −14] seq  1 paired  settled after 7/20 pairs"
        "  cost ×0.3  ≥−5 pp  FAIL"
    ]
    result, stopped = _run(
        pytester, "stopped", "--prob-stop=sequential", "--prob-compare-sequential=anytime"
    )
    assert full.ret == result.ret == 1
    assert section(result.outlines, "probability: comparisons") == [
        "  c[arm]  b − a  −100 pp [−100, −12] seq  p=0.02  1 paired  settled after 5/20 pairs"
        "  cost ×0.3  ≥−5 pp  FAIL"
    ]
    lines = section(result.outlines)
    assert (
        "           1 case kept running for 1 run the rule would have skipped: the comparison "
        "c[arm] b − a is not settled yet"
    ) in lines
    assert (
        "           1 comparison settled early (seq), saving 15 of 20 pairs (75%), about "
        "$0.0710 not spent"
    ) in lines
    assert [c["verdict"] for c in stopped["comparisons"]] == ["fail"]
    assert [c["verdict"] for c in every["comparisons"]] == ["fail"]
    detail = stopped["comparisons"][0]["detail"]
    assert (detail["method"], detail["pairs"], detail["settled"], detail["settled_after"]) == (
        "mixture",
        5,
        "fail",
        5,
    )


def test_a_baseline_margin_keeps_its_cases_running(pytester: pytest.Pytester) -> None:
    """``--prob-margin``: the cases paired with the baseline run every run, so the function's
    difference is −25 pp as without stopping (not one computed from stopped fractions), with
    the same FAIL and exit status. Without a margin the cases stop, and the baseline line
    then shows nothing computed from their fractions."""
    pytester.makepyfile(
        bench_r="""
import pytest

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("item", ["x", "y"])
def bench_r(item):
    pass
"""
    )
    pytester.runpytest("-o", "prob_runs=20", "--prob-json=base.json")
    pytester.makepyfile(
        bench_r="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("item", ["x", "y"])
def bench_r(item):
    run = current_run().run
    assert run > (2 if item == "x" else 8), f"run {run}"
"""
    )
    common = ("-o", "prob_min_inputs=2", "--prob-baseline=base.json")
    margin = (*common, "--prob-margin=0.05")
    full, every = _run(pytester, "full", *margin)
    result, stopped = _run(pytester, "stopped", *margin, "--prob-stop=curtail")
    assert full.ret == result.ret == 1
    line = "  r  now − baseline  −25 pp [−40, −10]  p=0.50  2 paired  ≥−5 pp  FAIL"
    assert section(result.outlines, "probability: baseline") == [line]
    assert section(full.outlines, "probability: baseline") == [line]
    assert _verdicts(stopped) == _verdicts(every)
    assert section(result.outlines)[:2] == [
        "  r::x  18/20  [68%, 99%]  FLAKY  kept running after 13/20",
        "  r::y  12/20  [36%, 81%]  FLAKY  kept running after 19/20",
    ]
    assert (
        "           2 cases kept running for 8 runs the rule would have skipped: the "
        "--prob-margin comparison of r with the baseline cannot say when it is settled"
    ) in section(result.outlines)
    # report only: the cases stop, and the baseline line hides what leans
    report_only, hidden = _run(pytester, "hidden", *common, "--prob-stop=curtail", "--prob-explain")
    assert section(report_only.outlines, "probability: baseline") == [
        "  r  now − baseline  2 paired  (difference, interval and p hidden: 2 cases were "
        "stopped early and lean toward their verdicts)"
    ]
    (function,) = hidden["baseline"]["functions"]
    assert [function[k] for k in ("difference", "low", "high", "p", "verdict")] == [None] * 5
    assert "failed in pytest_prob_explain" not in report_only.stdout.str()
    assert function["explanation"].startswith(
        "Over 2 paired inputs, this run against the baseline is not estimated: 2 cases were "
        "stopped early and lean toward their verdicts"
    )


# -- over stopped cases nothing leaning is printed, and cost is per run made ----------------------
def test_a_comparison_over_stopped_cases_hides_difference_and_p(pytester: pytest.Pytester) -> None:
    """Without a margin the cases stop; the comparison line keeps what does not lean (the
    paired count, the cost per run made: ×0.25 on every input, as without stopping) and
    hides the difference, the interval and p; --prob-explain reads it without a warning."""
    pytester.makepyfile(bench_c=REPORT_BENCH)
    full, every = _run(pytester, "full")
    result, stopped = _run(pytester, "stopped", "--prob-stop=curtail", "--prob-explain")
    assert section(result.outlines)[:2] == [
        "  c::i0-a  11/11  [72%, 100%]  $0.0440  decided after 11/20",
        "  c::i0-b  11/19  [33%,  80%]  $0.0190  FLAKY  decided after 19/20",
    ]
    assert section(result.outlines, "probability: comparisons") == [
        "  c[arm]  b − a  1 paired  cost ×0.3  (difference, interval and p hidden: 2 cases were "
        "stopped early and lean toward their verdicts)"
    ]
    (comparison,) = stopped["comparisons"]
    assert comparison["cost_ratio"] == pytest.approx(0.25)
    assert comparison["cost_ratio"] == pytest.approx(every["comparisons"][0]["cost_ratio"])
    assert [comparison[k] for k in ("difference", "low", "high", "p", "p_adjusted")] == [None] * 5
    assert comparison["inputs"] == [] and comparison["verdict"] is None
    assert "failed in pytest_prob_explain" not in result.stdout.str()
    assert comparison["explanation"] == (
        "Over 1 paired input, b against a is not estimated: 2 cases were stopped early and "
        "lean toward their verdicts, so a difference, an interval or a p computed from them "
        "would lean too, and none is shown. Run without --prob-stop to estimate it (a margin= "
        "keeps the cases it judges running). What it does show is that b costs 0.3 times as "
        "much per run as a."
    )
    assert full.ret == result.ret == 0


def test_a_hidden_comparison_leaves_the_adjustment_family(pytester: pytest.Pytester) -> None:
    """A hidden p is not adjusted with the others (it would lean): ``--prob-adjust=holm``
    over a session with one hidden comparison adjusts the other alone."""
    pytester.makepyfile(
        bench_two="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm", min_rate=0.3)
@pytest.mark.parametrize("arm", ["a", "b"])
def bench_gated(arm):
    assert arm == "a" or current_run().run > 8

@pytest.mark.probability(compare="arm")
@pytest.mark.parametrize("arm", ["a", "b"])
def bench_free(arm):
    assert arm == "a" or current_run().run % 2
"""
    )
    _, report = _run(pytester, "r", "--prob-stop=curtail", "--prob-adjust=holm")
    gated, free = report["comparisons"]
    assert "hidden" in gated and gated["p"] is None and gated["p_adjusted"] is None
    assert free["p_adjusted"] == free["p"]  # a family of one
    assert "hidden" not in free


# -- the contract: third-party readers -----------------------------------------------------------
READER_CONFTEST = """
from pytest_probability.extensions.stopping.service import StopReader


def pytest_prob_stop_readers(case, config):
    if case.case_id == "t::slow":  # settled only once 15 runs were judged
        return [StopReader("the audit of t::slow", lambda context: context.judged >= 15)]
    if case.case_id == "t::broken":
        return [StopReader("the broken audit", lambda context: 1 / 0)]
    return None
"""


def test_a_third_party_reader_decides_when_its_case_may_stop(pytester: pytest.Pytester) -> None:
    """A reader that answers ``False`` keeps its case running until it answers ``True``; one
    that raises counts as "cannot say"; a case nobody reads stops with its gate."""
    pytester.makeconftest(READER_CONFTEST)
    pytester.makepyfile(
        bench_t="""
import pytest

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("kind", ["free", "slow", "broken"])
def bench_t(kind):
    pass
"""
    )
    result, report = _run(pytester, "r", "--prob-stop=curtail")
    assert section(result.outlines)[:3] == [
        "  t::free    11/11  [72%, 100%]  decided after 11/20",
        "  t::slow    15/15  [78%, 100%]  decided after 15/20",
        "  t::broken  20/20  [83%, 100%]  kept running after 11/20",
    ]
    assert (
        "           2 cases kept running for 13 runs the rule would have skipped: the audit of "
        "t::slow is not settled yet (1 case); the broken audit cannot say when it is settled "
        "(ZeroDivisionError: division by zero) (1 case)"
    ) in section(result.outlines)
    assert [row["kept_running"] for row in report["rows"]][1]["runs"] == 4
    assert result.ret == 0


def test_holding_answers() -> None:
    """:func:`holding`: only ``True`` lets a case stop."""
    context = object()
    readers = [
        StopReader("yes", lambda c: True),
        StopReader("no", lambda c: False),
        StopReader("unsure", lambda c: None),
        StopReader("never"),
        StopReader("raises", lambda c: {}[c]),
    ]
    assert holding(readers[:1], context) == []
    assert holding(readers, context) == [
        f"no {NOT_YET}",
        f"unsure {CANNOT_SAY}",
        f"never {CANNOT_SAY}",
        f"raises {CANNOT_SAY} (KeyError: <object object at {hex(id(context))}>)",
    ]


# -- explain over every hidden or missing field --------------------------------------------------
BASE_ITEM: dict[str, Any] = {
    "label": "c",
    "axis": "arm",
    "arm": "b",
    "baseline": "a",
    "level": 0.95,
    "difference": -0.4,
    "low": -0.61,
    "high": -0.16,
    "p": 0.003,
    "p_adjusted": None,
    "paired": 1,
    "cost_ratio": 0.25,
    "margin": 0.05,
    "verdict": "fail",
    "error": None,
    "detail": {"interval": "newcombe", "test": "fisher"},
    "inputs": [],
    "pairs": [
        {
            "input": "i0",
            "arm": {"key": "k/b", "passes": 12, "total": 20, "cost": 0.02},
            "baseline": {"key": "k/a", "passes": 20, "total": 20, "cost": 0.08},
            "difference": -0.4,
        }
    ],
}
NULLABLE = ("difference", "low", "high", "p", "p_adjusted", "cost_ratio", "margin", "level")
REGIMES = ("one pair", "few pairs", "bootstrap", "a third party's")


@pytest.mark.parametrize("regime", REGIMES)
def test_explain_reads_every_hidden_or_missing_field(regime: str) -> None:
    """Every subset of the numeric fields set to ``null`` (as a hidden comparison, a test
    without an interval or p, or a cost-less session writes them), in every regime, with and
    without ``hidden``, also with no pairs: the reading is a sentence, never a TypeError."""
    for hidden in (None, "2 cases were stopped early and lean toward their verdicts"):
        for size in range(len(NULLABLE) + 1):
            for nulls in itertools.combinations(NULLABLE, size):
                item = {**BASE_ITEM, "regime": regime, **dict.fromkeys(nulls)}
                if hidden:
                    item["hidden"] = hidden
                for pairs in (item["pairs"], []):
                    text = comparison_text({**item, "pairs": pairs}, "b against a", "the arms")
                    assert text.endswith(".") and "None" not in text, (nulls, hidden, text)
                    if hidden:
                        assert "−40" not in text and "0.003" not in text


def test_explain_readings_of_a_hidden_report() -> None:
    """The readings of a report whose comparison and baseline are hidden."""

    class Report:
        json: ClassVar[dict[str, Any]] = {
            "comparisons": [
                {**BASE_ITEM, "regime": "one pair", "hidden": "1 case was stopped early", "p": None}
            ],
            "baseline": {
                "functions": [
                    {**BASE_ITEM, "regime": "bootstrap", "difference": None, "new": ["c::z"]}
                ]
            },
        }

    found = readings(Report())  # type: ignore[arg-type]
    assert [reading.topic for reading in found] == ["c[arm] b − a", "c now − baseline"]
    assert "not estimated: 1 case was stopped early" in found[0].text
    assert found[1].text.startswith("Over 1 paired inputs this run against the baseline has no")


# -- pytest-xdist ----------------------------------------------------------------------------------
@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["curtail", "sequential"])
def test_kept_cases_under_xdist_equal_the_serial_session(
    pytester: pytest.Pytester, mode: str
) -> None:
    pytester.makepyfile(bench_c=MARGIN_BENCH, bench_d=REPORT_BENCH.replace("bench_c(", "bench_d("))
    args = ("-o", "prob_runs=20", f"--prob-stop={mode}", "--prob-explain")
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert serial.ret == parallel.ret == 1
    for title in ("probability", "probability: comparisons", "probability: explained"):
        assert section(parallel.outlines, title) == section(serial.outlines, title)
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    for key in ("rows", "comparisons", "stopping"):
        assert stable(two[key]) == stable(one[key]), key
    if mode == "curtail":
        assert one["stopping"]["kept_cases"] == 2 and one["stopping"]["stopped_cases"] == 2
    else:  # both comparisons are judged on their sequences and settle (issue 25)
        assert one["stopping"]["stopped_cases"] == 4
        assert [c["regime"] for c in one["comparisons"]] == ["sequence", "sequence"]


# -- the new JSON fields are documented -------------------------------------------------------------
def test_the_new_json_fields_are_documented(pytester: pytest.Pytester) -> None:
    from test_docs import _doc, _json_sections

    pytester.makepyfile(bench_c=MARGIN_BENCH)
    _, report = _run(pytester, "r", "--prob-stop=curtail")
    sections = _json_sections(_doc("json.rst"))
    kept = next(row["kept_running"] for row in report["rows"] if row["kept_running"])
    held = next(record["stop_held"] for record in report["records"] if record.get("stop_held"))
    wanted = {
        "``rows[]``": ["kept_running"],
        "``rows[].kept_running``": sorted(kept),
        "``records[]``": ["stop_held"],
        "``records[].stop_held``": sorted(held),
        "``stopping``": sorted(report["stopping"]),
    }
    missing = [
        f"{key} under {heading}"
        for heading, keys in wanted.items()
        for key in keys
        if key not in sections.get(heading, [])
    ]
    assert not missing, missing
    assert re.search(
        r"kept running for \d+ runs? the rule would have skipped", _doc("stopping.rst")
    )


def test_the_cost_ratio_is_per_run_made(pytester: pytest.Pytester) -> None:
    """A run that skips itself after spending counts as made (it spent); runs skipped by a
    mark never started and cost nothing: arm ``b`` costs 0.003 per run made either way."""
    pytester.makepyfile(
        bench_cost="""
import pytest
from pytest_probability import current_run, record_cost

@pytest.mark.probability(compare="arm")
@pytest.mark.parametrize("arm", ["a", "b"])
def bench_cost(arm):
    run = current_run().run
    if arm == "b" and run > 8:
        pytest.skip("never started")  # (before spending: not a run made)
    record_cost(0.001 if arm == "a" else 0.003)
    if arm == "b" and run > 6:
        pytest.skip("after spending")  # a run made
"""
    )
    _, report = _run(pytester, "r", "-o", "prob_runs=10")
    (comparison,) = report["comparisons"]
    assert comparison["cost_ratio"] == pytest.approx(3.0)
    b = next(pair["arm"] for pair in comparison["pairs"])
    assert (b["total"], b["cost"]) == (6, pytest.approx(0.024))  # 8 runs made, 6 judged


def test_a_raising_readers_hook_keeps_its_cases_running(pytester: pytest.Pytester) -> None:
    """A ``pytest_prob_stop_readers`` implementation that raises (or answers with something
    that is not a ``StopReader``) cannot say: the case runs every run, and the line says
    why; the session is not broken."""
    pytester.makeconftest(
        """
def pytest_prob_stop_readers(case, config):
    if case.case_id == "t::odd":
        return ["not a reader"]
    raise RuntimeError("no answer")
"""
    )
    pytester.makepyfile(
        bench_t="""
import pytest

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("kind", ["odd", "even"])
def bench_t(kind):
    pass
"""
    )
    result, report = _run(pytester, "r", "--prob-stop=curtail")
    assert result.ret == 0
    assert [row["total"] for row in report["rows"]] == [20, 20]
    assert report["stopping"]["kept_cases"] == 2
    shown = " ".join(result.stdout.str().split())  # (the Stopped: line is wrapped)
    conftest = str(pytester.path / "conftest.py")
    assert (
        f"2 cases kept running for 18 runs the rule would have skipped: {conftest}'s "
        "pytest_prob_stop_readers (TypeError: answered ['not a reader'], not a list of "
        f"StopReader) cannot say when it is settled (1 case); {conftest}'s "
        "pytest_prob_stop_readers (RuntimeError: no answer) cannot say when it is settled "
        "(1 case)"
    ) in shown  # each failure names the extension, and keeps its case running
    assert (  # (warned about once per extension)
        f"warning: extension '{conftest}' failed in pytest_prob_stop_readers: "
        "TypeError: answered ['not a reader'], not a list of StopReader"
    ) in shown
