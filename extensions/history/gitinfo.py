"""The commit checked out, read from the repository's files: no ``git`` process. Pure: never
imports pytest.

:func:`read_head` finds the repository the way ``git`` does from a directory (the nearest
``.git`` upward: a directory, or a ``gitdir: PATH`` file as worktrees and submodules have),
reads ``HEAD`` and follows the reference it names (a loose ref file in the worktree's git
directory or in the shared one its ``commondir`` names, else the ``packed-refs`` file). It
never raises: whatever it cannot read (no checkout, a branch without commits, a file that
is garbage, a pipe, a repository keeping its references in reftable files) is a ``None``
commit with the reason, for the history entry to say so.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: A full commit id: SHA-1 (40 hexadecimal digits) or SHA-256 (64), lower case.
COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
#: The reason when no ``.git`` is found from the start directory up to the root.
NOT_A_CHECKOUT = "not in a git checkout"
#: ``HEAD``, a loose ref, a ``.git`` file and ``commondir`` are a line each: more is garbage.
SMALL_FILE_BYTES = 64 * 1024
#: Symbolic references followed at most (``HEAD`` → a branch → …), as git bounds them too.
MAX_SYMREF_DEPTH = 5
#: A reference name as ``HEAD`` may name it: ``refs/`` and no part git refuses (``..``,
#: control characters, ``~^:?*[\\``, a part starting with ``.``): nothing reads outside the
#: repository however ``HEAD`` is crafted.
_PART = r"[^/\x00-\x20\x7f~^:?*\[\\.][^/\x00-\x20\x7f~^:?*\[\\]*"
_REFNAME = re.compile(rf"refs/{_PART}(?:/{_PART})*")


@dataclass(frozen=True)
class GitHead:
    """What :func:`read_head` found: the full commit id, or ``None`` and why."""

    commit: str | None
    reason: str | None = None


class _Unreadable(Exception):
    """A file of the repository that cannot be read; the message is the reason shown."""


def read_head(start: str | os.PathLike[str]) -> GitHead:
    """The commit checked out in the git repository holding ``start`` (a directory), or a
    ``None`` commit with the reason (:data:`NOT_A_CHECKOUT`, ``HEAD names refs/heads/x,
    which has no commit yet``, ``cannot read …: Permission denied``, …). Never raises."""
    try:
        found = find_gitdir(start)
        if isinstance(found, str):
            return GitHead(None, found)
        return _head_of(found)
    except _Unreadable as exc:
        return GitHead(None, str(exc))
    except Exception as exc:  # garbage of any other kind is a reason, never an error
        return GitHead(None, f"cannot read the git repository: {type(exc).__name__}: {exc}")


def find_gitdir(start: str | os.PathLike[str]) -> Path | str:
    """The git directory of the repository holding ``start``, or the reason there is none.

    Looks at ``start`` and each parent for ``.git``: a directory holding ``HEAD`` is the git
    directory (one without is skipped, as git skips it); a file must read ``gitdir: PATH``
    (relative to the file's directory), naming a directory holding ``HEAD``. The physical
    path is walked (symbolic links resolved), as git walks its working directory.
    """
    here = Path(os.path.realpath(os.fspath(start)))
    for folder in (here, *here.parents):
        dot = folder / ".git"
        try:
            if dot.is_dir():
                if (dot / "HEAD").is_file():
                    return dot
                continue
            if dot.is_file():
                return _linked_gitdir(dot)
        except OSError as exc:
            raise _Unreadable(f"cannot read {dot}: {_why(exc)}") from None
    return NOT_A_CHECKOUT


def _linked_gitdir(dot: Path) -> Path | str:
    """The git directory a ``.git`` file names (a worktree's, a submodule's), or why not."""
    text = _read_small(dot).strip()
    if not text.startswith("gitdir:"):
        return f"{dot} is a file that does not name a git directory (no 'gitdir:' line)"
    target = dot.parent / text[len("gitdir:") :].strip()
    if not (target / "HEAD").is_file():
        return f"{dot} names {target}, which is not a git directory"
    return target


def _head_of(gitdir: Path) -> GitHead:
    common = _common_dir(gitdir)
    if (common / "reftable").is_dir():  # (git 2.45+: HEAD is a stub, the refs are binary)
        return GitHead(
            None, f"{common} keeps its references in reftable files, which only git reads"
        )
    value, name = _read_small(gitdir / "HEAD").strip(), "HEAD"
    for _ in range(MAX_SYMREF_DEPTH):
        if not value.startswith("ref:"):
            if COMMIT_ID.fullmatch(value.lower()):
                return GitHead(value.lower(), None)
            return GitHead(None, f"{name} holds {value[:80]!r}, not a commit id")
        ref = value[len("ref:") :].strip()
        if not _REFNAME.fullmatch(ref) or ref.endswith(".lock") or ".." in ref or "@{" in ref:
            return GitHead(None, f"{name} names {ref[:80]!r}, which is not a reference name")
        found = _lookup(ref, gitdir, common)
        if found is None:
            return GitHead(None, f"{name} names {ref}, which has no commit yet")
        value, name = found, ref
    return GitHead(None, f"HEAD: more than {MAX_SYMREF_DEPTH} levels of symbolic references")


def _common_dir(gitdir: Path) -> Path:
    """The directory holding the shared references: the one ``commondir`` names (a linked
    worktree's git directory has it, relative to itself), else ``gitdir``."""
    named = gitdir / "commondir"
    if not os.path.lexists(named):
        return gitdir
    common = gitdir / _read_small(named).strip()
    if not common.is_dir():
        raise _Unreadable(f"{named} names {common}, which is not a directory")
    return common


def _lookup(ref: str, gitdir: Path, common: Path) -> str | None:
    """What ``ref`` holds (a commit id, or ``ref: …`` for a symbolic one): its loose file in
    ``gitdir`` (per-worktree references) or ``common``, else its line in ``packed-refs``;
    ``None`` when it exists in neither (a branch without commits)."""
    for base in dict.fromkeys((gitdir, common)):
        try:
            return _read_small(base / ref).strip()
        except _Missing:
            continue
    for line in _lines(common / "packed-refs"):
        if line.startswith(("#", "^")):  # (the header, and peeled tags)
            continue
        commit, _, name = line.rstrip("\r\n").partition(" ")
        if name == ref:
            return commit
    return None


class _Missing(_Unreadable):
    """A file that is not there (also: a directory in its place, as ``refs/heads/a`` is when
    a branch ``a/b`` exists)."""


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for reading, if it is a regular file. Opened without blocking, so a
    named pipe put in the repository cannot stop the session; raises :class:`_Missing` or
    :class:`_Unreadable`."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise _Missing(f"{path} is missing") from None
    except OSError as exc:
        raise _Unreadable(f"cannot read {path}: {_why(exc)}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise _Missing(f"{path} is a directory")
        if not stat.S_ISREG(mode):
            raise _Unreadable(f"cannot read {path}: it is not a regular file")
        handle = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with handle:
        try:
            yield handle
        except OSError as exc:
            raise _Unreadable(f"cannot read {path}: {_why(exc)}") from None


def _read_small(path: Path) -> str:
    """The text of a one-line file of the repository; raises :class:`_Unreadable` (or
    :class:`_Missing`) when it is missing, unreadable or larger than such a file is."""
    with _opened(path) as handle:
        data = handle.read(SMALL_FILE_BYTES + 1)
    if len(data) > SMALL_FILE_BYTES:
        raise _Unreadable(f"cannot read {path}: larger than {SMALL_FILE_BYTES:,} bytes")
    return data.decode("utf-8", "surrogateescape")


def _lines(path: Path) -> Iterator[str]:
    """The lines of ``packed-refs`` (none when it is missing), read one at a time: a large
    repository's file holds a line per reference."""
    try:
        with _opened(path) as handle:
            for line in handle:
                yield line.decode("utf-8", "surrogateescape")
    except _Missing:
        return


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)
