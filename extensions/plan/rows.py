"""One case's plan, the printed table and the comparison lines (what sequential stopping
would do to each compared arm). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

MISSING = "—"
MINUS = "\u2212"


def percent(chance: float | None) -> str:
    """A chance in whole percent, half-up; ``>99%`` / ``<1%`` rather than a rounded 100/0."""
    if chance is None:
        return MISSING
    value = hundredths(chance).quantize(Decimal(1), rounding=ROUND_HALF_UP)
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


def hundredths(value: float) -> Decimal:
    """``value`` × 100 as written (``0.025`` → ``2.5``): from its shortest repr."""
    return (Decimal(repr(float(value))) * 100).normalize()


def percent_as_written(value: float) -> str:
    """``0.1`` → ``10%``, ``0.005`` → ``0.5%``, ``0.975`` → ``97.5%``."""
    return f"{hundredths(value):f}%"


def aligned(table: list[list[str]], left: tuple[int, ...], indent: str) -> list[str]:
    """The rows of ``table`` as lines, the columns ``left`` aligned left, the others right."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    pad = [str.ljust if i in left else str.rjust for i in range(len(widths))]
    return [
        (indent + "  ".join(pad[i](cell, widths[i]) for i, cell in enumerate(row))).rstrip()
        for row in table
    ]


def render(rows: Sequence[PlanRow], flakes: Sequence[float], money: Any) -> list[str]:
    """The aligned table: one line per case (and its notes under it)."""
    header = ["case", "runs", "gate", "min runs", "80% power", "P(pass)", "seq E[runs]"]
    header += [f"catch {percent_as_written(f)}" for f in flakes]
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
    lines = []
    for index, line in enumerate(aligned(table, (0, 2), "  ")):
        lines.append(line)
        if index:
            lines.extend(f"      {note}" for note in rows[index - 1].notes)
    return lines


def points(difference: float) -> str:
    """``+10 pp``, ``−5 pp``, ``0 pp`` (as written: 0.025 → ``+2.5 pp``)."""
    value = hundredths(difference)
    if value == 0:
        return "0 pp"
    return f"{'+' if value > 0 else MINUS}{abs(value):f} pp"


def right_words(plan: dict[str, Any]) -> str:
    """The reading the assumed difference makes right, as the line prints it."""
    right, margin = plan["right"], plan.get("margin")
    if margin is None:
        return "no difference" if right == "none found" else "a difference"
    rule = (
        f"±{points(margin).lstrip('+')}"
        if plan.get("equivalence")
        else f"≥{points(-margin)}"
        if margin
        else "≥0 pp"
    )
    return f"{right.upper()} {rule}"


def comparison_lines(
    plans: Sequence[dict[str, Any]], difference: float, assume: float, sequential: bool
) -> list[str]:
    """The heading and the aligned table of the comparisons' plans (nothing without any)."""
    if not plans:
        return []
    how = "runs them" if sequential else "would run them"
    lines = [
        f"  comparisons, assuming arm − baseline = {points(difference)} (the better arm passes "
        f"with probability {assume:g}), as --prob-stop=sequential {how}:"
    ]
    table = [["comparison", "inputs", "pairs", "E[pairs]", "saved", "right reading", "P(right)"]]
    for plan in plans:
        planned, expected = plan["planned_pairs"], plan["expected_pairs"]
        table.append(
            [
                f"{plan['label']}[{plan['axis']}] {plan['arm']} − {plan['baseline']}",
                str(plan["inputs"]),
                str(planned),
                f"{expected:.0f}",
                percent(1.0 - expected / planned) if planned else "—",
                right_words(plan),
                percent(plan["right_chance"]),
            ]
        )
    lines += aligned(table, (0, 5), "    ")
    sessions = plans[0]["sessions"]
    lines.append(
        f"    (from {sessions:,} simulated sessions through the stopping rule, seeded with "
        f"--prob-seed={plans[0]['seed']}: chances to ±5 points at most)"
    )
    return lines
