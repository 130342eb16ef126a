"""Comparison axes: which arm and which input each case of a function is.

An *axis* is a parametrize argument (``style``); each of its values is an *arm*; an *input*
is everything else about a case (the case id without the axis part). Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import Case, FunctionCases


@dataclass(frozen=True)
class ArmInfo:
    """Where one case sits in its function's comparison: the function's key and label, the
    axis, the case's arm (its id segment) and the arm's position among the axis values, the
    input's display id and a stable key for it (its other parameters' indices), and the
    baseline arm every other arm is compared with."""

    function: str
    label: str
    axis: str
    arm: str
    arm_index: int
    input: str
    input_key: str
    baseline: str

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ArmInfo:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


def compared_arms(infos: Iterable[ArmInfo]) -> list[str]:
    """The arms compared with the baseline arm, in the axis's order."""
    found = sorted({(info.arm_index, info.arm, info.baseline) for info in infos})
    return [arm for _, arm, baseline in found if arm != baseline]


class OneValueError(ValueError):
    """The function has a single value of the axis (``values``): nothing to compare."""

    def __init__(self, message: str, values: list[str]) -> None:
        super().__init__(message)
        self.values = values


def _axis_position(cases: Sequence[Case], axis: str) -> int | None:
    """The position of the axis's id segment in ``Case.param_ids``: the one whose segment
    follows the axis value one-to-one across all cases (values compared with ``==``: they
    need not be hashable)."""
    lengths = {len(case.param_ids) for case in cases}
    if len(lengths) != 1 or 0 in lengths:
        return None
    (length,) = lengths

    def follows(position: int) -> bool:
        seen: list[tuple[Any, str]] = []
        for case in cases:
            value, segment = case.params[axis], case.param_ids[position]
            if any((known == value) != (shown == segment) for known, shown in seen):
                return False
            if all(shown != segment for _, shown in seen):
                seen.append((value, segment))
        return True

    return next((position for position in range(length) if follows(position)), None)


def analyse_axis(function: FunctionCases, axis: str, baseline: Any = None) -> dict[str, ArmInfo]:
    """Each case's :class:`ArmInfo` (by case key) for comparing ``axis`` in ``function``:
    arms in the parametrize list's order, the baseline the first unless ``baseline`` names a
    value (or an id) of the axis. Raises :class:`ValueError` naming the function when
    ``axis`` is not one of its parametrize arguments, has a single value
    (:class:`OneValueError`), or ``baseline`` is not one of its values."""
    cases = list(function.cases)
    arguments = list(cases[0].params) if cases else []
    if not cases or any(axis not in case.params for case in cases):
        have = f"its arguments are: {', '.join(arguments)}" if arguments else "it has none"
        raise ValueError(
            f"compare={axis!r} names no parametrize argument of {function.function} ({have})"
        )
    position = _axis_position(cases, axis)
    arms: list[tuple[str, Any]] = []  # (arm id, value) in order of first appearance
    rows: list[tuple[Case, str, str, str]] = []
    for case in cases:
        value = case.params[axis]
        if position is not None:
            arm = case.param_ids[position]
            rest = [seg for i, seg in enumerate(case.param_ids) if i != position]
        else:  # pytest did not expose the id segments: fall back to the values
            arm = str(value)
            rest = [f"{name}={case.params[name]!r}" for name in case.params if name != axis]
        if all(known != arm for known, _ in arms):
            arms.append((arm, value))
        rows.append((case, arm, "-".join(rest) or function.label, json.dumps(rest)))
    ordered = [arm for arm, _ in arms]
    if len(ordered) < 2:
        raise OneValueError(
            f"compare={axis!r}: {function.function} has one value of {axis} "
            f"({ordered[0]}): there is nothing to compare it with",
            ordered,
        )
    if baseline is None:
        chosen = ordered[0]
    else:
        matches = [arm for arm, value in arms if _same(value, baseline) or arm == str(baseline)]
        if not matches:
            raise ValueError(
                f"baseline={baseline!r} is not a value of {axis} in {function.function}; "
                f"its values are: {', '.join(ordered)}"
            )
        chosen = matches[0]
    index = {arm: position for position, arm in enumerate(ordered)}
    return {
        case.key: ArmInfo(
            function=function.key,
            label=function.label,
            axis=axis,
            arm=arm,
            arm_index=index[arm],
            input=shown,
            input_key=key,
            baseline=chosen,
        )
        for case, arm, shown, key in rows
    }


def _same(value: Any, baseline: Any) -> bool:
    try:
        return bool(value == baseline)
    except Exception:  # a value whose == misbehaves is simply not the baseline
        return False
