"""Signals in the report phase (issue 35 §2): once the runs are over, Ctrl-C is held like
SIGTERM until every report is written, and the reports written after it say "interrupted"
with the exit status the process returns; a second signal ends the process at once."""

from __future__ import annotations

import json
import signal

import pytest
from helpers import section

BENCH = "def bench_a():\n    pass\n\ndef bench_b():\n    pass\n"
#: an extension whose report contribution sends the process ``{signals}`` (as a user's
#: Ctrl-C or a CI runner's SIGTERM would while the report is built)
SENDER = """
import os, signal

# as in a terminal, where Ctrl-C raises KeyboardInterrupt (a CI runner may start the
# process with SIGINT ignored, and an ignored signal stays ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)

def pytest_prob_build_report(report, results, config):
    for name in {signals}:
        os.kill(os.getpid(), getattr(signal, name))
    report.add_section("sender", ["  sent {signals}"])
"""
REPORTS = ("--prob-json=r.json", "--prob-html=r.html", "--prob-markdown=r.md")


def run(pytester: pytest.Pytester, *signals: str, workers: int = 0) -> pytest.RunResult:
    pytester.makepyfile(bench_a=BENCH)
    pytester.makeconftest(SENDER.format(signals=repr(signals)))
    xdist = ["-n", str(workers)] if workers else []
    # (a subprocess: the signal must not reach the test runner)
    return pytester.runpytest_subprocess(
        "-p", "no:randomly", "--prob-runs=3", *xdist, *REPORTS, timeout=120
    )


@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "xdist"])
@pytest.mark.parametrize("sent", ["SIGINT", "SIGTERM"])
def test_one_signal_while_reporting_is_held_and_every_report_says_interrupted(
    pytester: pytest.Pytester, sent: str, workers: int
) -> None:
    result = run(pytester, sent, workers=workers)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "  Overall: 6/6 passed (100%)" in result.outlines  # the terminal table
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert report["exit_status"] == 2
    assert len(report["records"]) == 6
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "interrupted" in page
    summary = (pytester.path / "r.md").read_text(encoding="utf-8")
    assert summary.startswith(
        "## pytest-probability\n\n"
        "- **Interrupted:** exit status 2; the numbers cover the runs made before it\n"
        "- **Overall:** 6/6 passed (100%)\n"
    )
    held = "SIGINT" if sent == "SIGINT" else "SIGTERM"
    assert section(result.outlines, "probability: interrupted") == [
        f"  {held} held until every report was written: exit status 2"
    ]


#: a plugin that sends SIGTERM as the run loop ends: before pytest sets the exit status
#: from the loop's outcome
LATE_SENDER = """
import os, signal
import pytest

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    try:
        return (yield)
    finally:
        os.kill(os.getpid(), signal.SIGTERM)
"""


def test_a_signal_as_the_run_loop_ends_still_reaches_every_reports_exit_status(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    assert False\n")
    pytester.makeconftest(LATE_SENDER)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--prob-runs=3", *REPORTS)
    assert result.ret == pytest.ExitCode.INTERRUPTED  # (not 1, for the failing runs)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert (report["exit_status"], len(report["records"])) == (2, 3)
    assert "- **Interrupted:** exit status 2" in (pytester.path / "r.md").read_text("utf-8")


TWICE_BENCH = """
import os, signal

import pytest
from pytest_probability import current_run

signal.signal(signal.SIGINT, signal.default_int_handler)  # (as in a terminal)


@pytest.mark.parametrize("n", range(20))
def bench_t(n):
    if n == 5 and current_run().run == 4:  # the first Ctrl-C, mid-run
        os.kill(os.getpid(), signal.SIGINT)
"""


def test_two_ctrl_c_mid_run_leave_reports_that_say_interrupted(pytester: pytest.Pytester) -> None:
    """The second Ctrl-C arrives while the reports are made (sent by the report's builder):
    it is held, and every report carries the status the process returns (the JSON, HTML and
    Markdown said ``exit_status: 0``)."""
    pytester.makepyfile(bench_t=TWICE_BENCH)
    pytester.makeconftest(SENDER.format(signals=repr(("SIGINT",))))
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--prob-runs=10", *REPORTS)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert (report["exit_status"], len(report["records"])) == (2, 53)  # 5 cases and 3 runs
    assert "interrupted" in (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "- **Interrupted:** exit status 2" in (pytester.path / "r.md").read_text("utf-8")
    held = "  SIGINT held until every report was written: exit status 2"
    assert section(result.outlines, "probability: interrupted")[0] == held  # (the second one)


def test_a_second_signal_while_reporting_ends_the_process_at_once(
    pytester: pytest.Pytester,
) -> None:
    result = run(pytester, "SIGINT", "SIGINT")
    assert result.ret == -signal.SIGINT  # the default action: no traceback, no more output
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "r.json").exists()
