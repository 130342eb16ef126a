"""A session's comparisons: the per-config state, the readers of other extensions' settings
and answers, and building the comparisons from run records (in the aggregating process, or
in a worker for a ``[compare:ARM]`` item).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    SKIP,
    CaseResult,
    CaseWarning,
    ProbabilityWarning,
    call_first,
    not_an_amount,
    options_of,
)

from .axis.arms import ArmInfo, compared_arms
from .options import adjustments_of, tests_of
from .registry import Pair, Side, TestSettings
from .sequential import outcome as sequential
from .statistics.engine import Comparison, adjust_family, run_test

STATE_KEY = pytest.StashKey["CompareState"]()
RECORD_FIELD = "compare"
#: defaults when the intervals extension (which owns these settings) is disabled
DEFAULTS = {
    "confidence": 0.95,
    "min_inputs": 10,
    "bootstrap": 5000,
    "seed": 0,
    "bootstrap_method": "auto",
}
#: what ``--prob-bootstrap-method=auto`` means for a comparison's paired bootstrap: the
#: expanded percentile interval, the one whose coverage over 10–40 inputs is near its level
#: (docs/statistics.rst, "Bootstrap interval methods")
AUTO_PAIRED_METHOD = "expanded"


class ComparisonWarning(ProbabilityWarning, pytest.PytestWarning):
    """A comparison test or p adjustment raised; the comparison is marked as failed."""


class AxisWarning(ProbabilityWarning, pytest.PytestWarning):
    """``--prob-compare`` (or ini ``prob_compare``) names a parametrize argument that no
    collected bench function has: most likely a typo (filter with ``-W``)."""


class MarginWarning(ProbabilityWarning, pytest.PytestWarning):
    """A margin (``margin=`` or ``--prob-margin``) cannot pass: its comparison will have too
    few paired inputs for an interval, so its verdict is always UNDECIDED (filter with
    ``-W``)."""


@dataclass(frozen=True)
class MarginCheck:
    """What the end of collection needs to count a margin's paired inputs."""

    arms: dict[str, ArmInfo]
    rule: str


@dataclass
class CompareState:
    config: pytest.Config
    #: collecting processes: case key → its arm and input
    arms: dict[str, ArmInfo] = field(default_factory=dict)
    #: the JSON form of ``arms`` (what run records carry)
    arm_json: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: collecting processes: (function key, input key) → the arms that input has
    input_arms: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    #: aggregating process: the session's comparisons, in report order
    comparisons: list[Comparison] = field(default_factory=list)
    #: compare item node id (without the kind) → how it ended
    item_outcomes: dict[str, str] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)
    #: collecting processes: the parametrize argument names of every collected bench function
    arguments: set[str] = field(default_factory=set)
    #: collecting processes: how many bench functions were collected
    functions: int = 0
    #: collecting processes: function key → its margin, checked when collection is finished
    margin_checks: dict[str, MarginCheck] = field(default_factory=dict)
    #: (test, pairs, settings) → the test's answer: a ``[compare:ARM]`` item and the report
    #: read the same runs, so a bootstrap is made once (and both say the same)
    outcomes: dict[tuple[str, tuple[Pair, ...], TestSettings], Any] = field(default_factory=dict)

    def warn_once(self, key: str, message: str, stacklevel: int = 3) -> None:
        if key not in self.warned:
            self.warned.add(key)
            warnings.warn(ComparisonWarning(message), stacklevel=stacklevel)


def margin_warning(
    name: str, paired: int, rule: str, min_inputs: int, cause: str | None = None
) -> CaseWarning:
    """``name``: ``triage[style] chain_of_thought − terse``; ``cause``: the session setting
    that set the margin (``--prob-margin=0.05``), ``None`` for a mark."""
    few = "2 paired inputs" if min_inputs == 3 else f"2 to {min_inputs - 1} paired inputs"
    return CaseWarning(
        MarginWarning,
        name,
        f"the margin cannot pass with {paired} paired inputs: {rule} is judged on an "
        f"interval, and {few} have none (prob_min_inputs={min_inputs}): "
        "the verdict is always UNDECIDED",
        cause,
        noun="comparison",
    )


def state_of(config: pytest.Config) -> CompareState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = CompareState(config)
    return state


def setting(config: pytest.Config, name: str, mark: Mapping[str, Any] | None = None) -> Any:
    """A setting owned by another extension, or its default when that one is disabled."""
    options = options_of(config)
    if name not in options.specs:
        return DEFAULTS[name]
    return options.case_value(name, mark or {})


def test_settings(config: pytest.Config, mark: Mapping[str, Any]) -> TestSettings:
    return TestSettings(
        level=setting(config, "confidence", mark),
        min_inputs=setting(config, "min_inputs"),
        resamples=setting(config, "bootstrap"),
        seed=setting(config, "seed"),
        bootstrap_method=paired_method(setting(config, "bootstrap_method")),
    )


def paired_method(value: str) -> str:
    """The paired bootstrap's method for a ``--prob-bootstrap-method`` setting."""
    return AUTO_PAIRED_METHOD if value == "auto" else value


def runs_made(case: CaseResult) -> int:
    """The runs a case made: its judged runs, and its skipped runs that recorded a cost (a
    run that skipped itself after spending). Runs a stopping rule, a budget or a skip mark
    never started spent nothing and are not counted, so a cost per run made is the same
    whether or not some runs were skipped."""
    return sum(
        1 for r in case.records.values() if r["outcome"] != SKIP or r.get("cost") is not None
    )


def tagged(case: CaseResult, field: str) -> Any:
    """The first of a case's run records' ``field`` that is set, else ``None``."""
    return next((r[field] for r in case.records.values() if r.get(field)), None)


def cost_reader(config: pytest.Config) -> Callable[[Any], float | None]:
    """A case's cost through the ``cost`` extension, or ``None`` when it is disabled."""
    if config.pluginmanager.get_plugin("probability.cost") is None:
        return lambda case: None
    return lambda case: call_first(
        config, "pytest_prob_case_cost", check=not_an_amount, case=case, config=config
    )


def stop_reader(config: pytest.Config) -> Callable[[Any], bool]:
    """Whether a case was stopped early, through the ``stopping`` extension."""
    if not config.hook.pytest_prob_case_stopped.get_hookimpls():
        return lambda case: False
    hook = "pytest_prob_case_stopped"

    def not_a_bool(answer: Any) -> str | None:
        return None if isinstance(answer, bool) else f"answered {answer!r:.200}, not True/False"

    return lambda case: bool(call_first(config, hook, check=not_a_bool, case=case, config=config))


def side_of(case: CaseResult, cost_of: Callable[[Any], float | None]) -> Side:
    """Its ``runs`` are the runs it made, so the cost ratio is per run made on each side."""
    return Side(case.key, case.passes, case.total, cost_of(case), runs_made(case))


def compute(
    config: pytest.Config,
    key: str,
    what: str,
    work: Callable[..., None],
    comparison: Any,
    *args: Any,
) -> None:
    """``work(comparison, *args)``: a failure becomes the comparison's error and a
    :class:`ComparisonWarning` (once per ``key``), never a lost report."""
    try:
        work(comparison, *args)
    except Exception as exc:
        comparison.error = f"{type(exc).__name__}: {exc}"
        state_of(config).warn_once(key, f"{what} failed: {comparison.error}", stacklevel=4)


def remembered(config: pytest.Config, test: str) -> Callable[..., Any]:
    """The registered comparison test ``test``, answering each (pairs, settings) once per
    session (an answer that raises is asked again: it is reported each time)."""
    compute, outcomes = tests_of(config).get(test), state_of(config).outcomes

    def answer(pairs: Sequence[Pair], settings: TestSettings) -> Any:
        key = (test, tuple(pairs), settings)
        if key not in outcomes:
            outcomes[key] = compute(pairs, settings)
        return outcomes[key]

    return answer


def build(
    config: pytest.Config, cases: Iterable[CaseResult], function: str | None = None
) -> list[Comparison]:
    """Every comparison of the given cases (only ``function``'s when given), tested, with
    verdicts; adjusted as one family when ``function`` is ``None`` (the whole session)."""
    options = options_of(config)
    cost_of = cost_reader(config)
    is_stopped = stop_reader(config)
    grouped: dict[str, list[tuple[ArmInfo, CaseResult]]] = {}
    every: list[ArmInfo] = []
    for case in cases:
        data = tagged(case, RECORD_FIELD)
        info = None if data is None else ArmInfo.from_json(data)
        if info is not None:
            every.append(info)
        if info is not None and (function is None or info.function == function):
            grouped.setdefault(info.function, []).append((info, case))
    family = sequential.family_size(every)  # (--prob-adjust's family: every comparison)
    comparisons: list[Comparison] = []
    for members in grouped.values():
        first_info, first_case = members[0]
        mark = first_case.mark
        test = options.case_value("compare_test", mark)
        settings = test_settings(config, mark)
        monitored = sequential.monitored(config, mark)
        inputs: dict[str, dict[str, CaseResult]] = {}
        names: dict[str, str] = {}
        for info, case in members:
            inputs.setdefault(info.input_key, {})[info.arm] = case
            names.setdefault(info.input_key, info.input)
        base = first_info.baseline
        for arm in compared_arms(info for info, _ in members):
            pairs: list[Pair] = []
            unpaired: list[tuple[str, str]] = []
            paired: dict[str, tuple[str, CaseResult, CaseResult]] = {}  # (for the sequence)
            for key, by_arm in inputs.items():
                here, there = by_arm.get(arm), by_arm.get(base)
                ran_here = here is not None and here.total > 0
                ran_there = there is not None and there.total > 0
                if ran_here and ran_there:
                    pairs.append(Pair(names[key], side_of(here, cost_of), side_of(there, cost_of)))
                    paired[key] = (names[key], here, there)
                elif ran_here or ran_there:
                    unpaired.append((names[key], arm if ran_here else base))
            comparison = Comparison(
                function=first_info.function,
                label=first_info.label,
                axis=first_info.axis,
                arm=arm,
                baseline=base,
                pairs=pairs,
                unpaired=unpaired,
                test=test,
                level=settings.level,
                margin=mark.get("margin"),
                equivalence=bool(mark.get("equivalence", False)),
            )
            comparisons.append(comparison)
            if monitored and pairs:  # on its sequence
                # in input-key order, the order the stopper read
                args = (
                    [paired[key] for key in sorted(paired)],
                    sequential.design_level(config, settings.level, comparison.margin, family),
                    sequential.resolution(config),
                    sequential.design(config),
                )
                compute(config, "test:sequence", "the sequence", sequential.run, comparison, *args)
                continue
            what, work = f"comparison test {test!r}", remembered(config, test)
            compute(config, f"test:{test}", what, run_test, comparison, work, settings)
            stopped = [c for i in inputs.values() for c in i.values() if is_stopped(c)]
            if stopped and comparison.outcome is not None:
                hide(comparison, len(stopped))
    if function is None:
        name = options.session_value("adjust")
        try:
            if any(c.outcome and c.outcome.regime == "sequence" for c in comparisons):
                sequential.adjust(comparisons, name, adjustments_of(config).get(name))
            else:
                adjust_family(comparisons, name, adjustments_of(config).get(name))
        except Exception as exc:
            state_of(config).warn_once(
                f"adjust:{name}", f"p adjustment {name!r} failed: {type(exc).__name__}: {exc}"
            )
            for comparison in comparisons:
                comparison.p_adjusted = None
                comparison.adjust = "none"
    for comparison in comparisons:
        comparison.judge()
    return comparisons


def hide(comparison: Comparison, stopped: int) -> None:
    """Hide what a comparison computes from the fractions of cases stopped early (they lean
    toward their verdicts): interval, p, per-input lines, and the difference where it is
    printed and written; its p leaves the family and its margin is not judged. (A margin
    keeps the cases it reads running, so it is hidden only when something else stopped them.)"""
    word = "case was" if stopped == 1 else "cases were"
    comparison.extra["hidden"] = f"{stopped} {word} stopped early and lean toward their verdicts"
    comparison.outcome = dataclasses.replace(
        comparison.outcome, low=None, high=None, p=None, inputs=()
    )
