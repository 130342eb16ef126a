"""One case's plan and the printed table. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

MISSING = "—"


def percent(chance: float | None) -> str:
    """A chance in whole percent, half-up; ``>99%`` / ``<1%`` rather than a rounded 100/0."""
    if chance is None:
        return MISSING
    value = (Decimal(repr(float(chance))) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    if value >= 100 and chance < 1.0:
        return ">99%"
    if value <= 0 and chance > 0.0:
        return "<1%"
    return f"{value}%"


@dataclass
class PlanRow:
    """What ``--prob-plan`` says about one case.

    :ivar case_id: the case id shown.
    :ivar runs: the planned runs.
    :ivar gate: the gate as written (``≥90%``, ``≥19/20``), or ``None``.
    :ivar min_runs: the fewest runs with which the gate can pass.
    :ivar power_runs: the runs for 80% power at the assumed rate (``None``: not reachable).
    :ivar pass_chance: the chance of passing with the planned runs at the assumed rate.
    :ivar sequential_runs: the expected runs under ``--prob-stop=sequential``.
    :ivar catch: per flake rate, the chance the planned runs catch it.
    :ivar cost: projected cost of the planned runs (from ``--prob-plan-report``).
    :ivar notes: lines other extensions add.
    :ivar data: JSON-able details other extensions add.
    """

    key: str
    case_id: str
    runs: int
    gate: str | None = None
    min_runs: int | None = None
    power_runs: int | None = None
    pass_chance: float | None = None
    sequential_runs: float | None = None
    catch: dict[float, float] = field(default_factory=dict)
    cost: float | None = None
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "case": self.case_id,
            "runs": self.runs,
            "gate": self.gate,
            "min_runs": self.min_runs,
            "power_runs": self.power_runs,
            "pass_chance": self.pass_chance,
            "sequential_runs": self.sequential_runs,
            "catch": [{"flake": f, "chance": c} for f, c in self.catch.items()],
            "cost": self.cost,
            "notes": list(self.notes),
            **self.data,
        }


def flake_label(flake: float) -> str:
    """``0.1`` → ``10%``, ``0.005`` → ``0.5%``."""
    return f"{(Decimal(repr(float(flake))) * 100).normalize():f}%"


def render(rows: Sequence[PlanRow], flakes: Sequence[float], money: Any) -> list[str]:
    """The aligned table: one line per case (and its notes under it)."""
    header = ["case", "runs", "gate", "min runs", "80% power", "P(pass)", "seq E[runs]"]
    header += [f"catch {flake_label(f)}" for f in flakes]
    with_cost = any(row.cost is not None for row in rows)
    if with_cost:
        header.append("cost")
    table = [header]
    for row in rows:
        cells = [
            row.case_id,
            str(row.runs),
            row.gate or MISSING,
            MISSING if row.min_runs is None else str(row.min_runs),
            MISSING if row.power_runs is None else str(row.power_runs),
            percent(row.pass_chance),
            MISSING if row.sequential_runs is None else f"{row.sequential_runs:.0f}",
            *(percent(row.catch.get(f)) for f in flakes),
        ]
        if with_cost:
            cells.append(MISSING if row.cost is None else money(row.cost))
        table.append(cells)
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    lines = []
    for index, cells in enumerate(table):
        parts = [
            cell.ljust(widths[i]) if i in (0, 2) else cell.rjust(widths[i])
            for i, cell in enumerate(cells)
        ]
        lines.append(("  " + "  ".join(parts)).rstrip())
        if index:
            lines.extend(f"      {note}" for note in rows[index - 1].notes)
    return lines
