"""A session's comparisons: settings per function, registries, and building the comparisons
from run records (in the aggregating process, or in a worker for a ``[compare:ARM]`` item).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import SKIP, CaseResult, options_of

from .axis.arms import ArmInfo
from .options import PAIRED  # the bundled test's name, declared with its setting
from .registrations import registries_of
from .registry import Pair, Side, TestSettings
from .statistics.adjust import benjamini_hochberg, bonferroni, holm

if TYPE_CHECKING:
    from .statistics.engine import Comparison

STATE_KEY = pytest.StashKey["CompareState"]()
RECORD_FIELD = "compare"
#: defaults when the intervals extension (which owns these settings) is disabled
DEFAULTS = {"confidence": 0.95, "min_inputs": 10, "bootstrap": 5000, "seed": 0}


class ComparisonWarning(pytest.PytestWarning):
    """A comparison test or p adjustment raised; the comparison is marked as failed."""


class AxisWarning(pytest.PytestWarning):
    """``--prob-compare`` (or ini ``prob_compare``) names a parametrize argument that no
    collected bench function has: most likely a typo (filter with ``-W``)."""


class MarginWarning(pytest.PytestWarning):
    """A margin (``margin=`` or ``--prob-margin``) cannot pass: its comparison will have too
    few paired inputs for an interval, so its verdict is always UNDECIDED (filter with
    ``-W``)."""


@dataclass(frozen=True)
class MarginCheck:
    """What the end of collection needs to count a margin's paired inputs.

    :ivar arms: each case's arm and input (by case key).
    :ivar rule: the margin as the mark gave it (``margin=0.02``).
    """

    arms: dict[str, ArmInfo]
    rule: str


@dataclass(frozen=True)
class FunctionSettings:
    """How one function is compared (from its mark and the session's settings)."""

    axis: str
    margin: float | None
    equivalence: bool
    test: str


@dataclass
class CompareState:
    config: pytest.Config
    #: collecting processes: case key → its arm and input
    arms: dict[str, ArmInfo] = field(default_factory=dict)
    #: the JSON form of ``arms`` (what run records carry)
    arm_json: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: collecting processes: function key → its case keys and planned runs
    planned: dict[str, dict[str, int]] = field(default_factory=dict)
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

    def warn_once(self, key: str, message: str) -> None:
        if key not in self.warned:
            self.warned.add(key)
            warnings.warn(ComparisonWarning(message), stacklevel=3)


def few_pairs(min_inputs: int) -> str:
    """``2 to 9 paired inputs``: the counts that have no interval (for messages)."""
    return "2 paired inputs" if min_inputs == 3 else f"2 to {min_inputs - 1} paired inputs"


def margin_warning(name: str, paired: int, rule: str, min_inputs: int) -> MarginWarning:
    """The warning for a margin whose comparison will have ``paired`` inputs, too few for
    an interval (``name``: ``triage[style] chain_of_thought − terse``)."""
    return MarginWarning(
        f"{name}: the margin cannot pass with {paired} paired inputs: {rule} is judged on an "
        f"interval, and {few_pairs(min_inputs)} have none (prob_min_inputs={min_inputs}): "
        "the verdict is always UNDECIDED"
    )


def state_of(config: pytest.Config) -> CompareState:
    state = config.stash.get(STATE_KEY, None)
    if state is None:
        state = config.stash[STATE_KEY] = CompareState(config)
    return state


def paired(pairs: Any, settings: TestSettings) -> Any:
    """The bundled ``paired`` test (its statistics are imported when first used)."""
    from .statistics.engine import paired_test

    return paired_test(pairs, settings)


def register_bundled(tests: Any, adjustments: Any) -> None:
    """The bundled test and adjustments (called through the registration hooks)."""
    tests(PAIRED, paired, description="Newcombe/Fisher, sign-flip, paired bootstrap")
    adjustments("none", list, description="no adjustment (exploratory)")
    adjustments("holm", holm, description="Holm step-down")
    adjustments("bonferroni", bonferroni, description="Bonferroni")
    adjustments("bh", benjamini_hochberg, description="Benjamini–Hochberg step-up")


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
    )


def arm_of(case: CaseResult) -> ArmInfo | None:
    """The case's arm and input, from its records."""
    for record in case.records.values():
        data = record.get(RECORD_FIELD)
        if data:
            return ArmInfo.from_json(data)
    return None


def runs_made(case: CaseResult) -> int:
    """The runs a case made: its judged runs, and its skipped runs that recorded a cost (a
    run that skipped itself after spending). Runs a stopping rule, a budget or a skip mark
    never started spent nothing and are not counted, so a cost per run made is the same
    whether or not some runs were skipped."""
    return sum(
        1 for r in case.records.values() if r["outcome"] != SKIP or r.get("cost") is not None
    )


def cost_reader(config: pytest.Config) -> Any:
    """A case's cost, read through the ``cost`` extension (``pytest_prob_case_cost``), or a
    reader that always answers ``None`` when that extension is disabled."""
    if config.pluginmanager.get_plugin("probability.cost") is None:
        return lambda case: None
    case_cost = config.hook.pytest_prob_case_cost
    return lambda case: case_cost(case=case, config=config)


def stop_reader(config: pytest.Config) -> Any:
    """Whether a case was stopped early, read through the ``stopping`` extension
    (``pytest_prob_case_stopped``), or a reader that always answers ``False`` when nothing
    implements it (no case is stopped then)."""
    case_stopped = config.hook.pytest_prob_case_stopped
    if not case_stopped.get_hookimpls():
        return lambda case: False
    return lambda case: bool(case_stopped(case=case, config=config))


def _side(case: CaseResult, cost_of: Any) -> Side:
    """One arm of one input; its ``runs`` are the runs it made (:func:`runs_made`), so the
    cost ratio is per run made on each side."""
    return Side(case.key, case.passes, case.total, cost_of(case), runs_made(case))


def build(
    config: pytest.Config, cases: Iterable[CaseResult], function: str | None = None
) -> list[Comparison]:
    """Every comparison of the given cases (only ``function``'s when given), tested, with
    verdicts; adjusted as one family when ``function`` is ``None`` (the whole session)."""
    options = options_of(config)
    state = state_of(config)
    registries = registries_of(config)
    cost_of = cost_reader(config)
    is_stopped = stop_reader(config)
    grouped: dict[str, list[tuple[ArmInfo, CaseResult]]] = {}
    for case in cases:
        info = arm_of(case)
        if info is not None and (function is None or info.function == function):
            grouped.setdefault(info.function, []).append((info, case))
    if not grouped:
        return []  # nothing compared: the engine's modules need not load
    from .statistics.engine import Comparison, adjust_family, run_test

    comparisons: list[Comparison] = []
    for members in grouped.values():
        first_info, first_case = members[0]
        mark = first_case.mark
        margin = mark.get("margin")
        equivalence = bool(mark.get("equivalence", False))
        test = options.case_value("compare_test", mark)
        settings = test_settings(config, mark)
        sequential = _sequential(config, mark)
        arms = sorted({(i.arm_index, i.arm) for i, _ in members})
        inputs: dict[str, dict[str, CaseResult]] = {}
        names: dict[str, str] = {}
        for info, case in members:
            inputs.setdefault(info.input_key, {})[info.arm] = case
            names.setdefault(info.input_key, info.input)
        base = first_info.baseline
        for _, arm in arms:
            if arm == base:
                continue
            pairs: list[Pair] = []
            unpaired: list[tuple[str, str]] = []
            for key, by_arm in inputs.items():
                here = by_arm.get(arm)
                there = by_arm.get(base)
                ran_here = here is not None and here.total > 0
                ran_there = there is not None and there.total > 0
                if ran_here and ran_there:
                    assert here is not None and there is not None
                    pairs.append(Pair(names[key], _side(here, cost_of), _side(there, cost_of)))
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
                margin=margin,
                equivalence=equivalence,
            )
            if sequential is not None and pairs:  # monitored on its sequence
                try:
                    sequential.run(
                        comparison, inputs, names, settings.level, sequential.resolution(config)
                    )
                except Exception as exc:  # a bug must not lose the report
                    comparison.error = f"{type(exc).__name__}: {exc}"
                    state.warn_once("test:sequence", f"the sequence failed: {comparison.error}")
                comparisons.append(comparison)
                continue
            try:
                run_test(comparison, registries.tests().get(test), settings)
            except Exception as exc:  # a test's bug must not lose the report
                comparison.error = f"{type(exc).__name__}: {exc}"
                state.warn_once(
                    f"test:{test}", f"comparison test {test!r} failed: {comparison.error}"
                )
            stopped = [c for i in inputs.values() for c in i.values() if is_stopped(c)]
            if stopped and comparison.outcome is not None:
                hide(comparison, len(stopped))
            comparisons.append(comparison)
    if function is None:
        name = options.session_value("adjust")
        try:
            if name == "bh" and any(
                c.outcome and c.outcome.regime == "sequence" for c in comparisons
            ):
                from .sequential.outcome import e_bh

                e_bh(comparisons)  # BH on always-valid p-values is not valid: e-BH is
            else:
                adjust_family(comparisons, name, registries.adjustments().get(name))
        except Exception as exc:
            state.warn_once(
                f"adjust:{name}", f"p adjustment {name!r} failed: {type(exc).__name__}: {exc}"
            )
            for comparison in comparisons:
                comparison.p_adjusted = None
                comparison.adjust = "none"
    for comparison in comparisons:
        comparison.judge()
    return comparisons


def _sequential(config: pytest.Config, mark: Mapping[str, Any]) -> Any:
    """The :mod:`.sequential.outcome` module when the function is compared on its sequence
    (``--prob-stop=sequential`` and the ``paired`` test), else ``None``."""
    from .sequential import outcome

    return outcome if outcome.monitored(config, mark) else None


def hide(comparison: Comparison, stopped: int) -> None:
    """Hide everything a comparison computes from the fractions of cases stopped early
    (they lean toward their verdicts): the interval, p and the per-input lines here, the
    difference where it is printed and written (:meth:`Comparison.to_json`). Its p leaves
    the adjustment family and its margin is not judged. (A margin keeps the cases it reads
    running, so a margin's comparison is hidden only when something else stopped them.)"""
    import dataclasses

    assert comparison.outcome is not None
    word = "case was" if stopped == 1 else "cases were"
    comparison.extra["hidden"] = f"{stopped} {word} stopped early and lean toward their verdicts"
    comparison.outcome = dataclasses.replace(
        comparison.outcome, low=None, high=None, p=None, inputs=()
    )
