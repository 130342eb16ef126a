"""Regression against a baseline: --prob-baseline, --prob-margin, --prob-save-baseline."""

from __future__ import annotations

import tomllib

import pytest
from helpers import load_json, section
from pytest_probability.report import writing
from scipy import stats
from test_gates import record_warnings, recorded

BENCH = """
import pytest
from pytest_probability import current_run

PASSES = {passes!r}

@pytest.mark.parametrize("item", list(PASSES))
def bench_pick(item):
    assert current_run().run <= PASSES[item]
"""


def _bench(pytester: pytest.Pytester, passes: dict[str, int]) -> None:
    pytester.makepyfile(bench_pick=BENCH.format(passes=passes))


@pytest.mark.parametrize("saved", ["--prob-json=base.json", "--prob-save-baseline=base.toml"])
def test_function_against_a_baseline_in_either_format(
    pytester: pytest.Pytester, saved: str
) -> None:
    _bench(pytester, {"x": 10, "y": 9, "gone": 10})
    first = pytester.runpytest("--prob-runs=10", saved)
    path = saved.split("=", 1)[1]
    _bench(pytester, {"x": 6, "y": 9, "new": 10})
    result = pytester.runpytest("--prob-runs=10", f"--prob-baseline={path}", "--prob-json=r.json")
    assert first.ret == 1 and result.ret == 1  # report only: no margin, the failing runs fail
    assert section(result.outlines, "probability: baseline") == [
        "  pick  now − baseline  −20 pp  p=1  2 paired",
        "      pick::x  −40 pp [−69, −4]",
        "      pick::y  0 pp [−32, +32]",
        "      new (not compared): pick::new",
        "      removed (not compared): pick::gone",
    ]
    report = load_json(pytester.path / "r.json")
    baseline = report["baseline"]
    assert (baseline["path"], baseline["margin"]) == (path, None)
    assert baseline["format"] == ("json" if path.endswith("json") else "toml")
    (function,) = baseline["functions"]
    assert (function["new"], function["removed"]) == (["pick::new"], ["pick::gone"])
    assert [p["input"] for p in function["pairs"]] == ["pick::x", "pick::y"]
    assert function["difference"] == pytest.approx(-0.2)


def test_margin_gate_and_baseline_item(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 20})
    pytester.runpytest("--prob-runs=20", "--prob-save-baseline=base.toml")
    same = pytester.runpytest(
        "--prob-runs=20", "--prob-baseline=base.toml", "--prob-margin=0.05", "-rA"
    )
    # one pair: Newcombe 20/20 vs 20/20 is [−16, +16], which crosses −5: UNDECIDED
    assert section(same.outlines, "probability: baseline") == [
        "  pick  now − baseline  0 pp [−16, +16]  p=1  1 paired  ≥−5 pp  UNDECIDED"
    ]
    assert same.ret == 1
    # the item fails with the verdict line (pytest 7.4's short summary omits the message)
    assert "pick  now − baseline  0 pp [−16, +16]  p=1  1 paired  ≥−5 pp  UNDECIDED" in (
        same.outlines
    )
    assert any(
        line.startswith("FAILED bench_pick.py::bench_pick[baseline]") for line in same.outlines
    )
    relaxed = pytester.runpytest(
        "--prob-runs=20", "--prob-baseline=base.toml", "--prob-margin=0.05", "--prob-undecided=pass"
    )
    assert relaxed.ret == 0
    relaxed.assert_outcomes(passed=21)


def test_margin_with_too_few_paired_inputs_warns_once_naming_the_option(
    pytester: pytest.Pytester,
) -> None:
    _bench(pytester, {"x": 3, "y": 3, "z": 3})
    pytester.runpytest("--prob-runs=3", "--prob-save-baseline=base.toml")
    _bench(pytester, {"x": 3, "y": 3, "new": 3})
    warned = record_warnings(pytester)
    result = pytester.runpytest("--prob-runs=3", "--prob-baseline=base.toml", "--prob-margin=0.05")
    # x and y pair with the baseline (new does not): two inputs have no interval
    assert recorded(warned, "MarginWarning") == [
        [
            "MarginWarning",
            # (the cause is the option: the warning names it, and sits at the command line)
            "--prob-margin=0.05: the margin cannot pass with 2 paired inputs: "
            "--prob-margin=0.05 is judged on an interval, and 2 to 9 paired inputs have none "
            "(prob_min_inputs=10): the verdict is always UNDECIDED "
            "(1 comparison: pick now − baseline)",
            "<command line>",
            1,
            "collect",
        ]
    ]
    assert section(result.outlines, "probability: baseline")[0].endswith("≥−5 pp  UNDECIDED")
    # deselected inputs are not paired: one pair has an interval, so no warning
    pytester.runpytest(
        "--prob-runs=3", "--prob-baseline=base.toml", "--prob-margin=0.05", "-k", "x or new"
    )
    assert recorded(warned, "MarginWarning") == []
    # without --prob-margin nothing is judged: no warning
    pytester.runpytest("--prob-runs=3", "--prob-baseline=base.toml")
    assert recorded(warned, "MarginWarning") == []


def test_a_real_drop_fails_and_fisher_p_matches_scipy(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 20})
    pytester.runpytest("--prob-runs=20", "--prob-json=base.json")
    _bench(pytester, {"x": 5})
    result = pytester.runpytest(
        "--prob-runs=20", "--prob-baseline=base.json", "--prob-margin=0.05", "--prob-json=r.json"
    )
    (line,) = section(result.outlines, "probability: baseline")
    assert line.endswith("≥−5 pp  FAIL")
    (function,) = load_json(pytester.path / "r.json")["baseline"]["functions"]
    assert function["p"] == pytest.approx(stats.fisher_exact([[5, 15], [20, 0]]).pvalue, abs=1e-9)
    assert function["verdict"] == "fail"


def test_saved_baseline_is_compact_toml(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 3, "y": 1})
    pytester.runpytest("--prob-runs=3", "--prob-save-baseline=b.toml")
    data = tomllib.loads((pytester.path / "b.toml").read_text())
    assert data["format"] == "pytest-probability baseline"
    assert data["settings"]["runs"] == 3
    assert data["cases"]["bench_pick.py::bench_pick::y"] == {
        "case": "pick::y",
        "label": "pick",
        "passes": 1,
        "fails": 2,
        "errors": 0,
        "total": 3,
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "ERROR: --prob-baseline=missing.json: "),
        ("{not json", "ERROR: --prob-baseline=base.json: "),
        (
            '{"rows": [{"nodeid": "a", "case": "a", "label": "a", "passes": -1, "fails": 0, '
            '"errors": 0, "total": -1}]}',
            "ERROR: --prob-baseline=base.json: rows[0].passes: expected a whole number >= 0, "
            "got -1",
        ),
    ],
)
def test_bad_baseline_is_a_usage_error(
    pytester: pytest.Pytester, content: str | None, message: str
) -> None:
    _bench(pytester, {"x": 1})
    name = "missing.json"
    if content is not None:
        name = "base.json"
        (pytester.path / name).write_text(content)
    result = pytester.runpytest(f"--prob-baseline={name}")
    assert result.ret == 4
    assert any(line.startswith(message) for line in result.errlines), result.errlines
    assert "Traceback" not in "\n".join(result.errlines)


def test_margin_needs_a_baseline(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 1})
    result = pytester.runpytest("--prob-margin=0.05")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["ERROR: --prob-margin=0.05 needs --prob-baseline=PATH (what to compare with)"]
    )


def test_unwritable_save_path_is_reported_and_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bench(pytester, {"x": 1})

    def full(path: object, text: object) -> None:
        raise OSError(28, "No space left on device")

    # (a path that cannot take the file is a usage error at start-up: tests/test_writing.py)
    monkeypatch.setattr(writing, "write_atomic", full)
    result = pytester.runpytest("--prob-save-baseline=b.toml")
    lines = section(result.outlines, "probability: baseline")
    assert lines == [
        "  ERROR: --prob-save-baseline=b.toml: could not write the baseline to "
        f"{pytester.path / 'b.toml'}: No space left on device"
    ]
    assert result.ret == 1
    assert "  Overall: 1/1 passed (100%)" in section(result.outlines)


@pytest.mark.subprocess
def test_xdist_gives_the_same_regression(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 10, "y": 10})
    pytester.runpytest("--prob-runs=10", "--prob-save-baseline=base.toml")
    _bench(pytester, {"x": 2, "y": 3})
    args = ["--prob-runs=10", "--prob-baseline=base.toml", "--prob-margin=0.05"]
    serial = pytester.runpytest_subprocess(*args)
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--dist", "loadgroup")
    assert serial.ret == parallel.ret == 1
    one = section(serial.outlines, "probability: baseline")
    assert section(parallel.outlines, "probability: baseline")[: len(one)] == one


def test_new_function_is_listed_not_judged_and_no_gate_items(pytester: pytest.Pytester) -> None:
    _bench(pytester, {"x": 3})
    pytester.runpytest("--prob-runs=3", "--prob-save-baseline=base.toml")
    pytester.makepyfile(bench_new="def bench_fresh():\n    pass\n")
    result = pytester.runpytest(
        "--prob-runs=3", "--prob-baseline=base.toml", "--prob-margin=0.05", "-rA"
    )
    assert section(result.outlines, "probability: baseline")[:2] == [
        "  fresh  now − baseline  no paired inputs",
        "      new (not compared): fresh",
    ]
    # a new function is listed, not judged: its [baseline] item skips, at the bench file
    assert (
        "SKIPPED [1] bench_new.py:1: no case of the function is in the baseline: there is "
        "nothing to judge" in result.outlines
    )
    # the new function is not a failure; pick (3/3 against 3/3, one pair) is UNDECIDED
    quiet = pytester.runpytest(
        "--prob-runs=3",
        "--prob-baseline=base.toml",
        "--prob-margin=0.05",
        "--prob-no-gate-items",
        "--collect-only",
        "-q",
    )
    assert not any("[baseline]" in line for line in quiet.outlines)


# -- --prob-margin makes it a gate: the [baseline] verdict decides, and 0 means no drop ---------
TWELVE = {f"i{n:02d}": 9 for n in range(12)}


def test_a_baseline_margin_decides_the_exit_status_like_a_gate(
    pytester: pytest.Pytester,
) -> None:
    """Every case fails its tenth run, now as in the baseline: 0 pp [0, 0], PASS against
    −5 pp. The paired cases' failing runs are xfailed (before: 12 failures, exit 1); a new
    case is not judged by the margin, so its failing run still fails."""
    _bench(pytester, TWELVE)
    pytester.runpytest("--prob-runs=10", "--prob-json=base.json")
    args = ("--prob-runs=10", "--prob-baseline=base.json", "--prob-margin=0.05")
    same = pytester.runpytest(*args, "-v")
    assert section(same.outlines, "probability: baseline") == [
        "  pick  now − baseline  0 pp [0, 0]  p=1  12 paired  ≥−5 pp  PASS"
    ]
    same.assert_outcomes(passed=109, xfailed=12)
    assert same.ret == 0
    assert any(
        line.startswith("bench_pick.py::bench_pick::i00[run10] XFAIL (case compared with the")
        for line in same.outlines
    ), same.outlines
    _bench(pytester, {**TWELVE, "new": 9})
    grown = pytester.runpytest(*args, "-rf")
    grown.assert_outcomes(passed=118, failed=1, xfailed=12)
    # one short-summary line per case (--prob-failures=grouped)
    assert "FAILED bench_pick.py::bench_pick::new - 1/10 runs failed: assert 10 <= 9" in (
        grown.outlines
    )
    assert grown.ret == 1
    # --runxfail keeps pytest's meaning
    _bench(pytester, TWELVE)
    plain = pytester.runpytest(*args, "--runxfail")
    plain.assert_outcomes(passed=109, failed=12)
    assert plain.ret == 1


def test_margin_zero_means_no_drop(pytester: pytest.Pytester) -> None:
    """``--prob-margin=0`` is valid (before: a usage error): the lower end of now − baseline
    must be above zero."""
    _bench(pytester, {name: 5 for name in TWELVE})
    pytester.runpytest("--prob-runs=10", "--prob-save-baseline=base.toml")
    _bench(pytester, TWELVE)
    args = ("--prob-runs=10", "--prob-baseline=base.toml", "--prob-margin=0", "--prob-json=r.json")
    better = pytester.runpytest(*args)
    assert section(better.outlines, "probability: baseline") == [
        "  pick  now − baseline  +40 pp [+40, +40]  p<0.001  12 paired  ≥0 pp  PASS"
    ]
    assert better.ret == 0
    assert load_json(pytester.path / "r.json")["baseline"]["margin"] == 0
    pytester.runpytest("--prob-runs=10", "--prob-save-baseline=base.toml")
    same = pytester.runpytest(*args)
    assert section(same.outlines, "probability: baseline") == [
        "  pick  now − baseline  0 pp [0, 0]  p=1  12 paired  ≥0 pp  UNDECIDED"
    ]
    assert same.ret == 1
    negative = pytester.runpytest("--prob-baseline=base.toml", "--prob-margin=-0.1")
    assert negative.ret == 4
    assert negative.errlines[0] == (
        "ERROR: --prob-margin=-0.1: expected a margin of at least 0 and below 1 such as 0.02 "
        "for 2 points, got '-0.1'"
    )


@pytest.mark.subprocess
def test_baseline_margin_runs_are_the_same_under_xdist(pytester: pytest.Pytester) -> None:
    _bench(pytester, TWELVE)
    pytester.runpytest("--prob-runs=10", "--prob-save-baseline=base.toml")
    _bench(pytester, {**TWELVE, "new": 9})
    args = ("--prob-runs=10", "--prob-baseline=base.toml", "--prob-margin=0.05")
    serial = pytester.runpytest_subprocess(*args)
    parallel = pytester.runpytest_subprocess(*args, "-n", "2")
    assert serial.ret == parallel.ret == 1
    serial.assert_outcomes(passed=118, failed=1, xfailed=12)
    parallel.assert_outcomes(passed=118, failed=1, xfailed=12)
    one = section(serial.outlines, "probability: baseline")
    assert one == section(parallel.outlines, "probability: baseline")
