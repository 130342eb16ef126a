"""The plan's comparison lines: what sequential stopping would do to each compared arm.
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .rows import percent

MINUS = "\u2212"


def points(difference: float) -> str:
    """``+10 pp``, ``−5 pp``, ``0 pp`` (as written: 0.025 → ``+2.5 pp``)."""
    value = (Decimal(repr(float(difference))) * 100).normalize()
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
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        cells = [
            cell.ljust(widths[i]) if i in (0, 5) else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        ]
        lines.append(("    " + "  ".join(cells)).rstrip())
    sessions = plans[0]["sessions"]
    lines.append(
        f"    (from {sessions:,} simulated sessions through the stopping rule, seeded with "
        f"--prob-seed={plans[0]['seed']}: chances to ±5 points at most)"
    )
    return lines
