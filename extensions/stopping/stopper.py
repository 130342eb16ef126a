"""The ``stopping`` extension's per-run stopper, registered as
``probability.stopping.runs`` by the plugin's ``pytest_configure`` only when a rule is on
(``--prob-stop``), so sessions without one pay nothing per run.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import SKIP, Case, Thresholds, option_value, results_of

from .service import SETTLED, CaseStopping, StopContext, case_stopping


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
    """Decides, before each run of a gated case, whether the case is settled."""

    config: pytest.Config
    decide: Callable[[StopContext], str | None]
    #: case key → (verdict, runs made before stopping)
    decided: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: cases whose earlier runs this process did not make (spread over workers, or -k)
    partial: set[str] = field(default_factory=set)
    #: cases every run of which this process runs (not an xdist worker, none deselected):
    #: they may stop whatever order their runs come in (pytest-randomly shuffles them)
    complete: set[str] = field(default_factory=set)
    #: (case key, run) → why the run is made although the rule would stop the case
    held: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    _thresholds: dict[tuple[str, Any], Thresholds] = field(default_factory=dict)
    _cases: dict[str, StopCase | None] = field(default_factory=dict)

    def _case(self, case: Case) -> StopCase | None:
        """The case's gate thresholds, kinds and readers (``None``: never stopped), worked
        out once per case. Every gate has thresholds (whether or not it decides the runs,
        each must be settled), shared by the cases whose gates are alike."""
        if case.key not in self._cases:
            seen = case_stopping(self.config, case)
            found = None
            if seen is not None:
                gates = tuple(self._gate(kind, spec) for kind, spec in seen.gates)
                found = StopCase(seen, gates, tuple(kind.name for kind, _ in seen.gates))
            self._cases[case.key] = found
        return self._cases[case.key]

    def _gate(self, kind: Any, spec: Any) -> Thresholds:
        key = (kind.name, spec)
        if key not in self._thresholds:
            self._thresholds[key] = Thresholds(
                lambda p, n: kind.verdict_at(spec, p, n, self.config)
            )
        return self._thresholds[key]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Note the cases all of whose runs this process will run. Called once per process
        after collection and deselection. A worker of pytest-xdist runs only what it is
        sent, so it notes none (its cases stop only from a run-order prefix of their
        runs)."""
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
        """Skip the run when its case's verdict is settled: the rule says its gates are, and
        every reader of the case (``pytest_prob_stop_readers``) says its verdict is. Called
        before every run in the executing process; returns the skip reason or ``None``."""
        key = case.key
        stopped = self.decided.get(key)
        if stopped is not None:
            return reason(*stopped, case.runs)
        if key in self.partial:
            return None
        found = self._case(case)
        if found is None:
            return None  # no gate a rule can decide on
        run: int = getattr(item, "run", 1)
        result = results_of(self.config).get(key)
        made = set(result.records) if result is not None else set()
        if key not in self.complete and not set(range(1, run)) <= made:
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
        return reason(verdict, len(made), case.runs)

    def pytest_prob_run_finished(self, item: pytest.Item, record: dict[str, Any]) -> None:
        """Mark the skipped runs of a stopped case (``stopped``), the runs made only because
        a verdict reading the case was not settled (``stop_held``), and the runs of a case
        this process could not stop because its earlier runs ran elsewhere
        (``stop_partial``). Called in the executing process once per run."""
        key = record["key"]
        held = self.held.pop((key, record["run"]), None)
        if held is not None and record["outcome"] != SKIP:
            record["stop_held"] = held
        stopped = self.decided.get(key)
        if stopped is not None and record["outcome"] == SKIP:
            verdict, after = stopped
            record["stopped"] = {"verdict": verdict, "after": after, "planned": record["runs"]}
        elif key in self.partial and hasattr(self.config, "workerinput"):
            record["stop_partial"] = True


def reason(verdict: str, after: int, planned: int) -> str:
    """``decided after 38/40 (UNDECIDED)`` (``settled after …`` for a case without gates)."""
    if verdict == SETTLED:
        return f"settled after {after}/{planned} (every verdict reading it)"
    return f"decided after {after}/{planned} ({verdict.upper()})"
