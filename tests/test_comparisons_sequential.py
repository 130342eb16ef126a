"""Sequential comparisons end to end (issue 25): ``--prob-stop=sequential`` with a comparison.

The docs example (docs/comparisons.rst, "Stopping a comparison early") replayed exactly; the
run order; the readers that stop both arms once the comparison is settled; the line, the
JSON and the explanation; multiplicity (Holm on always-valid p-values, e-BH for ``bh``); the
plan's comparison lines; the new options; pytest-xdist.
"""

from __future__ import annotations

import pytest
from helpers import load_json, section

#: docs/comparisons.rst, "Stopping a comparison early": two prompts over 20 tickets, the
#: new one 30 points better on every ticket.
TRIAGE = '''
import random

import pytest
from pytest_probability import current_run

TICKETS = [f"t{n:02d}" for n in range(20)]


def answered(ticket, prompt, run):
    """A stand-in for a model call: each ticket has its own difficulty (30% to 68%), and
    the new prompt passes 30 points more often on every ticket."""
    rate = 0.3 + 0.02 * TICKETS.index(ticket) + (0.3 if prompt == "new" else 0.0)
    return random.Random(f"{ticket}-{prompt}-{run}").random() < rate


@pytest.mark.probability(compare="prompt", margin=0.05)
@pytest.mark.parametrize("prompt", ["old", "new"])
@pytest.mark.parametrize("ticket", TICKETS)
def bench_triage(ticket, prompt):
    assert answered(ticket, prompt, current_run().run)
'''

SEQUENTIAL_LINE = (
    "  triage[prompt]  new − old  +21 pp [−4, +44] seq  20 paired  "
    "settled after 4/20 rounds  ≥−5 pp  PASS"
)
FULL_LINE = "  triage[prompt]  new − old  +30 pp [+25, +34]  p<0.001  20 paired  ≥−5 pp  PASS"

#: one input, the arm clearly better: the mixture sequence
ONE_INPUT = """
import pytest
from pytest_probability import current_run


@pytest.mark.probability(compare="style"{extra})
@pytest.mark.parametrize("style", ["terse", "cot"])
def bench_one(style):
    run = current_run().run
    assert style == "cot" or run % 2 == 0
"""


def test_the_docs_example_stops_early_with_the_full_runs_verdict(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_triage=TRIAGE)
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-stop=sequential", "--prob-json=s.json", "--prob-html=s.html"
    )
    assert result.ret == 0
    assert section(result.outlines, "probability: comparisons") == [SEQUENTIAL_LINE]
    # the HTML report says what the line and --prob-explain say: when it settled, and which
    # estimate it shows (the docs' numbers: the median-unbiased one rounds as the observed)
    page = (pytester.path / "s.html").read_text(encoding="utf-8")
    assert "<td>sequence; settled after 4/20 rounds; median-unbiased for stopping early</td>" in (
        page
    )
    assert "triage[prompt] new − old: 20 pairs (runs up to the look it settled at)" in page
    lines = section(result.outlines)
    assert "  Stopped: 40 cases early, saving 640 of 800 runs (80%)" in lines
    assert "           1 comparison settled early (seq), saving 320 of 400 pairs (80%)" in lines
    report = load_json(pytester.path / "s.json")
    (line,) = report["comparisons"]
    assert line["regime"] == "sequence" and line["verdict"] == "pass"
    detail = line["detail"]
    assert detail["method"] == "group-sequential" and detail["design"] == "horizon"
    assert (detail["pairs"], detail["rounds"], detail["planned_pairs"]) == (80, 4, 400)
    assert (detail["settled"], detail["settled_after"]) == ("pass", 4)
    # settled on the margin's boundaries before the horizon: no p of "no difference" of its
    # own, and the median-unbiased estimate next to the one over the pairs used
    assert line["p"] is None and detail["e_value"] == 1
    assert detail["estimate"] == "median-unbiased" and detail["observed"] == pytest.approx(0.2125)
    assert report["comparisons_stopped"] == {
        "comparisons": 1,
        "pairs_saved": 320,
        "pairs_planned": 400,
        "cost_avoided": None,
    }
    # every case stopped after its 4th run: both arms, every ticket
    assert {row["stopped"]["after"] for row in report["rows"]} == {4}
    assert {row["stopped"]["verdict"] for row in report["rows"]} == {"settled"}


@pytest.mark.slow
def test_the_docs_example_full_run_gives_the_same_verdict(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=TRIAGE)
    result = pytester.runpytest("--prob-runs=20")
    assert result.ret == 0
    assert section(result.outlines, "probability: comparisons") == [FULL_LINE]


def test_runs_are_interleaved_pair_by_pair(pytester: pytest.Pytester) -> None:
    """Run-major inside a monitored function, baseline first in each pair, whatever the
    session order; an uncompared function keeps its case-major order; ``--prob-transpose``
    keeps the session's run-major spread. A comparison without a margin has no verdict and
    gets no ``[compare:ARM]`` item (the spec: one per margin), monitored or not."""
    pytester.makepyfile(
        bench_ab="""
import pytest

@pytest.mark.parametrize("arm", ["b", "a"])
@pytest.mark.parametrize("i", ["x", "y"])
def bench_ab(i, arm):
    pass

@pytest.mark.parametrize("k", ["p", "q"])
def bench_plain(k):
    pass
"""
    )
    args = ("--collect-only", "-q", "--prob-runs=2", "--prob-compare=arm")
    ids = [
        line.split("::", 1)[1]
        for line in pytester.runpytest(*args, "--prob-stop=sequential").outlines
        if line.startswith("bench_ab.py::")
    ]
    assert ids == [
        "bench_ab::x-b[run1]",
        "bench_ab::x-a[run1]",
        "bench_ab::y-b[run1]",
        "bench_ab::y-a[run1]",
        "bench_ab::x-b[run2]",
        "bench_ab::x-a[run2]",
        "bench_ab::y-b[run2]",
        "bench_ab::y-a[run2]",
        "bench_plain::p[run1]",
        "bench_plain::p[run2]",
        "bench_plain::q[run1]",
        "bench_plain::q[run2]",
    ]
    curtailed = [
        line.split("::", 1)[1]
        for line in pytester.runpytest(*args, "--prob-stop=curtail").outlines
        if line.startswith("bench_ab.py::bench_ab::")
    ]
    assert curtailed[:2] == ["bench_ab::x-b[run1]", "bench_ab::x-b[run2]"]
    transposed = [
        line.split("::", 1)[1]
        for line in pytester.runpytest(*args, "--prob-stop=sequential", "--prob-transpose").outlines
        if "[run" in line
    ]
    assert [item.rsplit("[", 1)[1] for item in transposed] == ["run1]"] * 6 + ["run2]"] * 6


def test_one_input_uses_the_mixture_and_both_arms_stop(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=""))
    result = pytester.runpytest(
        "-o", "prob_runs=60", "--prob-stop=sequential", "--prob-json=r.json"
    )
    report = load_json(pytester.path / "r.json")
    (line,) = report["comparisons"]
    assert line["detail"]["method"] == "group-sequential"
    after = line["detail"]["settled_after"]
    assert line["detail"]["settled"] == "difference" and after < 60
    assert [row["stopped"]["after"] for row in report["rows"]] == [after, after]
    assert line["low"] > 0 and line["p"] <= 0.05
    (shown,) = section(result.outlines, "probability: comparisons")
    assert " seq  " in shown and f"settled after {after}/60 pairs" in shown


def test_a_gated_case_waits_for_its_comparison(pytester: pytest.Pytester) -> None:
    """``cot`` passes its rate gate on the sequence long before the comparison settles: it
    is held (``kept running``) until the comparison is settled too."""
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=", min_rate=0.5"))
    result = pytester.runpytest(
        "-o", "prob_runs=60", "--prob-stop=sequential", "--prob-json=r.json"
    )
    report = load_json(pytester.path / "r.json")
    rows = {row["case"]: row for row in report["rows"]}
    kept = rows["one::cot"]["kept_running"]
    assert kept is not None and kept["reasons"] == [
        "the comparison one[style] cot − terse is not settled yet"
    ]
    assert (
        rows["one::cot"]["stopped"]["after"] >= report["comparisons"][0]["detail"]["settled_after"]
    )
    assert any("kept running for" in line for line in section(result.outlines))


def test_resolution_settles_equal_arms(pytester: pytest.Pytester) -> None:
    """Equal arms never leave out zero; a coarse resolution settles them once the interval
    is narrower than it (``resolved``), and 0 never does."""
    pytester.makepyfile(
        bench_eq="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm")
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("i", range(30))
def bench_eq(i, arm):
    assert (current_run().run + i) % 2
"""
    )
    args = ("-o", "prob_runs=12", "--prob-stop=sequential", "--prob-json=r.json")
    result = pytester.runpytest(
        *args, "--prob-compare-resolution=0.9", "--prob-explain", "--prob-html=r.html"
    )
    detail = load_json(pytester.path / "r.json")["comparisons"][0]["detail"]
    assert detail["settled"] == "resolved" and detail["resolution"] == 0.9
    # a stop on the resolution crossed no boundary of a value: the difference shown is the
    # one over the pairs used, and the explanation and the HTML say so
    assert detail["estimate"] == "observed" and detail["settled_after"] < 12
    words = " ".join(" ".join(section(result.outlines, "probability: explained")).split())
    assert (
        "the interval allows for stopping when the data looked clear, and the difference is "
        "the one over the pairs used (a stop on the resolution or an UNDECIDED margin crossed "
        "no boundary of a value to adjust it from)."
    ) in words
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "the difference over the pairs used (no boundary of a value to adjust from)" in page
    pytester.runpytest(*args, "-o", "prob_compare_resolution=0")
    report = load_json(pytester.path / "r.json")
    assert report["comparisons"][0]["detail"]["settled"] is None
    assert "comparisons_stopped" not in report
    assert not any(row["stopped"] for row in report["rows"])


MULTI = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("arm", ["base", "good", "same"])
@pytest.mark.parametrize("i", range(4))
def bench_multi(i, arm):
    run = current_run().run
    if arm == "good":
        return
    assert (run + i) % 2
"""


@pytest.mark.parametrize("design", ["horizon", "anytime"])
@pytest.mark.parametrize("adjust", ["holm", "bh"])
def test_multiplicity_on_p_values_at_the_stops(
    pytester: pytest.Pytester, adjust: str, design: str
) -> None:
    """Holm adjusts the p-values at the stops as they are (the stagewise p under
    ``horizon``, the always-valid p under ``anytime``); ``bh`` is Benjamini–Hochberg on the
    stagewise p under ``horizon``, and e-BH (BH on the inverse e-values), reported as
    ``e-bh``, under ``anytime``."""
    pytester.makepyfile(bench_multi=MULTI)
    result = pytester.runpytest(
        "-o", "prob_runs=30", "--prob-compare=arm", "--prob-stop=sequential",
        f"--prob-adjust={adjust}", "--prob-json=r.json", f"--prob-compare-sequential={design}",
    )  # fmt: skip
    report = load_json(pytester.path / "r.json")
    lines = report["comparisons"]
    assert [c["regime"] for c in lines] == ["sequence", "sequence"]
    assert {c["detail"]["design"] for c in lines} == {design}
    expected = "e-bh" if (adjust, design) == ("bh", "anytime") else adjust
    assert {c["adjust"] for c in lines} == {expected}
    assert section(result.outlines, "probability: comparisons")[-1] == (
        f"  p adjusted with {expected} over 2 comparisons"
    )
    ps = sorted(c["p"] for c in lines)
    if adjust == "holm":
        assert sorted(c["p_adjusted"] for c in lines) == pytest.approx(
            [min(1, 2 * ps[0]), min(1, max(2 * ps[0], ps[1]))]
        )
    elif design == "horizon":
        assert sorted(c["p_adjusted"] for c in lines) == pytest.approx(
            [min(2 * ps[0], ps[1]), ps[1]]
        )
    else:
        es = [c["detail"]["e_value"] for c in lines]
        for c in lines:
            assert c["p_adjusted"] >= min(1.0, 1 / max(es))


def test_a_corrected_family_designs_each_comparison_at_its_share_of_alpha(
    pytester: pytest.Pytester,
) -> None:
    """Under ``--prob-adjust=holm`` (``bonferroni``, ``bh``) and the ``horizon`` design, a
    monitored comparison without a margin spends α/m of the family's m = 2 comparisons: its
    boundaries and repeated confidence interval are at 97.5 % (``detail.level``; the
    family's ``level`` stays 95 %), so the clear arm settles later than uncorrected — and the
    stopper, which stopped its runs, and the report read the same look. ``--prob-explain``
    says so. A margin keeps its own level, and so does ``anytime``."""
    pytester.makepyfile(bench_multi=MULTI.replace("return", "assert (run + i) % 5\n        return"))
    args = ("-o", "prob_runs=30", "--prob-compare=arm", "--prob-stop=sequential")

    def good(*extra: str) -> tuple[dict, dict, list[str]]:
        result = pytester.runpytest(*args, "--prob-json=r.json", "--prob-explain", *extra)
        report = load_json(pytester.path / "r.json")
        (line,) = [c for c in report["comparisons"] if c["arm"] == "good"]
        after = {row["stopped"]["after"] for row in report["rows"] if "good" in row["case"]}
        return line, {"after": after}, result.outlines

    plain, plain_rows, _ = good()
    corrected, rows, lines = good("--prob-adjust=holm")
    assert plain["detail"]["level"] == 0.95 and plain["level"] == 0.95
    assert corrected["detail"]["level"] == pytest.approx(0.975) and corrected["level"] == 0.95
    assert corrected["detail"]["settled_after"] > plain["detail"]["settled_after"]
    # the stopper stopped the good arm's cases at the look the report read
    assert rows["after"] == {corrected["detail"]["settled_after"]}
    assert plain_rows["after"] == {plain["detail"]["settled_after"]}
    assert corrected["p"] <= 0.025 and corrected["p_adjusted"] <= 0.05
    words = " ".join(" ".join(section(lines, "probability: explained")).split())
    assert "a 97.5% repeated confidence interval" in words
    assert (
        "Its boundaries spend its share of α over the 2 comparisons --prob-adjust=holm "
        "corrects, so it stops only once its p can survive the correction."
    ) in words
    anytime, _, _ = good("--prob-adjust=holm", "--prob-compare-sequential=anytime")
    assert anytime["detail"]["level"] == 0.95


def test_the_design_level_of_each_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """α/m only for a comparison without a margin, under a family correction and the
    ``horizon`` design, with more than one comparison."""
    from types import SimpleNamespace

    from pytest_probability.extensions.comparisons.sequential import outcome

    values: dict[str, str] = {}
    monkeypatch.setattr(
        outcome, "options_of", lambda _: SimpleNamespace(session_value=values.__getitem__)
    )
    monkeypatch.setattr(outcome, "option_value", lambda _, name: values[name])

    def level(adjust: str, design: str, margin: float | None, family: int) -> float:
        values.update(adjust=adjust, compare_sequential=design)
        return outcome.design_level(SimpleNamespace(), 0.95, margin, family)

    assert level("holm", "horizon", None, 4) == pytest.approx(1 - 0.05 / 4)
    assert level("bonferroni", "horizon", None, 2) == pytest.approx(0.975)
    assert level("bh", "horizon", None, 5) == pytest.approx(0.99)
    assert level("none", "horizon", None, 4) == 0.95
    assert level("holm", "horizon", 0.05, 4) == 0.95
    assert level("holm", "anytime", None, 4) == 0.95
    assert level("holm", "horizon", None, 1) == 0.95


def test_the_explanation_reads_a_stopped_comparison(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=""))
    result = pytester.runpytest("-o", "prob_runs=60", "--prob-stop=sequential", "--prob-explain")
    text = " ".join(" ".join(section(result.outlines, "probability: explained")).split())
    assert "Monitored pair by pair on group-sequential boundaries" in text
    assert "It settled after" in text and "the interval left out zero" in text
    assert "median-unbiased for stopping early" in text and "stagewise ordering" in text
    anytime = pytester.runpytest(
        "-o",
        "prob_runs=60",
        "--prob-stop=sequential",
        "--prob-explain",
        "--prob-compare-sequential=anytime",
    )
    text = " ".join(" ".join(section(anytime.outlines, "probability: explained")).split())
    assert "Monitored pair by pair on a mixture confidence sequence" in text
    assert "valid at any stop" in text


def _doc_block(name: str) -> str:
    from test_docs import _doc

    return _doc(name).replace("\n   ", "\n")


def test_the_plan_has_the_comparison_lines(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=TRIAGE)
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-plan", "--prob-stop=sequential", "--prob-plan-assume=0.9",
        "--prob-plan-assume-diff=0.3", "--prob-json=plan.json",
    )  # fmt: skip
    assert result.ret == 0
    lines = section(result.outlines, "probability: plan")
    start = next(i for i, line in enumerate(lines) if line.startswith("  comparisons, "))
    assert lines[start] == (
        "  comparisons, assuming arm − baseline = +30 pp (the better arm passes with "
        "probability 0.9), as --prob-stop=sequential runs them:"
    )
    assert lines[start + 1].split() == [
        "comparison", "inputs", "pairs", "E[pairs]", "saved", "right", "reading", "P(right)",
    ]  # fmt: skip
    # the docs' line (docs/plan.rst, "Comparisons"), seeded: exactly
    assert lines[start + 2] == (
        "    triage[prompt] new − old      20    400        51    87%  PASS ≥−5 pp        100%"
    )
    assert lines[start + 2] in _doc_block("plan.rst")
    plan = load_json(pytester.path / "plan.json")["plan"]
    (found,) = plan["comparisons"]
    assert found["right"] == "pass" and found["right_chance"] > 0.95
    assert found["expected_pairs"] < 0.5 * found["planned_pairs"]
    assert (found["arm_rate"], found["base_rate"]) == pytest.approx((0.9, 0.6))
    assert plan["assume_diff"] == 0.3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--prob-compare-resolution=5"],
            "--prob-compare-resolution=5: expected a width of at least 0 and below 1 such as "
            "0.05 for 5 points, got '5'; did you mean 0.05 (5 points)?",
        ),
        (
            ["--prob-plan", "--prob-plan-assume-diff=30"],
            "--prob-plan-assume-diff=30: expected a difference between -1 and 1 (exclusive) "
            "such as 0.1 for 10 points, got '30'; did you mean 0.3?",
        ),
    ],
)
def test_option_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=""))
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {message}" in result.errlines


def test_a_difference_the_assumed_rate_cannot_hold_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=""))
    result = pytester.runpytest(
        "--prob-plan", "--prob-plan-assume=0.2", "--prob-plan-assume-diff=0.5"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any("keep it within ±0.2" in line for line in result.errlines)


def test_curtail_and_other_tests_keep_the_fixed_run_comparison(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_one=ONE_INPUT.format(extra=""))
    pytester.runpytest("-o", "prob_runs=20", "--prob-stop=curtail", "--prob-json=r.json")
    assert load_json(pytester.path / "r.json")["comparisons"][0]["regime"] == "one pair"
    pytester.makeconftest(
        """
from pytest_probability.extensions.comparisons.statistics.engine import paired_test

def pytest_prob_register_comparison_tests(register, config):
    register("mine", paired_test)
"""
    )
    pytester.runpytest(
        "-o", "prob_runs=20", "-o", "prob_compare_test=mine", "--prob-stop=sequential",
        "--prob-json=r.json",
    )  # fmt: skip
    report = load_json(pytester.path / "r.json")
    assert report["comparisons"][0]["regime"] == "one pair"
    assert not any(row["stopped"] for row in report["rows"])


@pytest.mark.subprocess
def test_xdist_equals_the_serial_session(pytester: pytest.Pytester) -> None:
    """Under ``-n 2`` the compared function stays on one worker (its compare items make it
    one unit), so its runs stop exactly as in a serial session."""
    pytester.makepyfile(
        bench_triage=TRIAGE,
        bench_other="""
import pytest

@pytest.mark.parametrize("k", range(6))
def bench_other(k):
    pass
""",
    )
    args = ("--prob-runs=20", "--prob-stop=sequential")
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert serial.ret == parallel.ret == 0
    title = "probability: comparisons"
    assert section(parallel.outlines, title) == section(serial.outlines, title) == [SEQUENTIAL_LINE]
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert two["comparisons"] == one["comparisons"]
    assert two["comparisons_stopped"] == one["comparisons_stopped"]


def test_the_value_a_stop_crossed_names_the_median_unbiased_estimate() -> None:
    """The value whose boundary a settled comparison crossed, from which its estimate is
    adjusted: 0 for a difference, −M for non-inferiority, the margin crossed for an
    equivalence FAIL, the nearer margin for its PASS; none for the resolution, UNDECIDED or
    the ``anytime`` design."""
    from pytest_probability.extensions.comparisons.sequential.outcome import crossed_null
    from pytest_probability.extensions.comparisons.sequential.rule import (
        ANYTIME,
        DIFFERENCE,
        HORIZON,
        RESOLVED,
        PairedRuns,
    )

    high = [PairedRuns("x", (1,) * 10, (0,) * 10, 10, 10)]
    low = [PairedRuns("x", (0,) * 10, (1,) * 10, 10, 10)]
    near = [PairedRuns("x", (1, 0) * 5, (0, 1) * 4 + (0, 0), 10, 10)]
    assert crossed_null(high, 0.95, HORIZON, DIFFERENCE, None) == 0.0
    assert crossed_null(low, 0.95, HORIZON, "fail", 0.1) == -0.1
    assert crossed_null(high, 0.95, HORIZON, "fail", 0.1, True) == 0.1
    assert crossed_null(low, 0.95, HORIZON, "fail", 0.1, True) == -0.1
    assert crossed_null(near, 0.95, HORIZON, "pass", 0.3, True) == 0.3
    assert crossed_null(high, 0.95, HORIZON, RESOLVED, None) is None
    assert crossed_null(high, 0.95, HORIZON, "undecided", 0.1) is None
    assert crossed_null(high, 0.95, ANYTIME, DIFFERENCE, None) is None


def test_a_comparison_stopped_without_a_p_counts_in_the_family() -> None:
    """Under ``horizon`` a comparison stopped early for a margin or the resolution has no p;
    it still counts in the family's size as a p of 1 (it rejects nothing), so Holm over it
    and one with p = 0.02 gives 0.04, not 0.02, and leaves its own p empty."""
    from pytest_probability.extensions.comparisons.registry import TestOutcome
    from pytest_probability.extensions.comparisons.sequential import outcome as sequential
    from pytest_probability.extensions.comparisons.statistics.adjust import holm
    from pytest_probability.extensions.comparisons.statistics.engine import Comparison

    def comparison(p: float | None) -> Comparison:
        found = Comparison("f", "f", "arm", "b", "a", [], [], "paired", 0.95)
        found.outcome = TestOutcome(0.1, 0.0, 0.2, p, "sequence", {"design": "horizon"})
        return found

    rows = [comparison(0.02), comparison(None)]
    sequential.adjust(rows, "holm", holm)
    assert [row.p_adjusted for row in rows] == [pytest.approx(0.04), None]
    assert [row.adjust for row in rows] == ["holm", "holm"]
