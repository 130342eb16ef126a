"""The comparisons' answer to ``--prob-stop``: which cases a comparison reads.

A margin's verdict on the fixed-run regimes (``margin=`` on a compared function,
``--prob-margin`` against a baseline) is judged on an interval over every paired input of
the function, so whether it is settled depends on runs of other cases too; it cannot say,
from one case's runs, that its verdict can no longer change. The cases it reads therefore
run every run (the stopping extension's ``pytest_prob_stop_readers`` contract), and the
margin is judged on the same runs as without ``--prob-stop``. Under
``--prob-stop=sequential`` a function compared with the ``paired`` test — on its axis, or
against the baseline report with ``--prob-margin`` — is judged on an anytime-valid sequence
instead, whose readers say when it is settled (:mod:`.sequential.runtime`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.api import Case, StopReader, options_of

from .baseline.options import PLUGIN_NAME as REGRESSION
from .session import state_of

#: per config: function key → input key → the arms that input has
_INPUTS = pytest.StashKey[dict[str, dict[str, set[str]]]]()


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
    of a monitored function that reads it (its arm's, or every arm's for a baseline case)
    and its function's monitored ``--prob-margin`` comparison with the baseline report,
    which answer from their sequences (:mod:`.sequential.runtime`); otherwise its function's
    ``margin=`` when the case's input has the baseline arm and another (a paired input),
    and ``--prob-margin`` when the case pairs with a case of the baseline report (by node
    id or case id), which cannot say when they are settled."""
    found: list[StopReader] = []
    info = state_of(config).arms.get(case.key)
    from .sequential.runtime import plugin_of

    sequential = plugin_of(config)
    if (
        info is not None
        and sequential is not None
        and sequential.monitors(info.function, case.mark)
    ):
        found.extend(sequential.arm_readers(case))  # settled on the sequence: they can say
    elif info is not None and planned_apart(config, case.mark):
        pass  # --prob-plan plans the comparison on its own lines
    elif info is not None and case.mark.get("margin") is not None:
        present = _arms_by_input(config).get(info.function, {}).get(info.input_key, set())
        if info.baseline in present and len(present) > 1:
            found.append(StopReader(f"the margin of {info.label}[{info.axis}]"))
    regression: Any = config.pluginmanager.get_plugin(REGRESSION)
    if getattr(regression, "baseline", None) is None or getattr(regression, "margin", None) is None:
        return found
    monitored = sequential.baseline_readers(case) if sequential is not None else []
    if monitored:
        found.extend(monitored)  # the comparison with the baseline, on its sequence
    elif regression.old_case(case) is not None and not planned_apart(config, case.mark):
        from .sequential.baseline import WHAT

        found.append(StopReader(WHAT.format(label=case.label)))
    return found


def planned_apart(config: pytest.Config, mark: Any) -> bool:
    """Whether ``--prob-plan`` plans a compared case's comparison on its own lines (the
    ``paired`` test: sequential stopping would monitor it) rather than as a reader that
    keeps the case running."""
    from .options import PAIRED

    options = options_of(config)
    return (
        "plan" in options.specs
        and bool(options.session_value("plan"))
        and options.case_value("compare_test", mark) == PAIRED
    )


def plan_note(case: Case, row: Any, config: pytest.Config) -> None:
    """Note on a gated case's plan row that, under sequential stopping, it also runs until
    the comparisons reading it are settled: its axis comparison (planned on its own lines)
    and its function's ``--prob-margin`` comparison with the baseline report."""
    if row.gate is None or not planned_apart(config, case.mark):
        return
    info = state_of(config).arms.get(case.key)
    if info is not None:
        row.notes.append(
            f"under --prob-stop=sequential it also runs until {info.label}[{info.axis}] is "
            "settled (see the comparisons below)"
        )
    regression: Any = config.pluginmanager.get_plugin(REGRESSION)
    if (
        getattr(regression, "baseline", None) is not None
        and getattr(regression, "margin", None) is not None
        and regression.old_case(case) is not None
    ):
        row.notes.append(
            "under --prob-stop=sequential it also runs until its --prob-margin comparison "
            "with the baseline is settled"
        )
