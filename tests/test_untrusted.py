"""Issue 21: records never trust user objects, and text the encoder cannot take is written.

Each instance of the issue is a session that used to end in an INTERNALERROR (or a raw
traceback with no report): an exception whose ``__str__`` raises, a step label whose
``__str__`` raises, a step ``passed`` with no truth value, ``Step(elapsed=10**400)``, an
unknown outcome word from a classifier, a cyclic structure in extension data, a cost sum
that overflows, lone surrogates and integers too long for decimal text. Each now becomes an
``error`` run (or a warning) naming the problem, and the session goes on.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json, section
from pytest_probability.collection.verdict_items import verdict_properties
from pytest_probability.contracts.tokens import check_tokens
from pytest_probability.execution import user_values
from pytest_probability.execution.steps import Step, read_steps, step_to_json
from pytest_probability.extensions.cost.usage import add_counts, tokens, total_cost
from pytest_probability.formatting.money import money
from pytest_probability.report import json_report
from pytest_probability.report.document import count_text

NO_CACHE = ("-p", "no:cacheprovider")


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def strict_report(path: Path) -> dict[str, Any]:
    """A report read as strict JSON, holding no lone surrogate (I-JSON)."""
    report = load_json(path)
    assert not [s for s in _strings(report) if user_values.escape_surrogates(s) != s]
    return report


def records_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {record["case"]: record for record in report["records"]}


# -- §2: user objects in records -------------------------------------------------------------
UNTRUSTED_BENCH = """
from pytest_probability import Step


class Nasty(Exception):
    def __str__(self):
        raise RuntimeError("no str for you")


class BadText:
    def __str__(self):
        raise ValueError("label boom")


class NoTruth:
    def __bool__(self):
        raise ValueError("The truth value of an array with more than one element is ambiguous")


def bench_1_exception():
    raise Nasty()


def bench_2_assertion():
    raise AssertionError(BadText())


def bench_3_label():
    return [Step(label="fine", passed=True), Step(label=BadText(), passed=True)]


def bench_4_passed():
    return Step(label="judge", passed=NoTruth())


def bench_5_elapsed():
    return Step(label="timed", passed=True, elapsed=10**400)


def bench_6_yielded():
    yield Step(label="judge", passed=NoTruth())
    yield Step(label="never", passed=True)


def bench_7_after():
    pass
"""

#: case → (error, message) of its run
EXPECTED = {
    "1_exception": (
        "Nasty",
        "Nasty: its message cannot be read: str() raised RuntimeError: no str for you",
    ),
    "2_assertion": (
        "AssertionError",
        "AssertionError: its message cannot be read: str() raised ValueError: label boom",
    ),
    "3_label": (
        "InvalidStep",
        "step 2 is invalid: its label cannot be read: str() raised ValueError: label boom",
    ),
    "4_passed": (
        "InvalidStep",
        "step 'judge' is invalid: its passed value cannot be read: bool() raised ValueError: "
        "The truth value of an array with more than one element is ambiguous",
    ),
    "5_elapsed": (
        "InvalidStep",
        "step 'timed' is invalid: its elapsed time cannot be read: float() raised "
        "OverflowError: int too large to convert to float",
    ),
    "6_yielded": (
        "InvalidStep",
        "step 'judge' is invalid: its passed value cannot be read: bool() raised ValueError: "
        "The truth value of an array with more than one element is ambiguous",
    ),
}


@pytest.fixture
def untrusted_run(pytester: pytest.Pytester) -> tuple[pytest.RunResult, dict[str, Any]]:
    pytester.makepyfile(bench_u=UNTRUSTED_BENCH)
    result = pytester.runpytest("--prob-json=r.json")
    return result, strict_report(pytester.path / "r.json")


def test_user_objects_that_raise_make_error_runs(
    untrusted_run: tuple[pytest.RunResult, dict[str, Any]],
) -> None:
    result, report = untrusted_run
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any("INTERNALERROR" in line for line in result.outlines)
    records = records_of(report)
    for case, (error, message) in EXPECTED.items():
        record = records[case]
        assert (record["outcome"], record["error"], record["message"]) == (
            "error",
            error,
            message,
        ), case
    assert records["7_after"]["outcome"] == "pass"  # the session went on
    assert report["totals"] == {
        **report["totals"],
        "passes": 1,
        "fails": 0,
        "errors": 6,
        "count": 7,
    }
    assert section(result.outlines) == [
        "  1_exception  0/1  ERROR",
        "  2_assertion  0/1  ERROR",
        "  3_label      0/1  ERROR",
        "  4_passed     0/1  ERROR",
        "  5_elapsed    0/1  ERROR",
        "  6_yielded    0/1  ERROR",
        "  7_after      1/1",
        "",
        "  Overall: 1/7 passed (14%)",
    ]


def test_an_invalid_step_is_kept_as_an_error_step(
    untrusted_run: tuple[pytest.RunResult, dict[str, Any]],
) -> None:
    result, report = untrusted_run
    steps = records_of(report)["3_label"]["steps"]
    assert [(s["label"], s["passed"], s["error"]) for s in steps] == [
        ("fine", True, None),
        ("step 2", False, "InvalidStep"),
    ]
    assert steps[1]["message"] == EXPECTED["3_label"][1]
    # pytest shows the run's failure as that one line, without the plugin's traceback
    result.stdout.fnmatch_lines(
        ["*_ bench_5_elapsed _*", EXPECTED["5_elapsed"][1].replace("[", "[[]")]
    )


def test_a_numpy_array_as_passed(pytester: pytest.Pytester) -> None:
    pytest.importorskip("numpy")
    pytester.makepyfile(
        bench_np="""
        import numpy
        from pytest_probability import Step

        def bench_array():
            return Step(label="scores", passed=numpy.array([True, False]))
        """
    )
    result = pytester.runpytest("--prob-json=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    record = strict_report(pytester.path / "r.json")["records"][0]
    assert record["error"] == "InvalidStep"
    assert record["message"].startswith(
        "step 'scores' is invalid: its passed value cannot be read: bool() raised "
        "ValueError: The truth value of an array with more than one element is ambiguous"
    )


def test_step_readers() -> None:
    class Loud:
        @property
        def label(self) -> str:
            raise KeyError("label")

        passed = True

    assert step_to_json({"label": 3, "passed": 1, "error": False, "elapsed": "soon"}) == {
        "label": "3",
        "passed": True,
        "elapsed": None,  # not a number: left out, as before
        "error": None,  # a falsy error is no error
        "message": None,
    }
    read, problem = read_steps([Step("ok", True), Loud()])
    assert problem == (
        "step 2 is invalid: its label cannot be read: getattr() raised KeyError: 'label'"
    )
    assert read[1] == {
        "label": "step 2",
        "passed": False,
        "elapsed": None,
        "error": "InvalidStep",
        "message": problem,
    }


def test_untrusted_readers() -> None:
    class NoStr:
        def __str__(self) -> str:
            raise RuntimeError("x")

    with pytest.raises(user_values.UnreadableValue) as info:
        user_values.read_text(NoStr(), "its label")
    assert str(info.value) == "its label cannot be read: str() raised RuntimeError: x"
    assert user_values.safe_str(NoStr()) == "<NoStr: str() raised RuntimeError>"
    assert user_values.read_seconds(None, "t") is None
    assert user_values.read_seconds("1.5", "t") == 1.5
    loop: list[Any] = [1]
    loop.append(loop)
    assert user_values.short_repr(loop) == "[1, [1, [1, [...]]]]"
    assert user_values.short_repr("x" * 500, limit=10) == "'xxxxxxxx…"


# -- §2: an outcome word nobody knows ---------------------------------------------------------
BANANA = """
import pytest


class Banana:
    @pytest.hookimpl(tryfirst=True)
    def pytest_prob_classify_outcome(self, item, call):
        return "banana" if item.name.startswith("bench_odd") else None


def pytest_configure(config):
    config.pluginmanager.register(Banana(), "banana-classifier")
"""

BANANA_WARNING = (
    "extension 'banana-classifier' returned 'banana' from pytest_prob_classify_outcome, "
    "which is not an outcome (expected 'pass', 'fail', 'error' or 'skip'): its runs are "
    "recorded as errors"
)


def test_an_unknown_outcome_word_is_an_error_warned_once(pytester: pytest.Pytester) -> None:
    """It used to make every run vanish from the table and the totals, silently."""
    pytester.makeconftest(BANANA)
    pytester.makepyfile(
        bench_b="""
        def bench_odd():
            pass

        def bench_even():
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json")
    report = strict_report(pytester.path / "r.json")
    warned = [line for line in result.outlines if "ProbabilityExtensionWarning" in line]
    assert len(warned) == 1  # once, for three runs
    assert warned[0].endswith(f": ProbabilityExtensionWarning: {BANANA_WARNING}")
    assert report["warnings"] == [BANANA_WARNING]
    assert section(result.outlines)[:4] == [
        "  odd   0/3  [ 0%,  71%]  ERROR",
        "  even  3/3  [29%, 100%]",
        "",
        "  Overall: 3/6 passed (50%)",
    ]
    assert f"  warning: {BANANA_WARNING}" in result.outlines
    odd = [r for r in report["records"] if r["case"] == "odd"]
    assert [(r["outcome"], r["error"], r["message"], r["warnings"]) for r in odd] == [
        ("error", "UnknownOutcome", BANANA_WARNING, [BANANA_WARNING])
    ] * 3
    assert report["totals"]["errors"] == 3 and report["totals"]["count"] == 6


# -- §2: cycles in extension data --------------------------------------------------------------
CYCLIC = """
class Cyclic:
    def pytest_prob_run_finished(self, item, record):
        loop = {"name": "loop"}
        loop["self"] = loop
        record["mine"] = loop

    def pytest_prob_build_report(self, report, results, config):
        ring = ["ring"]
        ring.append(ring)
        report.set_json("ring", ring)


def pytest_configure(config):
    config.pluginmanager.register(Cyclic(), "cyclic-data")
"""


@pytest.mark.parametrize("workers", [None, "2"], ids=["serial", "xdist"])
def test_cyclic_extension_data_is_cut_to_a_short_repr(
    pytester: pytest.Pytester, workers: str | None
) -> None:
    pytester.makeconftest(CYCLIC)
    pytester.makepyfile(bench_c="def bench_a():\n    pass\n")
    if workers is None:
        result = pytester.runpytest("--prob-json=r.json")
    else:
        result = pytester.runpytest_subprocess("-n", workers, "--prob-json=r.json")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert not any("INTERNALERROR" in line or "Recursion" in line for line in result.outlines)
    report = strict_report(pytester.path / "r.json")
    assert report["records"][0]["mine"] == {
        "name": "loop",
        "self": "{'name': 'loop', 'self': {'name': 'loop', 'self': {'name': 'loop', 'self': "
        "{...}}}}",
    }
    # (a top-level list is written item by item: the cycle is cut inside its second item)
    assert report["ring"] == ["ring", ["ring", "['ring', ['ring', ['ring', [...]]]]"]]


def test_jsonable_is_bounded() -> None:
    loop: dict[str, Any] = {}
    loop["again"] = loop
    assert json_report.jsonable(loop) == {"again": "{'again': {'again': {'again': {...}}}}"}
    shared = {"x": 1}
    assert json_report.jsonable({"a": shared, "b": shared}) == {"a": {"x": 1}, "b": {"x": 1}}
    deep: Any = "bottom"
    for _ in range(200):
        deep = [deep]
    flat = json.dumps(json_report.jsonable(deep))  # (a RecursionError before)
    assert flat.count("[") == json_report.MAX_DEPTH + 4  # (the cut's repr shows 4 levels)
    plain = {"a": [1, 2.5, None, "x"]}
    assert json_report.jsonable(plain) is plain  # no copy of plain data


# -- §2: a cost sum beyond the largest float -------------------------------------------------
OVERFLOW_BENCH = """
from pytest_probability import Step, record_cost


def bench_a():
    record_cost(1.7e308)
    record_cost(1.7e308)


def bench_b():
    return [Step("one", True, cost=1.7e308), Step("two", True, cost=1.7e308)]


def bench_c():
    record_cost(1.0)
"""

OVERFLOW_NOTE = (
    "the session's cost overflowed: the recorded amounts add up to more than the largest "
    "number a float holds, about 1.8e308; it is shown as 'overflow' and written as null"
)


def test_an_overflowing_cost_is_a_clear_note(pytester: pytest.Pytester) -> None:
    """The cost section used to be dropped (``OverflowError: intermediate overflow in
    fsum``), and a run whose steps overflowed lost its cost."""
    pytester.makepyfile(bench_o=OVERFLOW_BENCH)
    result = pytester.runpytest("--prob-json=r.json")
    assert result.ret == pytest.ExitCode.OK
    assert section(result.outlines) == [
        "  a  1/1  overflow",
        "  b  1/1  overflow",
        "  c  1/1   $1.0000",
        "",
        "  Overall: 3/3 passed (100%)",
        "  Cost:    overflow (the recorded amounts add up to more than the largest number a "
        "float holds, about 1.8e308)",
        "",
        f"  warning: {OVERFLOW_NOTE}",
    ]
    report = strict_report(pytester.path / "r.json")
    assert report["totals"]["cost"] is None and report["warnings"] == [OVERFLOW_NOTE]
    assert [row["cost"] for row in report["rows"]] == [None, None, 1.0]
    assert [step["cost"] for step in report["records"][1]["steps"]] == [1.7e308, 1.7e308]


def test_the_budget_keeps_enforcing_after_an_overflow(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_o=OVERFLOW_BENCH)
    result = pytester.runpytest("--prob-json=r.json", "--prob-budget=5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # cut by its budget
    lines = section(result.outlines)
    assert lines[:5] == [
        "  a  1/1  overflow",
        "",
        "  Overall: 1/1 passed (100%)",
        "  Budget:  $5.00 reached after 1 of 3 runs; 2 skipped",
        "           spent: overflow (the recorded amounts add up to more than the largest "
        "number a float holds, about 1.8e308), by the run that reached it (a run is not "
        "stopped half-way)",
    ]
    report = strict_report(pytester.path / "r.json")
    budget = report["budget"]
    assert (budget["spent"], budget["skipped"], budget["reached"]) == (None, 2, True)
    assert report["totals"]["skipped"] == 2


def test_money_and_sums_past_the_largest_float() -> None:
    assert total_cost([1.7e308, 1.7e308]) == math.inf
    assert money(math.inf) == "overflow"
    assert money(1.7e308) == "$1.7e+308"
    assert money(0.04) == "$0.0400"
    assert money(123456789012.0) == "$123,456,789,012.0000"


# -- §1: text the encoder cannot take is written, not fatal -------------------------------------
def test_a_bench_file_name_that_is_not_utf8(pytester: pytest.Pytester) -> None:
    """Every file is written, each lone surrogate as its escape (the text ``\\udcff``).

    pytest's own cache plugin cannot save such a node id (it fails the same way for a
    ``test_`` file), hence ``-p no:cacheprovider``."""
    name = os.fsencode(pytester.path) + b"/bench_\xff.py"
    with open(name, "w") as handle:
        handle.write("def bench_a():\n    pass\n\ndef bench_b():\n    assert 0\n")
    result = pytester.runpytest(
        *NO_CACHE,
        "--prob-json=r.json",
        "--prob-html=r.html",
        "--prob-markdown=r.md",
        "--prob-save-baseline=b.toml",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any("could not" in line or "Traceback" in line for line in result.outlines)
    report = strict_report(pytester.path / "r.json")
    assert [row["nodeid"] for row in report["rows"]] == [
        "bench_\\udcff.py::bench_a",
        "bench_\\udcff.py::bench_b",
    ]
    baseline = tomllib.loads((pytester.path / "b.toml").read_text(encoding="utf-8"))
    assert list(baseline["cases"]) == ["bench_\\udcff.py::bench_a", "bench_\\udcff.py::bench_b"]
    assert "bench_\\udcff.py" in (pytester.path / "r.html").read_text(encoding="utf-8")
    assert (pytester.path / "r.md").read_text(encoding="utf-8").startswith("## ")
    result = pytester.runpytest(*NO_CACHE, "--prob-plan", "--prob-plan-write=p.toml")
    plan = tomllib.loads((pytester.path / "p.toml").read_text(encoding="utf-8"))
    assert [case["key"] for case in plan["cases"]] == [
        "bench_\\udcff.py::bench_a",
        "bench_\\udcff.py::bench_b",
    ]


def test_surrogates_in_messages_and_labels(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_s="""
        from pytest_probability import Step

        def bench_compare():
            assert "\\udcff" == "x"

        def bench_label():
            return [Step(label="lab\\udcfe", passed=True, message="m\\udcfd")]
        """
    )
    result = pytester.runpytest("--prob-json=r.json", "--prob-html=r.html", "--prob-markdown=r.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any("could not" in line or "Traceback" in line for line in result.outlines)
    records = records_of(strict_report(pytester.path / "r.json"))
    assert records["compare"]["message"].endswith("+ \\udcff")
    assert records["label"]["steps"] == [
        {
            "label": "lab\\udcfe",
            "passed": True,
            "elapsed": None,
            "error": None,
            "message": "m\\udcfd",
            "cost": None,
            "usage": [],
        }
    ]
    assert "lab\\udcfe" in (pytester.path / "r.html").read_text(encoding="utf-8")


def test_the_json_encoder_escapes_surrogates_as_text() -> None:
    text = json_report.dumps({"k\udcff": ["a\udcffb", "\\\udcfe", "é"]})
    assert json.loads(text) == {"k\\udcff": ["a\\udcffb", "\\\\udcfe", "é"]}
    text.encode("utf-8")  # (strict: no surrogate left)


# -- §1: integers too long for decimal text ---------------------------------------------------
BIG_BENCH = """
from pytest_probability import record_usage


def bench_big():
    record_usage(model="m", input_tokens=10**5000, output_tokens=1)
    record_usage(model="m", input_tokens=5, output_tokens=1)
"""

BIG_WARNING = (
    "CostWarning: input_tokens is too long to write as a number (about 5,001 digits): "
    "recorded as the text '1.000000e+5000'"
)


@pytest.mark.parametrize("workers", [None, "2"], ids=["serial", "xdist"])
def test_a_token_count_too_long_to_write_becomes_text(
    pytester: pytest.Pytester, workers: str | None
) -> None:
    """It ended the session with a raw ``ValueError`` traceback and no report (and an
    INTERNALERROR under xdist, whose workers could not send the record)."""
    pytester.makepyfile(bench_big=BIG_BENCH)
    args = ("--prob-json=r.json", "-W", "always::pytest_probability.CostWarning")
    args += ("--prob-html=r.html", "--prob-markdown=r.md", "--prob-save-baseline=b.toml")
    if workers is None:
        result = pytester.runpytest(*args)
    else:
        result = pytester.runpytest_subprocess("-n", workers, *args)
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert any(line.endswith(BIG_WARNING) for line in result.outlines)
    assert "  Tokens:  m  1.000000e+5000 in / 2 out" in result.outlines
    report = strict_report(pytester.path / "r.json")
    assert report["totals"]["usage"] == {
        "m": {
            "input_tokens": "1.000000e+5000",
            "output_tokens": 2,
            "cached_input_tokens": 0,
            "cost": None,
        }
    }
    assert not any("could not" in line for line in result.outlines)
    # the page and the summary show the count as the text it was kept as (an empty cell and
    # a dash before: their readers took only whole numbers)
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "<tr><td>m</td><td>1.000000e+5000</td><td>2</td><td>0</td><td></td>" in page
    summary = (pytester.path / "r.md").read_text(encoding="utf-8").splitlines()
    assert "| m | 1.000000e+5000 | 2 | 0 | |" in summary
    assert tomllib.loads((pytester.path / "b.toml").read_text(encoding="utf-8"))["cases"]


def test_counts_too_long_to_write() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_tokens(10**5000, "input_tokens") == "1.000000e+5000"
    assert [str(w.message) for w in caught] == [BIG_WARNING.split(": ", 1)[1]]
    assert add_counts("1.000000e+5000", 5) == "1.000000e+5000"
    assert add_counts(2, 3) == 5
    assert tokens({"input_tokens": 10**5000, "output_tokens": 1200, "cached_input_tokens": 0}) == (
        "1.000000e+5000 in / 1,200 out"
    )
    assert user_values.int_text(-(10**5000)) == "-1.000000e+5000"
    # what the HTML and Markdown readers show for a count
    assert [count_text(v) for v in (1200, 3.0, "1.000000e+5000", "12", "x", True, None)] == [
        "1,200",
        "3",
        "1.000000e+5000",
        None,
        None,
        None,
        None,
    ]


def test_the_json_encoder_writes_a_huge_int_as_text_with_a_warning() -> None:
    with pytest.warns(json_report.ReportWarning) as caught:
        text = "".join(json_report.iter_dumps({"n": [10**5000, 7]}, where="out/r.json"))
    assert json.loads(text) == {"n": ["1.000000e+5000", 7]}
    assert [str(w.message) for w in caught] == [
        "out/r.json: 1 integer(s) too long to write as a number (up to about 5,001 digits) "
        "written as text in scientific notation"
    ]


# -- issue 35 §4: text into other formats -----------------------------------------------------
ODD_GATE = """
from pytest_probability.extensions.gates.registry import GateResult


def pytest_prob_register_gates(register, config):
    register(
        "odd",
        configure=lambda mark, config: mark.get("min_rate"),
        judge=lambda spec, case, config: GateResult(
            "odd",
            "fail",
            "bad \\ud800 \\x1b[31m \\x00 line",
            data={"note\\ud800": "v\\x07\\uffff", "kept": "a\\tb\\nc"},
        ),
    )
"""


def test_junit_properties_are_xml_text(pytester: pytest.Pytester) -> None:
    """A third party's gate line or field holding a lone surrogate ended the session in
    pytest's JUnit writer (a 38-byte file, no JSON, HTML or Markdown); a NUL or ESC made the
    file not XML. Every property name and value is XML 1.0 text now, with what XML cannot
    hold shown as its escape (tab and newline kept)."""
    pytester.makeconftest(ODD_GATE)
    pytester.makepyfile(
        bench_g="import pytest\n\n@pytest.mark.probability(min_rate=0.5)\ndef bench_g():\n    pass\n"
    )
    result = pytester.runpytest(
        "--prob-runs=2",
        "--junitxml=j.xml",
        "--prob-json=r.json",
        "--prob-html=r.html",
        "--prob-markdown=r.md",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any("Traceback" in line for line in result.outlines + result.errlines)
    root = ET.parse(pytester.path / "j.xml").getroot()
    odd = [
        (p.get("name"), p.get("value"))
        for p in root.iter("property")
        if ".odd." in p.get("name", "")
    ]
    assert odd == [
        ("prob.odd.verdict", "fail"),
        ("prob.odd.note\\ud800", "v\\x07\\uffff"),
        ("prob.odd.kept", "a\tb\nc"),
        ("prob.odd.line", "bad \\ud800 \\x1b[31m \\x00 line"),
    ]
    failure = next(root.iter("failure"))
    assert failure.get("message") == (
        "g  2/2  [16%, 100%]  ≥50%  UNDECIDED\ng  bad \\ud800 \\x1b[31m \\x00 line"
    )
    checks = strict_report(pytester.path / "r.json")["rows"][0]["gate"]["checks"]
    assert checks[1] == {
        "kind": "odd",
        "verdict": "fail",
        "note\\ud800": "v\x07\uffff",
        "kept": "a\tb\nc",
    }
    assert (pytester.path / "r.html").stat().st_size and (pytester.path / "r.md").stat().st_size


def test_verdict_properties_escape_what_xml_cannot_hold() -> None:
    """The one helper both verdict kinds (gates, comparisons) build their properties with."""
    fields = {"line\x1b": "a\ud800\x00\tb\n\uffff\ufffe\x7f", "n": 3, "skip": None}
    assert verdict_properties(fields, "k\x0b.") == [
        ("prob.k\\x0b.line\\x1b", "a\\ud800\\x00\tb\n\\uffff\\ufffe\x7f"),
        ("prob.k\\x0b.n", "3"),
    ]


STEP_TEXT_CONFTEST = """
def pytest_prob_failure_key(record, config):
    return "key\\x1b[31mred\\x07"


def pytest_prob_build_report(report, results, config):
    report.add_summary("Note\\x1b:", "a\\x1b[2Jb", order=999)
    report.warn("w\\x07")
"""

STEP_TEXT_BENCH = """
from pytest_probability import Step


def bench_err():
    return [Step(label="lab\\x1b[2J", passed=True, error="Err\\x1b]0;x\\x07", message="m\\x1b[31m\\nz")]


def bench_fail():
    return [Step(label="lab\\x1b[2J", passed=False, message="msg\\x1b[31m\\x07")]


class Unreadable:
    def __bool__(self):
        raise ValueError("no\\x1b[31m")


def bench_invalid():
    return [Step(label="v", passed=Unreadable())]
"""


def test_step_and_extension_text_is_shown_escaped(pytester: pytest.Pytester) -> None:
    """A step's ``error`` and ``message`` printed ESC and BEL raw beside its escaped label,
    and so did a ``pytest_prob_failure_key`` answer and whatever an extension contributed to
    the report: the terminal shows every such text with its escapes visible (the JSON keeps
    the step's own fields as given)."""
    pytester.makeconftest(STEP_TEXT_CONFTEST)
    pytester.makepyfile(bench_s=STEP_TEXT_BENCH)
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json", "-rf")
    assert not any("\x1b" in line or "\x07" in line for line in result.outlines)
    lines = result.outlines
    errored = lines.index("step 'lab\\x1b[2J' errored: Err\\x1b]0;x\\x07: m\\x1b[31m")
    assert lines[errored + 1] == "z"  # (a message's newlines kept)
    assert "step 'lab\\x1b[2J' failed: msg\\x1b[31m\\x07" in lines
    assert "… 1 more failing run of fail: 1 × key\\x1b[31mred\\x07 (run 2)" in lines
    assert "FAILED bench_s.py::bench_fail - 2/2 runs failed: key\\x1b[31mred\\x07" in lines
    invalid = "step 'v' is invalid: its passed value cannot be read: bool() raised ValueError"
    assert any(line.startswith(invalid) and line.endswith("no\\x1b[31m") for line in lines)
    main = section(lines)
    assert "  Note\\x1b: a\\x1b[2Jb" in main
    assert main[-1] == "  warning: w\\x07"
    step = records_of(strict_report(pytester.path / "r.json"))["err"]["steps"][0]
    assert (step["error"], step["message"]) == ("Err\x1b]0;x\x07", "m\x1b[31m\nz")


TEXT_COUNT_CONFTEST = """
def pytest_prob_price_usage(model, input_tokens, output_tokens, cached_input_tokens, config):
    return (input_tokens + output_tokens) / 1000
"""

TEXT_COUNT_BENCH = """
from pytest_probability import current_run, record_usage


def bench_big():
    if current_run().run == 1:
        record_usage(model="m", input_tokens=10**5000, output_tokens=10**5000, cached_input_tokens=0)
        record_usage(model="m", input_tokens=5, output_tokens=1, cached_input_tokens=0, cost=0.25)
    else:
        record_usage(model="m", input_tokens=5, output_tokens=1, cached_input_tokens=0)
"""


def test_counts_kept_as_text_are_never_summed_as_strings(pytester: pytest.Pytester) -> None:
    """A plain call after a count kept as text (record_usage's fast path) added an int to
    the text (a TypeError: the run an error); a pricing plugin got the texts and summed
    them with ``+`` (``"1.000000e+50001.000000e+5000"``). The total stays text, an entry
    with a text count is not priced (its cost unknown), and the run passes."""
    pytester.makeconftest(TEXT_COUNT_CONFTEST)
    pytester.makepyfile(bench_big=TEXT_COUNT_BENCH)
    result = pytester.runpytest(
        "--prob-runs=2", "--prob-json=r.json", "-W", "always::pytest_probability.CostWarning"
    )
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert not any("pricing" in line for line in result.outlines)
    main = section(result.outlines)
    assert "  Cost:    $0.2560" in main
    assert "  Tokens:  m  1.000000e+5000 in / 1.000000e+5000 out  $0.2560" in main
    report = strict_report(pytester.path / "r.json")
    usage = {
        "m": {
            "input_tokens": "1.000000e+5000",
            "output_tokens": "1.000000e+5000",
            "cached_input_tokens": 0,
            "cost": 0.256,
        }
    }
    assert (report["totals"]["cost"], report["totals"]["usage"]) == (0.256, usage)
    first, second = (record["usage"]["m"] for record in report["records"])
    assert (first["cost"], second["cost"]) == (0.25, 0.006)


def test_every_warning_of_the_plugin_shows_its_escapes() -> None:
    """pytest prints ``str(warning)``: a message quoting an extension's exception or a
    server's answer shows control characters as their escapes."""
    from pytest_probability import api
    from pytest_probability.extensions.budget.session import BudgetWarning
    from pytest_probability.extensions.comparisons.session import (
        AxisWarning,
        ComparisonWarning,
        MarginWarning,
    )
    from pytest_probability.extensions.gates.plugin import GateWarning
    from pytest_probability.extensions.gates.state import GateJudgeWarning
    from pytest_probability.extensions.metrics.plugin import MetricWarning
    from pytest_probability.extensions.texts.api import TextsWarning
    from pytest_probability.extensions.texts.session import TextsUsageWarning
    from pytest_probability.report.json_report import ReportWarning
    from pytest_probability.report.safe_calls import ProbabilityExtensionWarning

    kinds = [
        api.CostWarning, BudgetWarning, AxisWarning, ComparisonWarning, MarginWarning,
        GateWarning, GateJudgeWarning, MetricWarning, TextsWarning,
        TextsUsageWarning, ReportWarning, ProbabilityExtensionWarning,
    ]  # fmt: skip
    for kind in kinds:
        assert str(kind("boom\x1b[31m\x07 \ud800\nnext")) == "boom\\x1b[31m\\x07 \\ud800\nnext"
        assert issubclass(kind, UserWarning)  # (filters by UserWarning still match)


def test_a_warning_quoting_an_extensions_exception_is_printed_escaped(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        "def pytest_prob_run_spend(record, config):\n    raise RuntimeError('boom\\x1b[31m')\n"
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=2", "--prob-budget=5", "-p", "no:randomly")
    assert not any("\x1b" in line for line in result.outlines)
    assert any("RuntimeError: boom\\x1b[31m" in line for line in result.outlines)
