"""The ``stopping`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    SKIP,
    Case,
    CaseResult,
    OptionRegistry,
    ReportBuilder,
    Results,
    StopContext,
    Thresholds,
    call_first,
    filled_registry,
    money,
    not_an_amount,
    option_value,
    options_of,
    ratio_percent,
    results_of,
)

from .planning import SEQUENTIAL, model_stopping
from .rules import curtail_decision, sequential_decision
from .sequence import confidence_sequence
from .service import (
    SETTLED,
    CaseStopping,
    case_kept,
    case_stop,
    case_stopping,
    gate_thresholds,
    hidden_reason,
    is_spread,
    is_stopped,
)

Decide = Callable[[StopContext], str | None]

OFF = "off"
SEQ_METHOD = "seq"
STATE_KEY = pytest.StashKey["StopRules"]()
STOPPER = "probability.stopping.runs"
COLUMN_ORDER = 950
SUMMARY_ORDER = 160  # after Gates: (150), before Cost: (200)


def curtail_rule(context: StopContext) -> str | None:
    """The bundled ``curtail`` rule: :func:`~.rules.curtail_decision` of the case's counts."""
    return curtail_decision(context.gates, context.passes, context.judged, context.remaining)


def sequential_rule(context: StopContext) -> str | None:
    """The bundled ``sequential`` rule: :func:`~.rules.sequential_decision` of the case's
    counts."""
    return sequential_decision(
        context.gates, context.kinds, context.passes, context.judged, context.remaining
    )


def seq_interval(
    passes: int, total: int, level: float, prior: tuple[float, float]
) -> tuple[float, float]:
    """The ``seq`` interval method: the confidence sequence (the prior is not used)."""
    return confidence_sequence(passes, total, level)


class StopRules(dict[str, Decide]):
    """Registered stopping rules, by name."""

    def register(self, name: str, decide: Decide, *, description: str = "") -> None:
        if not name or name == OFF or not name.replace("-", "").isalnum():
            raise ValueError(f"stopping rule name {name!r} must be a word other than 'off'")
        if name in self:
            raise ValueError(f"stopping rule {name!r} is registered twice")
        self[name] = decide

    def check(self, value: Any) -> str:
        text = str(value).strip().lower()
        if text != OFF and text not in self:
            valid = ", ".join([OFF, *self])
            raise ValueError(f"expected one of {valid}, got {value!r}")
        return text


def rules_of(config: pytest.Config) -> StopRules:
    return filled_registry(
        config,
        STATE_KEY,
        StopRules,
        config.hook.pytest_prob_register_stopping_rules,
        "stopping rules",
    )


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-stop`` / ``prob_stop``. Called by the kernel's historic hook."""
    options.add(
        "stop",
        parse=lambda value, config: rules_of(config).check(value),
        with_config=True,
        default=OFF,
        cli="--prob-stop",
        ini="prob_stop",
        metavar="{off,curtail,sequential}",
        help="stop gated cases early once decided (default off)",
        owner="stopping",
    )


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_stopping_rules(register: Any, config: pytest.Config) -> None:
    """Register ``curtail`` and ``sequential``. Called once per session."""
    register("curtail", curtail_rule, description="stop once no remaining run can matter")
    register(SEQUENTIAL, sequential_rule, description="judge rate gates on a sequence")


# trylast: entries it adds to another extension's registry follow other plugins', however
# late it registers (on use)
@pytest.hookimpl(trylast=True)
def pytest_prob_register_interval_methods(register: Any, config: pytest.Config) -> None:
    """Register the ``seq`` interval method (tagged ``seq`` in rows) with the intervals
    extension, exactly as a third party would. Called once per session."""
    register(
        SEQ_METHOD,
        seq_interval,
        description="anytime-valid confidence sequence (beta-binomial mixture, Jeffreys)",
        tag=SEQ_METHOD,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_prob_collect_verdicts(case: Case, config: pytest.Config) -> None:
    """Under ``--prob-stop=sequential``, judge a case's rate gate on the confidence sequence
    (its ``method`` becomes ``seq``, which its runs' records carry to the report). Called
    once per case at collection, before the gates extension reads the case."""
    if option_value(config, "stop") != SEQUENTIAL:
        return
    if options_of(config).case_value("min_rate", case.mark) is None or (
        "min_passes" in case.mark and "min_rate" not in case.mark
    ):
        return
    case.mark["method"] = SEQ_METHOD  # type: ignore[index]


def pytest_configure(config: pytest.Config) -> None:
    """Fill the rule registry (a broken registration is a usage error in every session) and
    register the per-run stopper only when a rule is on (sessions without ``--prob-stop``
    pay nothing per run). Called once per process."""
    rules_of(config)
    mode = option_value(config, "stop")
    if mode != OFF and config.pluginmanager.get_plugin(STOPPER) is None:
        if config.pluginmanager.is_blocked("probability.gates"):
            raise pytest.UsageError(
                f"--prob-stop={mode} stops gated cases and needs the bundled gates extension: "
                "remove -p no:probability.gates"
            )
        config.pluginmanager.register(Stopper(config, rules_of(config)[mode]), STOPPER)


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``decided after`` column, the ``Stopped:`` line (and the cases kept
    running for a verdict that reads them), ``rows[].stopped``, ``rows[].kept_running`` and
    the ``stopping`` object when a rule is on. Called once in the aggregating process."""
    mode = option_value(config, "stop")
    if mode == OFF or not len(results):
        return  # (nothing ran: a --prob-plan session)
    cells: dict[str, str] = {}
    saved = planned = stopped_cases = spread = kept_runs = kept_cases = in_flight = 0
    avoided: float | None = None
    kept: Counter[str] = Counter()  # why → cases kept running for it
    for case in results.cases():
        planned += case.planned
        stop = case_stop(case)
        spread += is_spread(case)
        held = case_kept(case)
        report.add_row_json(case.key, {"stopped": stop, "kept_running": held})
        if held is not None:
            kept_cases += 1
            kept_runs += held["runs"]
            kept.update(held["reasons"])
            if stop is None:
                cells[case.key] = f"kept running after {held['after']}/{held['planned']}"
        if stop is None:
            continue
        stopped_cases += 1
        saved += stop["skipped"]
        in_flight += stop["in_flight"]
        cells[case.key] = f"decided after {stop['after']}/{stop['planned']}"
        # what its runs cost, from the cost extension (None without it)
        spent = call_first(
            config, "pytest_prob_case_cost", check=not_an_amount, case=case, config=config
        )
        made = len(case.records) - stop["skipped"]
        if spent is not None and made > 0:  # the runs skipped would have cost what runs did
            avoided = (avoided or 0.0) + spent / made * stop["skipped"]
    if cells:
        report.add_column("stopped", cells, order=COLUMN_ORDER, align="free")
    share = f"{ratio_percent(saved, planned)}%" if planned else "0%"  # half up: 1/8 → 13%
    text = f"{_many(stopped_cases, 'case')} early, saving {saved} of {planned} runs ({share})"
    if avoided is not None and saved:
        text += f", about {money(avoided)} not spent"
    lines = [text]
    if in_flight:
        lines.append(
            f"{_many(in_flight, 'run')} in flight when their case was decided finished "
            "and count in its row (--prob-concurrency)"
        )
    if spread:
        lines.append(
            f"{spread} case(s) had runs on several workers, which ran every run they had "
            "(-n with the default --dist load keeps each case on one worker)"
        )
    if kept_cases:
        lines.append(kept_line(kept_cases, kept_runs, kept))
    report.add_summary("Stopped:", lines, order=SUMMARY_ORDER)
    report.set_json(
        "stopping",
        {
            "mode": mode,
            "stopped_cases": stopped_cases,
            "runs_saved": saved,
            "runs_planned": planned,
            "runs_in_flight": in_flight,
            "cost_avoided": avoided,
            "spread_cases": spread,
            "kept_cases": kept_cases,
            "kept_runs": kept_runs,
        },
    )


@pytest.hookimpl(trylast=True)
def pytest_prob_hide_interval(cases: Sequence[CaseResult], config: pytest.Config) -> str | None:
    """Why an interval over ``cases`` is hidden: some were stopped early (their fractions
    lean toward their verdicts); ``None`` when none was. Called in the aggregating process
    for every function-level, Overall and metric line."""
    return hidden_reason(cases)


@pytest.hookimpl(trylast=True)
def pytest_prob_case_stopped(case: CaseResult, config: pytest.Config) -> bool:
    """Whether some runs of ``case`` were skipped by the stopping rule, read from its run
    records. Called by the comparisons extension for each case of a comparison it builds
    (aggregating process, or a worker judging ``[compare:ARM]``)."""
    return is_stopped(case)


def kept_line(cases: int, runs: int, reasons: dict[str, int]) -> str:
    """``2 cases kept running for 10 runs the rule would have skipped: the margin of c[arm]
    cannot say when it is settled`` (each reason with its count of cases when there are
    several)."""
    if len(reasons) == 1:
        why = next(iter(reasons))
    else:
        why = "; ".join(f"{reason} ({_many(count, 'case')})" for reason, count in reasons.items())
    kept = f"{_many(cases, 'case')} kept running for {_many(runs, 'run')}"
    return f"{kept} the rule would have skipped: {why}"


def _many(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@pytest.hookimpl(tryfirst=True)
def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``: replace a gated case's fixed-run chances with those of the
    stopping rule the runtime would apply (:func:`.planning.model_stopping`), and fill its
    ``seq E[runs]``. Called once per planned case in the planning process, before the other
    extensions add their notes; returns nothing."""
    if row.gate is None:  # (no gate the pass count decides: nothing a rule stops on)
        return
    model_stopping(config, case, row, options_of(config).session_value("plan_assume"))


@dataclass(frozen=True)
class StopCase:
    """What the stopper keeps about one case: how the rule sees it, and each gate's
    thresholds and kind name."""

    seen: CaseStopping
    gates: tuple[Thresholds, ...]
    #: each gate's kind name, in the order of ``gates`` (worked out once: asked every run)
    kinds: tuple[str, ...]


@dataclass(eq=False)  # registered as a plugin: pluggy needs it hashable
class Stopper:
    """Decides, before each run of a gated case, whether the case is settled. Registered as
    ``probability.stopping.runs`` by :func:`pytest_configure` only when a rule is on
    (``--prob-stop``), so sessions without one pay nothing per run."""

    config: pytest.Config
    decide: Callable[[StopContext], str | None]
    #: case key → (verdict, runs made before stopping)
    decided: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: cases whose earlier runs this process did not make (spread over workers, or -k)
    partial: set[str] = field(default_factory=set)
    #: cases every run of which this process runs (not an xdist worker, none deselected):
    #: they may stop whatever order their runs come in (pytest-randomly shuffles them)
    complete: set[str] = field(default_factory=set)
    #: case key → the runs the case was decided on (others in flight then finish later:
    #: ``--prob-concurrency``)
    settled_on: dict[str, frozenset[int]] = field(default_factory=dict)
    #: case key → the runs this process started (made or in flight)
    started: dict[str, set[int]] = field(default_factory=dict)
    #: (case key, run) of the runs this rule skipped
    cut: set[tuple[str, int]] = field(default_factory=set)
    #: (case key, run) → why the run is made although the rule would stop the case
    held: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    _thresholds: dict[tuple[str, Any], Thresholds] = field(default_factory=dict)
    _cases: dict[str, StopCase | None] = field(default_factory=dict)

    def _case(self, case: Case) -> StopCase | None:
        """The case's gate thresholds, kinds and readers (``None``: never stopped), worked
        out once per case. Every gate has thresholds (whether or not it decides the runs,
        each must be settled)."""
        if case.key not in self._cases:
            seen = case_stopping(self.config, case)
            found = None
            if seen is not None:
                gates = tuple(
                    gate_thresholds(self._thresholds, self.config, kind, spec)
                    for kind, spec in seen.gates
                )
                found = StopCase(seen, gates, tuple(kind.name for kind, _ in seen.gates))
            self._cases[case.key] = found
        return self._cases[case.key]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note the cases all of whose runs this process will run. Called once per process
        after collection and deselection. A worker of pytest-xdist runs only what it is
        sent, so it notes none (its cases stop only from a run-order prefix of their
        runs)."""
        if hasattr(self.config, "workerinput"):
            return
        runs: dict[str, tuple[int, set[int]]] = {}
        for item in session.items:
            case = getattr(item, "case", None)
            run = getattr(item, "run", None)
            if isinstance(case, Case) and isinstance(run, int):
                runs.setdefault(case.key, (case.runs, set()))[1].add(run)
        self.complete = {key for key, (n, made) in runs.items() if made == set(range(1, n + 1))}

    def pytest_prob_skip_run(self, item: pytest.Item, case: Case) -> str | None:
        """Skip the run when its case's verdict is settled: the rule says its gates are, and
        every reader of the case (``pytest_prob_stop_readers``) says its verdict is. Called
        before every run in the executing process; returns the skip reason or ``None``."""
        key = case.key
        stopped = self.decided.get(key)
        if stopped is not None:
            self.cut.add((key, getattr(item, "run", 1)))
            return stop_reason(*stopped, case.runs)
        if key in self.partial:
            return None
        found = self._case(case)
        if found is None:
            return None  # no gate a rule can decide on
        run: int = getattr(item, "run", 1)
        result = results_of(self.config).get(key)
        made = set(result.records) if result is not None else set()
        started = self.started.setdefault(key, set())
        started.add(run)
        # (runs in flight here, --prob-concurrency, are not missing: this process makes them)
        if key not in self.complete and not set(range(1, run)) <= made | started:
            self.partial.add(key)  # never stop a case from a partial view
            return None
        if result is None:
            return None
        made.discard(run)  # a rerun (pytest-rerunfailures) is still to be made
        exclude = option_value(self.config, "errors") == "exclude"
        judged = result.passes + result.fails + (0 if exclude else result.errors)
        if judged == 0:
            # no judged run yet (all skipped so far): stopped now the case would have no
            # verdict at all, where a judged run still to come gives it one
            return None
        context = StopContext(
            case, result.passes, judged, case.runs - len(made), case.runs, found.gates, found.kinds
        )
        # a case without gates (only read by a sequential comparison): settled by its readers
        verdict = self.decide(context) if found.gates else SETTLED
        if verdict is None:
            return None
        reasons = found.seen.holding(verdict, context)
        if reasons:  # a verdict reading the case is not settled: make the run
            held = {"after": len(made), "planned": case.runs, "reasons": reasons}
            if found.gates:  # (the rule settled the case's own gates: say what held it)
                self.held[(key, run)] = held
            return None
        self.decided[key] = (verdict, len(made))
        self.settled_on[key] = frozenset(made)
        self.cut.add((key, run))
        return stop_reason(verdict, len(made), case.runs)

    def pytest_prob_run_finished(self, item: pytest.Item, record: dict[str, Any]) -> None:
        """Mark the skipped runs of a stopped case (``stopped``), its runs that were in flight
        when it was decided and finished after (``stop_in_flight``), the runs made only because
        a verdict reading the case was not settled (``stop_held``), and the runs of a case
        this process could not stop because its earlier runs ran elsewhere
        (``stop_partial``). Called in the executing process once per run."""
        key = record["key"]
        held = self.held.pop((key, record["run"]), None)
        if held is not None and record["outcome"] != SKIP:
            record["stop_held"] = held
        stopped = self.decided.get(key)
        if stopped is not None and (key, record["run"]) in self.cut:
            self.cut.discard((key, record["run"]))
            verdict, after = stopped
            record["stopped"] = {"verdict": verdict, "after": after, "planned": record["runs"]}
        elif stopped is not None and record["run"] not in self.settled_on.get(key, ()):
            record["stop_in_flight"] = True  # (started before the case was decided)
        elif key in self.partial and hasattr(self.config, "workerinput"):
            record["stop_partial"] = True


def stop_reason(verdict: str, after: int, planned: int) -> str:
    """``decided after 38/40 (UNDECIDED)`` (``settled after …`` for a case without gates)."""
    if verdict == SETTLED:
        return f"settled after {after}/{planned} (every verdict reading it)"
    return f"decided after {after}/{planned} ({verdict.upper()})"
