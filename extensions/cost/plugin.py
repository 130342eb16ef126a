"""The ``cost`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    OVERFLOW,
    OVERFLOW_REASON,
    is_overflow,
    money,
    overflow_note,
    run_context_of,
)

from .recording import LEDGER, SEALED, Ledger, ledger_of, record_usage, step_spend
from .service import case_cost, summarize
from .usage import merge_usage, read_usage, round_record, token_lines, total_cost

if TYPE_CHECKING:
    from pytest_probability.api import CaseResult, ReportBuilder, Results, TokenUsage

#: the kernel's collection module (its ``BenchRun`` items and their steps' stash key),
#: imported when the first bench file is collected
COLLECT_MODULE = "pytest_probability.collection.collector"


@pytest.hookimpl(trylast=True)
def pytest_prob_normalize_usage(obj: Any) -> TokenUsage | None:
    """The bundled usage reader (our names, OpenAI, Anthropic). Called in the executing
    process, only when another plugin also implements the hook (else the reader is called
    directly); returns a ``TokenUsage``, or ``None`` for a shape it does not know."""
    return read_usage(obj)


@pytest.hookimpl(trylast=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Check the cost and usage of the steps a bench body returned or yielded. Called in the
    executing process after the body ran without raising (after pytest's own implementation);
    raises ``ValueError`` naming the step, field and value (the run is then an error)."""
    collect = sys.modules.get(COLLECT_MODULE)  # not imported: no bench item exists
    if collect is None or not isinstance(item, collect.BenchRun):
        return
    steps = item.stash.get(collect.STEPS_KEY, ())
    context = run_context_of(item)
    if not steps or context is None:
        return
    spends: list[Any] = [None] * len(steps)
    ledger_of(context).step_spends = spends  # priced once: run_finished reuses them
    for index, step in enumerate(steps):
        spends[index] = step_spend(step, item.config)


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Move the run's recorded cost and usage into its record (``cost``, ``usage``, and
    ``cost``/``usage`` on each step, as plain float sums: see :func:`.usage.round_record`)
    and seal its ledger: later calls are warned about. Called in the executing process once
    per run."""
    collect = sys.modules[COLLECT_MODULE]  # (a run finished: its item is a bench run)
    context = run_context_of(item)
    ledger = None if context is None else context.data.setdefault(LEDGER, SEALED)
    raw_steps = item.stash.get(collect.STEPS_KEY, ()) if record["phase"] == "call" else ()
    if ledger is None or ledger is SEALED:  # nothing recorded
        ledger = Ledger()
    ledger.sealed = True
    run_level = ledger.cost()
    if not raw_steps:  # the usual run: the kernel's one step carries what the body recorded
        for step in record["steps"]:
            step.update(cost=run_level, usage=ledger.entries)
        record.update(cost=run_level, usage=ledger.usage)  # (the ledger ends with the run)
        return
    costs: list[float | None] = [run_level]
    entries = list(ledger.entries)
    checked = ledger.step_spends
    for index, step in enumerate(record["steps"]):
        step_cost: float | None = None
        step_entries: list[dict[str, Any]] = []
        if index < len(raw_steps):
            if checked is not None:  # the check after the body priced them (or failed on one)
                step_cost, step_entries = checked[index] or (None, [])
            else:  # the body raised before the check: read them now, leniently
                try:
                    step_cost, step_entries = step_spend(raw_steps[index], item.config)
                except ValueError as exc:
                    record.setdefault("warnings", []).append(f"not counted: {exc}")
            costs.append(step_cost)
            entries.extend(step_entries)
        # else: the body raised after its steps; run-level spend stays on the run
        step["cost"] = step_cost
        step["usage"] = list(step_entries)
    record["cost"] = total_cost(costs)
    record["usage"] = merge_usage(entries)


@pytest.hookimpl(trylast=True)
def pytest_prob_case_cost(case: CaseResult, config: pytest.Config) -> float | None:
    """The cost the case's runs recorded (:func:`.service.case_cost`), ``None`` when none
    did. Called in the aggregating process by the intervals and stopping extensions while
    the report is built."""
    return case_cost(case)


def pytest_prob_record_usage(
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    cost: float | None,
    config: pytest.Config,
) -> None:
    """Record a model call another extension made for the current bench run (its
    ``record_usage``). Called in the executing process, inside the run, by the texts
    extension after each judge call."""
    record_usage(
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_input_tokens=cached_input_tokens,
        cost=cost,
    )


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``$`` column, the ``Cost:`` and ``Tokens:`` lines, ``cost`` and
    ``usage`` on JSON rows and totals, and the finisher that rounds the records' sums as the
    reports write them. Called once in the aggregating process."""
    report.add_record_finisher(round_record)
    cases = results.cases()
    per_case, total, usage = summarize(cases)
    cells: dict[str, str] = {}
    for case, (cost, case_usage_map) in zip(cases, per_case, strict=True):
        report.add_row_json(case.key, {"cost": cost, "usage": case_usage_map})
        if cost is not None:
            cells[case.key] = money(cost)
    report.add_totals_json({"cost": total, "usage": usage})
    if total is not None:
        report.add_column("cost", cells, order=300)
        shown = money(total)
        if is_overflow(total):
            shown = f"{OVERFLOW} ({OVERFLOW_REASON})"
            report.warn(overflow_note("the session's cost"))
        report.add_summary("Cost:", shown, order=200)
    if usage:
        report.add_summary("Tokens:", token_lines(usage), order=300)
