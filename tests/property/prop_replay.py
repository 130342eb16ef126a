"""Where ``--prob-stop`` stops each gated case: an exact replay, written from the
documentation, not from the stopper.

docs/stopping.rst ("Curtailment", "A case with several checks", "Verdicts that read a case",
"Sequential stopping") says when a case stops. Before run ``r`` of a gated case the rule
looks at the runs made (``r − 1``: passes, judged runs) and the runs left of those planned,
and asks of each check what the *completions* allow: each remaining run may pass, fail or
not be judged, so a completion ends with ``N`` judged runs, ``n ≤ N ≤ n + left``, and
``P`` passes, ``p ≤ P ≤ p + N − n``. A check is *certainly* V when every completion gives it
V; it *can* PASS (FAIL) when some completion does. The case's verdict, the worst of its
checks, is then settled:

* FAIL as soon as one check is certainly FAIL;
* PASS when every check is certainly PASS;
* UNDECIDED once no check can FAIL and one can no longer PASS.

Under ``--prob-stop=sequential`` a rate gate is judged on the confidence sequence, valid at
every look: PASS or FAIL on the runs made settles it so; still UNDECIDED there, it is
settled as above. A case with no judged run yet never stops. A verdict that cannot say when
it is settled keeps a settled case running: its own latency gate, unless the verdict is FAIL
(the worst of its checks whatever the latency says), and, under ``curtail``, a comparison
margin reading the case or ``--prob-margin`` against a baseline report that pairs it, even
on a FAIL. Each run made for them is ``stop_held`` (when the run was not a skip), and the row
says ``kept_running`` (service.py, ``case_kept``).

The replay here decides each of those by brute force over every completion, from each
gate's own definition: a rate gate PASS iff its interval's low end is above the bar, FAIL iff
its high end is below (the exact interval through its binomial tails, computed with exact
fractions; Wilson's from its formula; the ``bayes`` and ``seq`` endpoints from the plugin's
interval functions, the only thing borrowed), a count gate PASS iff ``passes ≥ min_passes``,
the third-party gates of ``prop_suites.THIRD_PARTY`` by their definitions. The outcomes of
each run come from the suite's model (run ``r`` plays ``sequence[(r − 1) % len]``), never
from the session. Cases whose stop another verdict decides (a comparison or a baseline margin
monitored under ``sequential``; a margin under ``-k``) are not replayed; the session then
says which.

The session check :func:`stops_where_the_replay_says` compares the session with the replay,
case by case and in the totals.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb, sqrt
from statistics import NormalDist
from typing import Any

from prop_harness import Relation, Session, relation, session_check
from prop_suites import ARM_AXIS, THIRD_PARTY, Example, Flags, Function, Suite
from pytest_probability.extensions.stopping.sequence import confidence_sequence
from pytest_probability.stats.rate_intervals import bayes

PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"
OUTCOMES = {"p": "pass", "f": "fail", "e": "error", "s": "skip"}
RATE, COUNT, LATENCY = "rate", "count", "latency"
#: the verdicts that read a case and cannot say when they are settled (they hold it)
HELD_BY_LATENCY, HELD_BY_MARGIN, HELD_BY_BASELINE = "latency", "margin", "baseline"
STOPPED = re.compile(r"^  Stopped: (?P<cases>\d+) cases? early, saving (?P<saved>\d+) of ")


# -- the gates, from their definitions -----------------------------------------------------


def _upper_tail(passes: int, n: int, rate: Fraction) -> Fraction:
    """``P(X ≥ passes)`` for ``X ~ Binomial(n, rate)``, exactly."""
    return sum(
        (comb(n, k) * rate**k * (1 - rate) ** (n - k) for k in range(passes, n + 1)), Fraction(0)
    )


def _lower_tail(passes: int, n: int, rate: Fraction) -> Fraction:
    """``P(X ≤ passes)``, exactly."""
    return sum(
        (comb(n, k) * rate**k * (1 - rate) ** (n - k) for k in range(passes + 1)), Fraction(0)
    )


def _wilson(passes: int, n: int, level: float) -> tuple[float, float]:
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    centre = (passes + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * sqrt(passes * (n - passes) / n + z * z / 4)
    low = 0.0 if passes == 0 else max(0.0, centre - half)
    high = 1.0 if passes == n else min(1.0, centre + half)
    return low, high


@functools.cache
def rate_verdict(
    bar: float, method: str, level: float, prior: tuple[float, float], passes: int, n: int
) -> str:
    """A rate gate: PASS iff the interval's low end is above the bar, FAIL iff its high end
    is below, else (and with no judged run) UNDECIDED.

    The exact (Clopper–Pearson) interval's low end is above the bar iff
    ``P(X ≥ passes | bar) < α/2`` (and its high end below iff ``P(X ≤ passes | bar) < α/2``):
    the definition of its ends, evaluated in exact fractions."""
    if n == 0:
        return UNDECIDED
    if method == "exact":
        half = (1 - Fraction(level)) / 2
        at = Fraction(bar)
        if passes > 0 and _upper_tail(passes, n, at) < half:
            return PASS
        if passes < n and _lower_tail(passes, n, at) < half:
            return FAIL
        return UNDECIDED
    if method == "wilson":
        low, high = _wilson(passes, n, level)
    elif method == "bayes":
        found = bayes(passes, n, level, prior)
        low, high = found.low, found.high
    elif method == "seq":
        low, high = confidence_sequence(passes, n, level)
    else:  # pragma: no cover - the generator draws no other method
        raise AssertionError(f"the replay knows no interval method {method!r}")
    return PASS if low > bar else FAIL if high < bar else UNDECIDED


@dataclass(frozen=True)
class Check:
    """One check of a case whose verdict depends only on its pass count."""

    kind: str
    value: Any
    method: str = "exact"
    level: float = 0.95
    prior: tuple[float, float] = (1.0, 1.0)

    def verdict(self, passes: int, n: int) -> str:
        if self.kind == RATE:
            return rate_verdict(self.value, self.method, self.level, self.prior, passes, n)
        if self.kind == COUNT:
            return PASS if passes >= self.value else FAIL
        fails = n - passes
        if self.kind == "max_fails":
            return FAIL if fails > self.value else PASS
        if self.kind == "fail_band":
            return PASS if fails <= self.value else FAIL if fails > 2 * self.value else UNDECIDED
        raise AssertionError(f"the replay knows no gate kind {self.kind!r}")

    def describe(self) -> str:
        if self.kind == RATE:
            return f"min_rate={self.value} ({self.method}, {self.level})"
        return f"{'min_passes' if self.kind == COUNT else self.kind}={self.value}"


def completions(passes: int, judged: int, left: int) -> Iterable[tuple[int, int]]:
    """Every ``(P, N)`` a case can end with: each of the ``left`` runs passes, fails or is
    not judged."""
    for more in range(left + 1):  # further judged runs
        for passed in range(more + 1):  # of which passed
            yield passes + passed, judged + more


def outlook(check: Check, passes: int, judged: int, left: int, sequential: bool) -> frozenset[str]:
    """The verdicts the check can still end with. Under ``sequential`` a rate gate PASS or
    FAIL on its sequence now is settled so."""
    if sequential and check.kind == RATE:
        now = check.verdict(passes, judged)
        if now != UNDECIDED:
            return frozenset({now})
    return frozenset(check.verdict(p, n) for p, n in completions(passes, judged, left))


def decide(
    checks: tuple[Check, ...], passes: int, judged: int, left: int, sequential: bool
) -> str | None:
    """The case's settled verdict by the documented rule, or ``None`` to make the next run."""
    found = [outlook(check, passes, judged, left, sequential) for check in checks]
    if any(verdicts == {FAIL} for verdicts in found):
        return FAIL
    if all(verdicts == {PASS} for verdicts in found):
        return PASS
    if not any(FAIL in verdicts for verdicts in found) and not all(PASS in v for v in found):
        return UNDECIDED
    return None


def worst(verdicts: Iterable[str]) -> str:
    found = set(verdicts)
    return FAIL if FAIL in found else UNDECIDED if UNDECIDED in found else PASS


# -- a case, as the suite's model says ------------------------------------------------------


@dataclass
class CaseModel:
    """What the replay knows of a case: its checks, its planned runs and each run's
    outcome, and the verdicts that hold it once settled."""

    case: str
    checks: tuple[Check, ...]
    latency: bool
    planned: int
    outcomes: tuple[str, ...]
    holders: tuple[str, ...] = ()
    #: why the replay does not follow the case (``None``: it does)
    unmodeled: str | None = None


@dataclass
class Replay:
    """Where the rule stops a case: ``stopped`` as ``rows[].stopped`` says it (``None``:
    never), the runs made for a verdict that held it (``held``) and the decisions before each
    run (for a failure message)."""

    stopped: dict[str, Any] | None
    held: list[int] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)

    def kept(self, planned: int) -> dict[str, Any] | None:
        if not self.held:
            return None
        return {"after": min(self.held) - 1, "planned": planned, "runs": len(self.held)}


def replay(model: CaseModel, *, exclude_errors: bool, sequential: bool) -> Replay:
    """Walk the case's runs in order, deciding before each run after the first."""
    found = Replay(None)
    if not model.checks:  # no gate the rule decides on: the case always runs every run
        return found
    passes = judged = 0
    for run in range(1, model.planned + 1):
        outcome = model.outcomes[run - 1]
        if run > 1 and judged:
            left = model.planned - (run - 1)
            verdict = decide(model.checks, passes, judged, left, sequential)
            found.trace.append(f"before run {run}: {passes}/{judged}, {left} left: {verdict}")
            if verdict is not None:
                if not sequential:
                    _check_every_completion(model, verdict, passes, judged, left)
                holders = [h for h in model.holders if verdict != FAIL or h != HELD_BY_LATENCY]
                if not holders:
                    found.stopped = {
                        "verdict": verdict,
                        "after": run - 1,
                        "planned": model.planned,
                        "skipped": model.planned - run + 1,
                        "in_flight": 0,
                    }
                    return found
                if outcome != "skip":
                    found.held.append(run)
        passes += outcome == "pass"
        judged += outcome in ("pass", "fail") or (outcome == "error" and not exclude_errors)
    return found


def _check_every_completion(
    model: CaseModel, verdict: str, passes: int, judged: int, left: int
) -> None:
    """The documented rule's promise (docs/stopping.rst, "A case with several checks"): the
    verdict it settles on is the case's verdict in every completion."""
    for p, n in completions(passes, judged, left):
        ending = worst(check.verdict(p, n) for check in model.checks)
        assert ending == verdict, (
            f"{model.case}: the rule settles {verdict} after {passes}/{judged} with {left} "
            f"left, but the completion {p}/{n} gives {ending} "
            f"({', '.join(c.describe() for c in model.checks)})"
        )


# -- deriving the models of a session --------------------------------------------------------


def _levels(suite: Suite, function: Function, suffix: str) -> list[dict[str, Any]]:
    """The case's ``probability`` marks, farthest first: module, function, its cases'."""
    levels = [dict(suite.module_mark) if function.file == 0 else {}, dict(function.mark)]
    own: dict[str, Any] = {}
    for axis, value in zip(function.axes, suffix.split("-") if suffix else [], strict=True):
        own.update(axis.mark_of(axis.values.index(value)) or {})
    levels.append(own)
    return levels


def _closest(levels: list[dict[str, Any]], key: str) -> Any:
    for level in reversed(levels):
        if key in level:
            return level[key]
    return None


def case_checks(
    suite: Suite, function: Function, suffix: str, flags: Flags
) -> tuple[tuple[Check, ...], bool]:
    """The case's count-like checks and whether it has a latency gate, by docs/gates.rst:
    ``min_rate`` and ``min_passes`` are one choice, the closest mark's (else the session's
    rate); the other keys merge key by key, the closest mark winning."""
    levels = _levels(suite, function, suffix)
    checks: list[Check] = []
    choice = next((lv for lv in reversed(levels) if "min_rate" in lv or "min_passes" in lv), None)
    bar = flags.min_rate if choice is None else choice.get("min_rate")
    if bar is not None:
        method = (
            "seq"
            if flags.stop == "sequential"
            else _closest(levels, "method") or flags.method or "exact"
        )
        prior = (0.5, 0.5) if flags.prior == "0.5,0.5" else (1.0, 1.0)
        checks.append(Check(RATE, bar, method, flags.confidence or 0.95, prior))
    elif choice is not None:
        checks.append(Check(COUNT, choice["min_passes"]))
    for key in THIRD_PARTY:
        limit = _closest(levels, key)
        if limit is not None:
            checks.append(Check(key, limit))
    return tuple(checks), _closest(levels, "max_latency") is not None


def _planned(suite: Suite, function: Function, suffix: str, flags: Flags) -> int | None:
    """The case's planned runs (the closest ``runs``, else ``--prob-runs``, else 1), or
    ``None`` when two of its own marks set different counts."""
    levels = _levels(suite, function, suffix)
    own = {
        dict(mark).get("runs")
        for axis, value in zip(function.axes, suffix.split("-") if suffix else [], strict=True)
        for mark in [axis.mark_of(axis.values.index(value)) or {}]
        if "runs" in mark
    }
    if len(own) > 1:
        return None
    return _closest(levels, "runs") or flags.runs or 1


def _compared(function: Function, flags: Flags) -> bool:
    arms = next((axis.values for axis in function.axes if axis.name == ARM_AXIS), ())
    return bool(arms) and ("compare" in dict(function.mark) or flags.compare == ARM_AXIS)


def case_model(
    suite: Suite, function: Function, suffix: str, flags: Flags, planned: int
) -> CaseModel:
    checks, latency = case_checks(suite, function, suffix, flags)
    sequence = function.outcome_of(suffix)
    outcomes = tuple(OUTCOMES[sequence[(run - 1) % len(sequence)]] for run in range(1, planned + 1))
    case = function.case_id(suffix)
    model = CaseModel(case, checks, latency, planned, outcomes)
    holders = [HELD_BY_LATENCY] if latency else []
    mark = dict(function.mark)
    arms = next((axis.values for axis in function.axes if axis.name == ARM_AXIS), ())
    baselined = flags.baseline is not None and flags.margin is not None
    if flags.stop == "sequential":
        if _compared(function, flags):
            model.unmodeled = "a comparison monitored on its sequence reads it"
        elif baselined:
            model.unmodeled = "its --prob-margin comparison is monitored on its sequence"
    else:
        if "margin" in mark and "compare" in mark and len(arms) > 1:
            if flags.keyword:
                model.unmodeled = "-k may leave its input without the baseline arm"
            holders.append(HELD_BY_MARGIN)  # (cannot say: the case runs every run)
        if baselined and any(dict(row).get("case") == case for row in flags.baseline or ()):
            holders.append(HELD_BY_BASELINE)
    model.holders = tuple(holders)
    return model


def replayable(session: Session) -> str | None:
    """Why the session's stops are not replayed (``None``: they are)."""
    flags = session.flags
    if not flags.stop:
        return "no --prob-stop"
    if flags.plan:
        return "--prob-plan runs nothing"
    if flags.budget is not None or flags.budget_runs is not None:
        return "a budget skips runs too"
    if overlapped(flags):
        return "runs overlap: checked by 'overlapped stops add up'"
    if session.report is None or session.suite is None or session.ret not in (0, 1):
        return "no report or no model"
    return None


# -- the session check ---------------------------------------------------------------------


@dataclass
class ReplayStats:
    """What the replay followed in a session (kept in ``session.extra["replay"]``)."""

    modeled: int = 0
    combined: int = 0
    stopped: int = 0
    combined_stopped: int = 0
    held: int = 0
    unmodeled: int = 0
    #: each combination of checks replayed (``latency+rate``) → [cases, stopped, held]
    kinds: dict[str, list[int]] = field(default_factory=dict)


def _records(report: Mapping[str, Any]) -> dict[str, dict[int, dict[str, Any]]]:
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for record in report["records"]:
        found.setdefault(record["case"], {})[record["run"]] = record
    return found


def _check_config(model: CaseModel, row: Mapping[str, Any]) -> None:
    """The session gates the case on the checks the replay derived (docs/gates.rst)."""
    gate = row.get("gate") or {}
    if not gate and not row["total"]:
        return  # (no judged run: no verdict, no checks shown)
    shown = sorted(check["kind"] for check in gate.get("checks") or [])
    mine = sorted([c.kind for c in model.checks] + ([LATENCY] if model.latency else []))
    assert shown == mine, f"{model.case}: the session checks {shown}, the replay derived {mine}"
    by_kind = {check["kind"]: check for check in gate.get("checks") or []}
    for check in model.checks:
        found = by_kind[check.kind]
        if check.kind == RATE:
            assert (found["min_rate"], found["method"], found["level"]) == (
                check.value,
                check.method,
                check.level,
            ), f"{model.case}: rate check {found}, the replay derived {check.describe()}"
        elif check.kind == COUNT:
            assert found["min_passes"] == check.value, (model.case, found, check)
        else:
            assert found["limit"] == check.value, (model.case, found, check)


@session_check("stops where the replay says")
def stops_where_the_replay_says(example: Example, session: Session) -> None:
    """Under ``--prob-stop`` (without a budget or ``--prob-plan``), every case the exact
    replay (:mod:`prop_replay`) follows — its checks derived from the marks and flags, each
    completion judged from the gates' definitions, the documented rule for combined checks
    and for the verdicts that hold a case — is gated on the derived checks, is stopped
    exactly where the replay stops it (``rows[].stopped``: verdict, runs made, planned and
    skipped; the gate's verdict is the one settled) or not at all when the replay never
    settles it, is ``kept_running`` exactly as the replay holds it (first run held, runs
    made for the holders: ``records[].stop_held``), and made each run it made with the
    model's outcome. When the replay follows every case, ``stopping.runs_saved``,
    ``stopping.stopped_cases`` and the ``Stopped:`` line's "C cases early, saving S" are the
    replay's totals."""
    why = replayable(session)
    if why is not None:
        return
    report, suite, flags = session.report, session.suite, session.flags
    assert report is not None and suite is not None
    stats = ReplayStats()
    session.extra["replay"] = stats
    exclude = flags.errors == "exclude"
    sequential = flags.stop == "sequential"
    by_case = {function.case_id(suffix): (function, suffix) for function, suffix in suite.cases()}
    records = _records(report)
    saved = stopped_cases = 0
    every = True
    for row in report["rows"]:
        function, suffix = by_case[row["case"]]
        planned = _planned(suite, function, suffix, flags)
        if planned is not None:
            assert row["planned"] == planned, (
                f"{row['case']}: {row['planned']} runs planned, the marks say {planned}"
            )
        model = case_model(suite, function, suffix, flags, row["planned"])
        if model.unmodeled:
            stats.unmodeled += 1
            every = False
            continue
        _check_config(model, row)
        found = replay(model, exclude_errors=exclude, sequential=sequential)
        where = f"{row['case']} ({', '.join(c.describe() for c in model.checks) or 'no checks'}"
        where += f"{', latency' if model.latency else ''}; held by {list(model.holders)}; "
        where += f"runs {''.join(o[0] for o in model.outcomes)}):\n  " + "\n  ".join(found.trace)
        assert row.get("stopped") == found.stopped, (
            f"{where}\nthe session stopped it {row.get('stopped')}, the replay {found.stopped}"
        )
        kept = row.get("kept_running")
        shown = None if kept is None else {k: kept[k] for k in ("after", "planned", "runs")}
        assert shown == found.kept(model.planned), (
            f"{where}\nkept running {kept}, the replay holds it {found.kept(model.planned)}"
        )
        made = records.get(row["case"], {})
        held = sorted(run for run, record in made.items() if record.get("stop_held"))
        assert held == found.held, f"{where}\nruns held {held}, the replay's {found.held}"
        after = found.stopped["after"] if found.stopped else model.planned
        for run in range(1, model.planned + 1):
            record = made.get(run)
            assert record is not None, f"{row['case']}: no record of run {run}"
            if run > after:
                assert record["outcome"] == "skip" and record.get("stopped"), (
                    f"{row['case']} run {run}: {record['outcome']}, the rule skips it"
                )
            else:
                assert not record.get("stopped"), f"{row['case']} run {run} skipped by the rule"
                assert record["outcome"] == model.outcomes[run - 1], (
                    f"{row['case']} run {run}: {record['outcome']}, the model plays "
                    f"{model.outcomes[run - 1]}"
                )
        if found.stopped:
            assert row["gate"]["verdict"] == found.stopped["verdict"], (
                f"{where}\nstopped on {found.stopped['verdict']}, judged {row['gate']['verdict']}"
            )
            saved += found.stopped["skipped"]
            stopped_cases += 1
        several = len(model.checks) + model.latency > 1
        stats.modeled += 1
        stats.combined += several
        stats.stopped += found.stopped is not None
        stats.combined_stopped += several and found.stopped is not None
        stats.held += bool(found.held)
        kinds = "+".join(sorted([c.kind for c in model.checks] + [LATENCY] * model.latency))
        counts = stats.kinds.setdefault(kinds or "none", [0, 0, 0])
        counts[0] += 1
        counts[1] += found.stopped is not None
        counts[2] += bool(found.held)
    if not every:
        return
    stopping = report["stopping"]
    assert (stopping["stopped_cases"], stopping["runs_saved"]) == (stopped_cases, saved), (
        f"stopping {stopping}: the replay stops {stopped_cases} cases, saving {saved} runs"
    )
    line = next((m for m in map(STOPPED.match, session.lines) if m), None)
    assert line, "no Stopped: line"
    assert (int(line["cases"]), int(line["saved"])) == (stopped_cases, saved), (
        f"{line.group(0)}: the replay stops {stopped_cases} cases, saving {saved} runs"
    )


def overlapped(flags: Flags) -> bool:
    """Whether the session's runs overlap (the suite's bodies are plain functions)."""
    return (flags.concurrency or 1) > 1 and flags.threads


@session_check("overlapped stops add up")
def overlapped_stops_add_up(example: Example, session: Session) -> None:
    """With runs in flight (``--prob-concurrency`` and ``--prob-threads``) a case is decided
    on the runs completed when a run is to start, not on a prefix of its runs, so the exact
    replay does not apply. What holds instead (docs/running-fast.rst): every stopped case's
    runs are those it was decided on, those in flight then (``records[].stop_in_flight``, at
    most K − 1), and those the rule skipped (``records[].stopped``, each a skip), adding up
    to the planned runs; the row's gate verdict is the one the rule settled; and
    ``stopping.runs_in_flight`` is the sum over the rows."""
    flags, report = session.flags, session.report
    if not flags.stop or flags.plan or not overlapped(flags) or report is None:
        return
    if session.ret not in (0, 1):
        return
    records = _records(report)
    total = 0
    for row in report["rows"]:
        stop = row.get("stopped")
        if stop is None:
            continue
        made = records.get(row["case"], {}).values()
        cut = [record for record in made if record.get("stopped")]
        flying = [record for record in made if record.get("stop_in_flight")]
        where = f"{row['case']} stopped {stop}"
        assert (len(cut), len(flying)) == (stop["skipped"], stop["in_flight"]), where
        assert all(record["outcome"] == "skip" for record in cut), where
        assert stop["after"] + stop["in_flight"] + stop["skipped"] == stop["planned"], where
        assert stop["in_flight"] <= (flags.concurrency or 1) - 1, where
        assert row["gate"]["verdict"] == stop["verdict"], f"{where}, gate {row['gate']}"
        total += stop["in_flight"]
    assert report["stopping"]["runs_in_flight"] == total, report["stopping"]


# -- a relation: sequential stops what has no rate gate as curtail does ----------------------


def _both_rules(example: Example) -> dict[str, tuple[Flags, int]]:
    flags = replace(example.flags, budget_runs=None, stop=None)
    if flags.min_rate is None:  # (a function whose mark sets a third-party gate only)
        flags = replace(flags, min_rate=0.55)
    return {
        "curtail": (replace(flags, stop="curtail"), 0),
        "sequential": (replace(flags, stop="sequential"), 0),
    }


def check_both_rules(example: Example, sessions: Mapping[str, Session]) -> None:
    """A case without a rate gate stops at the same run, on the same verdict, under both
    rules (``sequential`` settles every other gate as ``curtail`` does), and is kept running
    alike; each session's stops are the replay's (the session check)."""
    curtail, sequential = sessions["curtail"], sessions["sequential"]
    assert curtail.report and sequential.report
    one = {row["case"]: row for row in curtail.report["rows"]}
    suite = curtail.suite
    functions = {function.case_id(suffix): function for function, suffix in suite.cases()}
    for row in sequential.report["rows"]:
        checks = (row.get("gate") or {}).get("checks") or []
        if any(check["kind"] == RATE for check in checks):
            continue
        if (
            _compared(functions[row["case"]], sequential.flags)
            or sequential.flags.baseline is not None
        ):
            continue  # (a comparison or a baseline monitored under sequential decides)
        other = one[row["case"]]
        for key in ("stopped", "kept_running"):
            assert row.get(key) == other.get(key), (
                f"{row['case']} ({[c['kind'] for c in checks]}): {key} {other.get(key)} under "
                f"curtail, {row.get(key)} under sequential"
            )
        if row.get("gate"):
            assert row["gate"]["verdict"] == other["gate"]["verdict"], row["case"]


relation(
    Relation(
        name="sequential stops non-rate cases as curtail does",
        doc="an example whose every function has two or three checks (a rate or count gate "
        "with a latency or third-party gate), under curtail and under sequential: each stops "
        "where the exact replay says (the session check), and a case without a rate gate stops "
        "and is kept running alike under both",
        sessions=_both_rules,
        check=check_both_rules,
        examples=30,
        max_functions=2,
        bias="combined",
        min_stopped=0.5,
        min_combined=0.5,
    )
)
