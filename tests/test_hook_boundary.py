"""Extensions' hooks called through the one boundary (issue 35 §3, first part): an
installed extension whose hook raises, calls ``sys.exit`` or raises ``KeyboardInterrupt``
costs only its own answer — never an INTERNALERROR, a traceback or a lost report — and the
warning names it. ``SystemExit`` is the extension's failure; ``KeyboardInterrupt`` is the
user's interrupt, held in the report phase like a Ctrl-C (exit status 2, every report
written)."""

from __future__ import annotations

import json
import os

import pytest

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


def install_extension(pytester: pytest.Pytester, hook: str, error: str) -> dict[str, str]:
    """A real installed extension (a distribution with a ``pytest_probability.extensions``
    entry point on ``PYTHONPATH``) whose ``hook`` raises ``error``; returns the environment
    that installs it."""
    (pytester.path / "hostile_ext.py").write_text(
        f"import pytest\n\n@pytest.hookimpl(tryfirst=True)\ndef {hook}():\n    raise {error}\n"
    )
    info = pytester.path / "hostile_ext-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-ext\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pytest_probability.extensions]\nhostile = hostile_ext\n"
    )
    return {**os.environ, "PYTHONPATH": str(pytester.path)}


@pytest.mark.parametrize("mode", list(ERRORS))
@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_failing_report_hook_costs_only_its_answer(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hook: str, mode: str
) -> None:
    error, shown = ERRORS[mode]
    env = install_extension(pytester, hook, error)
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
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
