"""The ``probability: example`` section and the JSON key ``example``. Pure module: never
imports pytest."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .majority import is_majority


@dataclass(frozen=True)
class Summary:
    """The session seen case by case.

    :ivar cases: cases with at least one judged run (the rows of the report).
    :ivar majority: those of them where more than half the judged runs passed.
    :ivar runs: judged runs (passed, failed or errored; skipped runs are not samples).
    :ivar errors: errored runs.
    :ivar errored_cases: cases with at least one errored run.
    """

    cases: int
    majority: int
    runs: int
    errors: int
    errored_cases: int

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "majority": self.majority,
            "runs": self.runs,
            "errors": self.errors,
            "errored_cases": self.errored_cases,
        }


def summarize(counts: Iterable[tuple[int, int, int]]) -> Summary:
    """The summary of cases given as ``(passes, judged runs, errored runs)``."""
    rows = list(counts)
    return Summary(
        cases=len(rows),
        majority=sum(is_majority(passes, runs) for passes, runs, _ in rows),
        runs=sum(runs for _, runs, _ in rows),
        errors=sum(errors for _, _, errors in rows),
        errored_cases=sum(errors > 0 for _, _, errors in rows),
    )


def _cases(count: int) -> str:
    return f"{count} case" if count == 1 else f"{count} cases"


def render(summary: Summary) -> list[str]:
    """The section's lines::

    most runs passed in  2 of 3 cases
    errored runs         2 of 12, in 1 case
    """
    errors = f"{summary.errors} of {summary.runs}"
    if summary.errored_cases:
        errors += f", in {_cases(summary.errored_cases)}"
    return [
        f"  most runs passed in  {summary.majority} of {_cases(summary.cases)}",
        f"  errored runs         {errors}",
    ]
