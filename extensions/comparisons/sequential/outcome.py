"""Sequential comparisons: a comparison monitored under ``--prob-stop=sequential``.

A function compared with the bundled ``paired`` test is monitored pair by pair on an
anytime-valid confidence sequence (:mod:`.rule`): its runs are interleaved
(:mod:`.runtime`), its cases stop once the comparison is settled (the readers), and
its line is computed here from the pairs the sequence used — the sequence's interval at
the last look, the always-valid p-value, the reading and when it settled — instead of the
fixed-run regimes, whose intervals would lean after an early stop.

``--prob-baseline=PATH --prob-margin=M`` under ``--prob-stop=sequential`` (and the ``paired``
test) is monitored the same way, each function's cases now against its baseline report's:
a pair is one run of the case now against one run of its baseline case. The report keeps a
case's counts, not its runs in order; when the baseline's runs were independent trials of
one rate, every order of its ``x`` passes among its ``n`` runs is equally likely given the
counts, so the runs dealt in an order drawn uniformly at random have exactly the
distribution of the runs as they came (exchangeability), and the sequence over the pairs
keeps its guarantee. The order is drawn once per case from ``--prob-seed`` and the case's
key, the same in every process (:func:`baseline_runs`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_probability.api import option_value, options_of

from ..options import PAIRED, sequential_mode
from ..registry import TestOutcome
from ..statistics.adjust import benjamini_hochberg
from ..statistics.bernstein import RoundSequence
from ..statistics.engine import cost_ratio
from .rule import (
    BERNSTEIN,
    MIXTURE,
    MixtureLook,
    PairedRuns,
    RoundsLook,
    outcomes,
    rounds_of,
    settle,
    summary,
)

#: the regime of a sequential comparison (``comparisons[].regime``)
REGIME = "sequence"
#: how the report names each method's interval
INTERVALS = {
    MIXTURE: "mixture sequence (Jeffreys mixtures over the profile likelihood)",
    BERNSTEIN: "empirical-Bernstein sequence (Waudby-Smith and Ramdas)",
}


def monitored(config: Any, mark: Mapping[str, Any]) -> bool:
    """Whether a function with this mark is compared sequentially: ``--prob-stop=sequential``
    and the bundled ``paired`` test (another test keeps its fixed-run meaning)."""
    return sequential_mode(config) and options_of(config).case_value("compare_test", mark) == PAIRED


def resolution(config: Any) -> float:
    """``prob_compare_resolution`` (``--prob-compare-resolution``)."""
    return float(option_value(config, "compare_resolution"))


def paired_runs(
    name: str,
    arm: Mapping[int, Mapping[str, Any]],
    base: Mapping[int, Mapping[str, Any]],
    arm_planned: int,
    base_planned: int,
) -> PairedRuns:
    """One input's :class:`~.rule.PairedRuns` from its two cases' records: each side's
    judged runs, and as the runs left its planned runs that were not judged. The looks'
    cap (the most pairs an input can have) is so the same while the session runs, at its
    end, and in a session that made every planned run — whether a run was skipped by the
    stopper, by a budget or by the bench itself — so that the stopper and the report read
    the same looks; a run that skips itself only makes ``UNDECIDED`` settle later, never
    differently."""
    arm_runs, base_runs = outcomes(arm), outcomes(base)
    return PairedRuns(
        name,
        arm_runs,
        base_runs,
        max(0, arm_planned - len(arm_runs)),
        max(0, base_planned - len(base_runs)),
    )


def replay(
    inputs: list[PairedRuns], level: float, margin: float | None, equivalence: bool, chosen: float
) -> tuple[int | None, str | None]:
    """The first look (pairs with one input, rounds with several) at which the comparison
    was settled, and its reading: the looks replayed from the pairs used, each with the
    pairs still to come of a session that makes every planned run."""
    if len(inputs) == 1:
        (item,) = inputs
        xa = xb = 0
        for k in range(1, item.pairs + 1):
            xa, xb = xa + item.arm[k - 1], xb + item.base[k - 1]
            look = MixtureLook(xa, xb, k, item.most_pairs - k, level)
            found = settle(look, margin, equivalence, chosen)
            if found is not None:
                return k, found
        return None, None
    most = min(item.most_pairs for item in inputs)
    sequence = RoundSequence(len(inputs), level)
    for k, differences in enumerate(rounds_of(inputs), start=1):
        sequence.add_round(differences)
        found = settle(RoundsLook(sequence, most - k), margin, equivalence, chosen)
        if found is not None:
            return k, found
    return None, None


def until(inputs: list[PairedRuns], look: int) -> list[PairedRuns]:
    """The inputs as they were at ``look`` (pairs with one input, rounds with several):
    each side's first ``look`` judged runs."""
    return [
        PairedRuns(item.input, item.arm[:look], item.base[:look], item.arm_left, item.base_left)
        for item in inputs
    ]


def sequence_outcome(
    inputs: list[PairedRuns],
    level: float,
    margin: float | None,
    equivalence: bool,
    chosen: float,
) -> TestOutcome:
    """The comparison's numbers on the sequence, read at the look it settled at (the last
    look when it never settled): the estimate over the pairs used until then, the interval
    at that look, the always-valid p (``detail`` has the method, the pairs and rounds used,
    the planned pairs, the e-value at that look, the reading and the look it settled at).
    Pairs made after the settling look (a gate of one of its cases kept it running) are not
    read, so the outcome equals that of a session that stopped there."""
    after, reading = replay(inputs, level, margin, equivalence, chosen)
    # read at the look it settled at: the pairs a case's gate kept making after that are
    # not used, so the line, the verdict and the JSON are those of the stopped session
    found = summary(inputs if after is None else until(inputs, after), level)
    planned = (
        inputs[0].most_pairs
        if len(inputs) == 1
        else min(item.most_pairs for item in inputs) * len(inputs)
    )
    detail = {
        "interval": INTERVALS[found["method"]],
        "test": "always-valid",
        "method": found["method"],
        "pairs": found["pairs"],
        "rounds": found["rounds"],
        "planned_pairs": planned,
        "e_value": found["e_value"],
        "settled": reading,
        "settled_after": after,
        "resolution": chosen,
    }
    return TestOutcome(found["estimate"], found["low"], found["high"], found["p"], REGIME, detail)


def run(
    comparison: Any,
    inputs: Mapping[str, Mapping[str, Any]],
    names: Mapping[str, str],
    level: float,
    chosen: float,
) -> None:
    """Fill a monitored comparison's outcome (and cost ratio) from its cases' records: the
    inputs both arms ran, in input-key order (the readers' order, so that the report's
    sequence is the one the stopper watched)."""
    comparison.cost_ratio = cost_ratio(comparison.pairs)
    found = []
    for key in sorted(inputs):
        here = inputs[key].get(comparison.arm)
        there = inputs[key].get(comparison.baseline)
        if here is None or there is None or not here.total or not there.total:
            continue
        found.append(
            paired_runs(names[key], here.records, there.records, here.planned, there.planned)
        )
    comparison.outcome = sequence_outcome(
        found, level, comparison.margin, comparison.equivalence, chosen
    )


#: the adjustment name a session under ``--prob-adjust=bh`` reports with sequential
#: comparisons in its family
E_BH = "e-bh"


def e_bh(comparisons: Sequence[Any]) -> None:
    """``--prob-adjust=bh`` over a family with sequential comparisons: the e-BH procedure
    (Wang and Ramdas 2022), which controls the false discovery rate under any dependence,
    as BH on always-valid p-values at data-dependent stopping times does not. Each
    comparison contributes an e-value — a sequential one its e-process at the stop
    (``detail.e_value``), a fixed-run one its p calibrated as ``e = 1/(2√p)`` — and the
    adjusted value is BH's on ``1/e``: ``min(1, min_{j ≥ i} m/(j·e₍ⱼ₎))`` down the e-values
    sorted from the largest, so a comparison is a discovery at level α exactly when e-BH
    at α rejects it."""
    family = [c for c in comparisons if c.outcome is not None and c.outcome.p is not None]
    for comparison in comparisons:
        comparison.adjust = E_BH
        comparison.p_adjusted = None
    inverse = []
    for comparison in family:
        outcome = comparison.outcome
        if outcome.regime == REGIME:
            e = float(outcome.detail["e_value"])
            inverse.append(1.0 if e <= 1.0 else 1.0 / e)
        else:
            inverse.append(min(1.0, 2.0 * math.sqrt(outcome.p)))
    for comparison, value in zip(family, benjamini_hochberg(inverse), strict=True):
        comparison.p_adjusted = min(1.0, max(0.0, value))


#: a monitored ``--prob-margin`` comparison as the readers and the ``Stopped:`` line name it
WHAT = "the --prob-margin comparison of {label} with the baseline"


def baseline_runs(key: str, passes: int, total: int, seed: int) -> tuple[int, ...]:
    """The baseline case's ``passes`` of ``total`` runs (1 pass, 0 not) in the order drawn
    for it: a uniformly random permutation seeded with ``seed`` and its ``key``."""
    if not 0 <= passes <= total:
        raise ValueError(f"passes must lie in [0, total], got {passes} of {total}")
    runs = [1] * passes + [0] * (total - passes)
    random.Random(f"prob-baseline:{seed}:{key}").shuffle(runs)
    return tuple(runs)


def paired_with_baseline(
    name: str, records: Mapping[int, Mapping[str, Any]], planned: int, baseline: tuple[int, ...]
) -> PairedRuns:
    """One case now (its judged runs in run order, and its planned runs not judged yet, as
    in :func:`paired_runs`) against its baseline case's runs in their drawn order."""
    now = outcomes(records)
    return PairedRuns(name, now, baseline, max(0, planned - len(now)), 0)
