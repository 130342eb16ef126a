"""Recorded cost for other extensions: per run, per case, per group of cases.

Reads what the ``cost`` extension put into run records (``cost``, ``usage``), so it works in
the aggregating process under xdist. A value is ``None`` when nothing was recorded (which is
not the same as a cost of 0). Pure module: never imports pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .usage import merge_usage_maps, total_cost


class HasRecords(Protocol):
    """A case result (:class:`pytest_probability.results.CaseResult`)."""

    def ordered_records(self) -> list[dict[str, Any]]: ...


def run_cost(record: Mapping[str, Any]) -> float | None:
    """One run's cost: its ``record_cost`` amounts, usage costs and steps' costs."""
    return record.get("cost")


def case_cost(case: HasRecords) -> float | None:
    """The sum over the case's runs (skipped runs included: they may have spent)."""
    return total_cost(run_cost(record) for record in case.ordered_records())


def case_usage(case: HasRecords) -> dict[str, dict[str, Any]]:
    """The case's usage merged per model (``{model: {input_tokens, …, cost}}``)."""
    return merge_usage_maps(record.get("usage") or {} for record in case.ordered_records())


def cases_cost(cases: Iterable[HasRecords]) -> float | None:
    """The sum over several cases (a function, a comparison arm, the session)."""
    return total_cost(run_cost(record) for case in cases for record in case.ordered_records())


def cases_usage(cases: Iterable[HasRecords]) -> dict[str, dict[str, Any]]:
    """Usage over several cases, merged per model in order of first appearance."""
    return merge_usage_maps(
        record.get("usage") or {} for case in cases for record in case.ordered_records()
    )


def cost_per_run(case: HasRecords) -> float | None:
    """The case's cost divided by the runs that reached the report (``None`` if none
    recorded a cost)."""
    records = case.ordered_records()
    cost = case_cost(case)
    return None if cost is None or not records else cost / len(records)
