"""Hostile extension hooks never end a session (issue 21 §2): a
``pytest_prob_classify_outcome`` that raises makes its runs errors naming the extension
(it was an INTERNALERROR at the first run: no later run, no report), and an extension's
exception whose ``str()`` raises is described without it wherever the kernel reports a
failed hook."""

from __future__ import annotations

import pytest
from helpers import section
from test_untrusted import strict_report

RAISING_CLASSIFIER = """
import pytest


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str either")


class Boom:
    @pytest.hookimpl(tryfirst=True)
    def pytest_prob_classify_outcome(self, item, call):
        if item.name.startswith("bench_odd"):
            raise {error}
        return None


def pytest_configure(config):
    config.pluginmanager.register(Boom(), "boom-classifier")
"""


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        ('RuntimeError("classifier boom")', "RuntimeError: classifier boom"),
        ("Unprintable()", "Unprintable: <Unprintable: str() raised RuntimeError>"),
    ],
    ids=["plain", "unprintable"],
)
def test_a_classifier_that_raises_is_an_error_naming_it(
    pytester: pytest.Pytester, error: str, shown: str
) -> None:
    """It used to be an INTERNALERROR at the first run: no later run, no report."""
    pytester.makeconftest(RAISING_CLASSIFIER.format(error=error))
    pytester.makepyfile(
        bench_b="""
        def bench_odd():
            pass

        def bench_odd_raising():
            assert False, "its own message"

        def bench_even():
            pass
        """
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json", "-p", "no:randomly")
    assert not any("INTERNALERROR" in line for line in result.outlines)
    expected = (
        f"extension 'boom-classifier' failed in pytest_prob_classify_outcome: {shown}: its "
        "runs are recorded as errors"
    )
    warned = [line for line in result.outlines if "ProbabilityExtensionWarning" in line]
    assert len(warned) == 1  # once, for four runs
    assert warned[0].endswith(f": ProbabilityExtensionWarning: {expected}")
    report = strict_report(pytester.path / "r.json")
    assert report["warnings"] == [expected]
    shape = [
        (r["case"], r["outcome"], r["error"], r["message"], r.get("warnings"))
        for r in report["records"]
    ]
    # a run that raised keeps its own message (as with an unknown outcome word)
    raised = "AssertionError: its own message\nassert False"
    assert shape == [
        *[("odd", "error", "ClassifierError", expected, [expected])] * 2,
        *[("odd_raising", "error", "AssertionError", raised, [expected])] * 2,
        *[("even", "pass", None, None, None)] * 2,
    ]
    assert section(result.outlines)[:5] == [
        "  odd          0/2  [ 0%,  84%]  ERROR",
        "  odd_raising  0/2  [ 0%,  84%]  ERROR",
        "  even         2/2  [16%, 100%]",
        "",
        "  Overall: 2/6 passed (33%)",
    ]
    assert f"  warning: {expected}" in result.outlines


UNPRINTABLE_EXTENSION = """
class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no str")


class Ext:
    def pytest_prob_run_finished(self, item, record):
        raise Unprintable()

    def pytest_prob_build_report(self, report, results, config):
        raise Unprintable()


def pytest_configure(config):
    config.pluginmanager.register(Ext(), "unprintable-ext")
"""


def test_an_extension_error_whose_str_raises_is_described(pytester: pytest.Pytester) -> None:
    """Describing the failure called ``str()`` on it: an INTERNALERROR at the first run."""
    pytester.makeconftest(UNPRINTABLE_EXTENSION)
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.OK
    assert not any("INTERNALERROR" in line for line in result.outlines)
    shown = "Unprintable: <Unprintable: str() raised RuntimeError>"
    report = strict_report(pytester.path / "r.json")
    assert report["warnings"] == [
        f"extension 'unprintable-ext' failed in pytest_prob_run_finished: {shown}",
        f"extension 'unprintable-ext' failed in pytest_prob_build_report: {shown}",
    ]
    assert [r["outcome"] for r in report["records"]] == ["pass", "pass"]
    assert f"  {shown}" in result.outlines  # the failed extension's section
