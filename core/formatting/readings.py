"""Readings, the glossary, and their layout. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .percentages import percent as whole_or_one_decimal
from .percentages import percent1


@dataclass
class Reading:
    """One plain-language reading.

    :ivar topic: what it is about, printed as its heading (``classify::identify_pii``).
    :ivar text: the reading: what the numbers say, what they assume, the next step.
    :ivar terms: glossary terms it uses (bundled ones, or ones defined in ``definitions``).
    :ivar target: the JSON object that gets the text as its ``explanation`` field.
    :ivar order: where it goes: rows (100), function lines (200), metrics (300),
        comparisons (400), baselines (500), latency (600), anything else after.
    :ivar definitions: glossary entries a third-party reading brings along.
    :ivar notable: whether it is worth a hint without ``--prob-explain`` (a line that only
        restates a clean result is not).
    """

    topic: str
    text: str
    terms: tuple[str, ...] = ()
    target: dict[str, Any] | None = None
    order: int = 1000
    definitions: Mapping[str, str] = field(default_factory=dict)
    notable: bool = True


GLOSSARY: dict[str, str] = {
    "pass rate": "the share of runs that pass if you could run the case forever; the "
    "fraction you see estimates it.",
    "interval": "the range of pass rates (or differences, or times) consistent with the "
    "runs, at the stated confidence (95% unless set otherwise). It assumes runs are "
    "independent repetitions of the same thing.",
    "gate": "a rule that holds a case to a pass rate or count instead of to every run "
    "(min_rate, min_passes) or to a latency (max_latency).",
    "PASS / FAIL / UNDECIDED": "a gate passes when its whole interval is on the good side "
    "of the bar, fails when it is wholly on the bad side, and is undecided in between.",
    "bootstrap": "re-drawing whole inputs at random many times to see how much a mean over "
    "inputs moves; it treats the inputs as a sample of the ones you care about.",
    "ρ (rho)": "how alike the runs of one input are (0: every run is a coin toss, 1: each "
    "input is always right or always wrong).",
    "pass^k": "the chance that k runs of the same input all pass (reliability).",
    "pass@k": "the chance that at least one of k runs of an input passes (best-of-k).",
    "pp": "percentage points: the difference between two percentages (90% − 80% is 10 pp).",
    "p-value": "how often a difference at least this big would turn up by chance if the two "
    "sides were equally good.",
    "quantile": "p95 is the time 95% of runs finish within.",
    "margin": "how much worse an arm (or this run, against a baseline) may be and still pass.",
}


def glossary_for(readings: Sequence[Reading]) -> dict[str, str]:
    """The entries of every term the readings use, in order of first use."""
    found: dict[str, str] = {}
    for reading in sorted(readings, key=lambda r: r.order):
        for term in reading.terms:
            definition = reading.definitions.get(term) or GLOSSARY.get(term)
            if definition and term not in found:
                found[term] = definition
    return found


def render(readings: Sequence[Reading], width: int) -> list[str]:
    """The ``probability: explained`` lines: each reading under its topic, wrapped to
    ``width``, then the glossary of the terms used."""
    width = max(40, width)
    lines: list[str] = []
    for reading in sorted(readings, key=lambda r: r.order):
        lines.append(f"  {reading.topic}")
        lines += textwrap.wrap(
            reading.text, width=width, initial_indent="    ", subsequent_indent="    "
        )
    glossary = glossary_for(readings)
    if glossary:
        lines += ["", "  Terms"]
        for term, definition in glossary.items():
            lines += textwrap.wrap(
                f"{term}: {definition}",
                width=width,
                initial_indent="    ",
                subsequent_indent="      ",
            )
    return lines


def percent(value: float, places: int = 0) -> str:
    """A fraction as the report prints it: whole percent (or one decimal with
    ``places=1``), half-up, ``100%`` only for exactly 1 (so readings match the rows)."""
    return percent1(value) if places else whole_or_one_decimal(value)
