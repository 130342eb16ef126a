"""How a session ends (issue 21 §5): SIGTERM writes the report with an exit status, as Ctrl-C
does; a session without bench items leaves the garbage collector alone.

The signal tests run pytest in a subprocess (a SIGTERM to this process would end the test
run) and wait for a file the bench writes when it is ready to be interrupted: no wall-clock
bound is asserted, the polling loops are liveness bounds only.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import load_json, section

PLAIN = ("-p", "no:randomly", "-p", "no:asyncio", "-p", "no:cacheprovider")
#: run 3 says it is ready, then waits (until the test writes ``stop``, at most a minute)
WAITING_BENCH = """
import os
import time

import pytest
from pytest_probability import current_run


@pytest.mark.parametrize("item", range({cases}))
def bench_k(item):
    if item == 0 and current_run().run == 3:
        open("ready.tmp", "w").close()
        os.rename("ready.tmp", "ready")  # atomic: seen only once the bench is here
        for _ in range(600):
            if os.path.exists("stop"):
                break
            time.sleep(0.1)
"""


def _default_sigterm() -> None:
    # a child inherits an ignored SIGTERM; a user's pytest starts with the default action
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


def _terminate_when_ready(directory: Path, *args: str) -> tuple[int, list[str]]:
    """Run pytest in ``directory``, send it SIGTERM once ``ready`` exists, then let the
    waiting run go on (``stop``). Returns the exit status and the output lines."""
    with open(directory / "out.txt", "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", *PLAIN, *args],
            cwd=directory,
            env=_environment(),
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_default_sigterm,
        )
        try:
            for _ in range(3000):  # a liveness bound (60 s of polls), not a measurement
                if (directory / "ready").exists():
                    break
                assert process.poll() is None, "the session ended before run 3"
                time.sleep(0.02)
            else:
                pytest.fail("run 3 never started")
            os.kill(process.pid, signal.SIGTERM)
            (directory / "stop").touch()
            status = process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    return status, (directory / "out.txt").read_text().splitlines()


@pytest.mark.subprocess
def test_sigterm_mid_run_writes_both_reports(pytester: pytest.Pytester) -> None:
    """The default action ended the process at once: no JSON, no page, no summary."""
    pytester.makepyfile(bench_k=WAITING_BENCH.format(cases=1))
    status, output = _terminate_when_ready(
        pytester.path, "--prob-runs=5", "--prob-json=r.json", "--prob-html=r.html"
    )
    assert status == pytest.ExitCode.INTERRUPTED
    lines = section(output)
    assert lines[:3] == [
        "  k::0  2/2  [16%, 100%]  of 5 planned, session stopped early",
        "",
        "  Overall: 2/2 passed (100%)",
    ]
    assert any(re.fullmatch(r"!+ .*Terminated: SIGTERM !+", line) for line in output)
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    assert [(r["run"], r["outcome"]) for r in report["records"]] == [(1, "pass"), (2, "pass")]
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert (
        '<div class="label">Exit status</div><div class="value">2</div>'
        '<div class="note">interrupted</div>'
    ) in page
    assert [p.name for p in pytester.path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.subprocess
def test_sigterm_to_the_xdist_controller_writes_the_report(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_k=WAITING_BENCH.format(cases=4))
    status, output = _terminate_when_ready(
        pytester.path, "--prob-runs=5", "--prob-json=r.json", "-n", "2"
    )
    assert status == pytest.ExitCode.INTERRUPTED, output
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    assert report["totals"]["count"] < 20, output  # the runs the controller had when stopped


#: sends SIGTERM to its own process while the report is being made (before the kernel's
#: trylast pytest_sessionfinish writes the JSON), once or twice
SIGNAL_IN_REPORT = """
import os
import signal

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    for _ in range({times}):
        os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.mark.subprocess
def test_a_sigterm_while_reporting_is_held_until_the_report_is_written(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(SIGNAL_IN_REPORT.format(times=1))
    pytester.makepyfile(bench_k="def bench_k():\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN, "--prob-runs=3", "--prob-json=r.json"],
        cwd=pytester.path,
        env=_environment(),
        capture_output=True,
        text=True,
        preexec_fn=_default_sigterm,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout + done.stderr
    assert section(done.stdout.splitlines())[-1] == "  Overall: 3/3 passed (100%)"
    assert load_json(pytester.path / "r.json")["totals"]["count"] == 3


@pytest.mark.subprocess
def test_a_second_sigterm_ends_the_process_at_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SIGNAL_IN_REPORT.format(times=2))
    pytester.makepyfile(bench_k="def bench_k():\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN, "--prob-runs=3", "--prob-json=r.json"],
        cwd=pytester.path,
        env=_environment(),
        capture_output=True,
        text=True,
        preexec_fn=_default_sigterm,
        check=False,
    )
    assert done.returncode == -signal.SIGTERM
    assert not (pytester.path / "r.json").exists()


@pytest.mark.subprocess
def test_a_session_without_bench_items_keeps_the_default_action(
    pytester: pytest.Pytester,
) -> None:
    """Unrelated projects in the same environment end on SIGTERM exactly as before."""
    pytester.makepyfile(
        test_wait="""
import os
import time

def test_wait():
    open("ready.tmp", "w").close()
    os.rename("ready.tmp", "ready")
    for _ in range(600):
        if os.path.exists("stop"):
            break
        time.sleep(0.1)
"""
    )
    status, output = _terminate_when_ready(pytester.path)
    assert status == -signal.SIGTERM
    assert not any("Terminated" in line for line in output)


#: reports whether automatic garbage collection is on when the session finishes
GC_PROBE = """
import gc

def pytest_sessionfinish(session):
    print(f"GC ENABLED AT SESSIONFINISH: {gc.isenabled()}")
"""


def test_a_session_without_bench_items_leaves_the_collector_alone(
    pytester: pytest.Pytester,
) -> None:
    """The kernel paused automatic collection after the run loop of every session, so other
    plugins' session-finish code ran with it off."""
    pytester.makeconftest(GC_PROBE)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    plain = pytester.runpytest("-s", "-p", "no:randomly")
    assert "GC ENABLED AT SESSIONFINISH: True" in plain.stdout.str()
    pytester.makepyfile(bench_one="def bench_one():\n    pass\n")
    benched = pytester.runpytest("-s", "-p", "no:randomly")
    assert "GC ENABLED AT SESSIONFINISH: False" in benched.stdout.str()  # paused: a report
