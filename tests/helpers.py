"""Shared helpers for the test suite: plain functions, constants and classes that test
modules import with ``from helpers import ...`` (fixtures, hooks and the session set-up stay in
conftest.py, which imports what it needs from here).

Test modules and tests/property reach this module the way they reached conftest: pytest puts
``tests/`` on ``sys.path`` when it loads tests/conftest.py (the default ``prepend`` import
mode). pytester's in-process sessions run in this process, where ``helpers`` is already in
``sys.modules``: a bench file written by a test that imports a sibling module names it
something else.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SEPARATOR = re.compile(r"^=+ (?P<title>.+?) =+$")
#: The line naming a file the session wrote (``--- probability: JSON report r.json (1 kB) ---``)
WRITTEN_LINE = re.compile(r"^-+ probability: .+ -+$")

#: The spec's first example, with deterministic outcomes (the run index decides).
SPEC_BENCH = """
import pytest
from pytest_probability import current_run


@pytest.mark.parametrize("text,expected", [
    pytest.param("is this a question?", "question", id="is_question"),
    pytest.param("my ssn is 078-05-1120", "pii", id="identify_pii"),
    pytest.param("pay me $40", "amount", id="extract_amount"),
])
def bench_classify(text, expected):
    run = current_run().run
    if expected == "pii":
        assert run not in (2, 5, 9), "got 'other'"
    elif expected == "amount":
        assert "other" == "amount"


@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
@pytest.mark.parametrize("text", [pytest.param("my card was charged twice", id="refund")])
def bench_triage(text, style):
    run = current_run().run
    if style == "terse":
        assert run not in (4, 7)
"""


#: the explain extension's one-line hint at the end of the main section
EXPLAIN_HINT = re.compile(r"^  --prob-explain reads .* in plain words$")


#: a comparison without a margin (no ``[compare:ARM]`` item) beside an uncompared function:
#: under ``--prob-stop=sequential`` it settles before its 30 runs (tests of its grouping
#: under pytest-xdist, on one machine and across hosts)
EXPLORATORY_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="style")
@pytest.mark.parametrize("style", ["terse", "cot"])
@pytest.mark.parametrize("i", range(6))
def bench_ab(i, style):
    assert style == "cot" or (current_run().run + i) % 3 == 0

@pytest.mark.parametrize("k", range(8))
def bench_other(k):
    pass
"""


def section(lines: list[str], title: str = "probability", hint: bool = False) -> list[str]:
    """The lines of one ``=== title ===`` section of pytest's output (without the header).

    The explain extension's hint line (and the blank line before it) is left out of the main
    section unless ``hint`` is true: most tests are about other lines (tests/test_explain.py
    checks the hint).
    """
    out: list[str] = []
    inside = False
    for line in lines:
        match = SEPARATOR.match(line)
        if inside and WRITTEN_LINE.match(line):
            break  # (the files written come after every section)
        if match:
            if inside:
                break
            inside = match.group("title") == title
            continue
        if inside:
            out.append(line)
    if not hint and out and EXPLAIN_HINT.match(out[-1]):
        out = out[:-2] if len(out) > 1 and out[-2] == "" else out[:-1]
    return out


#: JSON report keys that differ between two sessions of one suite (times, workers, dates)
VOLATILE = {"elapsed", "latency", "worker", "created"}


def stable(value: Any) -> Any:
    """A JSON report (or part of one) without the keys in :data:`VOLATILE`."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def load_json(path: Path) -> dict[str, Any]:
    """Load a report, refusing NaN/Infinity (strict RFC 8259)."""

    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(Path(path).read_text(encoding="utf-8"), parse_constant=refuse)


@dataclass
class Work:
    """What a call did, counted instead of timed: the Python lines it executed and the
    functions it called (by name, C functions such as ``comb`` included). Counts do not
    change with the machine's load, so a test can bound them where a clock would flake."""

    result: Any = None
    lines: int = 0
    calls: Counter[str] = field(default_factory=Counter)


def count_work(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Work:
    """Call ``function(*args, **kwargs)`` in this thread and count its work (see :class:`Work`)."""
    work = Work()

    def on_line(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            work.lines += 1
        return on_line

    def on_call(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            work.calls[frame.f_code.co_name] += 1
        elif event == "c_call":
            work.calls[getattr(arg, "__name__", "?")] += 1

    previous_trace, previous_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(lambda frame, event, arg: on_line)
    sys.setprofile(on_call)
    try:
        work.result = function(*args, **kwargs)
    finally:
        sys.setprofile(previous_profile)
        sys.settrace(previous_trace)
    return work


class RecordedClock:
    """A clock that moves only when told: ``advance(seconds)`` or ``sleep(seconds)``.

    ``events`` keeps what happened in order (``("sleep", seconds)`` and whatever a bench
    appends with ``note``), so a test checks when the plugin slept and what it timed without
    reading a real clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.events: list[tuple[str, Any]] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.events.append(("sleep", seconds))
        self.now += seconds

    def note(self, what: str, value: Any = None) -> None:
        self.events.append((what, value))


def third_party_blocks() -> list[str]:
    """``-p no:probability.NAME`` for every installed third-party extension (the contrib
    packages, in the suite's environments): a test of which bundled extensions a session
    registers counts ours only, since an installed extension implementing a bundled
    extension's hooks registers that extension too."""
    from importlib.metadata import entry_points

    names = sorted({ep.name for ep in entry_points(group="pytest_probability.extensions")})
    return [arg for name in names for arg in ("-p", f"no:probability.{name}")]


def install_extension(
    path: Path, hook: str, body: str, arguments: str = "", name: str = "hostile"
) -> str:
    """A real installed extension in ``path``: a distribution ``NAME_ext`` whose
    ``pytest_probability.extensions`` entry point ``NAME`` is a module implementing ``hook``
    (first in pluggy's order, taking ``arguments``) with ``body``. Returns the ``PYTHONPATH``
    that installs it."""
    (path / f"{name}_ext.py").write_text(
        f"import pytest\n\n@pytest.hookimpl(tryfirst=True)\ndef {hook}({arguments}):\n    {body}\n"
    )
    info = path / f"{name}_ext-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-ext\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[pytest_probability.extensions]\n{name} = {name}_ext\n"
    )
    return str(path)
