"""The history extension's writer (issue 38, part 1): ``--prob-history=DIR`` adds each session's
JSON report to DIR under a name that sorts by time and carries the git commit, read from the
repository's files; ``prob_history_keep`` prunes the oldest. Unit tests of the pure modules
(:mod:`gitinfo`, :mod:`store`) follow the sessions."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json, stable
from pytest_probability.extensions.history import gitinfo, store
from pytest_probability.report import writing

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False

BENCH = """
from pytest_probability import current_run

def bench_a():
    assert current_run().run != 2, "run two fails"
"""
ARGS = ("--prob-runs=3", "-p", "no:randomly")
NAME = re.compile(r"\d{8}T\d{6}\.\d{6}Z_(?:[0-9a-f]{12}|nogit)\.json")
SHA = "3436624ab12c5f0e1d2c3b4a5968778695a4b3c2"
OTHER = "ffee0011223344556677889900aabbccddeeff00"
HISTORY_LINE = "probability: history entry "
USAGE = "give a directory that can be written to (a missing one is created)"


def session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(bench_a=BENCH)
    return pytester.runpytest(*ARGS, *args)


def entries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


def history_lines(result: pytest.RunResult) -> list[str]:
    """The entry's written-file line (its dashes and its size left out) and the warnings."""
    lines = [WRITTEN_LINE.sub(r"\1 \2", line) for line in result.outlines]
    return [line for line in lines if line.startswith((HISTORY_LINE, "WARNING:"))]


#: ``--- probability: history entry hist/NAME (1 kB) for commit … ---``
WRITTEN_LINE = re.compile(r"^-+ (probability: .+?) \(\d[\d.,]* (?:bytes?|kB|MB)\)(?= ) (.*?) -+$")


def only_entry(directory: Path) -> tuple[str, dict[str, Any]]:
    names = entries(directory)
    assert len(names) == 1 and NAME.fullmatch(names[0]), names
    return names[0], load_json(directory / names[0])


def outside_git(path: Path) -> None:
    if not isinstance(gitinfo.find_gitdir(path), str):
        pytest.skip(f"{path} is inside a git checkout")


def fake_git(
    root: Path,
    head: str,
    refs: dict[str, str] | None = None,
    packed: list[str] | None = None,
) -> Path:
    """A git directory as git leaves it: ``HEAD``, loose refs, ``packed-refs``."""
    git = root / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text(head + "\n")
    for name, value in (refs or {}).items():
        (git / name).parent.mkdir(parents=True, exist_ok=True)
        (git / name).write_text(value + "\n")
    if packed is not None:
        (git / "packed-refs").write_text("\n".join(packed) + "\n")
    return git


# -- the session -------------------------------------------------------------------------------
def test_the_entry_is_the_json_report_plus_history(pytester: pytest.Pytester) -> None:
    outside_git(pytester.path)
    result = session(pytester, "--prob-json=r.json", "--prob-history=hist")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    name, entry = only_entry(pytester.path / "hist")
    assert name.endswith("_nogit.json")
    report = load_json(pytester.path / "r.json")
    assert list(entry) == [*report, "history"]
    history = entry.pop("history")
    stamp = datetime.strptime(name[:23], "%Y%m%dT%H%M%S.%fZ")
    assert history == {
        "commit": None,
        "commit_reason": "not in a git checkout",
        "recorded": stamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "file": name,
    }
    # (``created`` is the second the document was made: each writer makes its own)
    assert entry.pop("created") and report.pop("created")
    assert entry == report
    assert history_lines(result) == [
        f"probability: history entry hist/{name} without a git commit (not in a git checkout)"
    ]


def test_ini_key_and_a_directory_that_exists(pytester: pytest.Pytester) -> None:
    (pytester.path / "kept" / "deeper").mkdir(parents=True)
    pytester.makeini("[pytest]\nprob_history = kept/deeper\n")
    result = session(pytester)
    name, entry = only_entry(pytester.path / "kept" / "deeper")
    assert entry["totals"]["passes"] == 2 and entry["history"]["file"] == name
    assert history_lines(result)[0].startswith(f"{HISTORY_LINE}kept/deeper/{name} ")
    result = session(pytester, "-q")  # (quiet: the entry, not the line)
    assert len(entries(pytester.path / "kept" / "deeper")) == 2
    assert history_lines(result) == []


HEAD_OF_MAIN = "ref: refs/heads/main"


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("loose", SHA),
        ("packed", SHA),
        ("detached", SHA),
        ("worktree", SHA),
        ("unborn", None),
    ],
)
def test_the_commit_is_read_from_the_repository(
    pytester: pytest.Pytester, layout: str, expected: str | None
) -> None:
    root = pytester.path
    if layout == "loose":  # (a loose ref wins over an older packed one)
        fake_git(root, HEAD_OF_MAIN, {"refs/heads/main": SHA}, [f"{OTHER} refs/heads/main"])
    elif layout == "packed":
        packed = ["# pack-refs with: peeled fully-peeled sorted ", f"{OTHER} refs/heads/dev"]
        packed += [f"{SHA} refs/heads/main", f"^{OTHER}"]
        fake_git(root, HEAD_OF_MAIN, {}, packed)
    elif layout == "detached":
        fake_git(root, SHA.upper(), {"refs/heads/main": OTHER})
    elif layout == "worktree":  # the checkout's .git is a file; the branch is in the main repo
        main = fake_git(root / "elsewhere", HEAD_OF_MAIN, {"refs/heads/feature": SHA})
        linked = main / "worktrees" / "wt"
        linked.mkdir(parents=True)
        (linked / "HEAD").write_text("ref: refs/heads/feature\n")
        (linked / "commondir").write_text("../..\n")
        (root / ".git").write_text("gitdir: elsewhere/.git/worktrees/wt\n")
    else:
        fake_git(root, HEAD_OF_MAIN, {"refs/heads/other": OTHER})
    result = session(pytester, "--prob-history=hist")
    name, entry = only_entry(root / "hist")
    if expected is None:
        reason = "HEAD names refs/heads/main, which has no commit yet"
        assert name.endswith("_nogit.json")
        assert entry["history"]["commit"] is None
        assert entry["history"]["commit_reason"] == reason
        assert history_lines(result) == [
            f"{HISTORY_LINE}hist/{name} without a git commit ({reason})"
        ]
    else:
        assert name.endswith(f"_{expected[:12]}.json")
        assert entry["history"]["commit"] == expected
        assert entry["history"]["commit_reason"] is None
        assert history_lines(result) == [f"{HISTORY_LINE}hist/{name} for commit {expected[:12]}"]


def test_a_conftest_names_the_commit(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_git(pytester.path, SHA)
    pytester.makeconftest(
        """
import os

def pytest_prob_history_commit(config):
    return os.environ.get("CI_SHA")
"""
    )
    monkeypatch.setenv("CI_SHA", OTHER.upper())
    result = session(pytester, "--prob-history=hist")
    name, entry = only_entry(pytester.path / "hist")
    assert name.endswith("_ffee00112233.json") and entry["history"]["commit"] == OTHER
    assert history_lines(result) == [f"{HISTORY_LINE}hist/{name} for commit ffee00112233"]
    shutil.rmtree(pytester.path / "hist")
    monkeypatch.setenv("CI_SHA", "")  # "": no commit, whatever git says
    result = session(pytester, "--prob-history=hist")
    name, entry = only_entry(pytester.path / "hist")
    reason = "pytest_prob_history_commit answered no commit"
    assert entry["history"] | {"recorded": None} == {
        "commit": None,
        "commit_reason": reason,
        "recorded": None,
        "file": name,
    }
    assert history_lines(result) == [f"{HISTORY_LINE}hist/{name} without a git commit ({reason})"]
    shutil.rmtree(pytester.path / "hist")
    monkeypatch.delenv("CI_SHA")  # None: the default reads git
    session(pytester, "--prob-history=hist")
    assert only_entry(pytester.path / "hist")[1]["history"]["commit"] == SHA


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('raise RuntimeError("no CI here")', "RuntimeError: no CI here"),
        (
            'return "v1.2"',
            "TypeError: answered 'v1.2', not a commit id (40 or 64 hexadecimal digits, "
            "or '' for none)",
        ),
        ("raise SystemExit(3)", "SystemExit: 3"),
    ],
    ids=["raises", "garbage", "exits"],
)
def test_a_failing_commit_hook_is_a_warning_and_the_entry_is_written(
    pytester: pytest.Pytester, body: str, error: str
) -> None:
    fake_git(pytester.path, SHA)
    pytester.makeconftest(f"def pytest_prob_history_commit(config):\n    {body}\n")
    result = session(pytester, "--prob-history=hist", "--prob-json=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    name, entry = only_entry(pytester.path / "hist")
    assert entry["history"]["commit"] == SHA  # (the default answered instead)
    message = (
        f"extension '{pytester.path / 'conftest.py'}' failed in pytest_prob_history_commit: {error}"
    )
    assert entry["warnings"] == [message] == load_json(pytester.path / "r.json")["warnings"]
    assert f"  warning: {message}" in result.outlines
    assert any(line.endswith(f"ProbabilityExtensionWarning: {message}") for line in result.outlines)
    assert history_lines(result) == [f"{HISTORY_LINE}hist/{name} for commit {SHA[:12]}"]
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_keep_prunes_the_oldest_entries_and_nothing_else(pytester: pytest.Pytester) -> None:
    hist = pytester.path / "hist"
    hist.mkdir()
    unrelated = [
        "notes.txt",
        "20000101T000000.000000Z_nogit.json.bak",
        ".20000101T000000.000000Z_nogit.json.abc.tmp",
        "20000101T000000.000000Z_NOGIT.json",
    ]
    for other in unrelated:
        (hist / other).write_text("mine\n")
    (hist / "20000101T000000.000000Z_nogit.json").mkdir()  # a directory is never an entry
    written = []
    for number in range(3):
        result = session(pytester, "--prob-history=hist", "-o", "prob_history_keep=2")
        new = [n for n in store.list_entries(hist) if n not in written]
        assert len(new) == 1
        written.append(new[0])
        pruned = "; pruned 1 oldest (keep 2)" if number == 2 else ""
        assert history_lines(result)[0].endswith(f"checkout){pruned}")
    assert entries(hist) == sorted([*unrelated, "20000101T000000.000000Z_nogit.json", *written[1:]])
    assert all((hist / other).read_text() == "mine\n" for other in unrelated)
    # the command-line flag, and a keep of 1
    result = session(pytester, "--prob-history=hist", "--prob-history-keep=1")
    assert history_lines(result)[0].endswith("; pruned 2 oldest (keep 1)")
    assert len(store.list_entries(hist)) == 1


def test_a_failed_prune_is_one_warning_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = pytester.path / "hist"
    hist.mkdir()
    old = ["20000101T000000.000000Z_nogit.json", "20000102T000000.000000Z_nogit.json"]
    for name in old:
        (hist / name).write_text("{}\n")
    real_unlink = os.unlink

    def refuse(path: Any, *args: Any, **kwargs: Any) -> None:
        if NAME.fullmatch(os.path.basename(path)):
            raise PermissionError(13, "Permission denied")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    result = session(pytester, "--prob-history=hist", "--prob-history-keep=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    name = entries(hist)[-1]
    assert history_lines(result) == [
        f"{HISTORY_LINE}hist/{name} without a git commit (not in a git checkout)",
        f"WARNING: could not prune the history in hist: cannot remove {old[0]}: Permission "
        "denied (and 1 more)",
    ]
    assert entries(hist) == [*old, name]


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("afile", "it is a file, not a directory"),
        ("afile/sub", "'{root}/afile' is not a directory"),
        ("locked", "directory '{root}/locked' is not writable"),
        ("locked/new", "directory '{root}/locked' is not writable"),
        ("unlisted", "directory '{root}/unlisted' is not readable"),
    ],
)
def test_a_directory_that_cannot_take_entries_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, given: str, problem: str
) -> None:
    root = pytester.path
    (root / "afile").write_text("x\n")
    (root / "locked").mkdir()
    (root / "unlisted").mkdir()
    real_access = os.access

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        # (the tests run as root, who may write anywhere: the permissions are pretended)
        name = os.path.basename(os.fspath(path))
        if (name == "locked" and mode & os.W_OK) or (name == "unlisted" and mode & os.R_OK):
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    result = session(pytester, f"--prob-history={given}", "--prob-history-keep=3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = problem.format(root=root)
    assert result.errlines == [
        f"ERROR: --prob-history={given}: cannot write the history entries: {expected}; {USAGE}",
        "",
    ]
    assert not (root / "ran").exists() and entries(root / "locked") == []
    result = session(pytester, "-o", f"prob_history={given}", "-o", "prob_history_keep=3")
    assert result.errlines[0] == (
        f"ERROR: ini option prob_history={given}: cannot write the history entries: "
        f"{expected}; {USAGE}"
    )


def test_a_bad_keep_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = session(pytester, "--prob-history=hist", "--prob-history-keep=0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-history-keep=0: expected a whole number of at least 1, got '0'"
    )
    result = session(pytester, "--prob-history=hist", "-o", "prob_history_keep=all")
    assert result.errlines[0] == (
        "ERROR: ini option prob_history_keep=all: expected a whole number of at least 1, got 'all'"
    )
    assert not (pytester.path / "hist").exists()


def test_a_failed_write_is_one_warning_line_and_keeps_the_exit_status(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_ok():\n    pass\n")

    def full(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "write_atomic", full)
    result = pytester.runpytest("--prob-runs=2", "--prob-history=hist")
    assert result.ret == pytest.ExitCode.OK
    assert history_lines(result) == [
        "WARNING: could not write the history entry to hist: No space left on device"
    ]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_directory_replaced_by_a_file_during_the_session(pytester: pytest.Pytester) -> None:
    """Checked at start-up, the directory can still be gone at the end: one line."""
    pytester.makepyfile(
        bench_ok="""
from pathlib import Path

def bench_ok():
    Path("hist").write_text("in the way")
"""
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-history=hist")
    assert result.ret == pytest.ExitCode.OK
    assert history_lines(result) == [
        f"WARNING: could not write the history entry to hist: "
        f"'{pytester.path / 'hist'}' is not a directory"
    ]
    assert (pytester.path / "hist").read_text() == "in the way"


def test_nothing_is_written_without_results(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a=BENCH, test_plain="def test_plain():\n    pass\n")
    for args in (("--collect-only",), ("-k", "no_such_case"), ("test_plain.py",)):
        result = pytester.runpytest(*ARGS, "--prob-history=hist", *args)
        assert history_lines(result) == []
    assert not (pytester.path / "hist").exists()


def test_the_path_is_fixed_at_start_up(pytester: pytest.Pytester) -> None:
    """A bench that changes the working directory does not move the history."""
    (pytester.path / "sub").mkdir()
    pytester.makepyfile(
        bench_cd="""
import os

def bench_cd():
    os.chdir("sub")
"""
    )
    result = pytester.runpytest("--prob-history=hist")
    assert len(entries(pytester.path / "hist")) == 1
    assert not (pytester.path / "sub" / "hist").exists()
    assert history_lines(result)[0].startswith(f"{HISTORY_LINE}hist/")


# (pytest 7.4 warns that its own usage error went through an old-style hook wrapper)
# pytest 7.4's own old-style helpconfig wrapper re-raises argparse's error for the blocked
# extension's flag, and pluggy >= 1.4 warns about that (pytest 8 has no such wrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
@pytest.mark.filterwarnings("ignore::pluggy.PluggyTeardownRaisedWarning")
def test_disabled_with_p_no(pytester: pytest.Pytester) -> None:
    result = session(pytester, "-p", "no:probability.history", "--prob-history=hist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (pytester.path / "hist").exists()


@pytest.mark.subprocess
def test_under_xdist_the_controller_writes_one_entry(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    fake_git(pytester.path, HEAD_OF_MAIN, {"refs/heads/main": SHA})
    pytester.makepyfile(
        bench_many="""
import pytest

@pytest.mark.parametrize("k", range(6))
def bench_many(k):
    assert k != 3
"""
    )
    serial = pytester.runpytest_subprocess("--prob-runs=2", "--prob-history=serial")
    parallel = pytester.runpytest_subprocess("--prob-runs=2", "-n", "2", "--prob-history=xdist")
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    (_, one), (name, two) = (
        only_entry(pytester.path / "serial"),
        only_entry(pytester.path / "xdist"),
    )
    assert name.endswith(f"_{SHA[:12]}.json") and two["history"]["commit"] == SHA
    assert stable(one["rows"]) == stable(two["rows"]) and one["totals"] == two["totals"]
    assert len(two["records"]) == 12
    assert history_lines(parallel) == [f"{HISTORY_LINE}xdist/{name} for commit {SHA[:12]}"]


@pytest.mark.subprocess
def test_an_interrupted_session_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_ki="""
from pytest_probability import current_run

def bench_a():
    if current_run().run == 3:
        raise KeyboardInterrupt
"""
    )
    # in a subprocess: an in-process KeyboardInterrupt would also stop this session
    result = pytester.runpytest_subprocess("--prob-runs=5", "--prob-history=hist")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    name, entry = only_entry(pytester.path / "hist")
    assert entry["exit_status"] == 2 and [r["run"] for r in entry["records"]] == [1, 2]
    assert history_lines(result)[0].startswith(f"{HISTORY_LINE}hist/{name} ")


# -- gitinfo ----------------------------------------------------------------------------------
def test_no_checkout(tmp_path: Path) -> None:
    outside_git(tmp_path)
    assert gitinfo.read_head(tmp_path) == gitinfo.GitHead(None, "not in a git checkout")
    # a .git directory without HEAD is not a repository: git looks further up, so do we
    (tmp_path / "a" / ".git").mkdir(parents=True)
    assert gitinfo.read_head(tmp_path / "a").reason == "not in a git checkout"


def test_the_repository_is_found_from_a_subdirectory(tmp_path: Path) -> None:
    fake_git(tmp_path, HEAD_OF_MAIN, {"refs/heads/main": SHA})
    (tmp_path / "src" / "deep").mkdir(parents=True)
    assert gitinfo.read_head(tmp_path / "src" / "deep") == gitinfo.GitHead(SHA, None)


def test_a_symbolic_ref_chain_and_per_worktree_refs(tmp_path: Path) -> None:
    fake_git(tmp_path, "ref: refs/heads/alias", {"refs/heads/alias": "ref: refs/heads/main"})
    (tmp_path / ".git" / "packed-refs").write_text(f"{SHA} refs/heads/main\n")
    assert gitinfo.read_head(tmp_path).commit == SHA
    (tmp_path / ".git" / "refs" / "heads" / "alias").write_text("ref: refs/heads/alias\n")
    assert gitinfo.read_head(tmp_path).reason == ("HEAD: more than 5 levels of symbolic references")


def test_a_submodule_git_file_without_commondir(tmp_path: Path) -> None:
    modules = fake_git(tmp_path / "super", HEAD_OF_MAIN) / "modules" / "lib"
    (modules / "refs" / "heads").mkdir(parents=True)
    (modules / "HEAD").write_text(f"{SHA}\n")
    checkout = tmp_path / "super" / "lib"
    checkout.mkdir()
    (checkout / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert gitinfo.read_head(checkout) == gitinfo.GitHead(SHA, None)


@pytest.mark.parametrize(
    ("head", "files", "reason"),
    [
        ("ref: refs/heads/x", {}, "HEAD names refs/heads/x, which has no commit yet"),
        ("not a ref", {}, "HEAD holds 'not a ref', not a commit id"),
        ("", {}, "HEAD holds '', not a commit id"),
        (
            "ref: ../../../etc/passwd",
            {},
            "HEAD names '../../../etc/passwd', which is not a reference name",
        ),
        (
            "ref: refs/heads/../../HEAD",
            {},
            "HEAD names 'refs/heads/../../HEAD', which is not a reference name",
        ),
        (
            "ref: refs/heads/x",
            {"refs/heads/x": "garbage"},
            "refs/heads/x holds 'garbage', not a commit id",
        ),
        (
            "ref: refs/heads/x",
            {"refs/heads/x": SHA[:12]},
            f"refs/heads/x holds '{SHA[:12]}', not a commit id",
        ),
    ],
)
def test_garbage_is_a_reason(tmp_path: Path, head: str, files: dict[str, str], reason: str) -> None:
    fake_git(tmp_path, head, files)
    assert gitinfo.read_head(tmp_path) == gitinfo.GitHead(None, reason)


def test_unreadable_and_odd_files_are_reasons(tmp_path: Path) -> None:
    git = fake_git(tmp_path, HEAD_OF_MAIN)
    (git / "refs" / "heads" / "main").mkdir()  # (a branch main/x exists: main has no file)
    assert gitinfo.read_head(tmp_path).reason == (
        "HEAD names refs/heads/main, which has no commit yet"
    )
    os.rmdir(git / "refs" / "heads" / "main")
    os.mkfifo(git / "refs" / "heads" / "main")  # (never blocks)
    assert gitinfo.read_head(tmp_path).reason == (
        f"cannot read {git / 'refs' / 'heads' / 'main'}: it is not a regular file"
    )
    os.unlink(git / "refs" / "heads" / "main")
    (git / "refs" / "heads" / "main").write_bytes(b"\xff" * (gitinfo.SMALL_FILE_BYTES + 1))
    assert gitinfo.read_head(tmp_path).reason == (
        f"cannot read {git / 'refs' / 'heads' / 'main'}: larger than 65,536 bytes"
    )
    (git / "refs" / "heads" / "main").write_bytes(b"\xff\xfe\x00garbage")
    assert gitinfo.read_head(tmp_path).commit is None
    (git / "packed-refs").write_bytes(b"\x00\xff\n" * 1000 + f"{SHA} refs/heads/dev\n".encode())
    os.unlink(git / "refs" / "heads" / "main")
    assert gitinfo.read_head(tmp_path).reason == (
        "HEAD names refs/heads/main, which has no commit yet"
    )
    (git / "HEAD").write_text("ref: refs/heads/dev\n")
    assert gitinfo.read_head(tmp_path).commit == SHA


def test_odd_git_files_and_reftable(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("not a link\n")
    assert gitinfo.read_head(tmp_path).reason == (
        f"{tmp_path / '.git'} is a file that does not name a git directory (no 'gitdir:' line)"
    )
    (tmp_path / ".git").write_text("gitdir: nowhere\n")
    assert gitinfo.read_head(tmp_path).reason == (
        f"{tmp_path / '.git'} names {tmp_path / 'nowhere'}, which is not a git directory"
    )
    os.unlink(tmp_path / ".git")
    git = fake_git(tmp_path, "ref: refs/heads/.invalid")
    (git / "reftable").mkdir()
    assert gitinfo.read_head(tmp_path).reason == (
        f"{git} keeps its references in reftable files, which only git reads"
    )
    os.rmdir(git / "reftable")
    (git / "commondir").write_text("../missing\n")
    assert gitinfo.read_head(tmp_path).reason == (
        f"{git / 'commondir'} names {git / '../missing'}, which is not a directory"
    )


@pytest.mark.skipif(ROOT, reason="root reads anything")
def test_an_unreadable_head(tmp_path: Path) -> None:
    git = fake_git(tmp_path, SHA)
    (git / "HEAD").chmod(0)
    assert gitinfo.read_head(tmp_path).reason == f"cannot read {git / 'HEAD'}: Permission denied"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git, as the reference")
def test_agrees_with_git_itself(tmp_path: Path) -> None:
    """Real repositories made by git: a branch, packed refs, a detached HEAD, a linked
    worktree, against ``git rev-parse HEAD``."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }

    def git(*args: str, where: Path = tmp_path / "repo") -> str:
        done = subprocess.run(
            ["git", *args], cwd=where, env=env, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    (tmp_path / "repo").mkdir()
    git("init", "-q", "-b", "main")
    assert gitinfo.read_head(tmp_path / "repo").reason == (
        "HEAD names refs/heads/main, which has no commit yet"
    )
    git("commit", "-q", "--allow-empty", "-m", "one")
    assert gitinfo.read_head(tmp_path / "repo").commit == git("rev-parse", "HEAD")
    git("commit", "-q", "--allow-empty", "-m", "two")
    git("pack-refs", "--all")
    assert not (tmp_path / "repo" / ".git" / "refs" / "heads" / "main").exists()
    assert gitinfo.read_head(tmp_path / "repo").commit == git("rev-parse", "HEAD")
    git("checkout", "-q", "--detach", "HEAD~1")
    assert gitinfo.read_head(tmp_path / "repo").commit == git("rev-parse", "HEAD")
    git("checkout", "-q", "main")
    git("worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    git("commit", "-q", "--allow-empty", "-m", "three", where=tmp_path / "wt")
    found = gitinfo.read_head(tmp_path / "wt")
    assert found.commit == git("rev-parse", "HEAD", where=tmp_path / "wt")
    assert found.commit != gitinfo.read_head(tmp_path / "repo").commit


# -- store ------------------------------------------------------------------------------------
WHEN = datetime(2026, 12, 5, 22, 53, 16, 123456, tzinfo=UTC)


def test_entry_names() -> None:
    assert store.entry_name(WHEN, SHA) == "20261205T225316.123456Z_3436624ab12c.json"
    assert store.entry_name(WHEN, None) == "20261205T225316.123456Z_nogit.json"
    local = WHEN.astimezone(timezone(timedelta(hours=-5)))  # (always named in UTC)
    assert store.entry_name(local, None) == "20261205T225316.123456Z_nogit.json"
    assert store.recorded_text(WHEN) == "2026-12-05T22:53:16.123456Z"
    assert store.is_entry("20261205T225316.123456Z_3436624ab12c.json")
    for other in (
        "20261205T225316.123456Z_3436624ab12.json",  # (11 digits)
        "20261205T225316.123456Z_3436624AB12C.json",
        "20261205T225316Z_nogit.json",
        ".20261205T225316.123456Z_nogit.json.x.tmp",
        "20261205T225316.123456Z_nogit.json.staged",
        "20261205T225316.123456Z_nogit.json\n",
    ):
        assert not store.is_entry(other), other


def _writer(path: Path, text: str) -> None:
    writing.write_atomic(path, text)


def test_write_entry_never_overwrites(tmp_path: Path) -> None:
    directory = tmp_path / "new" / "hist"

    def render(name: str, when: datetime) -> str:
        return json.dumps({"file": name, "recorded": store.recorded_text(when)})

    names = [store.write_entry(directory, SHA, render, _writer, now=lambda: WHEN) for _ in "ab"]
    assert names == [
        "20261205T225316.123456Z_3436624ab12c.json",
        "20261205T225316.123457Z_3436624ab12c.json",
    ]
    assert entries(directory) == names  # (no staging file left)
    second = json.loads((directory / names[1]).read_text())
    assert second == {"file": names[1], "recorded": "2026-12-05T22:53:16.123457Z"}
    # another session takes the name between the check and the link: its entry stays
    taken = directory / "20261205T225316.123456Z_nogit.json"

    def racing(path: Path, text: str) -> None:
        _writer(path, text)
        if not taken.exists():
            taken.write_text("the other session's\n")

    name = store.write_entry(directory, None, render, racing, now=lambda: WHEN)
    assert name == "20261205T225316.123457Z_nogit.json"
    assert taken.read_text() == "the other session's\n"
    assert json.loads((directory / name).read_text())["file"] == name
    assert entries(directory) == sorted([*names, taken.name, name])


def test_write_entry_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    name = store.write_entry(tmp_path, None, lambda n, w: "{}\n", _writer, now=lambda: WHEN)
    assert entries(tmp_path) == [name] and (tmp_path / name).read_text() == "{}\n"


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    def broken(name: str, when: datetime) -> str:
        raise ValueError("render bug")

    with pytest.raises(ValueError, match="render bug"):
        store.write_entry(tmp_path, None, broken, _writer)
    assert entries(tmp_path) == []


def test_prune_keeps_the_new_entry_and_only_removes_entries(tmp_path: Path) -> None:
    names = [f"2026120{day}T000000.000000Z_nogit.json" for day in range(1, 6)]
    for name in [*names, "notes.md", "20261201T000000.000000Z_nogit.json.bak"]:
        (tmp_path / name).write_text("{}")
    # the new entry sorts first (a clock set back): it is kept all the same
    pruned = store.prune(tmp_path, 2, names[0])
    assert pruned == store.Pruned(removed=names[1:4], failed=[])
    assert entries(tmp_path) == sorted(
        [names[0], names[4], "notes.md", "20261201T000000.000000Z_nogit.json.bak"]
    )
    assert store.prune(tmp_path, 5, names[4]) == store.Pruned()
    assert store.list_entries(tmp_path) == [names[0], names[4]]
    with pytest.raises(OSError):
        store.list_entries(tmp_path / "missing")


def test_directory_problems(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    os.mkfifo(tmp_path / "pipe")
    assert store.directory_problem(tmp_path) is None
    assert store.directory_problem(tmp_path / "new" / "deeper") is None
    assert store.directory_problem(tmp_path / "file") == "it is a file, not a directory"
    assert store.directory_problem(tmp_path / "pipe") == "it is not a directory"
    assert store.directory_problem(tmp_path / "file" / "x") == (
        f"{str(tmp_path / 'file')!r} is not a directory"
    )
    assert store.directory_problem(tmp_path / "dangling") == (
        "it is a symbolic link to nothing (or in a loop)"
    )


@pytest.mark.skipif(ROOT, reason="root writes anywhere")
def test_directory_permissions(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert store.directory_problem(locked) == f"directory {str(locked)!r} is not writable"
        assert store.directory_problem(locked / "new") == (
            f"directory {str(locked)!r} is not writable"
        )
        locked.chmod(0o333)
        assert store.directory_problem(locked) is None
        assert store.directory_problem(locked, listed=True) == (
            f"directory {str(locked)!r} is not readable"
        )
    finally:
        locked.chmod(0o755)


def test_the_pure_modules_never_import_pytest() -> None:
    code = (
        "import sys\n"
        "import pytest_probability.extensions.history.gitinfo\n"
        "import pytest_probability.extensions.history.store\n"
        "loaded = [m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
