"""Shared bench file and helpers for the example extension's tests (pytester sessions)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

#: Six runs per case. ``run`` fails (assert) on the runs in FAILS and errors (raises) on the
#: runs in ERRORS; every other run passes:
#:
#: ========  ======  ======  ======  ==========================
#: case      passes  fails   errors  more than half passed
#: ========  ======  ======  ======  ==========================
#: steady    6       0       0       yes
#: flaky     4       2       0       yes
#: tie       3       3       0       no (3 of 6 is not more)
#: errors    3       1       2       no
#: down      0       6       0       no
#: ========  ======  ======  ======  ==========================
BENCH = """
import pytest
from pytest_probability import current_run

FAILS = {"steady": (), "flaky": (2, 5), "tie": (1, 3, 5), "errors": (6,), "down": (1, 2, 3, 4, 5, 6)}
ERRORS = {"errors": (1, 4)}


@pytest.mark.parametrize("name", list(FAILS))
def bench_api(name):
    run = current_run().run
    if run in ERRORS.get(name, ()):
        raise ConnectionError("upstream timed out")
    assert run not in FAILS[name]
"""

#: (case id, passes, judged runs, errored runs) of BENCH with six runs
CASES = [
    ("api::steady", 6, 6, 0),
    ("api::flaky", 4, 6, 0),
    ("api::tie", 3, 6, 0),
    ("api::errors", 3, 6, 2),
    ("api::down", 0, 6, 0),
]

#: other installed contrib extensions that would add their own names to the listings compared
#: below (``-p no:`` of an extension that is not installed is harmless)
OTHERS = (
    "-p",
    "no:probability.agresti-coull",
    "-p",
    "no:probability.agreement",
)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding BENCH."""
    pytester.makepyfile(bench_api=BENCH)
    return pytester


def section(outlines: list[str], title: str) -> list[str] | None:
    """The lines of ``=== <title> ===``, or ``None`` when the section is absent."""
    header = re.compile(rf"^=+ {re.escape(title)} =+$")
    for index, line in enumerate(outlines):
        if header.match(line):
            body = []
            for rest in outlines[index + 1 :]:
                if re.match(r"^(=+|-+) .* (=+|-+)$", rest):  # (a section, or a file written)
                    break
                body.append(rest)
            return body
    return None


def load_json(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def rows_by_case(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["case"]: row for row in document["rows"]}
