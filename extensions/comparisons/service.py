"""What the comparisons extension answers ``--prob-plan`` (its ``pytest_prob_plan_costs``
and ``pytest_prob_plan_comparisons``): a few functions over its per-config state.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from pytest_probability.api import Case, options_of

from .axis.arms import compared_arms
from .baseline.files import BaselineError, read_baseline
from .options import PAIRED
from .sequential.outcome import design, design_level, family_size, resolution
from .sequential.plan import SESSIONS, Rule, simulate
from .sequential.rule import BERNSTEIN, GROUP_SEQUENTIAL, HORIZON, MIXTURE
from .session import setting, state_of


def plan_costs(path: str) -> dict[str, float]:
    """The cost of one run of each case of the report at ``path`` that recorded a cost,
    keyed by case key and by case id; a file that is not a report is a usage error."""
    try:
        earlier = read_baseline(path)
    except BaselineError as exc:
        raise pytest.UsageError(f"--prob-plan-report={exc}") from None
    costs: dict[str, float] = {}
    for case in earlier.cases.values():
        if case.cost is not None and case.total:
            costs[case.key] = costs[case.case] = case.cost / case.total
    return costs


def method_name(chosen: str, inputs: int) -> str:
    """The method a monitored comparison of ``inputs`` inputs is judged with."""
    if chosen == HORIZON:
        return GROUP_SEQUENTIAL
    return MIXTURE if inputs == 1 else BERNSTEIN


def assumed_rates(assume: float, difference: float) -> tuple[float, float]:
    """``(arm rate, baseline rate)`` with ``arm − baseline = difference`` and the better of
    the two passing with ``assume``; :class:`ValueError` when the other would leave
    ``[0, 1]``."""
    arm, base = (assume, assume - difference) if difference >= 0 else (assume + difference, assume)
    arm, base = round(arm, 12), round(base, 12)  # (0.9 − 0.3 is 0.6, not 0.6000000000000001)
    if not (0.0 <= arm <= 1.0 and 0.0 <= base <= 1.0):
        raise ValueError(
            f"a difference of {difference:g} needs the worse arm to pass with probability "
            f"{min(arm, base):g}: keep it within ±{assume:g} (--prob-plan-assume)"
        )
    return arm, base


def plan_comparisons(
    config: Any, cases: Iterable[Case], assume: float, difference: float
) -> list[dict[str, Any]]:
    """Each arm of each function compared with the ``paired`` test among ``cases`` (the
    selected ones), as sequential stopping would run it when arm − baseline is
    ``difference``: the JSON-able plan (``plan.comparisons[]``), in collection order.

    Every input makes at most the planned runs of its two cases, rounds stop at the fewest
    of them; the numbers come from :func:`.sequential.plan.simulate` (1,000 sessions seeded with
    ``--prob-seed``), through the runtime's own rule."""
    state = state_of(config)
    options = options_of(config)
    cases = list(cases)
    functions: dict[str, dict[str, dict[str, Case]]] = {}  # function → input → arm → case
    for case in cases:
        info = state.arms.get(case.key)
        if info is not None and options.case_value("compare_test", case.mark) == PAIRED:
            functions.setdefault(info.function, {}).setdefault(info.input_key, {})[info.arm] = case
    arm_rate, base_rate = assumed_rates(assume, difference)
    family = family_size(state.arms[case.key] for case in cases if case.key in state.arms)
    found = []
    for function, inputs in functions.items():
        first = next(iter(next(iter(inputs.values())).values()))
        info = state.arms[first.key]
        mark = first.mark
        level = setting(config, "confidence", mark)
        rule = Rule(
            design_level(config, level, mark.get("margin"), family),
            mark.get("margin"),
            bool(mark.get("equivalence", False)),
            resolution(config),
            design(config),
        )
        infos = (state.arms[case.key] for sides in inputs.values() for case in sides.values())
        for arm in compared_arms(infos):
            paired = [
                min(sides[arm].runs, sides[info.baseline].runs)
                for sides in inputs.values()
                if arm in sides and info.baseline in sides
            ]
            if not paired:
                continue
            planned = min(paired)
            seed = setting(config, "seed")
            outcome = simulate(len(paired), planned, arm_rate, base_rate, rule, seed=seed)
            found.append(
                {
                    "function": function,
                    "label": info.label,
                    "axis": info.axis,
                    "arm": arm,
                    "baseline": info.baseline,
                    "inputs": len(paired),
                    "planned_pairs": outcome.planned_pairs,
                    "difference": difference,
                    "arm_rate": arm_rate,
                    "base_rate": base_rate,
                    "margin": rule.margin,
                    "equivalence": rule.equivalence,
                    "method": method_name(rule.design, len(paired)),
                    "expected_pairs": outcome.expected_pairs,
                    "right": outcome.right,
                    "right_chance": outcome.right_chance,
                    "chances": dict(sorted(outcome.chances.items())),
                    "sessions": SESSIONS,
                    "seed": seed,
                }
            )
    return found
