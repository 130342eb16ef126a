"""Sum the JUnit XML files of one leg of tests/run-all.sh: prints ``passed|failed|skipped``
(``-|-|-`` when the leg ran no pytest). Usage: python tests/junit_counts.py LOGDIR LEG."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def counts(directory: Path, leg: str) -> str:
    passed = failed = skipped = 0
    files = [f for f in sorted(directory.glob(f"{leg}.*")) if f.suffix != ".log"]
    seen = False
    for path in files:
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError):
            failed += 1  # a run that died before writing its report counts as a failure
            continue
        suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
        for suite in suites:
            seen = True
            tests = int(suite.get("tests", 0))
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skip = int(suite.get("skipped", 0))
            passed += tests - bad - skip
            failed += bad
            skipped += skip
    if not seen and not failed:
        return "-|-|-"
    return f"{passed}|{failed}|{skipped}"


if __name__ == "__main__":
    print(counts(Path(sys.argv[1]), sys.argv[2]))
