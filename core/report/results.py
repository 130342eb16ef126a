"""The session results model, built from run records in the aggregating process. Pure module.

Records arrive in any order (xdist interleaves workers); rows are ordered by the case order
the collecting processes computed, so results are identical with and without xdist.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..contracts.outcomes import ERROR, FAIL, PASS, SKIP

RECORD_KEY = "pytest_probability"


@dataclass
class CaseResult:
    """All runs of one case that reached the aggregating process.

    :ivar key: unique case key (the case's node id without the run suffix).
    :ivar case_id: the case id (``classify::identify_pii``).
    :ivar display: the id shown in rows (the case id, or file-qualified when two files share it).
    :ivar label: the function label (``classify``).
    :ivar order: position of the case in collection order.
    :ivar planned: the runs planned for the case.
    :ivar records: run index → record.
    """

    key: str
    case_id: str
    label: str
    order: int
    planned: int
    module: str
    display: str = ""
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the case's validated ``probability(...)`` mark arguments (closest mark per key)
    mark: dict[str, Any] = field(default_factory=dict)

    _counts: dict[str, int] | None = field(default=None, repr=False, compare=False)

    def changed(self) -> None:
        """Forget cached counts (call after adding or altering a record)."""
        self._counts = None

    def _count(self, outcome: str) -> int:
        if self._counts is None:
            self._counts = Counter(record["outcome"] for record in self.records.values())
        return self._counts.get(outcome, 0)

    passes = property(lambda self: self._count(PASS))
    fails = property(lambda self: self._count(FAIL))
    errors = property(lambda self: self._count(ERROR))
    skipped = property(lambda self: self._count(SKIP))

    @property
    def total(self) -> int:
        """Judged runs: passes + fails + errors (skips are not samples)."""
        return self.passes + self.fails + self.errors

    @property
    def xfail(self) -> bool:
        return any(r.get("xfail") for r in self.records.values())

    def ordered_records(self) -> list[dict[str, Any]]:
        return [self.records[run] for run in sorted(self.records)]


@dataclass
class Totals:
    passes: int
    fails: int
    errors: int
    skipped: int

    @property
    def count(self) -> int:
        return self.passes + self.fails + self.errors


class Results:
    """Every case of the session. Fed one record at a time by the kernel."""

    def __init__(self) -> None:
        self._cases: dict[str, CaseResult] = {}
        self._by_nodeid: dict[str, tuple[str, int]] = {}
        self._ordered: list[CaseResult] | None = None

    def add(self, record: dict[str, Any]) -> CaseResult:
        """Add a run record (a later record for the same run replaces the earlier one)."""
        key = record["key"]
        case = self._cases.get(key)
        if case is None:
            case = CaseResult(
                key=key,
                case_id=record["case"],
                label=record["label"],
                order=int(record.get("order", 0)),
                planned=int(record.get("runs", 1)),
                module=record.get("module", ""),
                mark=dict(record.get("mark") or {}),
            )
            self._cases[key] = case
            self._ordered = None
        case.records[int(record["run"])] = record
        case.changed()
        self._by_nodeid[record["nodeid"]] = (key, int(record["run"]))
        return case

    def teardown_failed(self, nodeid: str, message: str) -> dict[str, Any] | None:
        """A run's teardown failed after its call passed: the run becomes an error."""
        found = self._by_nodeid.get(nodeid)
        if found is None:
            return None
        key, run = found
        record = self._cases[key].records[run]
        self._cases[key].changed()
        if record["outcome"] == PASS:
            record["outcome"] = ERROR
            record["phase"] = "teardown"
            record["error"] = record.get("error") or "TeardownError"
            record["message"] = message
            for step in record.get("steps", []):
                step.update(passed=False, error=record["error"], message=message)
        return record

    def __len__(self) -> int:
        return len(self._cases)

    def get(self, key: str) -> CaseResult | None:
        """The case with this key (its node id without the run suffix), if any run arrived."""
        return self._cases.get(key)

    def __iter__(self) -> Iterator[CaseResult]:
        return iter(self.cases())

    def cases(self) -> list[CaseResult]:
        """Every case, in collection order, with display ids assigned."""
        if self._ordered is not None:
            return list(self._ordered)
        ordered = sorted(self._cases.values(), key=lambda c: (c.order, c.key))
        seen = Counter(case.case_id for case in ordered)
        for case in ordered:
            ambiguous = seen[case.case_id] > 1
            case.display = f"{case.module}::{case.case_id}" if ambiguous else case.case_id
        self._ordered = ordered
        return list(ordered)

    def rows(self) -> list[CaseResult]:
        """Cases with at least one judged run (cases whose every run skipped have no row)."""
        return [c for c in self.cases() if c.total > 0]

    def records(self) -> list[dict[str, Any]]:
        """Every record, by case order then run."""
        return [r for case in self.cases() for r in case.ordered_records()]

    def totals(self) -> Totals:
        cases = self.cases()
        counts = ("passes", "fails", "errors", "skipped")
        return Totals(*(sum(getattr(case, name) for case in cases) for name in counts))


def row_status(passes: int, fails: int, errors: int) -> tuple[str, str]:
    """The row status word and its JSON key (STATISTICS.md, "Printing").

    ``("", "pass")`` when every run passed; ``FLAKY``; ``FAIL``; ``N ERRORED`` (passes with
    errors); ``ERROR``; ``FAIL (N errored)``; ``FLAKY (N errored)``.
    """
    if errors == 0:
        if fails == 0:
            return ("", "pass") if passes else ("", "skipped")
        return ("FLAKY", "flaky") if passes else ("FAIL", "fail")
    if fails == 0:
        return (f"{errors} ERRORED", "errored") if passes else ("ERROR", "error")
    if passes:
        return f"FLAKY ({errors} errored)", "flaky"
    return f"FAIL ({errors} errored)", "fail"
