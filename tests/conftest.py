"""Shared helpers for the test suite (pytester is enabled by ``-p pytester`` in addopts)."""

from __future__ import annotations

import json
import re
import sys
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


def _import_every_plugin_module() -> None:
    """Import every module of the plugin once, before any test runs.

    The plugin imports a feature's machinery when the feature is first used (start-up stays
    cheap), and pytester's in-process sessions forget the modules a session imported when
    it ends: a later in-process session would import a second copy of the module, whose
    classes are not the ones objects from the first copy are instances of. With every
    module imported here, every in-process session shares one copy, as a user's single
    session does. (``__main__`` is the command-line entry point, not imported.)
    """
    import importlib
    import pkgutil

    import pytest_probability
    import pytest_probability.extensions as extensions

    for package in (pytest_probability, extensions):  # two folders in an editable install
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)


_import_every_plugin_module()


def _import_hypothesis() -> None:
    """Import hypothesis, whose pytest plugin loads in every session, before any test runs.

    An in-process session that imports it would otherwise drop it again at its end (as
    above), so every such session imported hypothesis afresh; and since hypothesis is a
    ``pytest11`` distribution, pytest's assertion rewriter rewrote its ~75 modules each time
    (under ``PYTHONDONTWRITEBYTECODE=1``, with no cache to read: 2,835 rewrites in
    tests/test_gates.py alone, three quarters of its time).
    """
    try:
        import hypothesis
        import hypothesis.strategies  # noqa: F401
    except ImportError:  # the plain suite does not need it (tests/property does)
        pass


_import_hypothesis()

SEPARATOR = re.compile(r"^=+ (?P<title>.+?) =+$")

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


@pytest.fixture
def spec_bench(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the spec's example bench file."""
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    return pytester


#: Kernel tests look at the kernel's own output: the bundled intervals, cost and gates
#: extensions (tested in their own test modules) are switched off the way a user would,
#: with ``-p no:``.
KERNEL_ONLY = (
    "-p",
    "no:probability.intervals",
    "-p",
    "no:probability.cost",
    "-p",
    "no:probability.gates",
    "-p",
    "no:probability.latency",
    "-p",
    "no:probability.comparisons",
)


@pytest.fixture
def kernel_only(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every pytester session of the test without the intervals, cost and gates
    extensions."""
    for name in ("runpytest", "runpytest_subprocess"):
        original = getattr(pytester, name)

        def run(*args: Any, _original: Any = original, **kwargs: Any) -> pytest.RunResult:
            return _original(*args, *KERNEL_ONLY, **kwargs)

        monkeypatch.setattr(pytester, name, run)


@pytest.fixture(autouse=True)
def _collection_order(request: pytest.FixtureRequest) -> None:
    """Keep pytest-randomly (installed for the compatibility tests) from shuffling the runs of
    pytester sessions: their expected output is written in collection order. A test that
    wants random order deletes ``PYTEST_ADDOPTS`` (pytester itself clears it on creation,
    which is why this is set after the ``pytester`` fixture exists)."""
    if "pytester" not in request.fixturenames:
        return
    request.getfixturevalue("pytester")
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:randomly")
    # under GitHub Actions, sessions of the suite must not append to the job's summary page
    # (tests/test_markdown.py sets it where it tests it)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


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


@pytest.fixture
def recorded_clock(monkeypatch: pytest.MonkeyPatch) -> RecordedClock:
    """A :class:`RecordedClock` standing in for the run timer and the ``--prob-delay`` sleep of
    in-process pytester sessions; bench files reach it with ``import recorded_clock``."""
    from pytest_probability import collect, kernel

    clock = RecordedClock()
    monkeypatch.setattr(collect, "perf_counter", clock)
    monkeypatch.setattr(kernel, "sleep", clock.sleep)
    module = types.ModuleType("recorded_clock")
    module.clock = clock  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "recorded_clock", module)
    return clock


def pytest_configure(config: pytest.Config) -> None:
    """Register every bundled extension in this suite's own session: unit tests read the
    extensions' registries through ``pytestconfig`` (``test_gates``' interval methods), and
    a worker that collects no bench file would otherwise register none (they register when a
    session needs them)."""
    kernel = config.pluginmanager.get_plugin("probability.kernel")
    if kernel is not None:
        kernel.activate(config)
