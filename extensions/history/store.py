"""The history directory: entry names, writing an entry, listing and pruning. Pure: never
imports pytest.

An entry is one session's JSON report, named ``YYYYMMDDTHHMMSS.ffffffZ_<commit>.json``: the
UTC time of the write to the microsecond, then the first 12 hexadecimal digits of the commit
or ``nogit`` (``20261205T225316.123456Z_3436624ab12c.json``). The names sort by time, so
listing and pruning go by name; the reading side (``python -m pytest_probability history``)
parses exactly this pattern. Every other file in the directory (notes, the writer's
temporary files ``.NAME.tmp``) is ignored and never deleted.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

#: An entry's file name (the reading side parses the same pattern).
ENTRY_NAME = re.compile(r"(?P<stamp>\d{8}T\d{6}\.\d{6}Z)_(?P<commit>[0-9a-f]{12}|nogit)\.json")
#: The name part for an entry without a commit.
NO_COMMIT = "nogit"
#: How many digits of the commit the name keeps.
SHORT_COMMIT = 12
#: Names tried at most when the time's name is taken (each a microsecond later).
MAX_TRIES = 1000

#: The write of one entry: ``(path, text)``, raising ``OSError`` (the report writer).
Writer = Callable[[Path, str], None]
#: The text of the entry named ``name``, recorded at ``when``.
Render = Callable[[str, datetime], str]


def utc_now() -> datetime:
    return datetime.now(UTC)


def entry_name(when: datetime, commit: str | None) -> str:
    """The file name of an entry written at ``when`` (made UTC) for ``commit`` (a full
    commit id, or ``None``)."""
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}_{commit[:SHORT_COMMIT] if commit else NO_COMMIT}.json"


def recorded_text(when: datetime) -> str:
    """``when`` as the entry's ``history.recorded`` holds it: ``2026-12-05T22:53:16.123456Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def is_entry(name: str) -> bool:
    """Whether ``name`` is an entry's file name."""
    return ENTRY_NAME.fullmatch(name) is not None


def list_entries(directory: str | os.PathLike[str]) -> list[str]:
    """The names of the entries in ``directory``, oldest first: regular files (or links to
    them) whose name is an entry's. Raises ``OSError`` when the directory cannot be read."""
    found = []
    with os.scandir(directory) as listing:
        for item in listing:
            if not is_entry(item.name):
                continue
            with contextlib.suppress(OSError):  # (gone meanwhile, or unreadable: not ours)
                if item.is_file():
                    found.append(item.name)
    return sorted(found)


def write_entry(
    directory: Path,
    commit: str | None,
    render: Render,
    write: Writer,
    now: Callable[[], datetime] = utc_now,
) -> str:
    """Write a new entry to ``directory`` (created if missing) and return its name; never
    replaces an entry.

    The text (``render(name, when)``) goes through ``write`` (the report writer: atomic,
    parents created) to a hidden staging file, which is then linked under the entry's name:
    a link fails when the name exists, so two sessions writing the same directory in the
    same microsecond keep both entries (the later one is named a microsecond later). Where
    the file system has no hard links the staging file is renamed instead, after checking
    that the name is free. Raises ``OSError`` (and whatever ``render`` raises); the staging
    file never stays behind.
    """
    when = now()
    for _ in range(MAX_TRIES):
        name = entry_name(when, commit)
        if not os.path.lexists(directory / name):
            staged = directory / f".{name}.staged"
            with contextlib.suppress(OSError):  # (a stale one may be linked elsewhere)
                os.unlink(staged)
            try:
                write(staged, render(name, when))
                if _published(staged, directory / name):
                    return name
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(staged)
        when += timedelta(microseconds=1)
    raise FileExistsError(f"{MAX_TRIES} entry names in a row are taken in {directory}")


def _published(staged: Path, final: Path) -> bool:
    """Give the staged file its entry name unless a file has that name (then ``False``:
    another session took it meanwhile)."""
    try:
        os.link(staged, final)
    except FileExistsError:
        return False
    except OSError:  # (no hard links here: FAT, some network shares)
        if os.path.lexists(final):
            return False
        os.replace(staged, final)
    return True


@dataclass
class Pruned:
    """What :func:`prune` did: the entries removed (oldest first) and those it could not
    remove, with the reason."""

    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def prune(directory: str | os.PathLike[str], keep: int, new: str) -> Pruned:
    """Remove the oldest entries of ``directory`` (by name) so that ``keep`` remain, the
    entry ``new`` just written among them whatever its name (a clock set back must not cost
    the newest session). Only entries are removed; one another process removed first is
    not counted. Raises ``OSError`` when the directory cannot be listed."""
    names = list_entries(directory)
    others = [name for name in names if name != new]
    room = keep - 1 if new in names else keep
    pruned = Pruned()
    for name in others[: max(0, len(others) - room)]:
        try:
            os.unlink(os.path.join(directory, name))
        except FileNotFoundError:
            continue
        except OSError as exc:
            pruned.failed.append((name, exc.strerror or str(exc)))
        else:
            pruned.removed.append(name)
    return pruned


def directory_problem(path: str | os.PathLike[str], *, listed: bool = False) -> str | None:
    """Why ``path`` cannot be the history directory, or ``None``: it must be a directory
    that can be written to (and read, when ``listed``: pruning lists it), or be missing
    below a writable directory (it is created when the first entry is written)."""
    given = Path(os.path.abspath(os.fspath(path)))
    try:
        if os.path.lexists(given) and not given.exists():
            return "it is a symbolic link to nothing (or in a loop)"
        if given.exists():
            if not given.is_dir():
                return (
                    "it is a file, not a directory" if given.is_file() else "it is not a directory"
                )
            if not os.access(given, os.W_OK | os.X_OK):
                return f"directory {str(given)!r} is not writable"
            if listed and not os.access(given, os.R_OK):
                return f"directory {str(given)!r} is not readable"
            return None
        ancestor = next(parent for parent in given.parents if os.path.lexists(parent))
        if not ancestor.is_dir():
            return f"{str(ancestor)!r} is not a directory"
        if not os.access(ancestor, os.W_OK | os.X_OK):
            return f"directory {str(ancestor)!r} is not writable"
    except OSError as exc:  # a path the system refuses to look at (too long, no access)
        return str(exc.strerror or exc)
    except ValueError as exc:  # (a NUL character)
        return str(exc)
    return None
