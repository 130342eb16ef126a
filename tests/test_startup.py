"""What installing the plugin costs a session that does not use it (issue 22, section 1).

Speed itself is measured in benchmarks/startup.py; these tests check the properties that
make it cheap, by counting modules and reading pytest's own import hook, never by timing:
the plugin's modules stay out of assertion rewriting, and a session with no bench files
imports none of the machinery of features it does not use.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook
from pytest_probability import rewriting

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_MODULES = sorted(
    path for folder in ("core", "extensions") for path in (ROOT / folder).rglob("*.py")
)

#: Machinery a session that does not use its feature must not import: the HTML page and
#: Markdown summary writers, the planner, the judge's HTTP client, the bootstrap, and the
#: comparisons' engines (fixed-run and sequential).
HEAVY = (
    "pytest_probability.extensions.html.markup",
    "pytest_probability.extensions.html.svg",
    "pytest_probability.extensions.html.render",
    "pytest_probability.extensions.markdown.markup",
    "pytest_probability.extensions.markdown.render",
    "pytest_probability.extensions.plan.session",
    "pytest_probability.extensions.plan.power",
    "pytest_probability.extensions.texts.client",
    "pytest_probability.extensions.texts.transport",
    "pytest_probability.extensions.texts.evaluate",
    "pytest_probability.extensions.intervals.sampling",
    "pytest_probability.stats.resampling",
    "pytest_probability.extensions.comparisons.statistics.engine",
    "pytest_probability.extensions.comparisons.statistics.paired",
    "pytest_probability.extensions.comparisons.statistics.signflip",
    "pytest_probability.extensions.comparisons.sequential.outcome",
    "pytest_probability.extensions.comparisons.sequential.runtime",
    "pytest_probability.extensions.comparisons.sequential.track",
    "pytest_probability.extensions.comparisons.statistics.bernstein",
    "pytest_probability.extensions.comparisons.statistics.mixture",
    "pytest_probability.extensions.comparisons.baseline.regression",
)

COMPARISONS = "pytest_probability.extensions.comparisons"

#: Everything of ours an unrelated session imports (at most 8 modules): the package and its
#: rewriting guard, the entry point, the kernel with its hookspecs, option registry and
#: parsers, and the loader (which reads the bundled extensions' catalog, no extension).
AT_START = sorted(
    f"pytest_probability{name}"
    for name in (
        "",
        ".rewriting",
        ".plugin",
        ".kernel",
        ".hookspecs",
        ".options",
        ".parsers",
        ".loader",
    )
)

#: The kernel's machinery and the core modules only it and the extensions' hooks use: loaded
#: when the first bench file is collected, the first bench run reports or a report is built.
KERNEL_ON_FIRST_USE = tuple(
    f"pytest_probability.{name}"
    for name in (
        "execution.bus",
        "collection.cases",
        "collection.collector",
        "execution.context",
        "report.json_report",
        "collection.ordering",
        "report.output_claims",
        "execution.records",
        "report.builder",
        "report.results",
        "execution.run_record",
        "report.safe_calls",
        "execution.steps",
        "execution.user_values",
        "collection.verdict_items",
        "report.writing",
    )
)

IMPORTED = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
print(json.dumps({
    "code": int(code),
    "modules": sorted(m for m in sys.modules if m.startswith("pytest_probability")),
    "rewritten": sorted(
        m for m, module in list(sys.modules.items())
        if m.startswith("pytest_probability.")
        and type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"
    ),
}))
"""


def _plugin_only(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGUMENTS`` in ``cwd`` with plugin autoloading off, so that only pytest and
    the plugins named with ``-p`` load (third-party extensions, such as the contrib
    examples, are not ours to count)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [sys.executable, *arguments], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _unrelated_session(tmp_path: Path) -> dict[str, object]:
    """A one-test suite with no bench files, run in a child with only this plugin loaded
    (third-party extensions, such as the contrib examples, are not ours to count)."""
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    done = _plugin_only(
        ["-c", IMPORTED, "-q", "-p", "pytest_probability.plugin", "-p", "no:cacheprovider"],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("path", PLUGIN_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_plugin_module_opts_out_of_assertion_rewriting(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring is not None and "PYTEST_DONT_REWRITE" in docstring


def test_the_package_is_taken_off_pytests_rewrite_list(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = AssertionRewritingHook(pytestconfig)
    hook.mark_rewrite("pytest_probability", "some_other_plugin")
    assert hook._is_marked_for_rewrite("pytest_probability.kernel", _state(pytestconfig))
    monkeypatch.setattr(sys, "meta_path", [hook, *sys.meta_path])
    assert rewriting.keep_plugin_out_of_rewriting() == 1
    assert not hook._is_marked_for_rewrite("pytest_probability.kernel", _state(pytestconfig))
    assert not hook._is_marked_for_rewrite("pytest_probability", _state(pytestconfig))
    assert hook._is_marked_for_rewrite("some_other_plugin.module", _state(pytestconfig))
    assert rewriting.keep_plugin_out_of_rewriting() == 0  # nothing left to take off


def test_without_pytests_hook_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sys, "meta_path", [f for f in sys.meta_path if not isinstance(f, AssertionRewritingHook)]
    )
    assert rewriting.keep_plugin_out_of_rewriting() == 0


def _state(config: pytest.Config) -> object:
    from _pytest.assertion import AssertionState
    from _pytest.assertion.rewrite import assertstate_key

    return config.stash.get(assertstate_key, None) or AssertionState(config, "rewrite")


@pytest.mark.subprocess
def test_an_unrelated_session_imports_no_heavy_machinery(tmp_path: Path) -> None:
    found = _unrelated_session(tmp_path)
    assert found["code"] == 0
    modules = set(found["modules"])  # type: ignore[arg-type]
    assert "pytest_probability.kernel" in modules  # the plugin did load
    assert sorted(modules.intersection(HEAVY)) == []


@pytest.mark.subprocess
def test_an_unrelated_session_imports_at_most_eight_modules_and_no_extension(
    tmp_path: Path,
) -> None:
    """Extensions register when the session needs them: a session with no bench file and no
    ``--prob-*`` setting imports the kernel's start-up modules only (it imported about 65,
    every bundled extension's hookspecs and plugin)."""
    found = _unrelated_session(tmp_path)
    assert found["code"] == 0
    modules = found["modules"]
    assert modules == AT_START
    assert len(modules) <= 8  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("conftest", "error"),
    [
        (
            "def pytest_prob_register_comparison_tests(register, config):\n"
            "    register('paired', lambda pairs, settings: None)\n",
            "registering a comparison test failed: comparison test 'paired' is registered twice",
        ),
        (
            "def pytest_prob_register_comparison_tests(register, config):\n"
            "    raise ValueError('no licence for the bayes test')\n",
            "registering a comparison test failed: no licence for the bayes test",
        ),
        (
            "def pytest_prob_register_p_adjustments(register, config):\n"
            "    register('Sidak', list)\n",
            "registering a p adjustment failed: p adjustment name 'Sidak' must be lowercase "
            "letters, digits, '-' or '_'",
        ),
    ],
    ids=["twice", "raises", "bad-name"],
)
def test_a_broken_comparison_registration_stops_even_an_unrelated_session(
    pytester: pytest.Pytester, conftest: str, error: str
) -> None:
    """A conftest implementing a comparisons hook extends that extension: it registers (in a
    session that would not have registered it otherwise) and fills its registries at
    ``pytest_configure``, so a broken registration is a usage error before anything is
    collected, bench files or not."""
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_a="def test_a():\n    assert True\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {error}"])
    result.stdout.no_fnmatch_line("*collected*")


LATE_CONFTEST = """
def pytest_prob_register_comparison_tests(register, config):
    register({name!r}, lambda pairs, settings: None)
"""


def test_a_later_conftest_registers_as_if_the_registries_were_filled_at_start_up(
    pytester: pytest.Pytester,
) -> None:
    """A ``conftest.py`` in a subdirectory is registered at collection: the comparisons
    extension registers then if it was not (the conftest implements one of its hooks), its
    entries come after the bundled ones, and its errors are collection errors (naming the
    registry) even when nothing is compared."""
    compared = pytester.mkdir("compared")
    (compared / "conftest.py").write_text(LATE_CONFTEST.format(name="rough"))
    (compared / "bench_x.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.probability(compare='arm', compare_test='typo')\n"
        "@pytest.mark.parametrize('arm', ['a', 'b'])\n"
        "def bench_x(arm):\n    pass\n"
    )
    broken = pytester.mkdir("broken")
    (broken / "conftest.py").write_text(LATE_CONFTEST.format(name="paired"))
    (broken / "test_a.py").write_text("def test_a():\n    assert True\n")

    # (not given as arguments: pytest would load their conftest files before configuring)
    result = pytester.runpytest("--ignore=broken", "--prob-runs=1")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*compare_test='typo': unknown comparison test 'typo'; registered: paired, rough"]
    )
    result = pytester.runpytest("--ignore=compared")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*UsageError: registering a comparison test failed: comparison test 'paired' is "
            "registered twice",
            "ERROR *- *UsageError: registering a comparison*",  # (pytest 7: the module path)
        ]
    )


@pytest.mark.parametrize("name", (*HEAVY, *KERNEL_ON_FIRST_USE, *AT_START))
def test_every_module_loaded_on_first_use_exists(name: str) -> None:
    """The lists are not vacuous: a misspelt or removed module would always be missing."""
    assert importlib.util.find_spec(name) is not None


@pytest.mark.subprocess
def test_only_the_package_and_its_first_modules_are_rewritten(tmp_path: Path) -> None:
    """Modules imported before the package takes itself off the list (the package's own
    first imports) are rewritten; every later one loads through Python's own import."""
    found = _unrelated_session(tmp_path)
    assert set(found["rewritten"]) <= {"pytest_probability.rewriting"}  # type: ignore[arg-type]


def test_a_plain_import_of_the_plugin_loads_no_heavy_machinery() -> None:
    code = (
        "import sys, json; import pytest_probability.plugin; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pytest_probability'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(json.loads(done.stdout))
    assert "pytest_probability.plugin" in modules
    assert sorted(modules.intersection(HEAVY)) == []


@pytest.mark.subprocess
def test_an_unrelated_session_imports_none_of_the_kernels_machinery(tmp_path: Path) -> None:
    """Every extension reaches the kernel's machinery from inside its hooks, and those hooks
    return before importing it when no bench run reported (``Kernel.recorded``)."""
    found = _unrelated_session(tmp_path)
    modules = set(found["modules"])  # type: ignore[arg-type]
    assert "pytest_probability.kernel" in modules
    assert sorted(modules.intersection(KERNEL_ON_FIRST_USE)) == []


INLINE_TWICE = '''
pytest_plugins = ["pytester"]

BENCH = """
from pytest_probability import current_run, record_latency, record_usage

def bench_twice():
    run = current_run()
    record_latency(0.25)
    record_usage(model="m", input_tokens=1, output_tokens=2)
    assert run.run >= 1
"""

STEPS = """
from pytest_probability import Step

def bench_steps():
    yield Step(label="first", passed=True)
    yield Step(label="second", passed=True)
"""

def test_twice(pytester):
    pytester.makepyfile(bench_twice=BENCH)
    for _ in range(2):  # the first run imports the machinery, pytester then drops it
        result = pytester.runpytest(
            "-p", "pytest_probability.plugin", "--prob-runs=2", "--prob-latency"
        )
        result.assert_outcomes(passed=2)
        result.stdout.fnmatch_lines(
            ["  twice  2/2  *", "  Tokens:  m  2 in / 4 out", "  twice  2 runs  p95  250ms  *"]
        )

def test_twice_with_the_packages_kept(pytester):
    """An installed extension imports the kernel's packages before any run (the public API
    resolves names in them), so they outlive the runs while their modules are dropped: a
    package keeps the first copy of a submodule as an attribute, and ``from package import
    module`` would hand that copy to the second run (its stash keys no longer match)."""
    import json
    import pytest_probability.execution
    import pytest_probability.report
    import pytest_probability.collection

    pytester.makepyfile(bench_steps=STEPS)
    for _ in range(2):
        result = pytester.runpytest("-p", "pytest_probability.plugin", "--prob-json=r.json")
        result.assert_outcomes(passed=1)
        (record,) = json.loads((pytester.path / "r.json").read_text())["records"]
        assert [step["label"] for step in record["steps"]] == ["first", "second"]
'''


@pytest.mark.subprocess
def test_machinery_loaded_inside_an_inline_run_works_in_the_next_one(tmp_path: Path) -> None:
    """pytester's in-process runs remove from ``sys.modules`` every module first imported
    during the run; since the machinery loads on first use, the second run imports it
    again. Nothing may keep the first copy (the run context's ``ContextVar``, stash keys):
    ``current_run()``, ``record_latency`` and ``record_usage`` work in both runs. (The
    contrib suites caught this; this suite's own process imports the machinery early.)"""
    (tmp_path / "test_inline.py").write_text(INLINE_TWICE)
    done = _plugin_only(["-m", "pytest", "-q", "-p", "pytest_probability.plugin"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


LOOP_MODULES = """
import json, sys
import pytest

class LoopEnd:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session):
        try:
            return (yield)
        finally:
            with open("loop_modules.json", "w") as out:
                json.dump(sorted(m for m in sys.modules if m.startswith("pytest_probability")), out)

code = pytest.main(sys.argv[1:], plugins=[LoopEnd()])
with open("end_modules.json", "w") as out:
    json.dump(sorted(m for m in sys.modules if m.startswith("pytest_probability")), out)
sys.exit(int(code))
"""


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("mark", "flags", "loaded"),
    [
        ("", (), False),
        ("@pytest.mark.probability(compare='q')\n", (), True),
        ("", ("--prob-compare=q",), True),
    ],
    ids=["nothing-compared", "compare-mark", "session-axis"],
)
def test_a_bench_session_that_compares_nothing_reports_no_comparison(
    tmp_path: Path, mark: str, flags: tuple[str, ...], loaded: bool
) -> None:
    """The comparisons extension registers for a bench session and imports its modules
    with its plugin (issue 34 made their imports eager); bench functions that no
    ``compare=`` mark, session-wide axis or baseline report can compare get no comparison
    in the report, and a function that may be compared gets one."""
    (tmp_path / "bench_a.py").write_text(
        "import pytest\n\n"
        f"{mark}@pytest.mark.parametrize('q', ['x', 'y'])\n"
        "def bench_a(q):\n    assert q\n"
    )
    args = ["-q", "-p", "pytest_probability.plugin", "-p", "no:cacheprovider", "--prob-runs=2"]
    done = _plugin_only(["-c", LOOP_MODULES, *args, *flags], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    modules = set(json.loads((tmp_path / "loop_modules.json").read_text()))
    assert (
        "pytest_probability.collection.collector" in modules
    )  # (the bench file was collected and run)
    assert f"{COMPARISONS}.session" in modules
    assert ("probability: comparisons" in done.stdout) is loaded, done.stdout
