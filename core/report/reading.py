"""Reading the files a user names (a baseline, a saved report, a price table): bounded, and
never blocking. Pure: never imports pytest.

A file is read only if it is a regular file (symbolic links followed) of at most ``limit``
bytes. It is opened without blocking, so a named pipe with no writer cannot hang the
session, and anything that is not a regular file (``/dev/zero``, a pipe, a socket) is refused
before a byte is read; a larger file is refused from its size, so a stray dump cannot fill
the memory. The callers put the option or file in front of the reason.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import errno
import os
import stat

#: The largest input file read: far above any report a session writes (a record is a few
#: hundred bytes), far below what parsing it would cost in memory.
INPUT_LIMIT = 256 * 1024 * 1024

_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
_REASONS = {
    errno.ENOENT: "no such file",
    errno.EACCES: "cannot read: permission denied",
    errno.ELOOP: "cannot read: too many levels of symbolic links (a link loop?)",
    errno.ENOTDIR: "cannot read: a part of its path is not a directory",
    errno.ENAMETOOLONG: "cannot read: the name is too long",
}


class UnreadableInput(ValueError):
    """An input file that is not read; ``str()`` is the reason (``is a directory``,
    ``is not a regular file (a named pipe)``, ``is larger than 256 MiB``, ``no such
    file``…), for the caller to put after the option or file it names."""


def read_input(path: str | os.PathLike[str], *, limit: int = INPUT_LIMIT) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; raises
    :class:`UnreadableInput` with the reason otherwise."""
    try:
        descriptor = os.open(
            path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        )
    except OSError as exc:
        raise UnreadableInput(_REASONS.get(exc.errno or 0, _reason(exc))) from None
    except ValueError as exc:  # (a NUL in the name)
        raise UnreadableInput(f"cannot read: {exc}") from None
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableInput("is a directory")
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "a special file")
            raise UnreadableInput(f"is not a regular file ({kind})")
        if info.st_size > limit:
            raise UnreadableInput(f"is larger than {size_text(limit)}")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise UnreadableInput(_reason(exc)) from None
    finally:
        os.close(descriptor)
    if len(data) > limit:  # (it grew while being read)
        raise UnreadableInput(f"is larger than {size_text(limit)}")
    return data


def size_text(size: int) -> str:
    """``256 MiB``, ``16 KiB``, ``100 bytes``: a size in the largest whole binary unit."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"


def _reason(exc: OSError) -> str:
    return f"cannot read: {exc.strerror or exc}"
