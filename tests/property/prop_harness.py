"""The property suite's harness: running sessions of a drawn example, reading what they
printed and wrote, the registry of invariants, and the hypothesis profiles.

An invariant is one of two kinds (docs/internals.rst, "The property suite"):

* a **session check** — ``check(example, session)`` — holds for every session the suite
  runs, whatever its flags (strict JSON, fractions, intervals containing their estimates);
* a **relation** — two or more sessions of one example whose flags differ in a way the
  spec says cannot matter, and a ``check(example, sessions)`` comparing them (stopping
  keeps verdicts, ``-n 2`` equals serial, ...).

Both are registered with :func:`session_check` and :func:`relation`; the generic property
test (``test_properties.py``) runs every relation over drawn examples and every session
check over every session it ran. An extension's own invariants are one more call to
either, from a module that ``test_properties.py`` imports.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from prop_suites import PRICE_TABLE, Example, Flags, baseline_json, costs_json

SEPARATOR = re.compile(r"^=+ (?P<title>.+?) =+$")
SUMMARY = re.compile(r"^=+ (?P<counts>.*) in [0-9.]+s(?: \([0-9:]+\))? =+$")
#: The line naming a file the session wrote (``--- probability: JSON report r.json (1 kB) ---``)
WRITTEN = re.compile(r"^-+ probability: .+ -+$")

# -- profiles --------------------------------------------------------------------------------

#: ``PROB_PROPERTY_PROFILE=slow`` runs ten times the examples of the default ``ci`` profile,
#: with a random seed (hypothesis prints ``@reproduce_failure`` for a failure).
PROFILE = os.environ.get("PROB_PROPERTY_PROFILE", "ci")
FACTOR = {"ci": 1, "slow": 10}[PROFILE]

_COMMON: dict[str, Any] = dict(
    deadline=None,
    database=None,
    print_blob=True,
    # the explain phase traces lines with sys.settrace: slow, and the report-work invariant
    # traces lines itself
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # one pytester directory serves every example
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile("prob-ci", derandomize=True, **_COMMON)
settings.register_profile("prob-slow", derandomize=False, **_COMMON)


def examples_for(base: int) -> int:
    """The examples a property test with ``base`` examples in the ci profile runs now."""
    return base * FACTOR


def profile_settings(base: int) -> settings:
    return settings(settings.get_profile(f"prob-{PROFILE}"), max_examples=examples_for(base))


# -- sessions --------------------------------------------------------------------------------


def load_strict(path: Path) -> Any:
    """A JSON file read as RFC 8259 demands: NaN and Infinity are refused."""

    def refuse(token: str) -> Any:
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


@dataclass
class Session:
    """One pytest session of an example, as it finished."""

    name: str
    flags: Flags
    args: list[str]
    workers: int
    ret: int
    lines: list[str]
    directory: Path
    report: dict[str, Any] | None = None
    report_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: the suite it ran (the example's, or the one its relation gave it)
    suite: Any = None

    def sections(self) -> dict[str, list[str]]:
        """``{title: lines}`` of every ``=== probability... ===`` section."""
        found: dict[str, list[str]] = {}
        title = None
        for line in self.lines:
            if WRITTEN.match(line):
                title = None  # (the files written follow every section)
                continue
            match = SEPARATOR.match(line)
            if match:
                title = match.group("title")
                if SUMMARY.match(line) or not title.startswith("probability"):
                    title = None
                else:
                    found[title] = []
                continue
            if title is not None:
                found[title].append(line)
        return found

    def outcomes(self) -> dict[str, int]:
        """pytest's final counts (``{"passed": 3, "xfailed": 1}``)."""
        for line in reversed(self.lines):
            match = SUMMARY.match(line)
            if match:
                found = {}
                for part in match.group("counts").split(", "):
                    number, _, word = part.partition(" ")
                    if number.isdigit():
                        found[word.rstrip("s") if word.endswith("s") else word] = int(number)
                return found
        return {}

    def summary_lines(self) -> list[str]:
        """The ``short test summary info`` lines (``FAILED ... - message``)."""
        out, inside = [], False
        for line in self.lines:
            match = SEPARATOR.match(line)
            if match:
                inside = match.group("title") == "short test summary info"
                continue
            if inside:
                out.append(line)
        return out

    def text(self) -> str:
        return "\n".join(self.lines)

    def describe(self) -> str:
        workers = f" -n {self.workers}" if self.workers else ""
        return f"[{self.name}] exit {self.ret}: pytest{workers} {' '.join(self.args)}"


class Runner:
    """Runs the sessions of drawn examples, each example in a directory of its own (the
    bench files of two examples must never share a ``__pycache__``)."""

    counter = itertools.count()

    def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pytester = pytester
        self.monkeypatch = monkeypatch
        self.directory = pytester.path
        self.suite: Any = None

    def prepare(
        self,
        example: Example | None = None,
        files: Mapping[str, str] | None = None,
        conftest: str = "",
    ) -> Path:
        """A new directory holding the example's bench files (or ``files``); later
        sessions run there."""
        directory = self.pytester.path / f"example{next(self.counter)}"
        directory.mkdir()
        (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        if files is None:
            assert example is not None
            files = example.suite.files()
        files = dict(files)
        if conftest:  # after the suite's own (a third-party gate's registration)
            files["conftest.py"] = files.get("conftest.py", "") + "\n\n" + conftest
        for name, text in files.items():
            (directory / name).write_text(text, encoding="utf-8")
        self.directory = directory
        self.suite = example.suite if example is not None else None
        return directory

    def run(self, name: str, flags: Flags, workers: int = 0) -> Session:
        """A session in the current example's directory: in-process, or under ``-n`` in a
        subprocess (``runpytest_subprocess``)."""
        directory = self.directory
        self.monkeypatch.chdir(directory)
        earlier = baseline_json(flags)
        if earlier is not None:
            (directory / "earlier.json").write_text(earlier, encoding="utf-8")
        if flags.writer_dir:  # a directory that does not exist yet
            shutil.rmtree(directory / flags.writer_dir.split("/")[0], ignore_errors=True)
        for stale in ("report.json", "report.html", "report.md", "saved.toml", "plan.toml"):
            (directory / stale).unlink(missing_ok=True)
        if flags.price_table:
            (directory / "prices.toml").write_text(PRICE_TABLE, encoding="utf-8")
        if flags.plan_report and self.suite is not None:
            (directory / "costs.json").write_text(costs_json(self.suite), encoding="utf-8")
        cache = [] if flags.cache else ["-p", "no:cacheprovider"]
        args = [*cache, "-rfE", "--tb=line", *flags.args()]
        if workers:
            result = self.pytester.runpytest_subprocess("-n", str(workers), *args, timeout=300)
        else:
            # pytester echoes an in-process session's output: keep it out of this test's
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                result = self.pytester.runpytest(*args)
        session = Session(
            name=name,
            flags=flags,
            args=args,
            workers=workers,
            ret=int(result.ret),
            lines=list(result.outlines),
            directory=directory,
        )
        session.extra["errlines"] = list(result.errlines)
        work = directory / "work.json"
        if work.exists():  # written by a relation's conftest (the report-work invariant)
            session.extra["work"] = json.loads(work.read_text(encoding="utf-8"))
            work.unlink()
        path = directory / flags.writer_dir / "report.json"
        if flags.json and path.exists():
            try:
                session.report = load_strict(path)
            except ValueError as exc:
                session.report_error = str(exc)
        elif flags.json and session.ret in (0, 1):
            session.report_error = "no JSON report was written"
        session.suite = self.suite
        return session


# -- the registry ----------------------------------------------------------------------------

SessionCheckFunction = Callable[[Example, Session], None]
RelationCheck = Callable[[Example, Mapping[str, Session]], None]


@dataclass(frozen=True)
class SessionCheck:
    """An invariant of every session: ``check`` raises ``AssertionError`` when it fails."""

    name: str
    check: SessionCheckFunction
    doc: str = ""


@dataclass(frozen=True)
class Relation:
    """An invariant between sessions of one example.

    :ivar sessions: ``example -> {session name: (flags, workers[, suite])}`` — the
        sessions to run (the first is the reference; a session runs the example's suite
        unless it names another), or ``None`` when the relation does not apply to the
        example (the property test then draws another).
    :ivar check: compares the sessions; raises ``AssertionError``.
    :ivar known: ``example -> reason`` when the example hits a seam known to fail today
        (an issue number and section): the property test leaves such examples out with
        ``assume``, and a strict-xfail regression test in test_regressions.py keeps the
        reproduction, so the exclusion is removed when the seam is fixed.
    :ivar examples: examples in the ci profile (ten times as many in the slow one).
    :ivar max_functions: the most bench functions a drawn suite has.
    :ivar budget: whether the options no comparison of sessions survives may be drawn:
        ``--prob-budget-runs`` and ``--prob-budget`` (which runs are made depends on order
        and spend), ``--prob-plan`` (nothing runs), ``--prob-slowest`` (measured times).
    :ivar conftest: a ``conftest.py`` written beside the bench files (after the suite's
        own, when it registers a third-party gate).
    :ivar bias: what the drawn examples are for (``prop_suites.BIASES``): ``"stopping"``
        draws more gates, runs and steady outcomes, ``"combined"`` two or three checks on
        every function.
    :ivar min_stopped: the share of examples whose sessions must stop at least one case
        (the property test fails otherwise): a stopping relation that stops nothing checks
        nothing.
    :ivar min_combined: the share of examples in which the exact replay of the stopping
        rule (``prop_replay``) must have followed a case with two or more checks.
    """

    name: str
    sessions: Callable[[Example], dict[str, tuple[Any, ...]] | None]
    check: RelationCheck
    known: Callable[[Example], str | None] = lambda example: None
    examples: int = 10
    max_functions: int = 3
    budget: bool = False
    conftest: str = ""
    doc: str = ""
    bias: str = ""
    min_stopped: float = 0.0
    min_combined: float = 0.0


SESSION_CHECKS: list[SessionCheck] = []
RELATIONS: list[Relation] = []


def session_check(name: str, doc: str = "") -> Callable[[SessionCheckFunction], Any]:
    """Register ``check(example, session)`` as an invariant of every session."""

    def register(function: SessionCheckFunction) -> SessionCheckFunction:
        SESSION_CHECKS.append(SessionCheck(name, function, doc or (function.__doc__ or "")))
        return function

    return register


def relation(item: Relation) -> Relation:
    """Register a relation between sessions."""
    if any(known.name == item.name for known in RELATIONS):
        raise ValueError(f"relation {item.name!r} is registered twice")
    RELATIONS.append(item)
    return item


def run_relation(runner: Runner, item: Relation, example: Example) -> dict[str, Session]:
    """Run the relation's sessions of ``example`` and check every session, then the
    relation; an ``AssertionError`` names the example, the sessions and what differs."""
    plan = item.sessions(example)
    assert plan is not None
    if len(plan) > 1:
        # where runs overlap, a case stops on the runs completed when a run is to start,
        # which no other session reproduces: sessions compared stop one run at a time
        plan = {
            name: (replace(flags, concurrency=None), *rest)
            if flags.stop and (flags.concurrency or 1) > 1 and flags.threads
            else (flags, *rest)
            for name, (flags, *rest) in plan.items()
        }
    sessions = {}
    directories: dict[Any, Path] = {}
    for name, (flags, workers, *rest) in plan.items():
        suite = rest[0] if rest else example.suite
        if suite not in directories:
            directories[suite] = runner.prepare(
                example, files=suite.files(), conftest=item.conftest
            )
        runner.directory, runner.suite = directories[suite], suite
        sessions[name] = runner.run(name, flags, workers)
    try:
        check_sessions(example, sessions, item)
    finally:
        log = os.environ.get("PROB_PROPERTY_LOG")
        if log:  # one line per example: what the suite explored
            _log(log, item, example, sessions)
    return sessions


def _log(path: str, item: Relation, example: Example, sessions: Mapping[str, Session]) -> None:
    cases = len(list(example.suite.cases()))
    exits = ",".join(str(s.ret) for s in sessions.values())
    stopped = ",".join(
        str(((s.report or {}).get("stopping") or {}).get("stopped_cases", "-"))
        for s in sessions.values()
    )
    replayed = ",".join(
        "-" if s.extra.get("replay") is None else _replayed(s.extra["replay"])
        for s in sessions.values()
    )
    kinds = ",".join(
        f"{kind}:{'/'.join(map(str, counts))}"
        for s in sessions.values()
        for kind, counts in getattr(s.extra.get("replay"), "kinds", {}).items()
    )
    with open(path, "a", encoding="utf-8") as handle:
        print(
            f"{item.name}\t{cases} cases\texit {exits}\tstopped {stopped}\treplayed {replayed}"
            f"\t{example.flags.command()}\tchecks {kinds or '-'}",
            file=handle,
        )


def _replayed(stats: Any) -> str:
    """``modeled/combined/stopped/combined stopped/held/unmodeled`` cases of the replay (and,
    in the last column, per combination of checks: ``cases/stopped/held``)."""
    fields = ("modeled", "combined", "stopped", "combined_stopped", "held", "unmodeled")
    return "/".join(str(getattr(stats, name)) for name in fields)


def check_sessions(example: Example, sessions: Mapping[str, Session], item: Relation) -> None:
    where = "\n".join(s.describe() for s in sessions.values())
    for session in sessions.values():
        for check in SESSION_CHECKS:
            try:
                check.check(example, session)
            except AssertionError as exc:
                raise AssertionError(
                    f"session check {check.name!r} failed in {session.describe()}:\n{exc}\n\n"
                    f"{example.describe()}\n\n--- output ---\n{session.text()}"
                ) from None
    try:
        item.check(example, sessions)
    except AssertionError as exc:
        raise AssertionError(
            f"relation {item.name!r} failed:\n{exc}\n\nsessions:\n{where}\n\n{example.describe()}"
        ) from None
