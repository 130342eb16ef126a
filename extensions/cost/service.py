"""Recorded cost for other extensions: per run, per case, per group of cases.

Reads what the ``cost`` extension put into run records (``cost``, ``usage``), so it works in
the aggregating process under xdist. A value is ``None`` when nothing was recorded (which is
not the same as a cost of 0). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .usage import merge_usage_maps, total_cost

if TYPE_CHECKING:
    from pytest_probability.api import CaseResult


def run_cost(record: Mapping[str, Any]) -> float | None:
    """One run's cost: its ``record_cost`` amounts, usage costs and steps' costs (their
    plain float sum; the reports and the per-case sums round to 15 significant digits)."""
    return record.get("cost")


def case_cost(case: CaseResult) -> float | None:
    """The sum over the case's runs (skipped runs included: they may have spent)."""
    return total_cost(run_cost(record) for record in case.ordered_records())


def case_usage(case: CaseResult) -> dict[str, dict[str, Any]]:
    """The case's usage merged per model (``{model: {input_tokens, …, cost}}``)."""
    return merge_usage_maps(record.get("usage") or {} for record in case.ordered_records())


def cases_cost(cases: Iterable[CaseResult]) -> float | None:
    """The sum over several cases (a function, a comparison arm, the session)."""
    return total_cost(run_cost(record) for case in cases for record in case.ordered_records())


def cases_usage(cases: Iterable[CaseResult]) -> dict[str, dict[str, Any]]:
    """Usage over several cases, merged per model in order of first appearance."""
    return merge_usage_maps(
        record.get("usage") or {} for case in cases for record in case.ordered_records()
    )


def cost_per_run(case: CaseResult) -> float | None:
    """The case's cost divided by the runs that reached the report (``None`` if none
    recorded a cost)."""
    records = case.ordered_records()
    cost = case_cost(case)
    return None if cost is None or not records else cost / len(records)


def summarize(
    cases: Iterable[CaseResult],
) -> tuple[list[tuple[float | None, dict[str, dict[str, Any]]]], float | None, dict[str, Any]]:
    """Each case's cost and usage, then the session's, reading each record once: what
    :func:`case_cost`, :func:`case_usage`, :func:`cases_cost` and :func:`cases_usage` give."""
    per_case = []
    every_cost: list[float | None] = []
    every_usage: list[dict[str, Any]] = []
    for case in cases:
        records = case.ordered_records()
        costs = [run_cost(record) for record in records]
        usage = [record.get("usage") or {} for record in records]
        per_case.append((total_cost(costs), merge_usage_maps(usage)))
        every_cost += costs
        every_usage += usage
    return per_case, total_cost(every_cost), merge_usage_maps(every_usage)
