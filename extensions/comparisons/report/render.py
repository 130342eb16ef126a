"""Printing comparisons: signed percentage points, p-values, aligned lines.

STATISTICS.md, "Printing": differences in percentage points with a real minus sign (U+2212);
p as ``1``, ``<0.001``, 3 decimals below 0.01, else 2 decimals. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pytest_probability.api import verdict_properties

from ..statistics.engine import Comparison

MINUS = "\u2212"
#: the regime of a comparison judged on its sequence (``sequential.outcome.REGIME``)
SEQUENCE = "sequence"
WORDS = {"pass": "PASS", "fail": "FAIL", "undecided": "UNDECIDED"}


def _half_up(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def signed_pp(fraction: float) -> str:
    """A difference of fractions in whole percentage points: ``+20``, ``−11``, ``0``."""
    points = _half_up(Decimal(repr(float(fraction))) * 100, 0)
    if points == 0:
        return "0"
    sign = "+" if points > 0 else MINUS
    return f"{sign}{abs(points):f}"


def margin_pp(margin: float) -> str:
    """A margin in percentage points as written: ``0.02`` → ``2``, ``0.025`` → ``2.5``."""
    return f"{(Decimal(repr(float(margin))) * 100).normalize():f}"


def p_value(p: float) -> str:
    """``1``, ``<0.001``, ``0.004`` (3 decimals below 0.01), ``0.47``."""
    if p >= 1.0:
        return "1"
    if p < 0.001:
        return "<0.001"
    exact = Decimal(repr(float(p)))
    if p < 0.01:
        return f"{_half_up(exact, 3):f}"
    rounded = _half_up(exact, 2)
    return "1" if rounded >= 1 else f"{rounded:f}"


def ratio(value: float) -> str:
    """A cost ratio with one decimal: ``×4.0``."""
    return f"×{_half_up(Decimal(repr(float(value))), 1):f}"


def difference_cell(difference: float, low: float | None, high: float | None) -> str:
    """``+20 pp [−11, +51]``, or ``+20 pp`` without an interval."""
    text = f"{signed_pp(difference)} pp"
    if low is not None and high is not None:
        text += f" [{signed_pp(low)}, {signed_pp(high)}]"
    return text


def rule_cell(margin: float, equivalence: bool) -> str:
    """``≥−2 pp`` (non-inferiority) or ``±2 pp`` (equivalence); ``≥0 pp`` for a margin of 0
    (no drop)."""
    shown = margin_pp(margin)
    if equivalence:
        return f"±{shown} pp"
    return f"≥{shown} pp" if margin == 0 else f"≥{MINUS}{shown} pp"


def comparison_cells(comparison: Comparison, name: str, versus: str) -> list[str]:
    """The cells of one comparison line (without the leading indent)."""
    outcome = comparison.outcome
    cells = [name, versus]
    if comparison.error is not None:
        verdict = WORDS.get(comparison.verdict or "", "")  # (a margin's gate: UNDECIDED)
        return [*cells, f"could not be computed: {comparison.error}", verdict]
    if outcome is None:
        return [*cells, "no paired inputs"]
    hidden = comparison.extra.get("hidden")
    # over cases stopped early nothing computed from their fractions is shown
    difference = difference_cell(outcome.difference, outcome.low, outcome.high)
    sequence = outcome.regime == SEQUENCE
    cells.append("" if hidden else f"{difference} seq" if sequence else difference)
    p = comparison.p
    shown = "" if p is None else p_value(p)
    cells.append(shown and (f"p{shown}" if shown.startswith("<") else f"p={shown}"))
    cells.append(f"{len(comparison.pairs)} paired")
    if sequence:
        cells.append(settled_cell(outcome.detail, len(comparison.pairs)))
    cells.append("" if comparison.cost_ratio is None else f"cost {ratio(comparison.cost_ratio)}")
    if comparison.margin is not None and comparison.verdict is not None:
        cells.append(rule_cell(comparison.margin, comparison.equivalence))
        cells.append(WORDS[comparison.verdict])
    if hidden:
        cells.append(f"(difference, interval and p hidden: {hidden})")
    return cells


def settled_cell(detail: Mapping[str, Any], inputs: int) -> str:
    """``settled after 4/10 rounds`` (``pairs`` with one input) for a sequential comparison
    whose reading was settled, else empty."""
    after = detail.get("settled_after")
    if after is None:
        return ""
    planned = int(detail.get("planned_pairs") or 0)
    if inputs == 1:
        return f"settled after {after}/{planned} pairs"
    return f"settled after {after}/{planned // max(inputs, 1)} rounds"


def align(rows: Sequence[list[str]], indent: str = "  ") -> list[str]:
    """Left-aligned columns separated by two spaces; empty cells keep their column."""
    if not rows:
        return []
    columns = max(len(row) for row in rows)
    # the last cell of a shorter row is a message ("no paired inputs"): it sets no width
    widths = [
        max((len(row[i]) for row in rows if len(row) > i + (len(row) < columns)), default=0)
        for i in range(columns)
    ]
    lines = []
    for row in rows:  # a column empty in every row takes no space
        parts = [
            cell if len(row) < columns and i == len(row) - 1 else cell.ljust(widths[i])
            for i, cell in enumerate(row)
            if widths[i] or (len(row) < columns and i == len(row) - 1)
        ]
        lines.append((indent + "  ".join(parts)).rstrip())
    return lines


def detail_lines(comparison: Comparison) -> list[str]:
    """Per-input lines (few pairs) and the inputs left out, under a comparison line."""
    lines: list[str] = []
    outcome = comparison.outcome
    if outcome is not None and outcome.inputs:
        rows = [
            [line.input, difference_cell(line.difference, line.low, line.high)]
            for line in outcome.inputs
        ]
        lines += align(rows, indent="      ")
    if comparison.unpaired:
        shown = ", ".join(f"{name} ({side} only)" for name, side in comparison.unpaired)
        lines.append(f"      not compared (one side missing): {shown}")
    return lines


#: the comparison fields a ``[compare:ARM]`` or ``[baseline]`` testcase carries in JUnit XML
PROPERTY_FIELDS = (
    "verdict",
    "difference",
    "low",
    "high",
    "margin",
    "equivalence",
    "level",
    "p",
    "p_adjusted",
    "adjust",
    "test",
    "regime",
    "paired",
    "arm",
    "baseline",
    "cost_ratio",
)


def comparison_properties(comparison: Comparison, line: str) -> list[tuple[str, str]]:
    """A comparison verdict's JUnit XML properties: ``prob.verdict``, ``prob.difference``,
    ``prob.low``/``prob.high`` (the interval), ``prob.margin`` (the bar), ``prob.p``, …,
    and ``prob.line``, the verdict as the terminal prints it."""
    data = comparison.to_json()
    fields = {name: data.get(name) for name in PROPERTY_FIELDS}
    return verdict_properties({**fields, "line": line})
