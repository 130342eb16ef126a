"""The ``stopping`` extension's pytest hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.cases import Case
from pytest_probability.kernel import kernel_of
from pytest_probability.options import OptionRegistry
from pytest_probability.report import ReportBuilder
from pytest_probability.results import SKIP, Results

from .curtail import FAIL, PASS, Thresholds, curtail
from .sequence import confidence_sequence
from .service import case_stop, is_spread

OFF = "off"
SEQUENTIAL = "sequential"
SEQ_METHOD = "seq"
STATE_KEY = pytest.StashKey["StopRules"]()
STOPPER = "probability.stopping.runs"
COLUMN_ORDER = 950
SUMMARY_ORDER = 160  # after Gates: (150), before Cost: (200)


@dataclass(frozen=True)
class StopContext:
    """What a stopping rule sees before a run of a gated case.

    :ivar case: the collected case.
    :ivar passes: passes so far: the case's runs this process made, in whatever order
        they came (every earlier run, when the runs come in order).
    :ivar judged: judged runs so far (errors count unless ``prob_errors=exclude``).
    :ivar remaining: runs left of the planned ones, this one included.
    :ivar planned: the case's planned runs.
    :ivar gates: the thresholds of each of its deciding gates.
    :ivar kinds: each gate's kind (``rate``, ``count``), in the order of ``gates``.
    """

    case: Case
    passes: int
    judged: int
    remaining: int
    planned: int
    gates: tuple[Thresholds, ...]
    kinds: tuple[str, ...] = ()


Decide = Callable[[StopContext], "str | None"]


def curtail_rule(context: StopContext) -> str | None:
    """The bundled ``curtail`` rule: stop once every completion gives the same verdict."""
    return curtail(context.gates, context.passes, context.judged, context.remaining)


def sequential_rule(context: StopContext) -> str | None:
    """The bundled ``sequential`` rule: rate gates are judged on the confidence sequence
    (anytime-valid), so a case stops as soon as every rate gate is PASS or FAIL now; and,
    like ``curtail``, once no remaining run can change the verdict (count gates only ever
    stop that way)."""
    now = []
    for kind, thresholds in zip(context.kinds, context.gates, strict=True):
        if kind != "rate":
            now = []
            break
        verdict = thresholds.verdict(context.passes, context.judged)
        if verdict not in (PASS, FAIL):
            now = []
            break
        now.append(verdict)
    if now:
        return FAIL if FAIL in now else PASS
    return curtail_rule(context)


def seq_interval(
    passes: int, total: int, level: float, prior: tuple[float, float]
) -> tuple[float, float]:
    """The ``seq`` interval method: the confidence sequence (the prior is not used)."""
    return confidence_sequence(passes, total, level)


class StopRules:
    """Registered stopping rules."""

    def __init__(self) -> None:
        self.rules: dict[str, Decide] = {}

    def register(self, name: str, decide: Decide, *, description: str = "") -> None:
        if not name or name == OFF or not name.replace("-", "").isalnum():
            raise ValueError(f"stopping rule name {name!r} must be a word other than 'off'")
        if name in self.rules:
            raise ValueError(f"stopping rule {name!r} is registered twice")
        self.rules[name] = decide

    def check(self, value: Any) -> str:
        text = str(value).strip().lower()
        if text != OFF and text not in self.rules:
            valid = ", ".join([OFF, *self.rules])
            raise ValueError(f"expected one of {valid}, got {value!r}")
        return text


def rules_of(config: pytest.Config) -> StopRules:
    found = config.stash.get(STATE_KEY, None)
    if found is None:
        found = config.stash[STATE_KEY] = StopRules()
        try:
            config.hook.pytest_prob_register_stopping_rules.call_historic(
                kwargs={"register": found.register, "config": config}
            )
        except ValueError as exc:
            raise pytest.UsageError(f"registering stopping rules failed: {exc}") from None
    return found


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-stop`` / ``prob_stop``. Called by the kernel's historic hook;
    returns nothing."""
    options.add(
        "stop",
        parse=lambda value, config: rules_of(config).check(value),
        with_config=True,
        default=OFF,
        cli="--prob-stop",
        ini="prob_stop",
        metavar="{off,curtail,sequential}",
        help="curtail: skip a gated case's remaining runs once its verdict can no longer "
        "change (same verdicts); sequential: judge rate gates on an anytime-valid interval "
        "and stop as soon as it clears or falls below the bar (runs becomes a maximum); "
        "under xdist both need each case on one worker (what -n does by default)",
        owner="stopping",
    )


def pytest_prob_register_stopping_rules(register: Any, config: pytest.Config) -> None:
    """Register ``curtail`` and ``sequential``. Called once per session; returns nothing."""
    register("curtail", curtail_rule, description="stop once no remaining run can matter")
    register(SEQUENTIAL, sequential_rule, description="judge rate gates on a sequence")


def pytest_prob_register_interval_methods(register: Any, config: pytest.Config) -> None:
    """Register the ``seq`` interval method (tagged ``seq`` in rows) with the intervals
    extension, exactly as a third party would. Called once per session; returns nothing."""
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
    once per case at collection, before the gates extension reads the case; returns
    nothing."""
    if kernel_of(config).options.session_value("stop") != SEQUENTIAL:
        return None
    options = kernel_of(config).options
    if options.case_value("min_rate", case.mark) is None or (
        "min_passes" in case.mark and "min_rate" not in case.mark
    ):
        return None
    case.mark["method"] = SEQ_METHOD  # type: ignore[index]
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Fill the rule registry (a broken registration is a usage error in every session) and
    register the per-run stopper only when a rule is on (sessions without ``--prob-stop``
    pay nothing per run). Called once per process; returns nothing."""
    rules_of(config)
    mode = kernel_of(config).options.session_value("stop")
    if mode != OFF and config.pluginmanager.get_plugin(STOPPER) is None:
        if config.pluginmanager.get_plugin("probability.gates") is None:
            raise pytest.UsageError(
                f"--prob-stop={mode} stops gated cases and needs the bundled gates extension: "
                "remove -p no:probability.gates"
            )
        config.pluginmanager.register(Stopper(config, rules_of(config).rules[mode]), STOPPER)


@dataclass(eq=False)  # registered as a plugin: pluggy needs it hashable
class Stopper:
    """Decides, before each run of a gated case, whether the case is settled."""

    config: pytest.Config
    decide: Decide
    #: case key → (verdict, runs made before stopping)
    decided: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: cases whose earlier runs this process did not make (spread over workers, or -k)
    partial: set[str] = field(default_factory=set)
    #: cases every run of which this process runs (not an xdist worker, none deselected):
    #: they may stop whatever order their runs come in (pytest-randomly shuffles them)
    complete: set[str] = field(default_factory=set)
    _thresholds: dict[tuple[str, Any], Thresholds] = field(default_factory=dict)

    def _gates(self, case: Case) -> tuple[tuple[Thresholds, ...], tuple[str, ...]] | None:
        from pytest_probability.extensions.gates.state import state_of

        gates = state_of(self.config).case_gates(case.key, case.mark)
        if not gates or any(kind.verdict_at is None for kind, _ in gates):
            return None  # ungated, or a gate (latency) that depends on more than passes
        deciding = gates  # every gate must be settled, whether or not it decides the runs
        found = []
        for kind, spec in deciding:
            key = (kind.name, spec)
            if key not in self._thresholds:
                verdict_at = kind.verdict_at
                assert verdict_at is not None
                self._thresholds[key] = Thresholds(
                    lambda p, n, _f=verdict_at, _s=spec: _f(_s, p, n, self.config)
                )
            found.append(self._thresholds[key])
        return tuple(found), tuple(kind.name for kind, _ in deciding)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note the cases all of whose runs this process will run. Called once per process
        after collection and deselection; returns nothing. A worker of pytest-xdist runs
        only what it is sent, so it notes none (its cases stop only from a run-order
        prefix of their runs)."""
        if hasattr(self.config, "workerinput"):
            return
        runs: dict[str, set[int]] = {}
        planned: dict[str, int] = {}
        for item in session.items:
            case = getattr(item, "case", None)
            run = getattr(item, "run", None)
            if isinstance(case, Case) and isinstance(run, int):
                runs.setdefault(case.key, set()).add(run)
                planned[case.key] = case.runs
        self.complete = {
            key for key, made in runs.items() if made == set(range(1, planned[key] + 1))
        }

    def pytest_prob_skip_run(self, item: pytest.Item, case: Case) -> str | None:
        """Skip the run when its case's verdict is settled. Called before every run in the
        executing process; returns the skip reason or ``None``."""
        key = case.key
        stopped = self.decided.get(key)
        if stopped is not None:
            return reason(*stopped, case.runs)
        if key in self.partial:
            return None
        found = self._gates(case)
        if found is None:
            return None
        gates, kinds = found
        run: int = getattr(item, "run", 1)
        result = kernel_of(self.config).results.get(key)
        made = set(result.records) if result is not None else set()
        if key not in self.complete and not set(range(1, run)) <= made:
            self.partial.add(key)  # never stop a case from a partial view
            return None
        if result is None:
            return None
        made.discard(run)  # a rerun (pytest-rerunfailures) is still to be made
        exclude = kernel_of(self.config).options.session_value("errors") == "exclude"
        judged = result.passes + result.fails + (0 if exclude else result.errors)
        context = StopContext(
            case, result.passes, judged, case.runs - len(made), case.runs, gates, kinds
        )
        verdict = self.decide(context)
        if verdict is None:
            return None
        self.decided[key] = (verdict, len(made))
        return reason(verdict, len(made), case.runs)

    def pytest_prob_run_finished(self, item: pytest.Item, record: dict[str, Any]) -> None:
        """Mark the skipped runs of a stopped case (``stopped``) and the runs of a case this
        process could not stop because its earlier runs ran elsewhere (``stop_partial``).
        Called in the executing process once per run; returns nothing."""
        key = record["key"]
        stopped = self.decided.get(key)
        if stopped is not None and record["outcome"] == SKIP:
            verdict, after = stopped
            record["stopped"] = {"verdict": verdict, "after": after, "planned": record["runs"]}
        elif key in self.partial and hasattr(self.config, "workerinput"):
            record["stop_partial"] = True


def reason(verdict: str, after: int, planned: int) -> str:
    """``decided after 38/40 (UNDECIDED)``."""
    return f"decided after {after}/{planned} ({verdict.upper()})"


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``decided after`` column, the ``Stopped:`` line, ``rows[].stopped``
    and the ``stopping`` object when a rule is on. Called once in the aggregating process;
    returns nothing."""
    mode = kernel_of(config).options.session_value("stop")
    if mode == OFF or not len(results):
        return  # (nothing ran: a --prob-plan session)
    cells: dict[str, str] = {}
    saved = planned = stopped_cases = 0
    avoided: float | None = None
    spread = 0
    cost_of = None
    if config.pluginmanager.get_plugin("probability.cost") is not None:
        from pytest_probability.extensions.cost.service import case_cost

        cost_of = case_cost
    for case in results.cases():
        planned += case.planned
        stop = case_stop(case)
        if is_spread(case):
            spread += 1
        report.add_row_json(case.key, {"stopped": stop})
        if stop is None:
            continue
        stopped_cases += 1
        saved += stop["skipped"]
        cells[case.key] = f"decided after {stop['after']}/{stop['planned']}"
        spent = cost_of(case) if cost_of is not None else None
        made = len(case.records) - stop["skipped"]
        if spent is not None and made > 0:  # the runs skipped would have cost what runs did
            avoided = (avoided or 0.0) + spent / made * stop["skipped"]
    if cells:
        report.add_column("stopped", cells, order=COLUMN_ORDER, align="free")
    share = f"{round(100 * saved / planned)}%" if planned else "0%"
    word = "case" if stopped_cases == 1 else "cases"
    text = f"{stopped_cases} {word} early, saving {saved} of {planned} runs ({share})"
    if avoided is not None and saved:
        from pytest_probability.extensions.cost.format import money

        text += f", about {money(avoided)} not spent"
    lines = [text]
    if spread:
        lines.append(
            f"{spread} case(s) had runs on several workers, which ran every run they had "
            "(-n with the default --dist load keeps each case on one worker)"
        )
    report.add_summary("Stopped:", lines, order=SUMMARY_ORDER)
    report.set_json(
        "stopping",
        {
            "mode": mode,
            "stopped_cases": stopped_cases,
            "runs_saved": saved,
            "runs_planned": planned,
            "cost_avoided": avoided,
            "spread_cases": spread,
        },
    )
