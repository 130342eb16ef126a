"""The gates extension: rate and count gates, verdicts, [gate] items, exit status."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json, section
from pytest_probability.extensions.gates import rate

#: The spec's gates example: 40/40, 37/40 and 3/40 against a 90% bar.
GATED_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("kind", ["is_question", "identify_pii", "never"])
def bench_classify(kind):
    run = current_run().run
    if kind == "identify_pii":
        assert run not in (5, 17, 33)
    elif kind == "never":
        assert run in (1, 2, 3)
"""


def test_spec_gates_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-runs=40")
    lines = section(result.outlines)
    assert lines[-2:] == [
        "  Overall: 80/120 passed (67%)",
        "  Gates:   1 passed, 1 failed, 1 undecided",
    ]
    assert section(result.outlines, "probability: gates") == [
        "  classify::identify_pii  37/40  [80%, 98%]  ≥90%  UNDECIDED",
        "  classify::never          3/40  [ 2%, 20%]  ≥90%  FAIL",
    ]
    # failing runs are xfailed; the two failing verdicts are the failures
    result.assert_outcomes(passed=81, failed=2, xfailed=40)
    assert result.ret == 1
    # the item's failure is the verdict line, without a traceback
    failures = result.outlines[result.outlines.index("=" * 35 + " FAILURES " + "=" * 35) :]
    assert failures[1:5] == [
        "______________________ bench_classify::identify_pii[gate] ______________________",
        "classify::identify_pii  37/40  [80%, 98%]  ≥90%  UNDECIDED",
        "_________________________ bench_classify::never[gate] __________________________",
        "classify::never  3/40  [2%, 20%]  ≥90%  FAIL",
    ]


def test_failing_runs_do_not_stop_x(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-runs=40", "-x")
    # never's failing runs are xfailed; -x stops at the first failing verdict
    result.assert_outcomes(passed=78, failed=1, xfailed=3)
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])


def test_passing_gates_pass_the_session_despite_failing_runs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_ok="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.5)
def bench_mostly():
    assert current_run().run != 3
"""
    )
    result = pytester.runpytest("--prob-runs=40")
    result.assert_outcomes(passed=40, xfailed=1)
    assert result.ret == 0
    assert section(result.outlines)[-1] == "  Gates:   1 passed"
    assert section(result.outlines, "probability: gates") == []


def test_undecided_pass_and_no_gate_items(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    relaxed = pytester.runpytest("--prob-runs=40", "-k", "pii", "--prob-undecided=pass")
    assert relaxed.ret == 0
    relaxed.assert_outcomes(passed=38, xfailed=3, deselected=82)
    without = pytester.runpytest("--prob-runs=40", "--prob-no-gate-items", "--prob-json=r.json")
    without.assert_outcomes(passed=80, xfailed=40)
    assert without.ret == 1  # the failing verdicts still set the exit status
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 1
    assert report["gates"] == {
        "passed": 1,
        "failed": 1,
        "undecided": 1,
        "undecided_fails": True,
        "errors": "count",
    }
    gate = report["rows"][1]["gate"]
    assert gate["verdict"] == "undecided"
    assert gate["fails_session"] is True
    assert gate["judged"] == "session"
    check = gate["checks"][0]
    assert (check["kind"], check["min_rate"], check["passes"], check["n"]) == ("rate", 0.9, 37, 40)
    assert check["low"] == pytest.approx(0.796135251267101, abs=1e-12)


def test_count_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_count="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_passes=19, runs=20)
@pytest.mark.parametrize("bad", [pytest.param((7,), id="one"), pytest.param((3, 9), id="two")])
def bench_counted(bad):
    assert current_run().run not in bad
"""
    )
    result = pytester.runpytest("--prob-json=r.json")
    assert section(result.outlines, "probability: gates") == [
        "  counted::two  18/20  [68%, 99%]  ≥19/20  FAIL"
    ]
    result.assert_outcomes(passed=38, failed=1, xfailed=3)
    assert [row["gate"]["verdict"] for row in load_json(pytester.path / "r.json")["rows"]] == [
        "pass",
        "fail",
    ]


def test_errors_count_or_are_excluded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_err="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.5)
def bench_flaky_harness():
    if current_run().run <= 2:
        raise ConnectionError("dropped")
"""
    )
    counted = pytester.runpytest("--prob-runs=4")
    # errors count as non-passes: 2/4 is UNDECIDED at 50%; the verdict decides them (xfailed)
    counted.assert_outcomes(passed=2, failed=1, xfailed=2)
    counted.stdout.fnmatch_lines(["*1 failed, 2 passed, 2 xfailed*"])
    assert section(counted.outlines, "probability: gates") == [
        "  flaky_harness  2/4  [7%, 93%]  ≥50%  UNDECIDED"
    ]
    excluded = pytester.runpytest("--prob-runs=4", "-o", "prob_errors=exclude")
    excluded.assert_outcomes(passed=2, failed=1, xfailed=2)
    assert section(excluded.outlines, "probability: gates") == [
        "  flaky_harness  2/2  [16%, 100%]  ≥50%  UNDECIDED"
    ]


def test_case_level_gate_and_closest_mark(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_cases="""
import pytest

@pytest.mark.probability(min_rate=0.99)
@pytest.mark.parametrize("x", [
    pytest.param(1, id="strict"),
    pytest.param(2, id="lenient", marks=pytest.mark.probability(min_rate=0.5)),
])
def bench_f(x):
    pass
"""
    )
    result = pytester.runpytest("--prob-runs=10", "--prob-json=r.json")
    rows = load_json(pytester.path / "r.json")["rows"]
    assert [r["gate"]["checks"][0]["min_rate"] for r in rows] == [0.99, 0.5]
    assert [r["gate"]["verdict"] for r in rows] == ["undecided", "pass"]
    result.stdout.fnmatch_lines(
        [
            "*GateWarning: f::strict: the gate cannot pass with 10 runs: "
            "min_rate=0.99 needs at least 368 at 95%"
        ]
    )
    assert "f::lenient: the gate" not in result.stdout.str()


#: A conftest keeping every warning the aggregating process records (under pytest-xdist the
#: workers forward theirs to the controller, so workers write nothing)
RECORDING_CONFTEST = """
import json


class Recorder:
    def pytest_warning_recorded(self, warning_message, when, nodeid, location):
        found = [warning_message.category.__name__, str(warning_message.message),
                 warning_message.filename, warning_message.lineno, when]
        with open({path!r}, "a", encoding="utf-8") as out:
            out.write(json.dumps(found) + "\\n")


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(), "warning-recorder")
"""


def record_warnings(pytester: pytest.Pytester) -> Path:
    """Install :data:`RECORDING_CONFTEST`; returns the file it writes (one JSON list per
    warning: category, message, filename, line number, when)."""
    path = pytester.path / "warnings.jsonl"
    pytester.makeconftest(RECORDING_CONFTEST.format(path=str(path)))
    return path


def recorded(path: Path, *categories: str) -> list[list[Any]]:
    """The recorded warnings of the given categories (and empties the file)."""
    if not path.exists():
        return []
    found = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.unlink()
    return [entry for entry in found if entry[0] in categories]


def warnings_summary(lines: list[str]) -> list[str]:
    """The lines of pytest's ``warnings summary`` (up to its ``-- Docs`` line)."""
    body = section(lines, "warnings summary")
    return body[: next((i for i, line in enumerate(body) if line.startswith("-- Docs")), None)]


INFEASIBLE_BENCH = """
import pytest


def bench_smoke():
    pass


@pytest.mark.probability(min_rate=0.99)
@pytest.mark.parametrize("x", [
    pytest.param(1, id="strict"),
    pytest.param(2, id="also_strict", marks=pytest.mark.slow),
    pytest.param(3, id="lenient", marks=pytest.mark.probability(min_rate=0.5)),
])
def bench_f(x):
    pass
"""
#: the bench function's line (its first decorator's, as pytest reports a function's place)
INFEASIBLE_LINE = 8


def _infeasible_warning(path: Path, case: str) -> list[Any]:
    return [
        "GateWarning",
        f"f::{case}: the gate cannot pass with 10 runs: min_rate=0.99 needs at least 368 at 95%",
        str(path),
        INFEASIBLE_LINE,
        "collect",
    ]


@pytest.mark.parametrize(
    "selection",
    [
        ["-k", "not also_strict"],
        ["-m", "not slow"],
        ["--deselect", "bench_cases.py::bench_f::also_strict"],
    ],
    ids=["k", "m", "deselect"],
)
def test_infeasible_gate_warns_at_the_mark_once_for_the_selected_cases(
    pytester: pytest.Pytester, selection: list[str]
) -> None:
    bench = pytester.makepyfile(bench_cases=INFEASIBLE_BENCH)
    pytester.makeini("[pytest]\nmarkers = slow\n")
    lines = bench.read_text().splitlines()
    assert lines[INFEASIBLE_LINE - 1] == "@pytest.mark.probability(min_rate=0.99)"
    warned = record_warnings(pytester)
    everything = pytester.runpytest("--prob-runs=10")
    # one mark, one cause: one warning at the mark, naming the cases it affects
    both = (
        "f: the gate cannot pass with 10 runs: min_rate=0.99 needs at least 368 at 95% "
        "(2 cases: f::strict, f::also_strict)"
    )
    assert recorded(warned, "GateWarning") == [
        ["GateWarning", both, str(bench), INFEASIBLE_LINE, "collect"]
    ]
    assert warnings_summary(everything.outlines) == [
        f"bench_cases.py:{INFEASIBLE_LINE}",
        f"  {bench}:{INFEASIBLE_LINE}: GateWarning: {both}",
        "    @pytest.mark.probability(min_rate=0.99)",
        "",
    ]
    # a deselected case is not warned about; a selected one still is, once (not per run)
    pytester.runpytest("--prob-runs=10", *selection)
    assert recorded(warned, "GateWarning") == [_infeasible_warning(bench, "strict")]
    # selecting only the gate item brings its runs back: still warned about
    pytester.runpytest("--prob-runs=10", "bench_cases.py::bench_f::strict[gate]")
    assert recorded(warned, "GateWarning") == [_infeasible_warning(bench, "strict")]


@pytest.mark.subprocess
def test_infeasible_gate_warns_once_under_xdist(pytester: pytest.Pytester) -> None:
    bench = pytester.makepyfile(bench_cases=INFEASIBLE_BENCH)
    pytester.makeini("[pytest]\nmarkers = slow\n")
    warned = record_warnings(pytester)
    result = pytester.runpytest_subprocess("--prob-runs=10", "-n", "2", "-k", "not also_strict")
    assert recorded(warned, "GateWarning") == [_infeasible_warning(bench, "strict")]
    assert warnings_summary(result.outlines)[:2] == [
        f"bench_cases.py:{INFEASIBLE_LINE}",
        f"  {bench}:{INFEASIBLE_LINE}: GateWarning: f::strict: the gate cannot pass with 10 "
        "runs: min_rate=0.99 needs at least 368 at 95%",
    ]


def test_infeasible_gate_as_an_error_stops_at_collection(pytester: pytest.Pytester) -> None:
    bench = pytester.makepyfile(bench_cases=INFEASIBLE_BENCH)
    pytester.makeini("[pytest]\nmarkers = slow\n")
    result = pytester.runpytest(
        "--prob-runs=10",
        "-k",
        "strict and not also",
        "-W",
        "error::pytest_probability.extensions.gates.plugin.GateWarning",
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR collecting bench_cases.py _*",
            f"{bench}:{INFEASIBLE_LINE}: GateWarning: f::strict: the gate cannot pass with 10 "
            "runs: min_rate=0.99 needs at least 368 at 95%",
            "*Interrupted: 1 error during collection*",
        ]
    )
    result.assert_outcomes(errors=1)


def test_session_min_rate_and_mark_count_gate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_s="""
import pytest

@pytest.mark.probability(min_passes=2)
def bench_counted():
    pass

def bench_rated():
    pass
"""
    )
    pytester.runpytest("--prob-runs=3", "--prob-min-rate=0.2", "--prob-json=r.json")
    rows = load_json(pytester.path / "r.json")["rows"]
    assert [[c["kind"] for c in r["gate"]["checks"]] for r in rows] == [["count"], ["rate"]]


def test_min_rate_90_is_a_collection_error_with_a_hint(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_bad="""
import pytest

@pytest.mark.probability(min_rate=90)
def bench_x():
    pass
"""
    )
    result = pytester.runpytest()
    assert result.ret == 2
    result.stdout.fnmatch_lines(
        [
            "*bench_bad.py::bench_x: probability mark argument min_rate=90: expected a rate "
            "between 0 and 1 (exclusive), got 90; did you mean 0.9 (90%)?*"
        ]
    )


def test_bad_undecided_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-undecided=maybe")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--prob-undecided=maybe*expected one of fail, pass*"])


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param(
            "register('rate', configure=lambda mark, config: None, judge=print)",
            "gate kind 'rate' is registered twice",
            id="twice",
        ),
        pytest.param("raise ValueError('no kinds today')", "no kinds today", id="raises"),
    ],
)
def test_a_broken_gate_kind_registration_is_a_usage_error(
    pytester: pytest.Pytester, body: str, error: str
) -> None:
    """A conftest's ``pytest_prob_register_gates`` that fails (a name registered twice, a
    ``ValueError``) is a ``UsageError`` naming the registration, before anything runs: a
    plugin other than the bundled extensions implements the hook, so the kinds are
    registered at ``pytest_configure`` (also in a session without a bench file, as for
    every registry), where they were once registered while collecting the first bench case
    (a collection error, with the plugin's traceback)."""
    pytester.makeconftest(f"def pytest_prob_register_gates(register, config):\n    {body}\n")
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    for _ in range(2):
        result = pytester.runpytest()
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert result.errlines[0] == f"ERROR: registering gate kinds failed: {error}"
        assert not any("Traceback" in line for line in result.outlines + result.errlines)
        pytester.makepyfile(bench_classify=GATED_BENCH)


@pytest.mark.parametrize(("rate_bar", "runs"), [(0.8, 17), (0.9, 36), (0.95, 72), (0.99, 368)])
def test_minimum_runs_exact_at_95(pytestconfig: pytest.Config, rate_bar: float, runs: int) -> None:
    spec = rate.RateSpec(
        rate_bar, rate.settings(pytestconfig, {"method": "exact", "confidence": 0.95})
    )
    assert rate.minimum_runs_rate(spec, pytestconfig) == runs


def test_gate_item_reselects_its_runs_and_lf_reruns_them(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    alone = pytester.runpytest("--prob-runs=40", "-k", "never and gate")
    alone.assert_outcomes(passed=3, failed=1, xfailed=37, deselected=82)
    pytester.runpytest("--prob-runs=40")
    rerun = pytester.runpytest("--prob-runs=40", "--lf", "-v")
    rerun.assert_outcomes(passed=40, failed=2, xfailed=40, deselected=41)
    assert any(
        line.startswith("bench_classify.py::bench_classify::identify_pii[run40] PASSED")
        for line in rerun.outlines
    )


def test_gate_item_order_and_junit(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    collected = pytester.runpytest("--prob-runs=2", "--prob-transpose", "--collect-only", "-q")
    ids = [line for line in collected.outlines if line.startswith("bench_classify.py::")]
    assert ids == [
        "bench_classify.py::bench_classify::is_question[run1]",
        "bench_classify.py::bench_classify::identify_pii[run1]",
        "bench_classify.py::bench_classify::never[run1]",
        "bench_classify.py::bench_classify::is_question[run2]",
        "bench_classify.py::bench_classify::is_question[gate]",
        "bench_classify.py::bench_classify::identify_pii[run2]",
        "bench_classify.py::bench_classify::identify_pii[gate]",
        "bench_classify.py::bench_classify::never[run2]",
        "bench_classify.py::bench_classify::never[gate]",
    ]
    pytester.runpytest("--prob-runs=40", "--junitxml=j.xml")
    cases = ET.parse(pytester.path / "j.xml").getroot().iter("testcase")
    gates = {c.get("name"): c for c in cases if c.get("name", "").endswith("[gate]")}
    assert gates["is_question[gate]"].find("failure") is None
    failure = gates["never[gate]"].find("failure")
    assert failure is not None
    assert failure.get("message") == "classify::never  3/40  [2%, 20%]  ≥90%  FAIL"


@pytest.mark.subprocess
@pytest.mark.parametrize("dist", [[], ["--dist", "loadgroup"]])
def test_xdist_gives_the_same_verdicts(pytester: pytest.Pytester, dist: list[str]) -> None:
    pytester.makepyfile(bench_classify=GATED_BENCH)
    serial = pytester.runpytest_subprocess("--prob-runs=40", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(
        "--prob-runs=40", "-n", "2", *dist, "--prob-json=p.json"
    )
    assert serial.ret == parallel.ret == 1
    workers = [line for line in section(parallel.outlines) if line.startswith("  Workers:")]
    assert workers == (
        ["  Workers: each case's runs kept on one worker (case-aware scheduling instead of "
         "--dist loadgroup)"] if dist else []
    )  # fmt: skip
    assert section(serial.outlines) == [
        line for line in section(parallel.outlines) if not line.startswith("  Workers:")
    ]
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert one["gates"] == two["gates"]
    assert [r["gate"]["verdict"] for r in one["rows"]] == [
        r["gate"]["verdict"] for r in two["rows"]
    ]
    gates = section(parallel.outlines, "probability: gates")
    assert gates == section(serial.outlines, "probability: gates")
    # the case-aware scheduler keeps each case on one worker: every gate judged there
    assert all(r["gate"]["judged"] == "item" for r in two["rows"])
    assert not any("judged at session end" in line for line in gates)


def test_marks_reach_the_gate_item(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_s="""
import pytest
pytestmark = pytest.mark.skip("off")

@pytest.mark.probability(min_rate=0.5)
def bench_a():
    pass
""",
        bench_t="""
import pytest

@pytest.mark.slow
@pytest.mark.probability(min_rate=0.5)
def bench_b():
    pass

@pytest.mark.skipif(True, reason="no")
@pytest.mark.probability(min_rate=0.5)
def bench_c():
    pass
""",
    )
    pytester.makeini("[pytest]\nmarkers = slow\nfilterwarnings = ignore::pytest.PytestWarning\n")
    skipped = pytester.runpytest("--prob-runs=3", "-m", "not slow")
    skipped.assert_outcomes(skipped=8, deselected=4)  # gate items skip with their cases
    assert skipped.ret == 0
    slow = pytester.runpytest("--prob-runs=3", "-m", "slow")
    slow.assert_outcomes(passed=3, failed=1, deselected=8)  # 3/3 is UNDECIDED at 50%


# -- "min_rate or min_passes": the closer mark's gate kind replaces the farther one -----------
#: run r fails when r is a multiple of 5: 16/20 for every case
NEAREST_KIND_BENCH = """
import pytest
from pytest_probability import current_run

pytestmark = pytest.mark.probability(min_passes=20)

@pytest.mark.probability(min_rate=0.6)
@pytest.mark.parametrize("x", [
    pytest.param(1, id="rated"),
    pytest.param(2, id="counted", marks=pytest.mark.probability(min_passes=15)),
])
def bench_f(x):
    assert current_run().run % 5 != 0

@pytest.mark.parametrize("x", [
    pytest.param(1, id="counted"),
    pytest.param(2, id="rated", marks=pytest.mark.probability(min_rate=0.5)),
])
def bench_g(x):
    assert current_run().run % 5 != 0
"""


def _checks(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each gated row's checks as ``(kind, verdict)``."""
    rows = load_json(path)["rows"]
    return {r["case"]: [(c["kind"], c["verdict"]) for c in r["gate"]["checks"]] for r in rows}


def test_a_closer_mark_setting_one_gate_kind_replaces_the_other(
    pytester: pytest.Pytester,
) -> None:
    """A case's ``min_passes`` under its function's ``min_rate`` gates on the count only, a
    function's ``min_rate`` under the module's ``min_passes`` on the rate only, and so on
    (before: both gates, so ``f::counted`` was UNDECIDED on the function's 60% bar)."""
    pytester.makepyfile(bench_k=NEAREST_KIND_BENCH)
    result = pytester.runpytest("--prob-runs=20", "--prob-json=r.json", "-W", "ignore")
    assert _checks(pytester.path / "r.json") == {
        "f::rated": [("rate", "undecided")],  # 16/20 [56%, 94%] against 60%
        "f::counted": [("count", "pass")],  # 16 ≥ 15
        "g::counted": [("count", "fail")],  # the module's min_passes=20
        "g::rated": [("rate", "pass")],  # [56%, 94%] above 50%
    }
    assert section(result.outlines, "probability: gates") == [
        "  f::rated    16/20  [56%, 94%]  ≥60%    UNDECIDED",
        "  g::counted  16/20  [56%, 94%]  ≥20/20  FAIL",
    ]
    assert section(result.outlines)[-1] == "  Gates:   2 passed, 1 failed, 1 undecided"
    result.assert_outcomes(passed=66, failed=2, xfailed=16)
    assert result.ret == 1


def test_a_mark_on_the_case_replaces_the_session_rate(pytester: pytest.Pytester) -> None:
    """mark > CLI > ini: ``--prob-min-rate`` and ``prob_min_rate`` gate the cases whose marks
    set neither kind; a mark's ``min_passes`` replaces them, a mark's ``min_rate`` wins."""
    pytester.makepyfile(
        bench_s="""
import pytest

@pytest.mark.parametrize("x", [
    pytest.param(1, id="plain"),
    pytest.param(2, id="counted", marks=pytest.mark.probability(min_passes=3)),
    pytest.param(3, id="rated", marks=pytest.mark.probability(min_rate=0.1)),
])
def bench_s(x):
    pass
"""
    )
    pytester.makeini("[pytest]\nprob_min_rate = 0.2\n")
    expected = {
        "s::plain": [("rate", "pass")],
        "s::counted": [("count", "pass")],
        "s::rated": [("rate", "pass")],
    }
    for args in ([], ["--prob-min-rate=0.3"]):
        result = pytester.runpytest("--prob-runs=20", "--prob-json=r.json", *args)
        assert result.ret == 0
        assert _checks(pytester.path / "r.json") == expected
        rows = load_json(pytester.path / "r.json")["rows"]
        bars = [c.get("min_rate") for r in rows for c in r["gate"]["checks"]]
        assert bars == [0.3 if args else 0.2, None, 0.1]


@pytest.mark.parametrize(
    ("where", "case"),
    [
        ('pytest.param(2, id="both", marks=pytest.mark.probability({both}))', "f::both"),
        ("2", "f::1"),  # the function's mark: the error names its first case
    ],
    ids=["case-mark", "function-mark"],
)
def test_one_mark_setting_both_gate_kinds_is_a_collection_error(
    pytester: pytest.Pytester, where: str, case: str
) -> None:
    both = "min_rate=0.5, min_passes=1"
    function_mark = "" if "both" in where else f"@pytest.mark.probability({both})"
    pytester.makepyfile(
        bench_b=f"""
import pytest

{function_mark}
@pytest.mark.parametrize("x", [1, {where.format(both=both)}])
def bench_f(x):
    pass
"""
    )
    result = pytester.runpytest("--prob-runs=2")
    assert result.ret == 2
    assert (
        f"bench_b.py::bench_{case}: probability mark sets min_rate=0.5 and min_passes=1: a mark takes "
        "min_rate or min_passes, not both"
    ) in result.outlines
    result.assert_outcomes(errors=1)


def test_two_marks_of_one_function_setting_both_kinds_are_an_error(
    pytester: pytest.Pytester,
) -> None:
    """Two stacked marks on one function sit at the same distance from its cases: neither
    is closer, so setting both kinds there is refused too."""
    pytester.makepyfile(
        bench_b="""
import pytest

@pytest.mark.probability(min_rate=0.5)
@pytest.mark.probability(min_passes=1, runs=3)
def bench_f():
    pass
"""
    )
    result = pytester.runpytest()
    assert result.ret == 2
    result.stdout.fnmatch_lines(
        ["bench_b.py::bench_f: probability mark sets min_rate=0.5 and min_passes=1: *"]
    )


def test_runxfail_reports_the_failing_runs_of_gated_cases_as_failures(
    pytester: pytest.Pytester,
) -> None:
    """``--runxfail`` keeps pytest's meaning: nothing is reported as xfailed, so the 40
    failing runs fail (before: still xfailed); the verdicts are the same."""
    pytester.makepyfile(bench_classify=GATED_BENCH)
    result = pytester.runpytest("--prob-runs=40", "--runxfail", "--prob-json=r.json")
    result.assert_outcomes(passed=81, failed=42)
    assert result.ret == 1
    assert section(result.outlines, "probability: gates") == [
        "  classify::identify_pii  37/40  [80%, 98%]  ≥90%  UNDECIDED",
        "  classify::never          3/40  [ 2%, 20%]  ≥90%  FAIL",
    ]
    # one short-summary line per case (--prob-failures=grouped), counting every failing run
    assert "FAILED bench_classify.py::bench_classify::never - 37/40 runs failed" in "\n".join(
        result.outlines
    )
    # a passing gate no longer hides its failing runs either
    pytester.makepyfile(
        bench_classify="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.5)
def bench_mostly():
    assert current_run().run != 3
"""
    )
    passing = pytester.runpytest("--prob-runs=40", "--runxfail")
    passing.assert_outcomes(passed=40, failed=1)
    assert section(passing.outlines)[-1] == "  Gates:   1 passed"
    assert passing.ret == 1
    assert pytester.runpytest("--prob-runs=40").ret == 0


@pytest.mark.subprocess
def test_nearest_gate_kind_is_the_same_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_k=NEAREST_KIND_BENCH)
    args = ("--prob-runs=20", "-W", "ignore")
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert serial.ret == parallel.ret == 1
    assert _checks(pytester.path / "s.json") == _checks(pytester.path / "p.json")
    for title in ("probability", "probability: gates"):
        assert section(serial.outlines, title) == section(parallel.outlines, title)
    serial.assert_outcomes(passed=66, failed=2, xfailed=16)
    parallel.assert_outcomes(passed=66, failed=2, xfailed=16)
