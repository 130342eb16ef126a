"""Baseline margins under ``--prob-stop=sequential``: the runs of this session against the
runs of an earlier report, on the same anytime-valid sequence as an axis comparison.

``--prob-baseline=PATH --prob-margin=M`` judges each function, ``now − baseline``, against a
non-inferiority margin. Under ``--prob-stop=sequential`` (and the ``paired`` test) it is
monitored like an arm against its baseline arm (:mod:`.rule`): after every completed
pair with one paired case, after every round with several, its cases stop once its verdict
is settled, and its line is read at the look it settled at.

A pair is one run of the case now against one run of its baseline case. The report keeps a
case's counts, not its runs in order; when the baseline's runs were independent trials of
one rate, every order of its ``x`` passes among its ``n`` runs is equally likely given the
counts, so the runs dealt in an order drawn uniformly at random have exactly the
distribution of the runs as they came (exchangeability), and the sequence over the pairs
keeps its guarantee. The order is drawn once per case from ``--prob-seed`` and the case's
key, the same in every process. The baseline's runs are all made: a case has at most as
many pairs as the fewer of its planned runs and its baseline runs.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .rule import PairedRuns, outcomes

#: the comparison's name as the readers and the ``Stopped:`` line give it
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
    """One case now against its baseline case as :class:`~.rule.PairedRuns`: this
    session's judged runs in run order (``arm``) against the baseline's runs in their drawn
    order (``base``, none left to come); the runs left are the planned runs not judged, as
    for an axis comparison (:func:`.outcome.paired_runs`)."""
    now = outcomes(records)
    return PairedRuns(name, now, baseline, max(0, planned - len(now)), 0)


def judge_on_sequence(
    config: Any, comparison: Any, olds: Sequence[tuple[Any, Any, str]], level: float
) -> None:
    """Fill a monitored function's comparison with the baseline (``now − baseline``) from
    its paired cases ``olds`` — ``(case result, baseline case, shown id)`` — in case-key
    order (the readers' order, so that the report reads the sequence the stopper
    watched): the sequence's outcome at the look it settled at, and the cost ratio."""
    from ..session import setting
    from ..statistics.engine import cost_ratio
    from .outcome import resolution, sequence_outcome

    seed = setting(config, "seed")
    inputs = [
        paired_with_baseline(
            shown,
            case.records,
            case.planned,
            baseline_runs(old.key, old.passes, old.total, seed),
        )
        for case, old, shown in sorted(olds, key=lambda found: found[0].key)
    ]
    comparison.cost_ratio = cost_ratio(comparison.pairs)
    comparison.outcome = sequence_outcome(
        inputs, level, comparison.margin, False, resolution(config)
    )
