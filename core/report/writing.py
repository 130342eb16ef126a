"""Writing the files the plugin writes: one module for every writer. Pure: never imports pytest.

``--prob-json``, ``--prob-html``, ``--prob-markdown``, ``--prob-plan-write``,
``--prob-save-baseline`` and ``python -m pytest_probability html`` all go through here:

* at configure time, :func:`resolve` makes the path absolute (a test may change the working
  directory) after :func:`problem` found nothing that stops it taking a file (a directory in
  its place or a path ending in ``/``, which names one; a read-only file; an ancestor that
  is a file or an unwritable directory; a missing parent is fine: it is created, as for
  ``--junitxml``), and :class:`Claims`
  refuses two writers of one file and a Python source file given as a report;
* at the end, :func:`write_atomic` writes a temporary file in the target's directory,
  flushes it to disk and renames it over the target, so a reader never sees half a file. An
  existing file keeps its permissions (and, where allowed, its owner). A device, pipe or
  other non-regular file, a symbolic link (written through: the link stays) and a file
  with other hard links are written **in place**, from text made in full first (in
  memory, or a temporary file past 16 MiB; a named pipe once a process reads it, waiting
  at most five seconds, so a pipe nobody reads cannot hang the session); ``/dev/stdout``,
  ``/dev/fd/N`` and ``/proc/self/fd/N`` (or a link to one) through the process's own open
  descriptor, at its current position, as bash's redirections do. A lone surrogate is
  written as its escape (``\\udcff``, Python's ``backslashreplace``).

The callers turn :class:`UnwritablePath` into ``pytest.UsageError`` and any exception from
:func:`write_atomic` into one error line naming the file (:func:`failure`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import io
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..execution.user_values import describe

#: How text is encoded: UTF-8, with what UTF-8 cannot hold (lone surrogates) escaped.
ENCODING = "utf-8"
ERRORS = "backslashreplace"
#: Text made for an in-place write stays in memory up to this size, then in a temporary file.
SPOOL_BYTES = 16 * 1024 * 1024
#: Paths that name one of the process's open descriptors (``/proc/self/fd/1``, ``/dev/fd/1``).
_DESCRIPTOR_PATH = re.compile(
    r"^/(?:proc/(?P<pid>self|thread-self|\d+)(?:/task/\d+)?/fd|dev/fd)/(?P<fd>\d+)$"
)
#: How long a write to a named pipe waits for a process to read it.
PIPE_WAIT_SECONDS = 5.0
#: Symbolic links followed at most (the system's own limit is 40).
_MAX_LINKS = 40


class UnwritablePath(ValueError):
    """A path that cannot take the file, found at configure time:
    ``"{option}={value}: cannot write {what}: {problem}"``."""

    def __init__(self, option: str, value: str, what: str, problem: str) -> None:
        self.option, self.value, self.problem = option, value, problem
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
    """Why ``path`` cannot take a file (``'README.md' is not a directory``), or ``None``
    when it looks writable (the rules are in the module's docstring)."""
    given = Path(path)
    shown = os.fspath(path)
    if shown.endswith(("/", os.sep)) and descriptor_of(shown) is None:
        # (Path() would drop the slash and write a file where the user meant a directory)
        name = os.path.join(shown.rstrip("/" + os.sep) or shown, "NAME")
        return f"a path ending in '/' names a directory; give the file's name too ({name})"
    try:
        if given.is_symlink() and _is_link_loop(given):
            return "it is a symbolic link in a loop (too many levels of symbolic links)"
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
    """Write ``text`` (a string, or pieces of one) to ``path`` as UTF-8 (lone surrogates
    escaped), atomically where the target may be replaced and in place where it may not,
    creating missing parent directories (the rules are in the module's docstring).

    Raises ``OSError`` (a missing-directory problem names the ancestor in the way), or
    whatever producing the pieces of ``text`` raises; no temporary file is left behind.
    """
    given = Path(path)
    descriptor = descriptor_of(given)
    if descriptor is not None:
        _write_descriptor(descriptor, text)
        return
    if is_stream(given):
        _write_in_place(given, text)
        return
    target = _followed(given)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "it is a directory")
    make_parents(target)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and (target != given or existing.st_nlink > 1):
        _write_in_place(target, text)  # a link's file keeps its inode (and its other names)
        return
    descriptor, temp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(descriptor, "w", encoding=ENCODING, errors=ERRORS) as handle:
            _put(handle, text)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is None:
            os.chmod(temp_name, _new_file_mode())
        else:
            os.chmod(temp_name, stat.S_IMODE(existing.st_mode))
            _keep_owner(temp_name, existing)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def descriptor_of(path: str | os.PathLike[str]) -> int | None:
    """The number of the open descriptor ``path`` names, or ``None``: ``/dev/stdout``,
    ``/dev/fd/N`` and ``/proc/self/fd/N`` (``/proc/<this process>/fd/N``) do, and so does a
    symbolic link leading to one of them (followed link by link, as the system would)."""
    current = os.path.abspath(os.fspath(path))
    for _ in range(_MAX_LINKS):
        try:
            parent = os.path.realpath(os.path.dirname(current))
        except (OSError, ValueError):
            return None
        match = _DESCRIPTOR_PATH.match(os.path.join(parent, os.path.basename(current)))
        if match and match.group("pid") in (None, "self", "thread-self", str(os.getpid())):
            return int(match.group("fd"))
        try:
            link = os.readlink(current)
        except (OSError, ValueError):
            return None  # not a link (or nothing there): not a descriptor
        current = os.path.normpath(os.path.join(os.path.dirname(current), link))
    return None


class Claims(list[tuple[str, str, object, str]]):
    """The files a session's writers will write (``(option, path as given, identity, real
    path)``), so that no two write the same file and no writer replaces a source file.
    Checked at configure time, before anything runs (and for the job summary at the end:
    a file made since has an inode then, so real paths are compared too)."""

    def claim(
        self,
        option: str,
        target: Target,
        what: str = "the report",
        *,
        sources: Iterable[str] = (),
        others: Iterable[tuple[str, str | os.PathLike[str]]] = (),
    ) -> None:
        """Note that ``option`` writes ``target``; raises :class:`UnwritablePath` when an
        earlier claim (or one of ``others``: ``(option, path)`` of files other plugins write,
        such as ``--junitxml``) names the same file, or when the target is an existing Python
        source file (a name ending in ``.py``, or matching one of the ``sources`` globs:
        ``python_files``, ``prob_pattern``). A device, pipe or descriptor (``/dev/null``,
        ``/dev/stdout``) may be shared: each writer writes its text in turn."""
        identity = _identity(target.path)
        if identity is None:
            return
        shown = target.shown
        names = {os.path.basename(target.path), os.path.basename(os.path.realpath(target.path))}
        globs = tuple(sources)
        if os.path.isfile(target.path) and any(
            name.endswith(".py") or any(fnmatch.fnmatch(name, glob) for glob in globs)
            for name in names
        ):
            raise UnwritablePath(option, shown, what, f"{shown!r} is a Python source file")
        real = os.path.realpath(target.path)
        outside = [
            (o, os.fspath(p), _identity(Path(os.path.abspath(p))), os.path.realpath(p))
            for o, p in others
        ]
        for other_option, given, other, other_real in [*self, *outside]:
            if other == identity or other_real == real:
                clash = f"{other_option}={given} writes the same file; give each its own path"
                raise UnwritablePath(option, shown, what, clash)
        self.append((option, shown, identity, real))


def failure(what: str, shown: str, exc: BaseException) -> str:
    """The one line saying that writing ``what`` (``"the JSON report"``) to ``shown`` failed:
    ``could not write the JSON report to out/r.json: No space left on device``; an error
    that is not the system's names its type (``ValueError: …``)."""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else describe(exc)
    return f"could not write {what} to {shown}: {reason}"


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
            why = f"{str(ancestor)!r} is not a directory"
            raise NotADirectoryError(errno.ENOTDIR, why) from None
        raise


def _is_link_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


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


def _keep_owner(name: str, existing: os.stat_result) -> None:
    """Give the new file ``name`` the owner and group of the file it replaces, where the
    system allows it (root may; others may keep their own group)."""
    owner = (existing.st_uid, existing.st_gid)
    if hasattr(os, "chown") and owner != (os.getuid(), os.getgid()):  # (Windows has none)
        with contextlib.suppress(OSError):
            os.chown(name, *owner)


def _identity(path: Path) -> object:
    """What makes two paths one file: its device and inode when it exists, else its real
    path; ``None`` for a device, pipe or descriptor, which writers may share."""
    if descriptor_of(path) is not None or is_stream(path):
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


def _write_in_place(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` into the existing file (or device, or pipe) ``path`` without replacing
    it: made in full first, so a failure while making it leaves ``path`` untouched."""
    with _spooled(text) as spool, open(_open_for_writing(path), "wb") as handle:
        shutil.copyfileobj(spool, handle)
        handle.flush()
        if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            os.fsync(handle.fileno())


def _open_for_writing(path: Path, flags: int = os.O_TRUNC) -> int:
    """A descriptor writing ``path`` in place (``flags``: ``O_TRUNC`` or ``O_APPEND``). The
    open never blocks: a named pipe is opened only once a process reads it, waiting at most
    :data:`PIPE_WAIT_SECONDS` (``OSError`` then: no process reads it), and is written with
    blocking writes after that."""
    deadline = time.monotonic() + PIPE_WAIT_SECONDS
    while True:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | flags, 0o666)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            if time.monotonic() >= deadline:
                why = f"no process read the named pipe within {PIPE_WAIT_SECONDS:g} s"
                raise OSError(errno.ENXIO, why) from None
            time.sleep(0.05)
            continue
        os.set_blocking(descriptor, True)
        return descriptor


def _write_descriptor(descriptor: int, text: str | Iterable[str]) -> None:
    """Write ``text`` through a duplicate of the process's open ``descriptor``, at its
    current position, after what Python's own streams hold for it."""
    with _spooled(text) as spool:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        with open(os.dup(descriptor), "wb") as handle:
            shutil.copyfileobj(spool, handle)


@contextlib.contextmanager
def _spooled(text: str | Iterable[str]) -> Iterator[IO[bytes]]:
    """``text`` encoded (:data:`ENCODING`, :data:`ERRORS`) into a spool, rewound."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        wrapper = io.TextIOWrapper(spool, encoding=ENCODING, errors=ERRORS)  # type: ignore[arg-type]
        try:
            _put(wrapper, text)
            wrapper.flush()
            spool.seek(0)
            yield spool  # type: ignore[misc]
        finally:
            wrapper.detach()


def _put(handle: IO[str], text: str | Iterable[str]) -> None:
    if isinstance(text, str):
        handle.write(text)
    else:
        handle.writelines(text)
