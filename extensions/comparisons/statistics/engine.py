"""The bundled comparison test and the assembly of a session's comparisons: one paired
input → Newcombe interval and Fisher's exact p; 2 … ``min_inputs − 1`` → mean difference
and the sign-flip p, no interval, a line per input; ``≥ min_inputs`` → paired bootstrap
interval and sign-flip p (docs/statistics.rst, "Comparisons"). Pure module: never imports
pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..registry import InputLine, Pair, Side, TestOutcome, TestSettings
from .paired import fisher_two_sided, margin_verdict, newcombe_difference
from .signflip import bootstrap_difference, sign_flip_test


def _difference(pair: Pair) -> Fraction:
    return Fraction(pair.arm.passes, pair.arm.total) - Fraction(pair.base.passes, pair.base.total)


def _counts(pair: Pair) -> tuple[int, int, int, int]:
    return pair.arm.passes, pair.arm.total, pair.base.passes, pair.base.total


def paired_test(pairs: Sequence[Pair], settings: TestSettings) -> TestOutcome:
    if not pairs:
        raise ValueError("a comparison needs at least one paired input")
    differences = [_difference(pair) for pair in pairs]
    mean = sum(differences, Fraction(0)) / len(differences)
    if len(pairs) == 1:
        (pair,) = pairs
        low, high = newcombe_difference(*_counts(pair), settings.level)
        p = fisher_two_sided(*_counts(pair))
        return TestOutcome(
            float(mean), low, high, p, "one pair", {"interval": "newcombe", "test": "fisher"}
        )
    flip = sign_flip_test(differences, resamples=settings.resamples, seed=settings.seed)
    detail: dict[str, Any] = {
        "test": "sign-flip",
        "exact": flip.exact,
        "test_resamples": flip.resamples,
        "nonzero": flip.nonzero,
    }
    if len(pairs) < settings.min_inputs:
        lines = tuple(
            InputLine(pair.input, float(d), *newcombe_difference(*_counts(pair), settings.level))
            for pair, d in zip(pairs, differences, strict=True)
        )
        return TestOutcome(float(mean), None, None, flip.p, "few pairs", detail, lines)
    method = settings.bootstrap_method
    low, high = bootstrap_difference(
        differences, settings.level, settings.resamples, settings.seed, method
    )
    detail.update(
        {
            "interval": "paired bootstrap",
            "bootstrap_method": method,
            "resamples": settings.resamples,
        }
    )
    return TestOutcome(float(mean), low, high, flip.p, "bootstrap", detail)


@dataclass
class Comparison:
    """One arm against the baseline in one function (or a function against a baseline
    report): the pairs, what the test said, and the verdict when it is a gate."""

    function: str
    label: str
    axis: str
    arm: str
    baseline: str
    pairs: list[Pair]
    #: inputs that only one side ran: (input, the side it has)
    unpaired: list[tuple[str, str]]
    test: str
    level: float
    margin: float | None = None
    equivalence: bool = False
    outcome: TestOutcome | None = None
    p_adjusted: float | None = None
    adjust: str = "none"
    cost_ratio: float | None = None
    verdict: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: a comparison read on its sequence: each pair's counts at the look it settled at (the
    #: JSON's ``pairs``; ``pairs`` keeps every judged run, the JSON's ``pairs_full``)
    read: list[Pair] | None = None

    @property
    def p(self) -> float | None:
        """The p-value as reported: adjusted when an adjustment applies."""
        if self.outcome is None:
            return None
        return self.p_adjusted if self.p_adjusted is not None else self.outcome.p

    def judge(self) -> None:
        """Set the margin verdict on the interval (adjustments change p, not intervals); a
        comparison judged on its sequence takes the reading it settled on."""
        if self.margin is not None and self.error is not None:
            self.verdict = "undecided"  # a gate that cannot be computed fails closed
            return
        if self.margin is None or self.outcome is None or "hidden" in self.extra:
            self.verdict = None  # no gate, or nothing compared (new inputs are not judged)
            return
        outcome = self.outcome
        settled = outcome.detail.get("settled") if outcome.regime == "sequence" else None
        if settled in ("pass", "fail", "undecided"):
            self.verdict = settled  # a sequence's margin: the reading it settled on
            return
        self.verdict = margin_verdict(outcome.low, outcome.high, self.margin, self.equivalence)

    def to_json(self) -> dict[str, Any]:
        outcome = self.outcome
        return {
            "function": self.function,
            "label": self.label,
            "axis": self.axis,
            "arm": self.arm,
            "baseline": self.baseline,
            "test": self.test,
            "level": self.level,
            "regime": outcome.regime if outcome else None,
            "difference": outcome.difference if outcome and "hidden" not in self.extra else None,
            "low": outcome.low if outcome else None,
            "high": outcome.high if outcome else None,
            "p": outcome.p if outcome else None,
            "p_adjusted": self.p_adjusted,
            "adjust": self.adjust,
            "paired": len(self.pairs),
            "unpaired": [{"input": name, "only": side} for name, side in self.unpaired],
            "cost_ratio": self.cost_ratio,
            "margin": self.margin,
            "equivalence": self.equivalence,
            "verdict": self.verdict,
            "error": self.error,
            "detail": dict(outcome.detail) if outcome else {},
            "inputs": [
                {"input": i.input, "difference": i.difference, "low": i.low, "high": i.high}
                for i in (outcome.inputs if outcome else ())
            ],
            "pairs": _pairs_json(self.pairs if self.read is None else self.read),
            **({} if self.read is None else {"pairs_full": _pairs_json(self.pairs)}),
            **self.extra,
        }


def _pairs_json(pairs: Sequence[Pair]) -> list[dict[str, Any]]:
    return [
        {
            "input": pair.input,
            "arm": _side_json(pair.arm),
            "baseline": _side_json(pair.base),
            "difference": float(_difference(pair)) if pair.arm.total and pair.base.total else 0.0,
        }
        for pair in pairs
    ]


def _side_json(side: Side) -> dict[str, Any]:
    return {"key": side.key, "passes": side.passes, "total": side.total, "cost": side.cost}


def cost_ratio(pairs: Sequence[Pair]) -> float | None:
    """(arm cost per run) / (baseline cost per run) over the paired inputs; ``None`` when
    a side recorded no cost or the baseline's is zero."""
    arm_cost = [p.arm.cost for p in pairs]
    base_cost = [p.base.cost for p in pairs]
    if any(c is None for c in arm_cost) or any(c is None for c in base_cost):
        return None
    arm_runs = sum(p.arm.runs for p in pairs)
    base_runs = sum(p.base.runs for p in pairs)
    base_total = sum(c for c in base_cost if c is not None)
    if arm_runs == 0 or base_runs == 0 or base_total <= 0:
        return None
    arm_total = sum(c for c in arm_cost if c is not None)
    return (arm_total / arm_runs) / (base_total / base_runs)


def run_test(
    comparison: Comparison,
    compute: Callable[[Sequence[Pair], TestSettings], TestOutcome],
    settings: TestSettings,
) -> None:
    """Fill the outcome (left ``None`` without pairs) and the cost ratio; an answer that is
    not a valid :class:`TestOutcome` raises :class:`ValueError` saying what is wrong."""
    comparison.cost_ratio = cost_ratio(comparison.pairs)
    if comparison.pairs:
        comparison.outcome = checked(compute(comparison.pairs, settings), comparison.test)


def checked(outcome: Any, test: str) -> TestOutcome:
    if not isinstance(outcome, TestOutcome):
        raise ValueError(f"comparison test {test!r} returned {outcome!r}; expected a TestOutcome")
    problems = []
    if not (math.isfinite(outcome.difference) and -1.0 <= outcome.difference <= 1.0):
        problems.append(f"difference={outcome.difference!r} (expected a number in [-1, 1])")
    if (outcome.low is None) != (outcome.high is None):
        problems.append("only one interval end (give both or neither)")
    elif outcome.low is not None and outcome.high is not None:
        ends = (outcome.low, outcome.high)
        if not all(math.isfinite(e) and -1.0 <= e <= 1.0 for e in ends) or ends[0] > ends[1]:
            problems.append(
                f"interval [{ends[0]!r}, {ends[1]!r}] (expected -1 <= low <= high <= 1)"
            )
    if outcome.p is not None and not (math.isfinite(outcome.p) and 0.0 <= outcome.p <= 1.0):
        problems.append(f"p={outcome.p!r} (expected a number in [0, 1])")
    if problems:
        raise ValueError(f"comparison test {test!r} returned " + "; ".join(problems))
    return outcome


def adjust_family(
    comparisons: Sequence[Comparison],
    name: str,
    adjust: Callable[[Sequence[float]], list[float]],
    silent: int = 0,
) -> None:
    """Adjust the p of every comparison that has one as one family; ``silent`` more members
    without a p of their own (sequential comparisons stopped early for a margin or the
    resolution, which never reject) count as p-values of 1: in the family's size, not
    reported."""
    family = [c for c in comparisons if c.outcome is not None and c.outcome.p is not None]
    for comparison in comparisons:
        comparison.adjust = name
        comparison.p_adjusted = None
    if name == "none" or not family:
        return
    adjusted = adjust([c.outcome.p for c in family] + [1.0] * silent)  # type: ignore[union-attr]
    if len(adjusted) != len(family) + silent:
        raise ValueError(
            f"p adjustment {name!r} returned {len(adjusted)} values for {len(family) + silent}"
        )
    adjusted = adjusted[: len(family)]
    values = [float(value) for value in adjusted]
    if not all(math.isfinite(value) for value in values):
        raise ValueError(f"p adjustment {name!r} returned a value that is not a number")
    for comparison, value in zip(family, values, strict=True):
        comparison.p_adjusted = min(1.0, max(0.0, value))
