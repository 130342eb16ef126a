"""A comparison monitored under ``--prob-stop=sequential`` (the ``paired`` test), read
from the pairs its sequence used (:mod:`.rule`): the interval at the look it settled at,
the always-valid p-value, the reading and when it settled — instead of the fixed-run
regimes, whose intervals would lean after an early stop.

A ``--prob-margin`` comparison with a baseline report is monitored the same way, a pair
being one run now against one run of the baseline case. The report keeps a case's counts,
not its runs in order; when the baseline's runs were independent trials of one rate,
every order of its passes is equally likely given the counts, so the runs dealt in a
uniformly random order have exactly the distribution of the runs as they came
(exchangeability), and the sequence keeps its guarantee. The order is drawn per case from
``--prob-seed`` and the case's key, the same in every process (:func:`baseline_runs`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_probability.api import option_value, options_of

from ..axis.arms import ArmInfo, compared_arms
from ..options import PAIRED, sequential_mode
from ..registry import Pair, TestOutcome
from ..statistics.adjust import benjamini_hochberg
from ..statistics.engine import adjust_family, cost_ratio
from .rule import (
    ANYTIME,
    BERNSTEIN,
    DIFFERENCE,
    FAIL,
    GROUP_SEQUENTIAL,
    HORIZON,
    MIXTURE,
    PASS,
    PairedRuns,
    look_of,
    looks,
    outcomes,
    settle,
    summary,
)

#: the regime of a sequential comparison (``comparisons[].regime``)
REGIME = "sequence"
#: how the report names each method's interval
INTERVALS = {
    MIXTURE: "mixture sequence (Jeffreys mixtures over the profile likelihood)",
    BERNSTEIN: "empirical-Bernstein sequence (Waudby-Smith and Ramdas)",
    GROUP_SEQUENTIAL: "repeated confidence interval (Lan–DeMets spending, α·t²)",
}
#: the test each method's p comes from
TESTS = {
    MIXTURE: "always-valid",
    BERNSTEIN: "always-valid",
    GROUP_SEQUENTIAL: "group-sequential (stagewise ordering)",
}


def monitored(config: Any, mark: Mapping[str, Any]) -> bool:
    """``--prob-stop=sequential`` and the bundled ``paired`` test (another test keeps its
    fixed-run meaning)."""
    return sequential_mode(config) and options_of(config).case_value("compare_test", mark) == PAIRED


def resolution(config: Any) -> float:
    return float(option_value(config, "compare_resolution"))


def design(config: Any) -> str:
    """``prob_compare_sequential``: ``horizon`` or ``anytime``."""
    return str(option_value(config, "compare_sequential"))


#: the ``--prob-adjust`` corrections whose family a comparison without a margin designs its
#: boundaries for (each spends α/m of the family's m comparisons)
FAMILY_CORRECTIONS = ("bonferroni", "holm", "bh")


def family_size(infos: Iterable[ArmInfo]) -> int:
    """The comparisons ``--prob-adjust`` adjusts together: every compared arm of every
    function the infos belong to."""
    functions: dict[str, list[ArmInfo]] = {}
    for info in infos:
        functions.setdefault(info.function, []).append(info)
    return sum(len(compared_arms(members)) for members in functions.values())


def design_level(config: Any, level: float, margin: float | None, family: int) -> float:
    """The level a monitored comparison's boundaries and interval are designed at. Under
    ``--prob-adjust=holm|bonferroni|bh`` and the ``horizon`` design, a comparison without a
    margin — whose reading is its p — spends ``α/m`` of the family's ``m`` comparisons, so it
    stops only once its p can survive the correction (stopped on its own α, its p at the
    stop is about that α, which a correction at ``α/m`` rejects). A margin is a gate of its
    own and keeps ``level``, as does every comparison under ``anytime`` (whose e-values
    e-BH and Ville's inequality already cover)."""
    if margin is not None or family <= 1 or design(config) != HORIZON:
        return level
    if options_of(config).session_value("adjust") not in FAMILY_CORRECTIONS:
        return level
    return 1.0 - (1.0 - level) / family


def paired_runs(
    name: str,
    arm: Mapping[int, Mapping[str, Any]],
    base: Mapping[int, Mapping[str, Any]],
    arm_planned: int,
    base_planned: int,
) -> PairedRuns:
    """One input's :class:`~.rule.PairedRuns` from its two cases' records: each side's
    judged runs, and as the runs left its planned runs not judged — so that the looks' cap is
    the same while the session runs, at its end, and in a session that made every planned
    run, whatever skipped a run, and the stopper and the report read the same looks."""
    arm_runs, base_runs = outcomes(arm), outcomes(base)
    return PairedRuns(
        name,
        arm_runs,
        base_runs,
        max(0, arm_planned - len(arm_runs)),
        max(0, base_planned - len(base_runs)),
    )


def replay(
    inputs: list[PairedRuns],
    level: float,
    margin: float | None,
    equivalence: bool,
    chosen: float,
    design: str = HORIZON,
) -> tuple[int | None, str | None]:
    """The first look (pair with one input, round with several) at which the comparison
    was settled, and its reading, replayed from the pairs used."""
    for k, look in enumerate(looks(inputs, level, design)):
        found = settle(look, margin, equivalence, chosen) if k else None
        if found is not None:
            return k, found
    return None, None


def until(inputs: list[PairedRuns], look: int) -> list[PairedRuns]:
    """The inputs as they were at ``look``: each side's first ``look`` judged runs, the
    runs after them counted as still to come (so that the horizon, which the ``horizon``
    design's boundaries depend on, is the same whether or not they were made)."""
    return [
        PairedRuns(
            item.input,
            item.arm[:look],
            item.base[:look],
            item.arm_left + max(0, len(item.arm) - look),
            item.base_left + max(0, len(item.base) - look),
        )
        for item in inputs
    ]


def sequence_outcome(
    inputs: list[PairedRuns],
    level: float,
    margin: float | None,
    equivalence: bool,
    chosen: float,
    design: str = HORIZON,
) -> TestOutcome:
    """The comparison's numbers read at the look it settled at (the last one when it never
    settled): the pairs a case's gate kept making after that are not read, so the outcome
    equals that of a session that stopped there. Under ``horizon`` a comparison that crossed
    a boundary before its planned pairs reports the median-unbiased estimate (the one over
    the pairs used leans away from zero: the winner's curse) and keeps that one as
    ``detail.observed``."""
    after, reading = replay(inputs, level, margin, equivalence, chosen, design)
    used = inputs if after is None else until(inputs, after)
    null = crossed_null(used, level, design, reading, margin, equivalence)
    found = summary(used, level, design, null)
    planned = min(item.most_pairs for item in inputs) * len(inputs)
    estimate = found["estimate"]
    adjusted = found.get("adjusted")
    detail = {
        "interval": INTERVALS[found["method"]],
        "test": TESTS[found["method"]],
        "design": design,
        "estimate": "observed" if adjusted is None else "median-unbiased",
        "observed": estimate,
        "method": found["method"],
        "pairs": found["pairs"],
        "rounds": found["rounds"],
        "planned_pairs": planned,
        "e_value": found["e_value"],
        "settled": reading,
        "settled_after": after,
        "resolution": chosen,
        "level": level,
    }
    if adjusted is not None:
        estimate = adjusted
    p = found["p"]
    if design == HORIZON and after is not None and reading != DIFFERENCE:
        # the stagewise p describes stops at the boundaries for "no difference"; a stop for
        # a margin or the resolution happened on other boundaries, so it has no p of its own
        early = found["rounds"] < min(item.most_pairs for item in inputs)
        if early:
            p = None
            detail["e_value"] = 1.0
    return TestOutcome(estimate, found["low"], found["high"], p, REGIME, detail)


def crossed_null(
    used: Sequence[PairedRuns],
    level: float,
    design: str,
    reading: str | None,
    margin: float | None,
    equivalence: bool = False,
) -> float | None:
    """The value whose boundary a settled comparison crossed, for its median-unbiased
    estimate: 0 for a difference, ``−M`` for a non-inferiority verdict, the margin crossed for
    an equivalence ``FAIL`` and the nearer margin for its ``PASS`` (whose last boundary to be
    crossed is usually that one's). ``None`` for a stop on the resolution or ``UNDECIDED``,
    which come from no boundary of a value."""
    if design != HORIZON:
        return None
    if reading == DIFFERENCE:
        return 0.0
    if margin is None or reading not in (PASS, FAIL):
        return None
    if not equivalence:
        return -margin
    look = look_of(used, level, design)
    if reading == FAIL:
        return margin if look.above(margin) else -margin
    return margin if look.estimate >= 0.0 else -margin


def run(
    comparison: Any,
    paired: Sequence[tuple[str, Any, Any]],
    level: float,
    chosen: float,
    design: str = HORIZON,
) -> None:
    """Fill a monitored comparison's outcome and cost ratio from its cases' records:
    ``paired`` holds each input both arms ran as ``(name, arm case, baseline case)``."""
    comparison.cost_ratio = cost_ratio(comparison.pairs)
    found = [
        paired_runs(name, here.records, there.records, here.planned, there.planned)
        for name, here, there in paired
    ]
    comparison.outcome = sequence_outcome(
        found, level, comparison.margin, comparison.equivalence, chosen, design
    )
    comparison.read = read_pairs(comparison.pairs, found, comparison.outcome)


def read_pairs(
    pairs: Sequence[Pair], inputs: Sequence[PairedRuns], outcome: TestOutcome
) -> list[Pair]:
    """Each pair's counts over the runs the sequence read — each side's first
    ``detail.rounds`` judged runs (the pairs up to the look it settled at, or its last look) —
    so that the JSON's ``pairs`` add up to the line's numbers; a pair without runs in
    ``inputs`` keeps its counts."""
    rounds = int(outcome.detail.get("rounds") or 0)
    runs = {item.input: item for item in inputs}
    read = []
    for pair in pairs:
        item = runs.get(pair.input)
        if item is None:
            read.append(pair)
            continue
        arm, base = item.arm[:rounds], item.base[:rounds]
        read.append(
            Pair(
                pair.input,
                dataclasses.replace(pair.arm, passes=sum(arm), total=len(arm)),
                dataclasses.replace(pair.base, passes=sum(base), total=len(base)),
            )
        )
    return read


#: the adjustment name a session under ``--prob-adjust=bh`` reports with sequential
#: comparisons in its family
E_BH = "e-bh"


def adjust(comparisons: Sequence[Any], name: str, method: Any) -> None:
    """``--prob-adjust`` over a family with sequential comparisons. Every p is a valid p-value
    at its stopping time (the stagewise p under ``horizon``, the always-valid p under
    ``anytime``), so Holm and Bonferroni apply as they stand. A ``horizon`` comparison stopped
    early for a margin or the resolution has no p: it counts as a p of 1 (it rejects nothing)
    in the family's size. ``bh`` is Benjamini–Hochberg on the stagewise p when no comparison
    is on the ``anytime`` design (its conditions: independent or positively dependent
    p-values, docs/statistics.rst), else e-BH (:func:`e_bh`)."""
    sequences = [c for c in comparisons if c.outcome is not None and c.outcome.regime == REGIME]
    if name == "bh" and any(c.outcome.detail.get("design") == ANYTIME for c in sequences):
        e_bh(comparisons)
        return
    silent = sum(1 for c in sequences if c.outcome.p is None)
    adjust_family(comparisons, name, method, silent)


def e_bh(comparisons: Sequence[Any]) -> None:
    """``--prob-adjust=bh`` over a family with ``anytime`` comparisons: the e-BH procedure
    (Wang and Ramdas 2022), which controls the false discovery rate under any dependence. A
    sequential comparison contributes its e-value at the stop (``detail.e_value``), a
    fixed-run one its p calibrated as ``e = 1/(2√p)``; the adjusted value is BH's on ``1/e``,
    so a comparison is a discovery at level α exactly when e-BH at α rejects it."""
    inverse = []
    for outcome in (c.outcome for c in comparisons):
        if outcome is None or outcome.p is None:
            continue
        if outcome.regime == REGIME:
            e = float(outcome.detail["e_value"])
            inverse.append(1.0 if e <= 1.0 else 1.0 / e)
        else:
            inverse.append(min(1.0, 2.0 * math.sqrt(outcome.p)))
    adjust_family(comparisons, E_BH, lambda _: benjamini_hochberg(inverse))


def e_bh_adjusted(p_values: Sequence[float]) -> list[float]:
    """e-BH on p-values calibrated as ``e = 1/(2√p)``: BH's adjusted values on
    ``1/e = 2√p`` (capped at 1)."""
    return benjamini_hochberg([min(1.0, 2.0 * math.sqrt(p)) for p in p_values])


#: a monitored ``--prob-margin`` comparison as the readers and the ``Stopped:`` line name it
WHAT = "the --prob-margin comparison of {label} with the baseline"


def baseline_runs(key: str, passes: int, total: int, seed: int) -> tuple[int, ...]:
    """The baseline case's runs (1 pass, 0 not) in the order drawn for it."""
    if not 0 <= passes <= total:
        raise ValueError(f"passes must lie in [0, total], got {passes} of {total}")
    runs = [1] * passes + [0] * (total - passes)
    random.Random(f"prob-baseline:{seed}:{key}").shuffle(runs)
    return tuple(runs)


def paired_with_baseline(
    name: str, records: Mapping[int, Mapping[str, Any]], planned: int, baseline: tuple[int, ...]
) -> PairedRuns:
    """One case now (as in :func:`paired_runs`) against its baseline case's drawn runs."""
    now = outcomes(records)
    return PairedRuns(name, now, baseline, max(0, planned - len(now)), 0)
