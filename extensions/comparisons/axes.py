"""Comparison axes: which arm and which input each case of a function is.

An *axis* is a parametrize argument (``style``); each of its values is an *arm*; an *input*
is everything else about a case (the case id without the axis part). Pure module: never
imports pytest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_probability.cases import Case, FunctionCases


@dataclass(frozen=True)
class ArmInfo:
    """Where one case sits in its function's comparison.

    :ivar function: the function's key (``bench_x.py::bench_triage``).
    :ivar label: the function label (``triage``).
    :ivar axis: the compared parametrize argument (``style``).
    :ivar arm: the case's arm, as its id segment (``chain_of_thought``).
    :ivar arm_index: the arm's position among the axis values.
    :ivar input: the input's display id (``refund``).
    :ivar input_key: a stable key identifying the input (its other parameters' indices).
    :ivar baseline: the baseline arm every other arm is compared with.
    """

    function: str
    label: str
    axis: str
    arm: str
    arm_index: int
    input: str
    input_key: str
    baseline: str

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "label": self.label,
            "axis": self.axis,
            "arm": self.arm,
            "arm_index": self.arm_index,
            "input": self.input,
            "input_key": self.input_key,
            "baseline": self.baseline,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ArmInfo:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


def _axis_position(cases: Sequence[Case], axis: str) -> int | None:
    """The position of the axis's id segment in ``Case.param_ids``: the one whose segment is
    a one-to-one function of the axis index across all cases (``None`` when there is none)."""
    lengths = {len(case.param_ids) for case in cases}
    if len(lengths) != 1 or 0 in lengths:
        return None
    (length,) = lengths
    for position in range(length):
        by_index: dict[int, str] = {}
        by_id: dict[str, int] = {}
        consistent = True
        for case in cases:
            index = case.param_indices[axis]
            segment = case.param_ids[position]
            if by_index.setdefault(index, segment) != segment:
                consistent = False
                break
            if by_id.setdefault(segment, index) != index:
                consistent = False
                break
        if consistent:
            return position
    return None


def _describe_values(values: Sequence[str]) -> str:
    return ", ".join(values)


def analyse_axis(function: FunctionCases, axis: str, baseline: Any = None) -> dict[str, ArmInfo]:
    """Each case's :class:`ArmInfo` (keyed by case key) for comparing ``axis`` in ``function``.

    Raises :class:`ValueError` with a message naming the function when ``axis`` is not one
    of its parametrize arguments, has a single value, or ``baseline`` is not one of its
    values.
    """
    cases = list(function.cases)
    arguments = list(cases[0].params) if cases else []
    if not cases or any(axis not in case.param_indices for case in cases):
        have = f"its arguments are: {', '.join(arguments)}" if arguments else "it has none"
        raise ValueError(
            f"compare={axis!r} names no parametrize argument of {function.function} ({have})"
        )
    position = _axis_position(cases, axis)
    shared = {
        name
        for name in cases[0].param_indices
        if all(case.param_indices.get(name) == case.param_indices[axis] for case in cases)
    }
    arms: dict[int, str] = {}
    values: dict[int, Any] = {}
    rows: list[tuple[Case, int, str, str, str]] = []
    for case in cases:
        index = case.param_indices[axis]
        if position is not None:
            arm = case.param_ids[position]
            rest = [seg for i, seg in enumerate(case.param_ids) if i != position]
            shown = "-".join(rest)
        else:  # pytest did not expose the id segments: fall back to values and indices
            arm = str(case.params[axis])
            shown = "-".join(
                f"{name}{case.param_indices[name]}"
                for name in sorted(case.param_indices)
                if name not in shared
            )
        key = json.dumps(sorted((n, i) for n, i in case.param_indices.items() if n not in shared))
        arms.setdefault(index, arm)
        values.setdefault(index, case.params[axis])
        rows.append((case, index, arm, shown or function.label, key))
    ordered = [arms[index] for index in sorted(arms)]
    if len(ordered) < 2:
        raise ValueError(
            f"compare={axis!r}: {function.function} has one value of {axis} "
            f"({ordered[0]}): there is nothing to compare it with"
        )
    if baseline is None:
        chosen = ordered[0]
    else:
        matches = [
            arms[index]
            for index in sorted(arms)
            if values[index] == baseline or arms[index] == str(baseline)
        ]
        if not matches:
            raise ValueError(
                f"baseline={baseline!r} is not a value of {axis} in {function.function}; "
                f"its values are: {_describe_values(ordered)}"
            )
        chosen = matches[0]
    return {
        case.key: ArmInfo(
            function=function.key,
            label=function.label,
            axis=axis,
            arm=arm,
            arm_index=index,
            input=shown,
            input_key=key,
            baseline=chosen,
        )
        for case, index, arm, shown, key in rows
    }
