"""Sequential comparisons while the session runs: the run order and the stopper's readers.

Registered as ``probability.comparisons.sequential`` under ``--prob-stop=sequential``, in
every process. At the end of collection it lays out each monitored function (its selected
inputs, their arms' cases and planned runs) and interleaves the function's runs pair by
pair, run-major inside the function, in the places the function's runs already have (so
``--prob-transpose`` keeps its spread); before a run, its readers tell the stopper whether
each comparison reading a case is settled, from the runs this process made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.cases import Case
from pytest_probability.collect import BenchRun
from pytest_probability.extensions.stopping.service import StopReader
from pytest_probability.kernel import kernel_of
from pytest_probability.ordering import verdicts_after_runs

from .seqrule import look_of, settle
from .sequential import monitored, paired_runs, resolution
from .session import setting, state_of

PLUGIN_NAME = "probability.comparisons.sequential"


@dataclass
class Layout:
    """One monitored function's selected cases: input key → arm → (case key, planned runs);
    its baseline arm, margin and level."""

    label: str
    axis: str
    baseline: str
    margin: float | None
    equivalence: bool
    level: float
    inputs: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)  # registered as a plugin: pluggy needs it hashable
class SequentialComparisons:
    """Run order and readers of the session's monitored comparisons."""

    config: pytest.Config
    layouts: dict[str, Layout] = field(default_factory=dict)
    #: whether collection finished (the layouts are known)
    laid_out: bool = False
    #: (function, arm) → (the runs made, its inputs' pair counts) and the reading then
    _readings: dict[tuple[str, str], tuple[tuple[int, ...], str | None]] = field(
        default_factory=dict
    )

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Lay out the monitored functions and interleave their runs. Called once after
        collection in collecting processes, before the kernel places verdict items and
        before pytest-xdist sends the collection to the controller; reorders
        ``session.items`` in place, returns nothing."""
        state = state_of(self.config)
        self.laid_out = True
        cases: dict[str, Case] = {}
        for item in session.items:
            if isinstance(item, BenchRun) and item.case.key in state.arms:
                cases.setdefault(item.case.key, item.case)
        for key, case in cases.items():
            info = state.arms[key]
            if not monitored(self.config, case.mark):
                continue
            layout = self.layouts.get(info.function)
            if layout is None:
                layout = self.layouts[info.function] = Layout(
                    info.label,
                    info.axis,
                    info.baseline,
                    case.mark.get("margin"),
                    bool(case.mark.get("equivalence", False)),
                    setting(self.config, "confidence", case.mark),
                )
            layout.inputs.setdefault(info.input_key, {})[info.arm] = (key, case.runs)
            layout.names.setdefault(info.input_key, info.input)
        if self.layouts:
            session.items[:] = verdicts_after_runs(interleaved(session.items, state.arms, self))

    def monitors(self, function: str, mark: Any) -> bool:
        """Whether ``function`` (whose cases have ``mark``) is monitored: laid out at the
        end of collection, or (before that: ``--prob-plan`` plans cases while collecting)
        compared with the ``paired`` test."""
        return function in self.layouts if self.laid_out else monitored(self.config, mark)

    def reading(self, function: str, arm: str) -> tuple[bool, str | None]:
        """``(known, reading)`` of one arm's comparison from the runs this process made:
        ``known`` is false when some of its cases ran none of their runs here yet (their
        runs may be running elsewhere); ``reading`` is :func:`~.seqrule.settle`'s."""
        layout = self.layouts[function]
        results = kernel_of(self.config).results
        sides_of, made = [], []
        for key in sorted(layout.inputs):
            sides = layout.inputs[key]
            if arm not in sides or layout.baseline not in sides:
                continue
            (arm_key, arm_runs), (base_key, base_runs) = sides[arm], sides[layout.baseline]
            here, there = results.get(arm_key), results.get(base_key)
            if here is None or there is None:
                return False, None
            made += [len(here.records), here.passes, len(there.records), there.passes]
            sides_of.append((key, here, there, arm_runs, base_runs))
        if not sides_of:
            return False, None
        signature = tuple(made)
        cached = self._readings.get((function, arm))
        if cached is not None and cached[0] == signature:
            return True, cached[1]
        found = [
            paired_runs(layout.names[key], here.records, there.records, arm_runs, base_runs)
            for key, here, there, arm_runs, base_runs in sides_of
        ]
        look = look_of(found, layout.level)
        answer = settle(look, layout.margin, layout.equivalence, resolution(self.config))
        self._readings[(function, arm)] = (signature, answer)
        return True, answer

    def readers(self, case: Case) -> list[StopReader]:
        """The comparisons reading ``case``: its arm's against the baseline, or every arm's
        its input has for a baseline case (none for a case of a function not monitored, or
        whose input has no other side selected)."""
        info = state_of(self.config).arms.get(case.key)
        if info is None:
            return []
        layout = self.layouts.get(info.function)
        if layout is None:  # (--prob-plan plans the comparison itself: service.py)
            return []
        # only a paired input's cases enter a comparison: its arm's, or every arm's it has
        sides = layout.inputs.get(info.input_key, {})
        if layout.baseline not in sides:
            return []
        read = sorted(set(sides) - {layout.baseline}) if info.arm == layout.baseline else [info.arm]
        found = []
        for arm in read:
            name = f"the comparison {layout.label}[{layout.axis}] {arm} − {layout.baseline}"

            def settled(context: Any, _function: str = info.function, _arm: str = arm) -> bool:
                known, answer = self.reading(_function, _arm)
                return known and answer is not None

            found.append(StopReader(name, settled))
        return found


def interleaved(items: list[pytest.Item], arms: dict[str, Any], plugin: Any) -> list[pytest.Item]:
    """``items`` with each monitored function's runs put, in the places its runs had,
    in run-major order inside the function: run 1 of each input's arms (baseline first),
    then run 2, … — so that pairs, and rounds of pairs, complete one after another."""
    slots: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        if isinstance(item, BenchRun):
            info = arms.get(item.case.key)
            if info is not None and info.function in plugin.layouts:
                slots.setdefault(info.function, []).append(index)
    if not slots:
        return items
    arranged = list(items)
    for function, places in slots.items():
        layout = plugin.layouts[function]
        order = {key: rank for rank, key in enumerate(sorted(layout.inputs))}

        def key_of(
            item: Any, _order: dict[str, int] = order, _base: str = layout.baseline
        ) -> tuple[int, int, int, int]:
            info = arms[item.case.key]
            first = info.arm != _base
            return item.run, _order.get(info.input_key, len(_order)), first, info.arm_index

        runs = sorted((items[i] for i in places), key=key_of)
        for place, item in zip(places, runs, strict=True):
            arranged[place] = item
    return arranged


def plugin_of(config: pytest.Config) -> SequentialComparisons | None:
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    return found if isinstance(found, SequentialComparisons) else None


def configure(config: pytest.Config) -> None:
    """Register the plugin under ``--prob-stop=sequential`` (in every process)."""
    from .sequential import sequential_mode

    if sequential_mode(config) and plugin_of(config) is None:
        config.pluginmanager.register(SequentialComparisons(config), PLUGIN_NAME)
