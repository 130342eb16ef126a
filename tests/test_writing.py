"""The writer of every file the plugin writes (core/writing.py): checks at configure time,
missing parent directories created as --junitxml does, atomic replacement, devices and pipes
written in place; and each of the five options that write a file going through it."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json
from pytest_probability.report import writing

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider")


# -- write_atomic ----------------------------------------------------------------------------
def test_write_is_atomic_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    writing.write_atomic(target, '{"new": true}\n')
    assert json.loads(target.read_text()) == {"new": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_pieces_are_written_in_order(tmp_path: Path) -> None:
    writing.write_atomic(tmp_path / "r.txt", iter(["a", "b", "ç\n"]))
    assert (tmp_path / "r.txt").read_text(encoding="utf-8") == "abç\n"


def test_failed_write_keeps_the_old_file_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        writing.write_atomic(target, "{}")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_missing_parent_directories_are_created(tmp_path: Path) -> None:
    target = tmp_path / "out" / "deeper" / "r.json"
    previous = os.umask(0o027)
    try:
        writing.write_atomic(target, "{}")
    finally:
        os.umask(previous)
    assert target.read_text() == "{}"
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o750  # as the umask allows
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path / "out" / "deeper") == ["r.json"]


def test_relative_path_in_a_missing_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    writing.write_atomic("a/b.txt", "x")
    writing.write_atomic("top.txt", "y")  # (its parent is "", the working directory)
    assert (tmp_path / "a" / "b.txt").read_text() == "x"
    assert (tmp_path / "top.txt").read_text() == "y"


def test_an_ancestor_that_is_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("a file")
    with pytest.raises(NotADirectoryError) as info:
        writing.write_atomic(tmp_path / "afile" / "sub" / "r.json", "{}")
    assert info.value.strerror == f"{str(tmp_path / 'afile')!r} is not a directory"
    assert sorted(os.listdir(tmp_path)) == ["afile"]


def test_a_directory_is_never_replaced(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as info:
        writing.write_atomic(tmp_path, "{}")
    assert info.value.strerror == "it is a directory"
    assert os.listdir(tmp_path) == []


def test_an_existing_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "existing.json"
    existing.write_text("old")
    existing.chmod(0o600)
    writing.write_atomic(existing, "new")
    assert stat.S_IMODE(existing.stat().st_mode) == 0o600
    previous = os.umask(0o022)
    try:
        writing.write_atomic(tmp_path / "new.json", "new")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644


def test_a_symlink_is_followed_and_stays(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.json"
    target.write_text("old")
    link = tmp_path / "r.json"
    link.symlink_to(target)
    writing.write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    dangling = tmp_path / "d.json"
    dangling.symlink_to(tmp_path / "real" / "later" / "d.json")
    writing.write_atomic(dangling, "made")  # the target and its directory are created
    assert dangling.is_symlink() and dangling.read_text() == "made"
    assert sorted(os.listdir(tmp_path)) == ["d.json", "r.json", "real"]


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        writing.write_atomic(fifo, "through the pipe\n")
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and os.listdir(tmp_path) == ["pipe"]


def test_a_fifo_waits_for_its_reader_and_is_not_replaced(tmp_path: Path) -> None:
    """A blocking FIFO is opened for writing (never renamed over) once a reader comes."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    thread.start()
    writing.write_atomic(fifo, "late reader\n")
    thread.join(timeout=30)
    assert got == [b"late reader\n"] and stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_dev_null_is_written_in_place() -> None:
    assert writing.is_stream("/dev/null") and writing.problem("/dev/null") is None
    writing.write_atomic("/dev/null", "discarded")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# -- problem and resolve: what is checked at configure time --------------------------------
def test_missing_directories_are_not_a_problem(tmp_path: Path) -> None:
    assert writing.problem(tmp_path / "out" / "deeper" / "r.json") is None
    assert writing.problem(tmp_path / "r.json") is None
    assert not (tmp_path / "out").exists()  # checking creates nothing


def test_problems_found_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("a file")
    assert writing.problem(tmp_path) == "it is a directory"
    assert writing.problem(tmp_path / "afile" / "r.json") == (
        f"{str(tmp_path / 'afile')!r} is not a directory"
    )
    assert writing.problem(tmp_path / "afile" / "sub" / "r.json") == (
        f"{str(tmp_path / 'afile')!r} is not a directory"
    )


@pytest.mark.skipif(ROOT, reason="root writes anywhere")
def test_unwritable_places_are_problems(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    readonly = tmp_path / "readonly.json"
    readonly.write_text("{}")
    readonly.chmod(0o444)
    locked.chmod(0o555)
    try:
        assert writing.problem(locked / "r.json") == f"directory {str(locked)!r} is not writable"
        assert writing.problem(locked / "new" / "r.json") == (
            f"directory {str(locked)!r} is not writable"  # where "new" would be created
        )
        assert writing.problem(readonly) == "the file is not writable"
    finally:
        locked.chmod(0o755)


def test_resolve_makes_the_path_absolute_and_keeps_it_as_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    target = writing.resolve("--prob-json", "out/r.json")
    assert target == writing.Target("out/r.json", tmp_path / "out" / "r.json")
    (tmp_path / "afile").write_text("")
    with pytest.raises(writing.UnwritablePath) as info:
        writing.resolve("--prob-plan-write", "afile/p.toml", "the plan")
    assert str(info.value) == (
        "--prob-plan-write=afile/p.toml: cannot write the plan: 'afile' is not a directory"
    )
    assert (info.value.option, info.value.value) == ("--prob-plan-write", "afile/p.toml")


def test_module_never_imports_pytest() -> None:
    code = (
        "import sys\n"
        "import pytest_probability.report.writing\n"
        "loaded = [m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert writing.__doc__ and "never imports pytest" in writing.__doc__


# -- every option that writes a file -----------------------------------------------------------
BENCH = """
from pathlib import Path
from typing import Any

def bench_a():
    Path("ran").touch()
"""

#: option, what its messages call the file, extra arguments, how to read what was written
WRITERS = {
    "json": ("--prob-json", "the report", (), lambda p: load_json(p)["totals"]["passes"] == 2),
    "html": ("--prob-html", "the report", (), lambda p: "<html" in p.read_text("utf-8")),
    "markdown": ("--prob-markdown", "the summary", (), lambda p: "2/2" in p.read_text("utf-8")),
    "plan": (
        "--prob-plan-write",
        "the plan",
        ("--prob-plan",),
        lambda p: tomllib.loads(p.read_text("utf-8"))["cases"],
    ),
    "baseline": (
        "--prob-save-baseline",
        "the baseline",
        (),
        lambda p: tomllib.loads(p.read_text("utf-8"))["cases"],
    ),
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_creates_a_missing_directory(pytester: pytest.Pytester, writer: str) -> None:
    option, _, extra, check = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=out/deeper/file.x")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    written = pytester.path / "out" / "deeper" / "file.x"
    assert check(written)
    assert os.listdir(written.parent) == ["file.x"]  # no temporary file left


@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_refuses_an_impossible_path_before_running(
    pytester: pytest.Pytester, writer: str
) -> None:
    option, what, extra, _ = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "afile").write_text("a file, not a directory")
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=afile/sub/file.x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: {option}=afile/sub/file.x: cannot write {what}: 'afile' is not a directory"
    )
    assert not (pytester.path / "ran").exists()  # refused before anything ran
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=.")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == f"ERROR: {option}=.: cannot write {what}: it is a directory"
    assert not (pytester.path / "ran").exists()


def test_the_html_tool_creates_a_missing_directory(tmp_path: Path) -> None:
    from pytest_probability.__main__ import main

    report = {"schema_version": 1, "runs": 1, "exit_status": 0, "rows": [], "records": []}
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(["html", str(tmp_path / "r.json"), "-o", str(tmp_path / "out" / "r.html")]) == 0
    assert "<html" in (tmp_path / "out" / "r.html").read_text(encoding="utf-8")


# -- issue 21 §1: targets written in place, never replaced ------------------------------------
def _inode(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def test_a_symlinked_file_is_written_through_in_place(tmp_path: Path) -> None:
    """A symbolic link's file keeps its inode and its mode (the rule: write through)."""
    target = tmp_path / "real.json"
    target.write_text("old, longer than what replaces it")
    target.chmod(0o600)
    before = _inode(target)
    link = tmp_path / "r.json"
    link.symlink_to(target)
    writing.write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new" and _inode(target) == before
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "real.json"]


def test_a_file_with_other_hard_links_is_written_in_place(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    other = tmp_path / "other-name.json"
    os.link(target, other)
    writing.write_atomic(target, "new")
    assert other.read_text() == "new" and _inode(other) == _inode(target)


def test_an_in_place_write_that_fails_while_making_the_text_leaves_the_file(
    tmp_path: Path,
) -> None:
    """The text is made in full before the file is opened: a failing piece changes nothing."""
    target = tmp_path / "real.json"
    target.write_text("old")
    (tmp_path / "r.json").symlink_to(target)

    def pieces() -> Any:
        yield "half"
        raise RuntimeError("the document failed")

    with pytest.raises(RuntimeError):
        writing.write_atomic(tmp_path / "r.json", pieces())
    assert target.read_text() == "old"


def test_an_existing_file_keeps_its_owner(tmp_path: Path) -> None:
    if not ROOT:
        pytest.skip("only root can give a file to another user")
    target = tmp_path / "r.json"
    target.write_text("old")
    os.chown(target, 1234, 5678)
    writing.write_atomic(target, "new")
    assert (target.stat().st_uid, target.stat().st_gid) == (1234, 5678)


def test_descriptor_paths_are_recognised(tmp_path: Path) -> None:
    (tmp_path / "out1").symlink_to("/proc/self/fd/1")
    (tmp_path / "chain").symlink_to(tmp_path / "out1")
    assert writing.descriptor_of("/proc/self/fd/2") == 2
    assert writing.descriptor_of(f"/proc/{os.getpid()}/fd/7") == 7
    assert writing.descriptor_of("/proc/1/fd/1") is (None if os.getpid() != 1 else 1)
    assert writing.descriptor_of(tmp_path / "chain") == 1
    if os.path.islink("/dev/stdout"):  # (Linux: a link to /proc/self/fd/1)
        assert writing.descriptor_of("/dev/stdout") == 1
        assert writing.descriptor_of("/dev/fd/3") == 3
    assert writing.descriptor_of(tmp_path / "r.json") is None


def test_a_descriptor_is_written_at_its_position(tmp_path: Path) -> None:
    """Written through a duplicate of the descriptor: after what was written before, and
    the file is the same file."""
    out = tmp_path / "out.txt"
    with open(out, "w") as handle:
        handle.write("before\n")
        handle.flush()
        writing.write_atomic(f"/proc/self/fd/{handle.fileno()}", "report\n")
        handle.write("after\n")
    assert out.read_text() == "before\nreport\nafter\n"


@pytest.mark.skipif(not ROOT, reason="making a device node needs root")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_keeps_a_character_device(pytester: pytest.Pytester, writer: str) -> None:
    """``--prob-plan-write=fakedev/null`` replaced the node with a regular 0600 file (root
    in a container would lose ``/dev/null``); every writer writes into it instead."""
    option, _, extra, _ = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "fakedev").mkdir()
    node = pytester.path / "fakedev" / "null"
    os.mknod(node, stat.S_IFCHR | 0o644, os.makedev(1, 3))
    before = os.stat(node)
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=fakedev/null")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert not any("could not" in line or "cannot" in line for line in result.outlines)
    after = os.stat(node)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert (after.st_ino, stat.S_IMODE(after.st_mode)) == (before.st_ino, 0o644)
    assert os.listdir(node.parent) == ["null"]


@pytest.mark.subprocess
@pytest.mark.parametrize(
    "args",
    [
        ("--prob-plan", "--prob-plan-write=out1"),
        ("--prob-plan", "--prob-plan-write=/dev/stdout"),
        ("--prob-json=out1",),
        ("--prob-json=/dev/stdout",),
    ],
    ids=["plan-link", "plan-stdout", "json-link", "json-stdout"],
)
def test_stdout_redirected_to_a_file_keeps_the_file(
    pytester: pytest.Pytester, args: tuple[str, ...]
) -> None:
    """A path through ``/proc/self/fd/1`` (a link to it, ``/dev/stdout``) with stdout
    redirected to a file: the report lands in that file among pytest's own lines, and the
    file is the same file (it used to be replaced by one holding only the report)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc/self/fd")
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "out1").symlink_to("/proc/self/fd/1")
    log = pytester.path / "stdout.txt"
    log.write_text("")
    before = _inode(log)
    with open(log, "w") as stdout:
        done = subprocess.run(
            [*PYTEST, "--prob-runs=2", *args],
            cwd=pytester.path,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert _inode(log) == before
    text = log.read_text(encoding="utf-8")
    assert text.startswith("=") and "test session starts" in text.splitlines()[0]
    assert text.rstrip().splitlines()[-1].startswith("=")  # pytest's last line is there too
    if "--prob-plan" in args:
        assert '\n[[cases]]\nkey = "bench_a.py::bench_a"\n' in text
    else:
        start = text.index("{\n")
        end = text.index("\n}\n", start) + 3
        assert json.loads(text[start:end])["totals"]["passes"] == 2
    assert (pytester.path / "out1").is_symlink()


@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_writes_through_a_symlink_and_keeps_the_mode(
    pytester: pytest.Pytester, writer: str
) -> None:
    option, _, extra, check = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "real").mkdir()
    target = pytester.path / "real" / "file.x"
    target.write_text("old")
    target.chmod(0o600)
    before = _inode(target)
    (pytester.path / "file.x").symlink_to(target)
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=file.x")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert (pytester.path / "file.x").is_symlink() and check(target)
    assert _inode(target) == before and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert os.listdir(target.parent) == ["file.x"]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_keeps_an_existing_files_mode(pytester: pytest.Pytester, writer: str) -> None:
    option, _, extra, check = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    target = pytester.path / "file.x"
    target.write_text("old")
    target.chmod(0o600)
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=file.x")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert check(target) and stat.S_IMODE(target.stat().st_mode) == 0o600


# -- issue 21 §1: one file, one writer; never a source file ----------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--prob-json=r.html", "--prob-html=r.html"),
            "--prob-html=r.html: cannot write the report: --prob-json=r.html writes the "
            "same file; give each its own path",
        ),
        (
            ("--prob-markdown=out/s.md", "--prob-save-baseline=./out/../out/s.md"),
            "--prob-save-baseline=./out/../out/s.md: cannot write the baseline: "
            "--prob-markdown=out/s.md writes the same file; give each its own path",
        ),
        (
            ("--prob-json=alias.json", "--prob-html=real.json"),
            "--prob-html=real.json: cannot write the report: --prob-json=alias.json writes "
            "the same file; give each its own path",
        ),
        (
            ("--junitxml=r.xml", "--prob-json=r.xml"),
            "--prob-json=r.xml: cannot write the report: --junitxml=r.xml writes the same "
            "file; give each its own path",
        ),
        (
            ("--prob-plan", "--prob-json=p.toml", "--prob-plan-write=p.toml"),
            "--prob-plan-write=p.toml: cannot write the plan: --prob-json=p.toml writes the "
            "same file; give each its own path",
        ),
    ],
    ids=["json-html", "markdown-baseline", "symlink", "junitxml", "plan"],
)
def test_two_writers_given_one_file_is_a_usage_error(
    pytester: pytest.Pytester, args: tuple[str, ...], message: str
) -> None:
    pytester.makepyfile(bench_a=BENCH)
    (pytester.path / "real.json").write_text("{}")
    (pytester.path / "alias.json").symlink_to(pytester.path / "real.json")
    result = pytester.runpytest("--prob-runs=2", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == f"ERROR: {message}"
    assert not (pytester.path / "ran").exists()  # refused before anything ran
    assert (pytester.path / "real.json").read_text() == "{}"


def test_devices_may_take_several_writers(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a=BENCH)
    result = pytester.runpytest("--prob-json=/dev/null", "--prob-html=/dev/null")
    assert result.ret == pytest.ExitCode.OK, result.outlines
    assert not any("could not" in line for line in result.outlines)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)  # written into, never replaced


@pytest.mark.parametrize(
    ("option", "name", "what"),
    [
        ("--prob-json", "bench_a.py", "the report"),
        ("--prob-html", "conftest.py", "the report"),
        ("--prob-save-baseline", "test_helpers.py", "the baseline"),
        ("--prob-markdown", "setup.py", "the summary"),
    ],
)
def test_a_source_file_is_never_a_report(
    pytester: pytest.Pytester, option: str, name: str, what: str
) -> None:
    """Checked at start-up (configure time), before anything is collected or run: an
    existing file named like Python source, or matching ``python_files``/``prob_pattern``."""
    pytester.makepyfile(bench_a=BENCH)
    source = pytester.path / name
    if not source.exists():
        source.write_text("VALUE = 1\n")
    before = source.read_text()
    result = pytester.runpytest(f"{option}={name}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: {option}={name}: cannot write {what}: {name!r} is a Python source file"
    )
    assert source.read_text() == before and not (pytester.path / "ran").exists()


def test_a_source_named_like_the_bench_pattern_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nprob_pattern = check_*.txt\n")
    (pytester.path / "check_notes.txt").write_text("def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-json=check_notes.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-json=check_notes.txt: cannot write the report: 'check_notes.txt' is "
        "a Python source file"
    )


# -- issue 21 §1: any failure while writing is one line naming the file -------------------------
HOSTILE_JSON = """
import pytest


class Hostile(dict):
    def items(self):
        raise RuntimeError("the extension's value broke")


def pytest_prob_build_report(report, results, config):
    report.set_json("hostile", Hostile(a=1))
"""


def test_any_exception_while_writing_is_one_error_line(pytester: pytest.Pytester) -> None:
    """Not only ``OSError``: the summary is printed, the exit status is a code (1: a report
    was lost), and ``pytest.main()`` returns instead of raising."""
    pytester.makepyfile(bench_a=BENCH)
    pytester.makeconftest(HOSTILE_JSON)
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json", "--prob-markdown=s.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    errors = [line for line in result.outlines if "could not" in line]
    assert errors == [
        "ERROR: could not write the JSON report to r.json: RuntimeError: the extension's "
        "value broke",
        "WARNING: could not build the Markdown summary: RuntimeError: the extension's value broke",
    ]
    assert "  Overall: 2/2 passed (100%)" in result.outlines
    assert not any("INTERNALERROR" in line or "Traceback" in line for line in result.outlines)
    assert not (pytester.path / "r.json").exists()
    assert os.listdir(pytester.path) and not [
        p for p in os.listdir(pytester.path) if p.endswith(".tmp")
    ]


#: writer → (the line a failed write prints, the exit status of a session that passed)
FULL_LINES = {
    "json": ("ERROR: could not write the JSON report to full: No space left on device", 1),
    "html": ("ERROR: could not write the HTML report to full: No space left on device", 1),
    "markdown": (
        "WARNING: could not write the Markdown summary to full: No space left on device",
        0,
    ),
    "plan": ("  ERROR: --prob-plan-write=full: cannot write the plan: No space left on device", 1),
    "baseline": (
        "  ERROR: --prob-save-baseline=full: could not write the baseline to {path}: No space "
        "left on device",
        1,
    ),
}


@pytest.mark.skipif(not ROOT, reason="making a device node needs root")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_each_writer_reports_a_full_device_in_one_line(
    pytester: pytest.Pytester, writer: str
) -> None:
    """A device like ``/dev/full`` (ENOSPC on every write): written in place, so the write
    fails; that is one line naming the file, after the table, with the exit status the
    writer's page documents, and the device stays."""
    option, _, extra, _ = WRITERS[writer]
    pytester.makepyfile(bench_a=BENCH)
    device = pytester.path / "full"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    result = pytester.runpytest("--prob-runs=2", *extra, f"{option}=full")
    line, status = FULL_LINES[writer]
    assert line.format(path=device) in result.outlines
    assert result.ret == status
    summary = "  2 runs planned" if writer == "plan" else "  Overall: 2/2 passed (100%)"
    assert summary in result.outlines
    assert not any("Traceback" in out or "INTERNALERROR" in out for out in result.outlines)
    assert stat.S_ISCHR(device.stat().st_mode) and os.listdir(pytester.path).count("full") == 1


def test_pytest_main_returns_a_code_when_a_write_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_a=BENCH)
    pytester.makeconftest(HOSTILE_JSON)
    monkeypatch.chdir(pytester.path)
    code = pytest.main(["-p", "no:randomly", "-p", "no:cacheprovider", "-q", "--prob-json=r.json"])
    assert code == pytest.ExitCode.TESTS_FAILED


def test_failure_lines_name_the_file() -> None:
    assert writing.failure("the JSON report", "out/r.json", OSError(28, "No space left")) == (
        "could not write the JSON report to out/r.json: No space left"
    )
    assert writing.failure("the plan", "p.toml", ValueError("bad")) == (
        "could not write the plan to p.toml: ValueError: bad"
    )

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert writing.failure("the plan", "p.toml", Unprintable()) == (
        "could not write the plan to p.toml: Unprintable: <Unprintable: str() raised RuntimeError>"
    )
