"""A generated history for the tests and the benchmark: ``sessions`` JSON reports in the
``--prob-history`` layout, with known steady rates and changes injected in the latest
session (and, for the page's sake, one change in the middle of the history).

The rows carry the fields ``--prob-json`` writes (``case``, ``label``, ``nodeid``, the
counts, ``pass_rate``, ``status``, ``ci``, ``latency``, ``cost``, ``usage``, and ``gate``
for gated functions), so the command reads them as it reads real reports.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

FUNCTIONS = ("classify", "triage", "summarize", "extract", "route")


@dataclass
class Truth:
    """What was injected: the cases whose rate changed in the latest session (case id to
    ``(rate before, rate after)``), and every case's steady rate."""

    changed: dict[str, tuple[float, float]] = field(default_factory=dict)
    rates: dict[str, float] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

    @property
    def worse(self) -> set[str]:
        return {case for case, (before, after) in self.changed.items() if after < before}

    @property
    def better(self) -> set[str]:
        return {case for case, (before, after) in self.changed.items() if after > before}


def case_ids(cases: int) -> list[tuple[str, str]]:
    """``(function, case id)`` for ``cases`` cases spread over :data:`FUNCTIONS`."""
    return [
        (FUNCTIONS[i % len(FUNCTIONS)], f"{FUNCTIONS[i % len(FUNCTIONS)]}::input-{i:03d}")
        for i in range(cases)
    ]


def generate(
    directory: Path,
    *,
    sessions: int = 50,
    cases: int = 200,
    runs: int = 20,
    changes: dict[int, float] | None = None,
    seed: int = 0,
    records: bool = False,
    gated: tuple[str, ...] = ("classify", "triage"),
) -> Truth:
    """Write ``sessions`` reports into ``directory``; ``changes`` maps a case's index to
    its rate in the latest session (the others keep their steady rate)."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    ids = case_ids(cases)
    truth = Truth(rates={case: rng.choice((1.0, 0.97, 0.95, 0.9, 0.8, 0.6)) for _, case in ids})
    for index, rate in (changes or {}).items():
        case = ids[index][1]
        truth.changed[case] = (truth.rates[case], rate)
    start = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    for number in range(sessions):
        when = start + timedelta(days=number, microseconds=number)
        commit = f"{rng.getrandbits(160):040x}"
        latest = number == sessions - 1
        rows, runs_made = [], []
        for function, case in ids:
            rate = truth.changed[case][1] if latest and case in truth.changed else truth.rates[case]
            outcomes = ["pass" if rng.random() < rate else "fail" for _ in range(runs)]
            rows.append(_row(function, case, outcomes, function in gated, rng))
            if records:
                runs_made.extend(_records(function, case, outcomes, rng))
        name = f"{when:%Y%m%dT%H%M%S.%f}Z_{commit[:12]}.json"
        document = {
            "schema_version": 1,
            "created": f"{when:%Y-%m-%dT%H:%M:%S}",
            "runs": runs,
            "exit_status": 1 if any(r["fails"] for r in rows) else 0,
            "totals": {},
            "rows": rows,
            "records": runs_made,
            "history": {
                "commit": commit,
                "commit_reason": None,
                "recorded": f"{when:%Y-%m-%dT%H:%M:%S.%f}Z",
                "file": name,
            },
        }
        path = directory / name
        path.write_text(json.dumps(document), encoding="utf-8")
        truth.files.append(path)
    return truth


def _row(
    function: str, case: str, outcomes: list[str], gated: bool, rng: random.Random
) -> dict[str, Any]:
    passes = outcomes.count("pass")
    total = len(outcomes)
    row: dict[str, Any] = {
        "case": case,
        "label": function,
        "nodeid": f"bench_{function}.py::bench_{function}::{case.split('::')[1]}",
        "passes": passes,
        "fails": total - passes,
        "errors": 0,
        "skipped": 0,
        "total": total,
        "planned": total,
        "pass_rate": 100.0 * passes / total,
        "xfail": False,
        "failures": [],
        "latency": {"quantile": 0.95, "estimate": round(rng.uniform(0.2, 1.5), 4)},
        "cost": round(total * rng.uniform(0.001, 0.002), 6),
        "usage": {},
        "ci": None,
        "status": "pass" if passes == total else ("fail" if passes == 0 else "flaky"),
        "subset": None,
    }
    if gated:
        verdict = (
            "pass" if passes / total >= 0.9 else "undecided" if passes / total > 0.7 else "fail"
        )
        row["gate"] = {"verdict": verdict, "fails_session": True, "judged": "item", "checks": []}
    return row


def _records(
    function: str, case: str, outcomes: list[str], rng: random.Random
) -> list[dict[str, Any]]:
    return [
        {
            "case": case,
            "label": function,
            "run": run,
            "outcome": outcome,
            "elapsed": rng.uniform(0.2, 1.5),
            "message": None if outcome == "pass" else "got 'other'",
            "steps": [{"label": function, "passed": outcome == "pass", "elapsed": 0.5}],
        }
        for run, outcome in enumerate(outcomes, 1)
    ]
