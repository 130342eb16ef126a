"""The comparisons' answer to ``--prob-stop``: which cases a comparison reads.

A margin's verdict on the fixed-run regimes (``margin=`` on a compared function,
``--prob-margin`` against a baseline) is judged on an interval over every paired input of
the function, so whether it is settled depends on runs of other cases too; it cannot say,
from one case's runs, that its verdict can no longer change. The cases it reads therefore
run every run (the stopping extension's ``pytest_prob_stop_readers`` contract), and the
margin is judged on the same runs as without ``--prob-stop``. Under
``--prob-stop=sequential`` a function compared with the ``paired`` test is judged on an
anytime-valid sequence instead, whose readers say when it is settled (:mod:`.seqruntime`).
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.cases import Case
from pytest_probability.extensions.stopping.service import StopReader
from pytest_probability.kernel import kernel_of

from .regression_options import PLUGIN_NAME as REGRESSION
from .session import state_of

#: per config: function key → input key → the arms that input has
_INPUTS = pytest.StashKey[dict[str, dict[str, set[str]]]]()
#: per config: the baseline's cases by displayed case id
_BY_ID = pytest.StashKey[dict[str, Any]]()


def _arms_by_input(config: pytest.Config) -> dict[str, dict[str, set[str]]]:
    found = config.stash.get(_INPUTS, None)
    arms = state_of(config).arms
    if found is None or sum(len(a) for i in found.values() for a in i.values()) != len(arms):
        found = {}
        for info in arms.values():
            found.setdefault(info.function, {}).setdefault(info.input_key, set()).add(info.arm)
        config.stash[_INPUTS] = found
    return found


def margin_readers(case: Case, config: pytest.Config) -> list[StopReader]:
    """The verdicts that read ``case``: under ``--prob-stop=sequential``, every comparison
    of a monitored function that reads it (its arm's, or every arm's for a baseline case),
    which answer from the sequence (:mod:`.seqruntime`); otherwise its function's
    ``margin=`` when the case's input has the baseline arm and another (a paired input),
    which cannot say when it is settled; and ``--prob-margin`` when the case pairs with a
    case of the baseline report (by node id or case id), which cannot say either."""
    found = []
    info = state_of(config).arms.get(case.key)
    from .seqruntime import plugin_of

    sequential = plugin_of(config)
    if (
        info is not None
        and sequential is not None
        and sequential.monitors(info.function, case.mark)
    ):
        found.extend(sequential.readers(case))  # settled on the sequence: they can say
    elif info is not None and planned_apart(config, case.mark):
        pass  # --prob-plan plans the comparison on its own lines
    elif info is not None and case.mark.get("margin") is not None:
        present = _arms_by_input(config).get(info.function, {}).get(info.input_key, set())
        if info.baseline in present and len(present) > 1:
            found.append(StopReader(f"the margin of {info.label}[{info.axis}]"))
    regression: Any = config.pluginmanager.get_plugin(REGRESSION)
    baseline = getattr(regression, "baseline", None)
    if baseline is not None and getattr(regression, "margin", None) is not None:
        by_id = config.stash.get(_BY_ID, None)
        if by_id is None:
            by_id = config.stash[_BY_ID] = {old.case: old for old in baseline.cases.values()}
        old = (
            baseline.cases.get(case.key)
            or by_id.get(case.case_id)
            or by_id.get(f"{case.module}::{case.case_id}")
        )
        if old is not None and old.total > 0:
            name = f"the --prob-margin comparison of {case.label} with the baseline"
            found.append(StopReader(name))
    return found


def planned_apart(config: pytest.Config, mark: Any) -> bool:
    """Whether ``--prob-plan`` plans a compared case's comparison on its own lines (the
    ``paired`` test: sequential stopping would monitor it) rather than as a reader that
    keeps the case running."""
    from .session import PAIRED

    options = kernel_of(config).options
    return (
        "plan" in options.specs
        and bool(options.session_value("plan"))
        and options.case_value("compare_test", mark) == PAIRED
    )


def plan_note(case: Case, row: Any, config: pytest.Config) -> None:
    """Note on a gated compared case's plan row that it also runs until its comparison is
    settled (the comparison is planned on its own lines)."""
    info = state_of(config).arms.get(case.key)
    if info is not None and row.gate is not None and planned_apart(config, case.mark):
        row.notes.append(
            f"under --prob-stop=sequential it also runs until {info.label}[{info.axis}] is "
            "settled (see the comparisons below)"
        )
