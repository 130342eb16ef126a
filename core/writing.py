"""Writing the files the plugin writes: one module for every writer. Pure: never imports pytest.

``--prob-json``, ``--prob-html``, ``--prob-markdown``, ``--prob-plan-write`` and
``--prob-save-baseline`` (and ``python -m pytest_probability html``) all go through here:

* :func:`resolve` at configure time: the path as given and made absolute (a test may change
  the working directory later), after :func:`problem` found nothing that stops it taking a
  file. What can be known before anything runs is checked then, so a mistyped path costs
  nothing: a directory in place of the file, a read-only file, an existing ancestor that is
  a file (``README.md/r.json``) or a directory that cannot be written to. A parent directory
  that does not exist yet is fine: it is created when the file is written, as ``--junitxml``
  does.
* :func:`write_atomic` at the end: create missing parent directories, write a temporary file
  in the target's directory, flush it to disk and rename it over the target, so a reader
  never sees half a file and an existing file is only ever replaced by a complete one. An
  existing file keeps its permissions; a new one gets those the umask allows. A symbolic
  link is followed: the file it points to is written and the link stays. A device, pipe or
  other non-regular file (``/dev/stdout``, ``/dev/null``, ``/dev/full``) is written in place,
  never replaced.

The callers turn :class:`UnwritablePath` into ``pytest.UsageError`` and an ``OSError`` from
:func:`write_atomic` into their own error line.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

__all__ = ["Target", "UnwritablePath", "is_stream", "problem", "resolve", "write_atomic"]


class UnwritablePath(ValueError):
    """A path that cannot take the file, found at configure time:
    ``"{option}={value}: cannot write {what}: {problem}"``."""

    def __init__(self, option: str, value: str, what: str, problem: str) -> None:
        self.option = option
        self.value = value
        self.problem = problem
        super().__init__(f"{option}={value}: cannot write {what}: {problem}")


@dataclass(frozen=True)
class Target:
    """Where a writer writes: ``shown`` is the path as the user gave it (for messages),
    ``path`` the same path made absolute when the session was configured."""

    shown: str
    path: Path


def resolve(option: str, value: str | os.PathLike[str], what: str = "the report") -> Target:
    """The :class:`Target` of ``option=value``, checked with :func:`problem`; raises
    :class:`UnwritablePath` (``what`` names the file in the message: ``"the report"``,
    ``"the plan"``, …)."""
    shown = os.fspath(value)
    found = problem(shown)
    if found is not None:
        raise UnwritablePath(option, shown, what, found)
    return Target(shown, Path(os.path.abspath(shown)))


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an existing file that is not a regular file (a device such as
    ``/dev/null``, a pipe, ``/dev/stdout``): it is written in place, never replaced."""
    try:
        mode = os.stat(path).st_mode  # (follows symbolic links)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot take a file, or ``None`` when it looks writable.

    Refused: a directory in place of the file; an existing file (or device) that is not
    writable; a path whose nearest existing ancestor is not a directory (``'README.md' is
    not a directory``) or is a directory this process cannot write to. Missing directories
    between that ancestor and the file are not a problem: :func:`write_atomic` creates them.
    """
    given = Path(path)
    try:
        if given.is_dir():
            return "it is a directory"
        if is_stream(given):
            return None if os.access(given, os.W_OK) else "the file is not writable"
        target = _followed(given)
        if os.path.lexists(target) and not os.access(target, os.W_OK):
            return "the file is not writable"
        ancestor = _nearest_existing(target)
        if not ancestor.is_dir():
            return f"{str(ancestor)!r} is not a directory"
        if not os.access(ancestor, os.W_OK | os.X_OK):
            return f"directory {str(ancestor)!r} is not writable"
    except OSError as exc:  # a path the system refuses to look at (too long, no access)
        return str(exc.strerror or exc)
    return None


def write_atomic(path: str | os.PathLike[str], text: str | Iterable[str]) -> None:
    """Write ``text`` (a string, or pieces of one) to ``path`` as UTF-8, atomically, creating
    missing parent directories (the rules are in the module's docstring). Raises ``OSError``
    (a missing-directory problem names the ancestor in the way) or ``UnicodeError``; no
    temporary file is left behind."""
    given = Path(path)
    if is_stream(given):
        with open(given, "w", encoding="utf-8") as handle:
            _put(handle, text)
        return
    target = _followed(given)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a directory")
    make_parents(target)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    descriptor, temp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            _put(handle, text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, _new_file_mode() if mode is None else mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def make_parents(path: Path) -> None:
    """Create the missing parent directories of ``path`` (with the umask's permissions, as
    ``--junitxml`` does). Raises ``OSError``; when an ancestor is a file its message says
    so (``'…/README.md' is not a directory``)."""
    parent = path.parent
    if parent.is_dir():
        return
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        ancestor = _nearest_existing(path)
        if os.path.lexists(ancestor) and not ancestor.is_dir():
            raise NotADirectoryError(
                errno.ENOTDIR, f"{str(ancestor)!r} is not a directory"
            ) from None
        raise


def _followed(path: Path) -> Path:
    """``path``, or the file a symbolic link at ``path`` points to (which is what gets
    written: the link stays)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _nearest_existing(path: Path) -> Path:
    """The nearest ancestor of ``path`` that exists (``.`` for a relative path whose first
    part is missing)."""
    for ancestor in path.parents:
        if os.path.lexists(ancestor):
            return ancestor
    return Path(".")  # (not reached: the root or ``.`` exists)


def _new_file_mode() -> int:
    """The permissions of a file the user creates: ``0o666`` less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _put(handle: TextIO, text: str | Iterable[str]) -> None:
    if isinstance(text, str):
        handle.write(text)
    else:
        handle.writelines(text)
