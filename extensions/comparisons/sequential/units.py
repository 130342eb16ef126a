"""Keeping a monitored function on one pytest-xdist worker without a verdict item.

A sequential comparison stops its runs only where one process ran every case it reads,
so under ``-n`` its function must be one unit of work. A function with a ``[compare:ARM]``
or ``[baseline]`` item already is (the kernel's case-aware scheduler groups a function
with function-level items); a comparison without a margin has no item — it has no verdict
— and the controller, which never collects, cannot tell which functions are compared. So
the workers tell it: the controller hands each worker a file path (``workerinput``), each
worker writes the keys of the functions it monitors there at the end of collection —
before pytest-xdist sends its collection — and the controller's scheduler reads them when
it first splits the collection (:func:`pytest_probability.api.add_function_units`).
When the file cannot be shared (a worker on another machine), the function is simply not
grouped: its workers see that some of its cases ran elsewhere and run every run, so the
verdicts are unchanged.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: the ``workerinput`` key with the file's path
WORKER_KEY = "prob_compare_units"
FILE_NAME = "units.json"


class UnitsChannel:
    """The controller's side (a temporary directory, removed at the end) or a worker's
    (the path it was given); neither when pytest-xdist is not running."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.directory: str | None = None
        workerinput = getattr(config, "workerinput", None)
        self.path: Path | None = None
        if workerinput is not None:
            given = workerinput.get(WORKER_KEY)
            self.path = Path(given) if given else None
        elif getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None):
            from pytest_probability.api import add_function_units

            self.directory = tempfile.mkdtemp(prefix="prob-units-")
            self.path = Path(self.directory) / FILE_NAME
            add_function_units(config, self.read)

    def give(self, node: Any) -> None:
        """Tell a worker where to write (the controller, per worker)."""
        if self.directory is not None and self.path is not None:
            node.workerinput[WORKER_KEY] = str(self.path)

    def write(self, functions: Iterable[str]) -> None:
        """Write the monitored functions' keys atomically (a worker; every worker writes
        the same keys, since every worker collects the same items)."""
        if self.directory is not None or self.path is None:
            return
        keys = sorted(set(functions))
        try:
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".units-")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(keys, file)
            os.replace(temporary, self.path)
        except OSError:
            return  # (not shared: the function is not grouped, its runs are not stopped)

    def read(self) -> list[str]:
        """The keys the workers wrote (the controller's scheduler asks once)."""
        if self.path is None:
            return []
        try:
            found = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [str(key) for key in found] if isinstance(found, list) else []

    def close(self) -> None:
        """Remove the controller's directory."""
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
