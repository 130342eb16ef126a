"""Issue 35 §3, the rest of the hooks: every call into a third party's implementation goes
through the one boundary, and a failure names the extension that failed.

For each hook a real installed extension (a distribution with a
``pytest_probability.extensions`` entry point on ``PYTHONPATH``) raises; the session is
not broken, its report names ``probability.hostile`` and the table is as without it.
"""

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
    record_usage({"model": "m-small", "input_tokens": 1, "output_tokens": 1, "cost": 0.01})
    assert (current_run().run + n + (style == "b")) % 3 != 0
"""
STOP = ["--prob-stop=curtail", "--prob-min-rate=0.5"]
#: each hook, the options that make the session call it, and the Overall line (as without
#: the extension); ``None``: the warning is printed, but the JSON report was written before
ALL = "16/24 passed (67%)"
HOOKS = {
    "pytest_prob_failure_key": ([], ALL),
    "pytest_prob_case_gates": (STOP, "4/6 passed (67%)"),
    "pytest_prob_stop_readers": (STOP, ALL),  # (cannot say: every case runs every run)
    "pytest_prob_case_verdict": (["--prob-min-rate=0.5", "--prob-budget-runs=12"], None),
    "pytest_prob_explain_count": ([], ALL),
    "pytest_prob_explain": (["--prob-explain"], ALL),
    "pytest_prob_hide_interval": (["-o", "prob_min_inputs=2"], ALL),
    "pytest_prob_html_panels": ([], ALL),
    "pytest_prob_markdown_sections": ([], ALL),
    "pytest_prob_normalize_usage": ([], ALL),
    "pytest_prob_price_usage": ([], ALL),
    "pytest_prob_run_spend": (["--prob-budget=1000"], None),
}
#: written before the hook is called: the warning is in the terminal only
AFTER_JSON = {"pytest_prob_html_panels", "pytest_prob_markdown_sections"}


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_raising_implementation_is_named_and_costs_only_its_answer(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hook: str
) -> None:
    path = install_extension(pytester.path, hook, 'raise RuntimeError("hook boom")')
    monkeypatch.setenv("PYTHONPATH", path)
    pytester.makepyfile(bench_m=BENCH)
    options, overall = HOOKS[hook]
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=4", "--prob-compare=style",
        "--prob-json=r.json", "--prob-html=r.html", "--prob-markdown=r.md",
        *options, timeout=120,
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    assert result.ret == 1  # (the flaky cases fail)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["exit_status"] == 1
    expected = f"extension 'probability.hostile' failed in {hook}: RuntimeError: hook boom"
    if hook not in AFTER_JSON:
        assert expected in report["warnings"]
    assert any(  # (printed after pytest's summary when the hook is called after it)
        line.endswith(f"ProbabilityExtensionWarning: {expected}") for line in output.splitlines()
    )
    if overall is not None:
        assert f"  Overall: {overall}" in result.outlines  # the table, as without it
    html = (pytester.path / "r.html").read_text(encoding="utf-8")
    markdown = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert markdown.startswith("## ")
    if hook == "pytest_prob_html_panels":
        assert "extension &#x27;probability.hostile&#x27; (failed)" in html
    if hook == "pytest_prob_markdown_sections":
        assert (
            "### probability.hostile (failed)\n\n"
            "extension 'probability.hostile' failed: RuntimeError: hook boom"
        ) in markdown
    if hook == "pytest_prob_run_spend":  # the budget fails closed, naming the extension
        assert (
            "pytest_prob_run_spend (implemented by probability.hostile) raised RuntimeError: "
            "hook boom for run 1 of cmp::1-a: counted as all that was left of the budget of "
            "$1,000.00"
        ) in output
