"""Extensions' hooks called through the one boundary (issue 35 §3, first part): an
installed extension whose hook raises, calls ``sys.exit`` or raises ``KeyboardInterrupt``
costs only its own answer — never an INTERNALERROR, a traceback or a lost report — and the
warning names it. ``SystemExit`` is the extension's failure; ``KeyboardInterrupt`` is the
user's interrupt, held in the report phase like a Ctrl-C (exit status 2, every report
written)."""

from __future__ import annotations

import json

import pytest
from helpers import install_extension

BENCH = """
import pytest
from pytest_probability import current_run, record_usage


@pytest.mark.parametrize("style", ["a", "b"])
@pytest.mark.parametrize("n", [1, 2, 3])
def bench_cmp(n, style):
    record_usage(model="m-small", input_tokens=10, output_tokens=5)
    assert (current_run().run + n + (style == "b")) % 3 != 0
"""
ERRORS = {
    "raise": ('RuntimeError("hook boom")', "RuntimeError: hook boom"),
    "exit": ("SystemExit(3)", "SystemExit: 3"),
    "interrupt": ("KeyboardInterrupt()", "KeyboardInterrupt"),
}
#: report-phase hooks and the options that make the session call them
#: (and the Overall line, as without the extension)
HOOKS = {
    "pytest_prob_build_report": ([], "16/24 passed (67%)"),
    "pytest_prob_case_cost": ([], "16/24 passed (67%)"),
    "pytest_prob_case_stopped": (
        ["--prob-stop=curtail", "--prob-min-rate=0.5"],
        "4/6 passed (67%)",
    ),
    "pytest_prob_row_status": ([], "16/24 passed (67%)"),
}


@pytest.mark.parametrize("mode", list(ERRORS))
@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_failing_report_hook_costs_only_its_answer(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hook: str, mode: str
) -> None:
    error, shown = ERRORS[mode]
    monkeypatch.setenv("PYTHONPATH", install_extension(pytester.path, hook, f"raise {error}"))
    pytester.makepyfile(bench_m=BENCH)
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=4", "--prob-compare=style",
        "--prob-json=r.json", "--prob-html=r.html", "--prob-markdown=r.md",
        *HOOKS[hook][0], timeout=120,
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    interrupted = mode == "interrupt"
    assert result.ret == (2 if interrupted else 1)  # (1: the flaky cases fail)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["exit_status"] == result.ret
    assert len(report["records"]) == 24
    expected = f"extension 'probability.hostile' failed in {hook}: {shown}"
    assert expected in report["warnings"]
    assert any(
        line.endswith(f"ProbabilityExtensionWarning: {expected}") for line in result.outlines
    )
    assert f"  Overall: {HOOKS[hook][1]}" in result.outlines  # the table, as without it
    assert (pytester.path / "r.html").stat().st_size > 0
    assert (pytester.path / "r.md").read_text(encoding="utf-8").startswith("## ")


def test_a_failure_key_hook_sees_a_copy_of_the_record(pytester: pytest.Pytester) -> None:
    """A key hook that empties the record it is given (it used to empty ``records[]`` in the
    JSON) changes nothing but its own grouping."""
    pytester.makeconftest(
        "def pytest_prob_failure_key(record, config):\n    record.clear()\n    return 'k'\n"
    )
    pytester.makepyfile(bench_m=BENCH)
    pytester.runpytest("-p", "no:randomly", "--prob-runs=4", "--prob-json=r.json")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert len(report["records"]) == 24
    assert all(record["outcome"] in ("pass", "fail") for record in report["records"])


# -- every hook, every way an implementation can misbehave ----------------------------------
#: how a hostile implementation misbehaves: the body of its hook
MISBEHAVIOURS = {
    "raise": 'raise RuntimeError("hook boom")',
    "exit": "raise SystemExit(3)",
    "interrupt": "raise KeyboardInterrupt",
    "junk": "return object()",
    "mutate": (  # every mutable argument emptied (the hook declares all of its arguments)
        "for value in list(locals().values()):\n"
        "        if isinstance(value, (dict, list, set)):\n"
        "            value.clear()"
    ),
}
#: hooks called while pytest configures the session: a failing one is a usage error
CONFIGURING = {"pytest_prob_addoption"} | {
    f"pytest_prob_register_{registry}"
    for registry in (
        "comparison_tests",
        "gates",
        "interval_methods",
        "latency_methods",
        "metrics",
        "p_adjustments",
        "stopping_rules",
    )
}
#: hooks a planning session (--prob-plan) calls
PLANNING = {"pytest_prob_plan_case", "pytest_prob_plan_comparisons", "pytest_prob_plan_costs"}


def every_hook() -> dict[str, list[str]]:
    """Every ``pytest_prob_*`` hook the plugin declares, with its arguments."""
    import importlib
    import inspect
    import pkgutil

    import pytest_probability.extensions as extensions

    modules = [importlib.import_module("pytest_probability.hookspecs")]
    for found in pkgutil.iter_modules(extensions.__path__):
        try:
            modules.append(importlib.import_module(f"{extensions.__name__}.{found.name}.hookspecs"))
        except ModuleNotFoundError:
            continue  # (an extension without hooks of its own)
    return {
        name: list(inspect.signature(function).parameters)
        for module in modules
        for name, function in vars(module).items()
        if name.startswith("pytest_prob_") and callable(function)
    }


HOOK_ARGUMENTS = every_hook()


#: the matrix's bench: usage recorded as an object (``normalize_usage`` reads it)
MATRIX_BENCH = """
import pytest
from pytest_probability import current_run, record_usage


@pytest.mark.parametrize("style", ["a", "b"])
@pytest.mark.parametrize("n", [1, 2, 3])
def bench_cmp(n, style):
    record_usage({"model": "m-small", "input_tokens": 10, "output_tokens": 5})
    assert (current_run().run + n + (style == "b")) % 3 != 0
"""
#: hooks this session cannot call: a judge backend (the texts helpers are not used)
UNCALLED = {"pytest_prob_register_llm_backends", "pytest_prob_record_usage"}
#: hooks called only when --prob-stop is on (it may end cases early)
STOPPING = {"pytest_prob_stop_readers", "pytest_prob_case_stopped", "pytest_prob_case_gates"}
#: hooks called only when a budget cuts runs
CUTTING = {"pytest_prob_case_verdict"}
#: hooks called only on the pytest-xdist controller (the session runs with -n 2)
XDIST = {"pytest_prob_deals_runs_apart"}
#: hooks whose answer is not used (a junk answer is nobody's failure)
UNANSWERED = CONFIGURING | {
    "pytest_prob_build_report",
    "pytest_prob_logrecord",
    "pytest_prob_run_finished",
    "pytest_prob_plan_case",
}
#: hooks called while pytest configures a planning session, or starts pytest-xdist's workers
#: (an interrupt: pytest's own)
PLAN_CONFIGURING = {"pytest_prob_plan_costs"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(MISBEHAVIOURS))
@pytest.mark.parametrize("hook", sorted(HOOK_ARGUMENTS))
def test_no_hook_can_cost_a_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hook: str, mode: str
) -> None:
    """An installed extension implements one hook (first in pluggy's order) and misbehaves:
    no INTERNALERROR and no traceback, ever; at configure time a failure is one usage error
    naming the extension; otherwise every report is written and carries the exit status
    the process returns (2 after an interrupt), and a failure names the extension."""
    arguments = ", ".join(HOOK_ARGUMENTS[hook]) if mode == "mutate" else ""
    marker = pytester.path / "called"
    body = f"open({str(marker)!r}, 'w').close()\n    {MISBEHAVIOURS[mode]}"
    monkeypatch.setenv("PYTHONPATH", install_extension(pytester.path, hook, body, arguments))
    pytester.makepyfile(bench_m=MATRIX_BENCH)
    planning = hook in PLANNING
    extra = ["--prob-plan"] if planning else []
    if hook in STOPPING:
        extra.append("--prob-stop=curtail")
    if hook in XDIST:
        extra += ["-n", "2", "--prob-concurrency=2"]
    budget = "--prob-budget-runs=" + ("12" if hook in CUTTING else "1000")
    if hook == "pytest_prob_plan_costs":
        pytester.runpytest_subprocess("-p", "no:randomly", "--prob-runs=2", "--prob-json=old.json")
        extra.append("--prob-plan-report=old.json")
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=4", "--prob-compare=style", "--prob-min-rate=0.5",
        "--prob-json=r.json", "--prob-html=r.html", "--prob-markdown=r.md",
        "--prob-history=hist", "--junitxml=j.xml", budget, "-o", "prob_min_inputs=2",
        *extra, timeout=120,
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    assert marker.exists() == (hook not in UNCALLED)  # (the test would prove nothing)
    if hook in CONFIGURING and mode in ("raise", "exit", "interrupt"):
        # (an interrupt while pytest configures: pytest's own exit status 2)
        assert result.ret == (2 if mode == "interrupt" and hook != "pytest_prob_addoption" else 4)
        if mode != "interrupt":
            assert "hostile" in output
        return
    if hook in PLAN_CONFIGURING | XDIST and mode == "interrupt":
        assert result.ret == 2
        return
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    if hook in ("pytest_prob_html_panels", "pytest_prob_markdown_sections"):
        # (an interrupt while the page or the summary is made comes after the JSON report
        # was written: the reports written after it say so)
        assert report["exit_status"] in (result.ret, 1)
    else:
        assert report["exit_status"] == result.ret
    if mode == "interrupt" and hook not in UNCALLED:
        assert result.ret == 2
        return
    failing = mode in ("raise", "exit") or (mode == "junk" and hook not in UNANSWERED)
    if failing and hook not in UNCALLED:
        assert "hostile" in output  # the failing extension is named
    if planning:
        assert result.ret == 0
        return
    assert result.ret == 1  # (the flaky cases fail)
    assert len(report["records"]) == 24  # (runs a budget or stopping skipped too)
    if hook not in STOPPING | CUTTING and mode != "mutate":
        # (a classifier that fails makes its runs errors, as documented)
        errors = hook == "pytest_prob_classify_outcome" and mode in ("raise", "exit", "junk")
        overall = "0/24 passed (0%)" if errors else "16/24 passed (67%)"
        assert f"  Overall: {overall}" in result.outlines
    assert (pytester.path / "r.html").stat().st_size > 0
    assert (pytester.path / "r.md").read_text(encoding="utf-8").startswith("## ")
