"""The session's spend, shared with pytest-xdist workers through a small file (rewritten
atomically by the aggregating process after every run; read by a worker before each run,
when it changed). A worker that can read it leaves a mark beside it (:func:`reader_mark`).
Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Tally:
    """Spend and runs so far."""

    spent: float = 0.0
    runs: int = 0

    def add(self, amount: float | None) -> None:
        self.runs += 1
        if amount is not None:
            self.spent += amount

    def write(self, path: Path) -> None:
        handle, temporary = tempfile.mkstemp(prefix=".tally.", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump({"spent": self.spent, "runs": self.runs}, stream)
        os.replace(temporary, path)


def reader_mark(path: Path, worker: str) -> Path:
    """The file a worker that reads the tally at ``path`` leaves beside it."""
    return path.parent / f"reader-{worker}"


class TallyReader:
    """A worker's view of the controller's tally (re-read only when the file changed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: tuple[int, int, int] | None = None
        self.tally = Tally()

    def read(self) -> Tally:
        try:
            status = self.path.stat()
        except OSError:
            return self.tally
        # each write replaces the file (a new inode): two writes within the file system's
        # clock tick have the same modification time
        stamp = (status.st_ino, status.st_mtime_ns, status.st_size)
        if stamp != self.seen:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                self.tally = Tally(float(data["spent"]), int(data["runs"]))
                self.seen = stamp
            except (OSError, ValueError, KeyError):
                pass  # a partial read between writes: keep the last good tally
        return self.tally
