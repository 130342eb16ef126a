"""The files a session wrote, for the one line each gets at the end of the terminal summary,
as ``--junitxml`` prints ``generated xml file: …``:

.. code-block:: text

   ------------------- probability: JSON report r.json (12 kB) -------------------

Pure: never imports pytest (it is handed the terminal reporter).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WrittenFile:
    """One file a writer wrote: ``what`` it is (``JSON report``), the path as the user gave
    it, and its size in bytes (``None`` for a device, pipe or descriptor)."""

    what: str
    shown: str
    size: int | None
    #: What else the line says, after the size (``for commit 3436624ab12c``).
    note: str = ""

    @property
    def line(self) -> str:
        """``probability: JSON report r.json (12 kB)``."""
        size = f" ({size_text(self.size)})" if self.size is not None else ""
        note = f" {self.note}" if self.note else ""
        return f"probability: {self.what} {self.shown}{size}{note}"


def written(what: str, shown: str, path: str | os.PathLike[str], note: str = "") -> WrittenFile:
    """The :class:`WrittenFile` of ``path`` as it is now (just written)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return WrittenFile(what, shown, None, note)
    size = info.st_size if stat.S_ISREG(info.st_mode) else None
    return WrittenFile(what, shown, size, note)


def print_written(terminalreporter: Any, files: list[WrittenFile]) -> None:
    """One separator line per file (paths as given, escapes made visible), unless ``-q``
    was given: as ``--junitxml`` prints its own."""
    if terminalreporter.config.option.verbose < 0:
        return
    from ..formatting.terminal_text import visible

    for file in files:
        terminalreporter.write_sep("-", visible(file.line))


def size_text(size: int) -> str:
    """A size as people read it: ``850 bytes``, ``12 kB``, ``3.4 MB`` (decimal units)."""
    if size < 1000:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < 999_500:
        return f"{size / 1000:.0f} kB"
    return f"{size / 1_000_000:,.1f} MB"
