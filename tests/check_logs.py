"""Check the logs of a ``tests/run-all.sh`` run for warnings that must never appear: one from
our packaging (setuptools' ``BuildBackendWarning`` on an install) or from a hook wrapper
(pluggy's ``PluggyTeardownRaisedWarning``). Prints each line found, with its log and line
number, and exits 1 when there is one; 0 (saying how many logs were read) otherwise.

    python tests/check_logs.py .test-logs
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The warnings no leg's log may hold.
FORBIDDEN = ("BuildBackendWarning", "PluggyTeardownRaisedWarning")


def found_in(directory: Path) -> tuple[int, list[str]]:
    """How many logs were read, and ``log:line: text`` for every forbidden warning."""
    logs = sorted(directory.glob("*.log"))
    found = []
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(name in line for name in FORBIDDEN):
                found.append(f"{log.name}:{number}: {line.strip()}")
    return len(logs), found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/check_logs.py LOG_DIRECTORY", file=sys.stderr)
        return 2
    read, found = found_in(Path(argv[0]))
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} forbidden warning(s) in the logs ({', '.join(FORBIDDEN)})")
        return 1
    print(f"{read} logs read: none holds a forbidden warning")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
