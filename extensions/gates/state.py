"""The gates of a session: kinds (filled through the historic hook), each case's gates,
verdicts, and how each verdict was reached.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    FAIL,
    PASS,
    UNDECIDED,
    CaseResult,
    OptionError,
    ProbabilityWarning,
    call_registrations,
)

from .registry import GateKind, GateResult

STATE_KEY = pytest.StashKey["GateState"]()


def combine(verdicts: list[str]) -> str:
    """A case's verdict over its gates: any FAIL fails, else any UNDECIDED, else PASS."""
    return next((worst for worst in (FAIL, UNDECIDED) if worst in verdicts), PASS)


class GateJudgeWarning(ProbabilityWarning, pytest.PytestWarning):
    """A gate kind raised while judging a case; the check was counted as UNDECIDED."""


@dataclass
class CaseVerdict:
    """A gated case's verdict: the combination of its gates' results."""

    verdict: str
    results: list[GateResult]
    #: ``"item"`` when its ``[gate]`` item judged it, else ``"session"``
    judged: str = "session"

    def failing(self, undecided_fails: bool) -> bool:
        return self.verdict == FAIL or (self.verdict == UNDECIDED and undecided_fails)


@dataclass
class GateState:
    config: pytest.Config
    #: the registered kinds by name, in registration order (``None`` until first use)
    _kinds: dict[str, GateKind] | None = None
    #: case key → [(kind, spec)]
    gates: dict[str, list[tuple[GateKind, Any]]] = field(default_factory=dict)
    #: case keys whose gate decides for their runs (failing runs are xfailed)
    deciding: set[str] = field(default_factory=set)
    #: aggregating process: case key → verdict
    verdicts: dict[str, CaseVerdict] = field(default_factory=dict)
    #: gate item node id → "passed" / "failed" / "skipped" as reported
    item_outcomes: dict[str, str] = field(default_factory=dict)
    #: kinds whose judge raised (warned about once)
    broken_kinds: set[str] = field(default_factory=set)
    #: collecting processes: case key → the warnings of its gates that cannot pass
    #: (issued at the end of collection, for the cases still selected)
    infeasible: dict[str, list[Warning]] = field(default_factory=dict)

    def kinds(self) -> list[GateKind]:
        if self._kinds is None:
            self._kinds = {}
            call_registrations(
                self.config.hook.pytest_prob_register_gates,
                {"register": self.register, "config": self.config},
                "gate kinds",
            )
        return list(self._kinds.values())

    def register(self, name: str, *, describe: Any = None, **fields: Any) -> None:
        """Add a kind: the ``register`` callback of ``pytest_prob_register_gates``
        (:class:`~.registry.RegisterGate`); a name registered twice is a ``ValueError``."""
        assert self._kinds is not None
        if name in self._kinds:
            raise ValueError(f"gate kind {name!r} is registered twice")
        self._kinds[name] = GateKind(name, describe=describe or str, **fields)

    def case_gates(self, key: str, mark: Mapping[str, Any]) -> list[tuple[GateKind, Any]]:
        """The gates of a case (cached by case key)."""
        found = self.gates.get(key)
        if found is None:
            found = []
            intervals = self.config.pluginmanager.get_plugin("probability.intervals")
            for kind in self.kinds():
                if intervals is None and kind.name in ("rate", "count"):
                    if any(mark.get(k) is not None for k in ("min_rate", "min_passes")):
                        raise OptionError(
                            "min_rate and min_passes gates need the bundled intervals "
                            "extension: remove -p no:probability.intervals"
                        )
                    continue
                spec = kind.configure(mark, self.config)
                if spec is not None:
                    found.append((kind, spec))
            self.gates[key] = found
            if any(kind.decides_runs for kind, _ in found):
                self.deciding.add(key)
        return found

    def judge(self, case: CaseResult) -> CaseVerdict | None:
        """The verdict on ``case`` from the runs it has (``None`` when it is not gated)."""
        gates = self.case_gates(case.key, case.mark)
        if not gates:
            return None
        results = [self._judge_one(kind, spec, case) for kind, spec in gates]
        return CaseVerdict(combine([r.verdict for r in results]), results)

    def _judge_one(self, kind: GateKind, spec: Any, case: CaseResult) -> GateResult:
        """One gate's result; a kind that raises makes the check UNDECIDED (and warns once
        per kind), because the runs it would judge may have cost real money."""
        try:
            return kind.judge(spec, case, self.config)
        except Exception as exc:
            message = f"{kind.name} gate could not be judged: {type(exc).__name__}: {exc}"
            if kind.name not in self.broken_kinds:
                self.broken_kinds.add(kind.name)
                warnings.warn(GateJudgeWarning(message), stacklevel=2)
            return GateResult(kind.name, UNDECIDED, f"{message}  UNDECIDED", {"error": message})


def state_of(config: pytest.Config) -> GateState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = GateState(config)
    return state
