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

import pytest
from conftest import load_json
from pytest_probability import writing

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


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
        "import pytest_probability.writing\n"
        "loaded = [m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert writing.__doc__ and "never imports pytest" in writing.__doc__


# -- every option that writes a file -----------------------------------------------------------
BENCH = """
from pathlib import Path

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
