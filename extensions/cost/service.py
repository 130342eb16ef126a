"""Recorded cost for other extensions: per run, per case, per group of cases.

Reads what the ``cost`` extension put into run records (``cost``, ``usage``), so it works in
the aggregating process under xdist. A value is ``None`` when nothing was recorded (which is
not the same as a cost of 0). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .usage import add_counts, merge_usage_maps, total_cost


class HasRecords(Protocol):
    """A case result (:class:`pytest_probability.results.CaseResult`)."""

    def ordered_records(self) -> list[dict[str, Any]]: ...


def run_cost(record: Mapping[str, Any]) -> float | None:
    """One run's cost: its ``record_cost`` amounts, usage costs and steps' costs (their
    plain float sum; the reports and the per-case sums round to 15 significant digits)."""
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


class UsageTotals:
    """Per-model usage summed over records, with each model's run costs kept unsummed so a
    merge of several gives exactly what one pass over all their records gives."""

    __slots__ = ("costs", "tokens")

    def __init__(self) -> None:
        self.tokens: dict[str, list[int | str]] = {}
        self.costs: dict[str, list[float]] = {}

    def add_records(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Add the ``usage`` of each record (the report's hot loop: one pass, no calls)."""
        tokens_of = self.tokens
        costs_of = self.costs
        for record in records:
            usage = record.get("usage")
            if not usage:
                continue
            for model, totals in usage.items():
                tokens = tokens_of.get(model)
                if tokens is None:
                    tokens_of[model] = [
                        totals["input_tokens"],
                        totals["output_tokens"],
                        totals["cached_input_tokens"],
                    ]
                    costs_of[model] = []
                else:
                    try:
                        inputs = tokens[0] + totals["input_tokens"]
                        outputs = tokens[1] + totals["output_tokens"]
                        cached = tokens[2] + totals["cached_input_tokens"]
                    except TypeError:  # a count kept as text (too long to write)
                        inputs = add_counts(tokens[0], totals["input_tokens"])
                        outputs = add_counts(tokens[1], totals["output_tokens"])
                        cached = add_counts(tokens[2], totals["cached_input_tokens"])
                    tokens[0] = inputs
                    tokens[1] = outputs
                    tokens[2] = cached
                cost = totals["cost"]
                if cost is not None:
                    costs_of[model].append(cost)

    def merge(self, other: UsageTotals) -> None:
        for model, (inputs, outputs, cached) in other.tokens.items():
            tokens = self.tokens.get(model)
            if tokens is None:
                self.tokens[model] = [inputs, outputs, cached]
                self.costs[model] = list(other.costs[model])
            else:
                tokens[0] = add_counts(tokens[0], inputs)
                tokens[1] = add_counts(tokens[1], outputs)
                tokens[2] = add_counts(tokens[2], cached)
                self.costs[model].extend(other.costs[model])

    def to_json(self) -> dict[str, dict[str, Any]]:
        """The ``{model: {input_tokens, output_tokens, cached_input_tokens, cost}}`` map, as
        :func:`merge_usage_maps` gives it."""
        merged: dict[str, dict[str, Any]] = {}
        for model, (inputs, outputs, cached) in self.tokens.items():
            known = self.costs[model]
            merged[model] = {
                "input_tokens": inputs,
                "output_tokens": outputs,
                "cached_input_tokens": cached,
                "cost": None if not known else known[0] if len(known) == 1 else total_cost(known),
            }
        return merged


def summarize(
    cases: Iterable[HasRecords],
) -> tuple[list[tuple[float | None, dict[str, dict[str, Any]]]], float | None, dict[str, Any]]:
    """Each case's cost and usage, then the session's, in one pass over the records: what
    :func:`case_cost`, :func:`case_usage`, :func:`cases_cost` and :func:`cases_usage` give."""
    per_case: list[tuple[float | None, dict[str, dict[str, Any]]]] = []
    every_cost: list[float | None] = []
    overall = UsageTotals()
    for case in cases:
        records = case.ordered_records()
        costs = [run_cost(record) for record in records]
        usage = UsageTotals()
        usage.add_records(records)
        every_cost.extend(costs)
        overall.merge(usage)
        per_case.append((total_cost(costs), usage.to_json()))
    return per_case, total_cost(every_cost), overall.to_json()
