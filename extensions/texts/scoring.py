"""Scores from graded answers, aggregation, and the assertion messages. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: the metrics in plain words (never an enum's repr)
METRIC_WORDS = {
    "f1": "F1 score (the harmonic mean of precision and recall)",
    "precision": "precision (completeness: how much of the given text the expected text supports)",
    "recall": "recall (correctness: how much of the expected text the given text contains)",
}
SHORT = {"f1": "F1", "precision": "precision", "recall": "recall"}
#: the questions shown under a failed assertion
WORST_SHOWN = 5


@dataclass(frozen=True)
class SideSample:
    """One side of one sample: questions written from one text, answered from the other."""

    questions: tuple[str, ...]
    answers: tuple[float, ...]

    @property
    def score(self) -> float:
        """The mean answer (1 when there are no questions: nothing can be missing)."""
        return sum(self.answers) / len(self.answers) if self.answers else 1.0


@dataclass(frozen=True)
class Sample:
    """One evaluation: recall and/or precision sides, and the metric's value."""

    recall: SideSample | None
    precision: SideSample | None

    def value(self, metric: str) -> float:
        if metric == "f1":
            assert self.recall is not None and self.precision is not None
            return f1(self.precision.score, self.recall.score)
        side = getattr(self, metric)
        assert side is not None
        return side.score


def f1(precision: float, recall: float) -> float:
    """``2PR/(P+R)``, 0 when both are 0."""
    total = precision + recall
    return 0.0 if total == 0 else 2 * precision * recall / total


AGGREGATES = {
    "min": min,
    "max": max,
    "median": statistics.median,
    "mean": statistics.fmean,
}


def score(x: float) -> str:
    return f"{x:.2f}"


def failed_questions(samples: Sequence[Sample], metric: str) -> list[tuple[str, str, float]]:
    """The lowest-scored answers across samples: ``(side, question, answer)``."""
    found: list[tuple[str, str, float]] = []
    for sample in samples:
        for name in ("recall", "precision"):
            side = getattr(sample, name)
            if metric in (name, "f1") and side is not None:
                found += [(name, q, a) for q, a in zip(side.questions, side.answers, strict=True)]
    first: dict[str, tuple[str, str, float]] = {}  # each question once, at its lowest answer
    for item in sorted((f for f in found if f[2] < 1.0), key=lambda f: f[2]):
        first.setdefault(item[1], item)
    return list(first.values())[:WORST_SHOWN]


def explain(samples: Sequence[Sample], metric: str, headline: str, values: Sequence[float]) -> str:
    """The message of a failed assertion: the headline, the sides, the worst questions."""
    lines = [headline]
    if len(values) > 1:
        lines.append(f"  samples: {', '.join(score(v) for v in values)}")
    if metric == "f1" and len(samples) == 1:
        sample = samples[0]
        assert sample.precision is not None and sample.recall is not None
        lines.append(f"  {METRIC_WORDS['recall']}: {score(sample.recall.score)}")
        lines.append(f"  {METRIC_WORDS['precision']}: {score(sample.precision.score)}")
    worst = failed_questions(samples, metric)
    if worst:
        lines.append("  questions the texts did not fully answer (lowest first):")
        for side, question, answer in worst:
            where = "given" if side == "recall" else "expected"
            lines.append(f"    {answer:<4g} {question}  [asked of the {where} text]")
    return "\n".join(lines)


def failure(
    samples: Sequence[Sample],
    metric: str,
    how: str | None,
    low: float,
    high: float,
    function: str,
) -> str | None:
    """The message of a failed assertion, ``None`` when it holds: the value of the one
    evaluation (``how`` None), else the min, max, median or mean of the evaluations, must
    be within ``[low, high]``."""
    values = [sample.value(metric) for sample in samples]
    value = values[0] if how is None else AGGREGATES[how](values)
    if low <= value <= high:
        return None
    if how is None:
        side = "below the minimum" if value < low else "above the maximum"
        bound = low if value < low else high
        headline = (
            f"{function}: the {METRIC_WORDS[metric]} is {score(value)}, {side} {score(bound)} "
            f"(accepted: [{score(low)}, {score(high)}])"
        )
    else:
        headline = (
            f"{function}: the {how} {SHORT[metric]} over {len(values)} evaluations is "
            f"{score(value)}, outside the accepted [{score(low)}, {score(high)}] "
            f"({METRIC_WORDS[metric]})"
        )
    return explain(samples, metric, headline, values)
