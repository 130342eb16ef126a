"""Verdict items ([gate], [compare:ARM], [baseline]) under pytest's own selection and ordering
(--deselect, -k, --ff, --lf), and what they carry into JUnit XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import load_json, section

GATED = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("x", [pytest.param(1, id="solid"), pytest.param(2, id="weak")])
def bench_classify(x):
    assert x == 1 or current_run().run < 3
"""

COMPARED = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm", margin=0.5)
@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("item", [pytest.param(0, id="i0")])
def bench_pick(item, arm):
    assert arm == "a" or current_run().run != 2
"""


ONE_INPUT = """
import pytest

@pytest.mark.parametrize("item", [pytest.param(0, id="i0")])
def bench_pick(item):
    pass
"""


def _properties(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Testcase name → its JUnit XML properties, for testcases that have any."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        found = case.find("properties")
        if found is not None:
            out[case.get("name", "")] = [(p.get("name", ""), p.get("value", "")) for p in found]
    return out


@pytest.mark.parametrize(
    "select", [["--deselect", "bench_g.py::bench_classify::solid[run10]"], ["-k", "not run10"]]
)
def test_a_deselected_run_of_a_gated_case_stays_deselected(
    pytester: pytest.Pytester, select: list[str]
) -> None:
    pytester.makepyfile(bench_g=GATED)
    result = pytester.runpytest("-o", "prob_runs=10", *select, "--prob-json=r.json", "-rA")
    # solid: runs 1-9 and its gate (judged on the nine); weak: its ten runs but not run10
    # under -k "not run10", all ten under --deselect of solid's run10
    lines = [" ".join(line.split()) for line in section(result.outlines)]
    assert lines[0] == "classify::solid 9/9 [66%, 100%] of 10 planned, selected subset"
    assert not any("solid[run10]" in line and "PASSED" in line for line in result.outlines)
    gates = [" ".join(line.split()) for line in section(result.outlines, "probability: gates")]
    assert gates[0] == "classify::solid 9/9 [66%, 100%] ≥90% UNDECIDED"
    # the gate was judged in its item, not skipped to the session end
    assert any(
        line.startswith("FAILED bench_g.py::bench_classify::solid[gate]")
        for line in result.outlines
    )
    rows = load_json(pytester.path / "r.json")["rows"]
    assert (rows[0]["total"], rows[0]["planned"], rows[0]["subset"]) == (9, 10, "selected")
    assert rows[0]["gate"]["verdict"] == "undecided"


@pytest.mark.parametrize("order", ["--ff", "--nf"])
def test_failed_first_never_skips_gate_items(pytester: pytest.Pytester, order: str) -> None:
    pytester.makepyfile(bench_g=GATED)
    first = pytester.runpytest("-p", "cacheprovider", "-o", "prob_runs=10")
    assert first.ret == 1
    again = pytester.runpytest("-p", "cacheprovider", "-o", "prob_runs=10", order, "-v")
    again.assert_outcomes(passed=12, failed=2, xfailed=8)
    names = [line.split(" ", 1)[0] for line in again.outlines if line.startswith("bench_g.py::")]
    # every verdict item runs after the last of its case's runs, in the same process
    for case in ("solid", "weak"):
        gate = names.index(f"bench_g.py::bench_classify::{case}[gate]")
        last = names.index(f"bench_g.py::bench_classify::{case}[run10]")
        assert gate > last
    assert not any("SKIPPED" in line and "[gate]" in line for line in again.outlines)


def test_last_failed_brings_back_the_runs_of_a_failed_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_g=GATED)
    pytester.runpytest("-p", "cacheprovider", "-o", "prob_runs=10")
    again = pytester.runpytest("-p", "cacheprovider", "-o", "prob_runs=10", "--lf")
    # both gates failed; their runs were xfailed or passed (not in the cache): all come back
    again.assert_outcomes(passed=12, failed=2, xfailed=8)
    assert section(again.outlines)[:2] == [
        "  classify::solid  10/10  [69%, 100%]",
        "  classify::weak    2/10  [ 3%,  56%]  FLAKY",
    ]


def test_gate_items_carry_their_verdict_into_junit_xml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_g=GATED)
    pytester.runpytest("-o", "prob_runs=10", "--junitxml=j.xml")
    properties = _properties(pytester.path / "j.xml")
    assert sorted(properties) == ["solid[gate]", "weak[gate]"]  # runs carry none
    assert properties["weak[gate]"] == [
        ("prob.verdict", "fail"),
        ("prob.runs", "10"),
        ("prob.planned", "10"),
        ("prob.rate.verdict", "fail"),
        ("prob.rate.min_rate", "0.9"),
        ("prob.rate.passes", "2"),
        ("prob.rate.n", "10"),
        ("prob.rate.method", "exact"),
        ("prob.rate.level", "0.95"),
        ("prob.rate.low", "0.02521072633"),
        ("prob.rate.high", "0.5560954623"),
        ("prob.rate.line", "2/10  [3%, 56%]  ≥90%  FAIL"),
    ]
    solid = dict(properties["solid[gate]"])
    assert (solid["prob.verdict"], solid["prob.rate.low"]) == ("undecided", "0.6915028922")
    # the figures are the exact Clopper-Pearson bounds, to 10 significant digits
    from scipy.stats import beta

    assert float(solid["prob.rate.low"]) == pytest.approx(beta.ppf(0.025, 10, 1), rel=1e-9)
    assert float(solid["prob.rate.low"]) == pytest.approx(0.025 ** (1 / 10), rel=1e-9)


def test_compare_items_carry_their_verdict_into_junit_xml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_c=COMPARED)
    result = pytester.runpytest("-o", "prob_runs=10", "--junitxml=j.xml")
    properties = dict(_properties(pytester.path / "j.xml")["bench_pick[compare:b]"])
    # one input: Newcombe's interval for 9/10 − 10/10, Fisher's p
    assert {k: properties[k] for k in ("prob.verdict", "prob.difference", "prob.margin")} == {
        "prob.verdict": "pass",
        "prob.difference": "-0.1",
        "prob.margin": "0.5",
    }
    assert (properties["prob.test"], properties["prob.paired"]) == ("paired", "1")
    assert properties["prob.p"] == "1"
    assert float(properties["prob.low"]) < -0.1 < float(properties["prob.high"])
    line = next(
        line for line in section(result.outlines, "probability: comparisons") if "b − a" in line
    )
    assert properties["prob.line"].split("  ")[1:] == line.strip().split("  ")[1:]


def test_compare_item_judges_the_selected_runs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_c=COMPARED)
    result = pytester.runpytest("-o", "prob_runs=10", "-k", "not run10", "-rA")
    # the item is judged from the nine selected runs of each arm, not skipped as "elsewhere"
    assert any(
        line.startswith("PASSED bench_c.py::bench_pick[compare:b]") for line in result.outlines
    )
    assert section(result.outlines)[:2] == [
        "  pick::i0-a  9/9  [66%, 100%]  of 10 planned, selected subset",
        "  pick::i0-b  8/9  [52%,  99%]  FLAKY  of 10 planned, selected subset",
    ]


def test_baseline_items_carry_their_verdict_into_junit_xml(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_c=ONE_INPUT)
    pytester.runpytest("-o", "prob_runs=10", "--prob-save-baseline=base.toml")
    pytester.runpytest(
        "-o", "prob_runs=10", "--prob-baseline=base.toml", "--prob-margin=0.5", "--junitxml=j.xml"
    )
    properties = dict(_properties(pytester.path / "j.xml")["bench_pick[baseline]"])
    # one pair, 10/10 now and then: Newcombe's interval [−28, +28] clears −50 pp
    assert (properties["prob.verdict"], properties["prob.difference"]) == ("pass", "0")
    assert (properties["prob.margin"], properties["prob.paired"]) == ("0.5", "1")
    assert (
        properties["prob.line"]
        == "pick  now − baseline  0 pp [−28, +28]  p=1  1 paired  ≥−50 pp  PASS"
    )


@pytest.mark.subprocess
def test_junit_properties_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_g=GATED)
    pytester.runpytest_subprocess("-o", "prob_runs=10", "--junitxml=s.xml")
    pytester.runpytest_subprocess("-o", "prob_runs=10", "--junitxml=p.xml", "-n", "2")
    assert _properties(pytester.path / "p.xml") == _properties(pytester.path / "s.xml")
