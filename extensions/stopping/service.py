"""What other extensions need to know about stopped cases. Pure: reads run records only."""

from __future__ import annotations

from typing import Any, Protocol


class HasRecords(Protocol):
    records: dict[int, dict[str, Any]]


def case_stop(case: HasRecords) -> dict[str, Any] | None:
    """``{"verdict", "after", "planned", "skipped"}`` when the case was stopped early,
    else ``None``."""
    marks = [r["stopped"] for r in case.records.values() if r.get("stopped")]
    if not marks:
        return None
    return {**marks[0], "skipped": len(marks)}


def is_stopped(case: HasRecords) -> bool:
    """Whether some runs of the case were skipped by a stopping rule (its fraction leans
    toward its verdict, so intervals over several cases should not use it)."""
    return any(r.get("stopped") for r in case.records.values())


def is_spread(case: HasRecords) -> bool:
    """Whether a worker could not stop the case because its runs were spread."""
    return any(r.get("stop_partial") for r in case.records.values())


def hidden_reason(cases: list[Any]) -> str | None:
    """Why an interval over ``cases`` is hidden (some were stopped early), or ``None``."""
    stopped = sum(1 for case in cases if is_stopped(case))
    if not stopped:
        return None
    word = "case was" if stopped == 1 else "cases were"
    return f"{stopped} {word} stopped early and lean toward their verdicts"
