"""What a new user meets on the first day (issue 39): misuse errors that name the function
and show the user's line, not the plugin's frames."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from helpers import section

PLAIN = ("-p", "no:randomly", "-p", "no:asyncio", "-p", "no:cacheprovider")

MISUSE = """
from pytest_probability import current_run, record_cost, record_latency, record_usage

def test_current_run():
    current_run()

def test_record_usage():
    record_usage(model="m", input_tokens=1)

def test_record_cost():
    record_cost(1.0)

def test_record_latency():
    record_latency(1.0)
"""


@pytest.mark.parametrize("style", ["auto", "long"])
def test_a_helper_called_outside_a_bench_is_one_line_naming_it(
    pytester: pytest.Pytester, style: str
) -> None:
    pytester.makepyfile(test_misuse=MISUSE)
    result = pytester.runpytest(*PLAIN, f"--tb={style}")
    result.assert_outcomes(failed=4)
    errors = [line for line in result.outlines if line.startswith("E  ")]
    rest = "can only be called from inside a bench_* function while it runs (there is no "
    assert errors == [
        f"E       RuntimeError: {name}() {rest}bench run to attribute it to)"
        for name in ("current_run", "record_usage", "record_cost", "record_latency")
    ]
    shown = "\n".join(result.outlines)
    for internal in ("execution/context.py", "cost/recording.py", "latency/__init__.py"):
        assert internal not in shown
    # each failure shows the user's own line and nothing between it and the error
    for call in ("current_run()", 'record_usage(model="m", input_tokens=1)'):
        at = result.outlines.index(f">       {call}")
        assert result.outlines[at + 1].startswith("E       RuntimeError: ")


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        ('runs="3"', "runs='3': expected a number, not text: write 3 without quotes"),
        ('min_rate="0.5"', "min_rate='0.5': expected a number, not text: write 0.5 without quotes"),
        ("threads=1", "threads=1: expected True or False, got 1"),
        ('threads="yes"', "threads='yes': expected True or False, got 'yes'"),
        (
            'margin="0.1", baseline="a"',
            "margin='0.1': expected a number, not text: write 0.1 without quotes",
        ),
        ("equivalence=1, margin=0.1, baseline='a'", "equivalence=1: expected True or False, got 1"),
    ],
)
def test_a_mark_argument_of_the_wrong_type_is_a_collection_error(
    pytester: pytest.Pytester, mark: str, message: str
) -> None:
    pytester.makepyfile(
        bench_m=f"""
        import pytest

        @pytest.mark.probability({mark})
        @pytest.mark.parametrize("arm", ["a", "b"])
        def bench_a(arm):
            pass
        """
    )
    result = pytester.runpytest(*PLAIN)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    errors = [line for line in result.outlines if "probability mark argument" in line]
    assert errors == [f"bench_m.py::bench_a::a: probability mark argument {message}"]


def test_every_declared_dependency_is_imported() -> None:
    """The default install holds only what the plugin imports (issue 39 §6: the
    ``importlib-metadata`` backport was declared and never imported)."""
    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower().replace("-", "_")
        for requirement in project["dependencies"]
    }
    imported: set[str] = set()
    for package in ("core", "extensions"):
        for module in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.split(".")[0])
    assert declared == {"pytest", "pluggy", "tomli_w"}
    assert declared <= imported


def test_the_startup_benchmark_puts_the_bytecode_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``benchmarks/startup.py`` sets the plugin's ``__pycache__`` aside to measure cold
    starts; afterwards every file is back as it was and nothing it wrote is left."""
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("startup", root / "benchmarks" / "startup.py")
    assert spec is not None and spec.loader is not None
    startup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(startup)
    cache = tmp_path / "package" / "__pycache__"
    cache.mkdir(parents=True)
    kept = {cache / f"m{i}.cpython-311.pyc": f"bytes {i}".encode() for i in range(3)}
    for path, content in kept.items():
        path.write_bytes(content)
    monkeypatch.setattr(startup, "plugin_bytecode", lambda: sorted(cache.glob("*.pyc")))
    holder = tmp_path / "holder"
    holder.mkdir()
    with pytest.raises(KeyboardInterrupt), startup.bytecode_restored(holder):
        assert list(cache.glob("*.pyc")) == []  # set aside: every start compiles
        (cache / "new.cpython-311.pyc").write_bytes(b"written by a warm-up")
        raise KeyboardInterrupt
    assert {path: path.read_bytes() for path in cache.glob("*.pyc")} == kept
    assert list(holder.iterdir()) == []


@pytest.mark.parametrize(
    ("option", "what"),
    [
        ("--prob-json", "the report"),
        ("--prob-html", "the report"),
        ("--prob-markdown", "the summary"),
        ("--prob-save-baseline", "the baseline"),
    ],
)
def test_a_report_path_ending_in_a_slash_is_refused_as_a_directory(
    pytester: pytest.Pytester, option: str, what: str
) -> None:
    """``--prob-json=newdir/`` used to write a file named ``newdir``: a path ending in
    ``/`` names a directory, so it is refused before anything runs, naming a file in it."""
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest(*PLAIN, f"{option}=newdir/")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: {option}=newdir/: cannot write {what}: a path ending in '/' names a "
        "directory; give the file's name too (newdir/NAME)"
    )
    assert not (pytester.path / "newdir").exists()


def test_the_html_command_refuses_an_output_ending_in_a_slash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_probability.__main__ import main

    report = tmp_path / "r.json"
    report.write_text('{"rows": []}', encoding="utf-8")
    assert main(["html", str(report), "-o", f"{tmp_path}/out/"]) == 2
    assert capsys.readouterr().err == (
        f"python -m pytest_probability: error: cannot write {tmp_path}/out/: a path ending "
        f"in '/' names a directory; give the file's name too ({tmp_path}/out/NAME)\n"
    )


def _written_lines(lines: list[str]) -> list[str]:
    return [line.strip("- ") for line in lines if re.match(r"^-+ probability: .* -+$", line)]


def test_every_file_a_session_writes_gets_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``--junitxml`` prints ``generated xml file: …``: one line per file, in the order
    they were written, with the path as given and the size (issue 39 §3)."""
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    outputs = ["--prob-json=out/r.json", "--prob-html=out/r.html", "--prob-markdown=out/r.md"]
    result = pytester.runpytest(*PLAIN, *outputs, "--prob-save-baseline=out/b.toml")
    assert result.ret == 0
    size = {name: (pytester.path / "out" / name).stat().st_size for name in os.listdir("out")}
    assert size["r.md"] < 1000 < size["r.json"] < 999_500
    assert _written_lines(result.outlines) == [
        f"probability: baseline out/b.toml ({size['b.toml']} bytes)",
        f"probability: JSON report out/r.json ({size['r.json'] / 1000:.0f} kB)",
        f"probability: Markdown summary out/r.md ({size['r.md']} bytes)",
        f"probability: Markdown summary appended to {summary} ({summary.stat().st_size} bytes)",
        f"probability: HTML report out/r.html ({size['r.html'] / 1000:.0f} kB)",
    ]
    quiet = pytester.runpytest(*PLAIN, "-q", "--prob-json=out/r.json")
    assert _written_lines(quiet.outlines) == []  # (as --junitxml: not under -q)


def test_the_plan_and_a_distributed_session_say_what_they_wrote(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    plan = pytester.runpytest(*PLAIN, "--prob-plan", "--prob-plan-write=plan.toml")
    size = (pytester.path / "plan.toml").stat().st_size
    assert _written_lines(plan.outlines) == [f"probability: plan plan.toml ({size} bytes)"]
    pytest.importorskip("xdist")
    spread = pytester.runpytest(*PLAIN, "-n", "2", "--prob-runs=4", "--prob-json=r.json")
    size = (pytester.path / "r.json").stat().st_size
    assert _written_lines(spread.outlines) == [
        f"probability: JSON report r.json ({size / 1000:.0f} kB)"
    ]


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1 kB"), (12_345, "12 kB"),
     (999_499, "999 kB"), (999_500, "1.0 MB"), (3_456_789, "3.5 MB")],
)  # fmt: skip
def test_sizes_read_as_people_read_them(size: int, text: str) -> None:
    from pytest_probability.report.written import size_text

    assert size_text(size) == text


GATED_50 = """
import pytest
from helpers import section


@pytest.mark.parametrize("i", range(50))
def bench_many(i):
    pass


@pytest.mark.parametrize("x", ["a", "b"])
@pytest.mark.probability(min_rate=0.95)
def bench_marked(x):
    pass
"""


def _gate_warnings(lines: list[str]) -> list[str]:
    body = section(lines, "warnings summary")
    return [line.strip() for line in body if "GateWarning" in line]


def test_a_session_gate_that_cannot_pass_is_one_warning_naming_the_option(
    pytester: pytest.Pytester,
) -> None:
    """``--prob-min-rate=0.9 --prob-runs=10`` on 50 cases: one warning, at the command
    line, naming the option, the runs needed and the first few cases; the mark's own gate
    is one warning at its mark line (below the parametrize line). The JSON report lists
    every affected case (issue 39 §1)."""
    bench = pytester.makepyfile(bench_many=GATED_50)
    mark_line = bench.read_text().splitlines().index("@pytest.mark.probability(min_rate=0.95)")
    result = pytester.runpytest(
        *PLAIN, "--prob-min-rate=0.9", "--prob-runs=10", "--prob-json=r.json"
    )
    assert _gate_warnings(result.outlines) == [
        "<command line>:1: GateWarning: --prob-min-rate=0.9: the gate cannot pass with 10 runs: "
        "min_rate=0.9 needs at least 36 at 95% (50 cases: many::0, many::1, many::2 and 47 more)",
        f"{bench}:{mark_line + 1}: GateWarning: marked: the gate cannot pass with 10 runs: "
        "min_rate=0.95 needs at least 72 at 95% (2 cases: marked::a, marked::b)",
    ]
    rows = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["rows"]
    assert len(rows) == 52
    assert [row["gate"]["cannot_pass"] for row in rows[:50]] == [
        [{"rule": "min_rate=0.9", "runs": 10, "needs": 36, "cause": "--prob-min-rate=0.9"}]
    ] * 50
    assert [row["gate"]["cannot_pass"] for row in rows[50:]] == [
        [{"rule": "min_rate=0.95", "runs": 10, "needs": 72, "cause": None}]
    ] * 2
    enough = pytester.runpytest(*PLAIN, "--prob-min-rate=0.9", "--prob-runs=80", "-k", "many")
    assert _gate_warnings(enough.outlines) == []


def test_an_ini_gate_that_cannot_pass_is_one_warning_at_its_line(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_many=GATED_50)
    ini = pytester.makeini("[pytest]\nmarkers = slow\nprob_min_rate = 0.9\n")
    result = pytester.runpytest(*PLAIN, "--prob-runs=10", "-k", "not marked")
    assert _gate_warnings(result.outlines) == [
        f"{ini}:3: GateWarning: ini option prob_min_rate=0.9: the gate cannot pass with 10 "
        "runs: min_rate=0.9 needs at least 36 at 95% (50 cases: many::0, many::1, many::2 "
        "and 47 more)",
    ]
    body = section(result.outlines, "warnings summary")
    shown = [line.strip() for line in body]
    assert shown[shown.index(_gate_warnings(result.outlines)[0]) + 1] == "prob_min_rate = 0.9"
    # a filter that makes it an error stops the session at collection, naming the option
    error = pytester.runpytest(
        *PLAIN,
        "--prob-runs=10",
        "-W",
        "error::pytest_probability.extensions.gates.plugin.GateWarning",
    )
    assert error.ret == pytest.ExitCode.INTERRUPTED
    assert f"{ini}:3: GateWarning: ini option prob_min_rate=0.9: " in error.stdout.str()


MARKED_TESTS = """
import os
import re

import pytest


@pytest.mark.probability(runs=5)
@pytest.mark.parametrize("x", ["a", "b"])
def test_flaky(x):
    run = re.search(r"\\[run(\\d+)\\]", os.environ["PYTEST_CURRENT_TEST"])
    assert x == "a" or run is None or run.group(1) != "3"


def test_plain():
    pass


@pytest.mark.probability(runs=2)
def bench_marked_in_a_test_file():
    pass


class TestK:
    @pytest.mark.probability(runs=3)
    def test_method(self):
        pass
"""


def test_a_probability_mark_on_a_test_function_makes_it_a_bench(
    pytester: pytest.Pytester,
) -> None:
    """The first instinct works (issue 39 §2): a ``test_`` function (or a ``bench_`` one in
    a test file) with its own ``probability(...)`` mark runs its cases N times with a row
    each; a marked method stays a plain test with one warning saying why; ``-p
    no:probability`` turns them all back into plain tests."""
    pytester.makepyfile(test_marked=MARKED_TESTS)
    result = pytester.runpytest(*PLAIN, "-rN")
    assert section(result.outlines) == [
        "  test_flaky::a          5/5  [48%, 100%]",
        "  test_flaky::b          4/5  [28%,  99%]  FLAKY",
        "  marked_in_a_test_file  2/2  [16%, 100%]",
        "",
        "  Overall: 11/12 passed (92%)",
    ]
    result.assert_outcomes(passed=13, failed=1, warnings=1)
    assert (
        "test_marked.py::TestK::test_method: the probability mark is ignored on a method: a "
        "bench function is a module-level function (move it out of the class to run its cases "
        "N times)"
    ) in result.stdout.str()
    collected = pytester.runpytest(*PLAIN, "--collect-only", "-q").outlines
    assert "test_marked.py::test_flaky::b[run3]" in collected
    assert "test_marked.py::test_plain" in collected
    plain = pytester.runpytest(*PLAIN, "-p", "no:probability")
    plain.assert_outcomes(passed=4)  # test_flaky[a], test_flaky[b], test_plain, the method


def test_options_without_a_bench_run_say_what_they_apply_to(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_a():\n    pass\n\n\ndef bench_answer():\n    pass\n")
    result = pytester.runpytest(*PLAIN, "--prob-runs=10", "--prob-min-rate", "0.9")
    assert result.outlines[-2] == (
        "probability: no bench run in this session, so --prob-runs, --prob-min-rate did "
        "nothing: the options apply to bench_* functions in files matching bench_*.py (ini "
        "prob_pattern) and to test functions marked @pytest.mark.probability(...); found "
        "bench_answer in test_a.py, in a file collected as tests: move it to a bench file, "
        "or mark it"
    )
    quiet = pytester.runpytest(*PLAIN)  # (no --prob-* option: nothing to explain)
    assert not [line for line in quiet.outlines if line.startswith("probability:")]
    pytester.makepyfile(bench_b="def bench_b():\n    pass\n")
    ran = pytester.runpytest(*PLAIN, "--prob-runs=2")
    assert not [line for line in ran.outlines if "no bench run" in line]


def test_under_xdist_the_line_names_what_the_workers_found(pytester: pytest.Pytester) -> None:
    """pytest-xdist's workers collect, so each sends the ``bench_*`` functions of test files
    it found to the controller, which names each once, in collection order, as a plain
    session does."""
    pytest.importorskip("xdist")
    pytester.makepyfile(
        test_a="def test_a():\n    pass\n\n\ndef bench_answer():\n    pass\n",
        test_b="def bench_one():\n    pass\n\n\ndef bench_two():\n    pass\n",
        test_c="def test_c():\n    pass\n\n\ndef bench_three():\n    pass\n",
    )
    result = pytester.runpytest(*PLAIN, "-n", "2", "--prob-runs=10")
    assert result.outlines[-2] == (
        "probability: no bench run in this session, so --prob-runs did nothing: the options "
        "apply to bench_* functions in files matching bench_*.py (ini prob_pattern) and to "
        "test functions marked @pytest.mark.probability(...); found bench_answer in "
        "test_a.py, bench_one in test_b.py, bench_two in test_b.py and 1 more, in a file "
        "collected as tests: move it to a bench file, or mark it"
    )


def test_the_log_check_finds_packaging_and_hook_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last leg of tests/run-all.sh fails when any leg's log holds a warning from our
    packaging or a hook wrapper (issue 39 §6)."""
    spec = importlib.util.spec_from_file_location(
        "check_logs", Path(__file__).with_name("check_logs.py")
    )
    assert spec is not None and spec.loader is not None
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    (tmp_path / "suite.log").write_text("....\n3 passed in 0.1s\n", encoding="utf-8")
    assert check.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out == "1 logs read: none holds a forbidden warning\n"
    (tmp_path / "install.log").write_text(
        "ok\n  editable_wheel.py:354: BuildBackendWarning: Editable installation.\n",
        encoding="utf-8",
    )
    (tmp_path / "compat.log").write_text(
        "x\ny\n  PluggyTeardownRaisedWarning: A plugin raised an exception\n", encoding="utf-8"
    )
    assert check.main([str(tmp_path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "compat.log:3: PluggyTeardownRaisedWarning: A plugin raised an exception",
        "install.log:2: editable_wheel.py:354: BuildBackendWarning: Editable installation.",
        "2 forbidden warning(s) in the logs (BuildBackendWarning, PluggyTeardownRaisedWarning)",
    ]
