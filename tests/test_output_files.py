"""Reports written to what is not a plain file never hang a session, and no writer writes
another's file (issue 35 §1): a named pipe nobody reads is given up after a bounded wait and
the other reports are still written; the job summary is capped below GitHub's 1 MiB; a job
summary, a page or a report naming another writer's file, a source file or a link loop is
refused with the real cause."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from pytest_probability.extensions.markdown.plugin import (
    STEP_SUMMARY_BYTES,
    append_file,
    capped,
)

BENCH = "def bench_a():\n    pass\n"
#: the pipe wait of the writers, shortened for the in-process sessions below
SHORT_WAIT = "import pytest_probability.report.writing as w\nw.PIPE_WAIT_SECONDS = 0.2\n"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bench_a=BENCH)
    pytester.makeconftest(SHORT_WAIT)
    os.mkfifo(pytester.path / "pipe")
    return pytester


def test_a_pipe_nobody_reads_costs_only_its_own_report(suite: pytest.Pytester) -> None:
    result = suite.runpytest("-p", "no:randomly", "--prob-json=pipe", "--prob-html=r.html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # (a lost JSON report fails the session)
    assert (
        "ERROR: could not write the JSON report to pipe: no process read the named pipe "
        "within 0.2 s"
    ) in result.outlines
    assert "<html" in (suite.path / "r.html").read_text(encoding="utf-8")  # written anyway


def test_a_pipe_with_a_reader_gets_the_whole_report(suite: pytest.Pytester) -> None:
    received: list[bytes] = []

    def read() -> None:
        with open(suite.path / "pipe", "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    suite.runpytest("-p", "no:randomly", "--prob-runs=3", "--prob-json=pipe")
    reader.join(30)
    assert json.loads(received[0])["rows"][0]["total"] == 3


def test_a_job_summary_pipe_nobody_reads_is_a_warning(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "pipe"))
    result = suite.runpytest("-p", "no:randomly", "--prob-runs=2")
    assert result.ret == pytest.ExitCode.OK
    assert "  Overall: 2/2 passed (100%)" in result.outlines
    assert (
        "WARNING: could not append the Markdown summary to "
        f"{suite.path / 'pipe'}: no process read the named pipe within 0.2 s"
    ) in result.outlines


@pytest.mark.parametrize(
    ("named", "option", "clash"),
    [
        ("r.json", "--prob-json=r.json", "--prob-json=r.json writes the same file"),
        ("j.xml", "--junitxml=j.xml", "--junitxml=j.xml writes the same file"),
        ("bench_a.py", None, "'{path}' is a Python source file"),
    ],
    ids=["json-report", "junit", "source"],
)
def test_the_job_summary_never_appends_to_another_writers_file(
    suite: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    named: str,
    option: str | None,
    clash: str,
) -> None:
    path = suite.path / named
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    before = path.read_bytes() if path.exists() else None
    result = suite.runpytest("-p", "no:randomly", "--prob-runs=2", *([option] if option else []))
    reason = clash.format(path=path)
    suffix = "; give each its own path" if option else ""
    assert (
        f"WARNING: could not append the Markdown summary to {path}: {reason}{suffix}"
    ) in result.outlines
    if before is not None:
        assert path.read_bytes() == before
    if named == "r.json":
        assert json.loads(path.read_text(encoding="utf-8"))["rows"][0]["total"] == 2


def test_the_job_summary_is_cut_below_githubs_limit(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("an earlier step's text\n", encoding="utf-8")
    rows = "".join(f"| case-{n:06d}-{'x' * 380} | 0/10 | FAIL |\n" for n in range(3000))
    append_file(summary, "## probability\n\n" + rows)
    data = summary.read_bytes()
    assert len(data) <= STEP_SUMMARY_BYTES
    assert data.startswith(b"an earlier step's text\n\n## probability\n")
    assert data.endswith(
        b"\n_The summary is cut here: a job summary holds at most 1,000,000 bytes (GitHub "
        b"drops a larger one whole); --prob-json and --prob-markdown keep it all._\n"
    )
    kept = data.decode("utf-8").splitlines()[-3]
    assert kept.endswith("| 0/10 | FAIL |")  # cut between rows, never inside one


def test_a_summary_that_fits_is_appended_whole() -> None:
    assert capped("short\n", 100) == "short\n"
    assert capped("x" * 500, 10) == ""  # not even the note fits: nothing


def test_the_html_command_refuses_a_source_file_and_a_link_loop(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_a=BENCH)
    pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    pytester.makepyfile(page="x = 1\n")
    (pytester.path / "one").symlink_to(pytester.path / "two")
    (pytester.path / "two").symlink_to(pytester.path / "one")
    command = [sys.executable, "-m", "pytest_probability", "html", "r.json", "-o"]
    source = pytester.run(*command, "page.py", timeout=60)
    assert source.ret == 2
    assert source.errlines[-1] == (
        "python -m pytest_probability: error: cannot write page.py: 'page.py' is a Python "
        "source file"
    )
    assert (pytester.path / "page.py").read_text() == "x = 1"
    loop = pytester.run(*command, "one", timeout=60)
    assert loop.ret == 2
    assert loop.errlines[-1] == (
        "python -m pytest_probability: error: cannot write one: it is a symbolic link in a "
        "loop (too many levels of symbolic links)"
    )


def test_a_report_path_in_a_link_loop_says_so(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "one").symlink_to(pytester.path / "two")
    (pytester.path / "two").symlink_to(pytester.path / "one")
    result = pytester.runpytest("-p", "no:randomly", "--prob-json=one")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-json=one: cannot write the report: it is a symbolic link in a loop "
        "(too many levels of symbolic links)"
    )
