"""What the kernel knows about a case at collection time: ids, planned runs, mark arguments.

A *case* is one parameter combination of one ``bench_*`` function (or the function itself
when it is not parametrized). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

BENCH_PREFIX = "bench_"


def function_label(function_name: str) -> str:
    """``bench_classify`` → ``classify`` (the function's label in rows and case ids)."""
    return function_name.removeprefix(BENCH_PREFIX)


def case_id(function_name: str, param_id: str | None) -> str:
    """The case id shown in rows: ``classify::identify_pii``, or ``smoke`` unparametrized."""
    label = function_label(function_name)
    return label if param_id is None else f"{label}::{param_id}"


@dataclass(frozen=True)
class Case:
    """One case as collected.

    :ivar key: the case's node id without the run suffix
        (``bench_x.py::bench_classify::identify_pii``); unique in a session, so two files with
        the same function name never pool into one row.
    :ivar case_id: the display id (``classify::identify_pii``).
    :ivar label: the function label (``classify``).
    :ivar function: the function's name (``bench_classify``).
    :ivar param_id: pytest's parameter id, or ``None`` when not parametrized.
    :ivar module: the bench file's node id.
    :ivar runs: planned number of runs.
    :ivar params: the parameter values by argument name (for comparison axes).
    :ivar mark: the merged ``probability(...)`` mark arguments (closest mark wins per key).
    :ivar param_ids: the id segment of each ``parametrize`` call, in the order pytest joins
        them with ``-`` (``("refund", "terse")``); empty when pytest does not expose them.
    :ivar param_indices: each argument's position in its ``parametrize`` list (arguments of
        one call share it).
    :ivar sequence: the case's position in collection (definition) order; rows follow it,
        whatever order plugins such as pytest-randomly give the items.
    """

    key: str
    case_id: str
    label: str
    function: str
    param_id: str | None
    module: str
    runs: int
    params: Mapping[str, Any] = field(default_factory=dict)
    mark: Mapping[str, Any] = field(default_factory=dict)
    param_ids: tuple[str, ...] = ()
    param_indices: Mapping[str, int] = field(default_factory=dict)
    sequence: int = 0

    def run_item_name(self, run: int) -> str:
        """Run item name: ``identify_pii[run3]``, ``bench_smoke[run3]``; no suffix at 1 run."""
        base = self.param_id if self.param_id is not None else self.function
        return base if self.runs == 1 else f"{base}[run{run}]"

    def verdict_item_name(self, kind: str) -> str:
        """Name of a verdict item: ``identify_pii[gate]``."""
        base = self.param_id if self.param_id is not None else self.function
        return f"{base}[{kind}]"


@dataclass(frozen=True)
class FunctionCases:
    """A bench function with all of its collected cases (for function-level verdicts): the
    fields as a :class:`Case`'s, ``key`` being the function's node id without parameters
    (``bench_x.py::bench_triage``), and its ``cases`` in collection order."""

    key: str
    function: str
    label: str
    module: str
    cases: tuple[Case, ...]

    def as_case(self) -> Case:
        """A :class:`Case` standing for the whole function, for its verdict items
        (``bench_triage[compare:chain_of_thought]``): no parameters, every run."""
        return Case(
            key=self.key,
            case_id=self.label,
            label=self.label,
            function=self.function,
            param_id=None,
            module=self.module,
            runs=sum(case.runs for case in self.cases),
        )
