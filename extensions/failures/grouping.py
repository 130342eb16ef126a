"""Grouping a case's failing runs by how they failed, and the words the grouped terminal
output prints. Pure module: never imports pytest.

The bundled rule (:func:`shape_key`): two runs fail the same way when they have the same
outcome, error type and phase, and the first line of their messages has the same *shape* —
the same text once every number and every quoted value is taken out. ``assert 'other' ==
'phone'`` and ``assert 'billing' == 'phone'`` are one group; ``KeyError: 'amount'`` is
another. A group made by this rule is shown with the parts its runs share and ``…`` where
they differ (``assert '…' == 'phone'``); a key from any other rule is shown as it is.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# (the HTML page names a group's runs with it too)
from pytest_probability.api import runs_text, visible

#: What stands for a value that differs between the runs of a group.
ELIDED = "…"
#: Characters of a group's text kept (the JSON report keeps every message whole).
TEXT_LIMIT = 200
#: Quoted values (not an apostrophe inside a word) and numbers (not digits inside a name).
_VALUE = re.compile(
    r"""(?P<quoted>(?<![\w'"])(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))"""
    r"""|(?P<number>(?<![\w.])[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))"""
)


class ShapeKey(str):
    """A group key made by the bundled rule (its text is the shape, values replaced by
    ``…``); groups with such a key are shown with the values their runs share."""

    __slots__ = ()


def first_line(record: Mapping[str, Any]) -> str:
    """The first non-empty line of a run's message, or its error type when it has none."""
    for line in str(record.get("message") or "").splitlines():
        if line.strip():
            return line.strip()
    error = record.get("error")
    return str(error) if error else ("AssertionError" if record.get("outcome") == "fail" else "")


def split_values(line: str) -> tuple[list[str], list[str]]:
    """``line`` cut into its literal text and the values between: ``len(literals) ==
    len(values) + 1``, and joining them alternately gives ``line`` back."""
    literals, values, at = [], [], 0
    for match in _VALUE.finditer(line):
        literals.append(line[at : match.start()])
        values.append(match.group())
        at = match.end()
    literals.append(line[at:])
    return literals, values


def _placeholder(value: str) -> str:
    return f"{value[0]}{ELIDED}{value[0]}" if value[:1] in ("'", '"') else ELIDED


def _phase(record: Mapping[str, Any]) -> str | None:
    """The run's phase when it is not the call."""
    phase = record.get("phase")
    return phase if phase and phase != "call" else None


def shape_key(record: Mapping[str, Any]) -> ShapeKey:
    """The bundled grouping rule: the run's kind and the shape of its message's first line."""
    literals, values = split_values(first_line(record))
    shape = literals[0] + "".join(
        _placeholder(value) + literal for value, literal in zip(values, literals[1:], strict=True)
    )
    # outcome, error type and (when not the call) phase: what a group must share
    kind = str(record.get("error") or record.get("outcome") or "fail")
    phase = _phase(record)
    return ShapeKey(f"{kind} in {phase}: {shape}" if phase else f"{kind}: {shape}")


def _clip(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + ELIDED


def merged_text(records: Sequence[Mapping[str, Any]]) -> str:
    """The first lines of runs of one shape, with each value kept where every run has the
    same one and ``…`` where they differ."""
    split = [split_values(first_line(record)) for record in records]
    literals, values = split[0]
    shown = list(values)
    for _, others in split[1:]:
        for index, value in enumerate(others):
            if index < len(shown) and shown[index] != value:
                shown[index] = _placeholder(value)
    return literals[0] + "".join(v + lit for v, lit in zip(shown, literals[1:], strict=True))


@dataclass
class FailureGroup:
    """Runs of one case that failed the same way: how the group is shown (``text``: the
    merged first line, or a ``pytest_prob_failure_key`` answer itself) and in the one-line
    summary (``short``: the error type of an error), its ``outcome`` (``fail`` or ``error``
    when every run shares it, else ``mixed``) and its ``runs``, ascending."""

    text: str
    short: str
    outcome: str
    runs: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.runs)

    def to_json(self) -> dict[str, Any]:
        """The ``rows[].failures[]`` object."""
        return {"text": self.text, "outcome": self.outcome, "count": self.count, "runs": self.runs}


def group_failures(entries: Iterable[tuple[int, Mapping[str, Any], str]]) -> list[FailureGroup]:
    """Group ``(run, record, key)`` entries by key: most runs first, then by first run."""
    members: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for run, record, key in sorted(entries, key=lambda entry: entry[0]):
        members.setdefault(key, []).append((run, record))
    groups = []
    for key, found in members.items():
        records = [record for _, record in found]
        first = records[0]
        outcomes = {str(record.get("outcome")) for record in records}
        if isinstance(key, ShapeKey):
            phase = _phase(first)
            text = _clip(merged_text(records) + (f" (in {phase})" if phase else ""))
            short = str(first["error"]) if first.get("error") else text
        else:
            text = short = _clip(str(key))
        outcome = outcomes.pop() if len(outcomes) == 1 else "mixed"
        groups.append(FailureGroup(text, short, outcome, [run for run, _ in found]))
    groups.sort(key=lambda group: (-group.count, group.runs[0]))
    return groups


#: Groups named on one line; the rest are counted together.
MAX_GROUPS = 5


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _head(case: str, count: int, verb: str) -> str:
    return f"… {plural(count, f'more {verb} run')} of {case}"


def others_line(case: str, runs: Sequence[int], verb: str) -> str:
    """``… 3 more passing runs of p::1 (runs 2–4)``: the case's other runs, named only (under
    the one passing run a case shows in ``PASSES``, or its traceback under ``first``)."""
    return f"{_head(case, len(runs), verb)} ({runs_text(runs)})"


def more_line(case: str, groups: Sequence[FailureGroup], *, verb: str = "failing") -> str:
    """The line under a case's one traceback, about its other failing runs (``groups`` holds
    only those): ``… 8 more failing runs of classify::phone_number: 5 × assert 'other' ==
    'phone' (runs 3–4, 6, 8–9), 3 × KeyError: 'amount' (runs 5, 7, 10)``. Group texts (a
    message's first line, a ``pytest_prob_failure_key`` answer) show their escapes."""
    head = _head(case, sum(group.count for group in groups), verb)
    parts = [f"{g.count} × {visible(g.text)} ({runs_text(g.runs)})" for g in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        parts.append(f"{sum(g.count for g in rest)} × {plural(len(rest), 'other message')}")
    return f"{head}: {', '.join(parts)}"


def summary_message(
    count: int, total: int, planned: int, groups: Sequence[FailureGroup], *, verb: str = "failed"
) -> str:
    """The message of a case's one short-summary line: ``9/10 runs failed: assert 'other' ==
    'phone' ×6, KeyError ×3`` (one group: no count; none: the counts only). A case that made
    fewer runs than planned says so: ``1/1 runs failed (of 10 planned)``. Group texts show
    their escapes, as in :func:`more_line`."""
    head = f"{count}/{total} {'run' if total == 1 else 'runs'} {verb}"
    if planned > total:
        head += f" (of {planned} planned)"
    if len(groups) <= 1:
        return f"{head}: {visible(groups[0].short)}" if groups else head
    parts = [f"{visible(group.short)} ×{group.count}" for group in groups[:MAX_GROUPS]]
    if len(groups) > MAX_GROUPS:
        rest = groups[MAX_GROUPS:]
        parts.append(f"{plural(len(rest), 'other')} ×{sum(g.count for g in rest)}")
    return f"{head}: {', '.join(parts)}"
