"""Sequential comparisons while the session runs: the run order and the stopper's readers.

Registered as ``probability.comparisons.sequential`` under ``--prob-stop=sequential``, in
every process. At the end of collection it lays out each monitored function (axis or
``--prob-margin`` against a baseline report) and interleaves its runs run-major, in the
places the function's runs already have (so ``--prob-transpose`` keeps its spread); before
a run, its readers tell the stopper whether each comparison reading a case is settled, from
the runs this process made, on looks kept up to date as runs are reported (:mod:`.track`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_probability.api import (
    BenchRun,
    Case,
    StopReader,
    add_function_units,
    function_key,
    results_of,
    verdicts_after_runs,
)

from ..baseline.regression import regression_of
from ..session import setting, state_of
from .outcome import (
    WHAT,
    baseline_runs,
    design,
    design_level,
    family_size,
    monitored,
    resolution,
)
from .rule import settle
from .track import Fixed, Judged, RunningLook, Side

PLUGIN_NAME = "probability.comparisons.sequential"


@dataclass
class Layout:
    """A monitored function's selected cases: input key → arm → (case key, planned runs)."""

    label: str
    axis: str
    baseline: str
    margin: float | None
    equivalence: bool
    level: float
    inputs: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)


@dataclass
class BaselineLayout:
    """A function monitored against the baseline report: each selected case that pairs
    with a baseline case → (planned runs, the baseline's runs in their drawn order)."""

    label: str
    margin: float
    level: float
    cases: dict[str, tuple[int, tuple[int, ...]]] = field(default_factory=dict)


@dataclass(eq=False)
class Watched:
    """One monitored comparison as the readers keep it: its look, its cases that ran none
    of their runs here yet, its (margin, equivalence), and its last answer with the look's
    version then."""

    look: RunningLook
    unseen: set[str]
    rule: tuple[float | None, bool]
    answered: tuple[int, int, int] | None = None
    answer: str | None = None


@dataclass(eq=False)  # registered as a plugin: pluggy needs it hashable
class SequentialComparisons:
    config: pytest.Config
    layouts: dict[str, Layout] = field(default_factory=dict)
    #: function key → its cases monitored against the baseline report
    baselines: dict[str, BaselineLayout] = field(default_factory=dict)
    _ranks: dict[tuple[str, bool], dict[str, int]] = field(default_factory=dict)
    #: under pytest-xdist: the controller reads the monitored functions from the collection
    units: UnitsFromOrder = field(init=False)
    #: whether collection finished (the layouts are known)
    laid_out: bool = False
    #: (function, arm or ``None`` for the baseline report) → its comparison as the readers
    #: keep it; each watched case's judged runs, and the looks it is a side of (with the
    #: input's index); a run item's node id → its case key; the cases whose records may
    #: have changed since the looks last read them
    _watched: dict[tuple[str, str | None], Watched] = field(default_factory=dict)
    _judged: dict[str, Judged] = field(default_factory=dict)
    _sides_of: dict[str, list[tuple[Watched, int]]] = field(default_factory=dict)
    _keys: dict[str, str] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.units = UnitsFromOrder(self.config)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Keep a worker's collection, whose order names the monitored functions. Called
        by pytest-xdist on the controller once per worker, before scheduling."""
        self.units.seen(ids)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Lay out the monitored functions and interleave their runs (``session.items`` in
        place). Called once after collection in collecting processes, before the kernel places
        verdict items and before pytest-xdist sends the collection to the controller."""
        state = state_of(self.config)
        self.laid_out = True
        cases = {item.case.key: item.case for item in session.items if isinstance(item, BenchRun)}
        family = family_size(state.arms[key] for key in cases if key in state.arms)
        for key, case in cases.items():
            info = state.arms.get(key)
            if info is None or not monitored(self.config, case.mark):
                continue
            layout = self.layouts.get(info.function)
            if layout is None:
                margin = case.mark.get("margin")
                level = setting(self.config, "confidence", case.mark)
                layout = self.layouts[info.function] = Layout(
                    info.label,
                    info.axis,
                    info.baseline,
                    margin,
                    bool(case.mark.get("equivalence", False)),
                    design_level(self.config, level, margin, family),
                )
            layout.inputs.setdefault(info.input_key, {})[info.arm] = (key, case.runs)
        self._lay_out_baselines(list(cases.values()))
        if self.layouts or self.baselines:
            session.items[:] = verdicts_after_runs(interleaved(session.items, self))
            self._watch(session)

    def _lay_out_baselines(self, cases: list[Case]) -> None:
        """The functions a ``--prob-margin`` judges on its sequence: their selected cases
        that pair with a case of the baseline report."""
        regression = regression_of(self.config)
        if regression is None or not regression.gates:
            return
        seed = setting(self.config, "seed")
        used: set[str] = set()
        for case in cases:
            if not regression.monitors(case.mark):
                continue
            old = regression.old_case(case)
            if old is None or old.key in used:
                continue
            used.add(old.key)
            layout = self.baselines.get(function_key(case))
            if layout is None:
                level = setting(self.config, "confidence", case.mark)
                layout = BaselineLayout(case.label, regression.margin, level)
                self.baselines[function_key(case)] = layout
            runs = baseline_runs(old.key, old.passes, old.total, seed)
            layout.cases[case.key] = (case.runs, runs)

    def monitors(self, function: str, mark: Any) -> bool:
        """Whether ``function`` is monitored: laid out at the end of collection, or before
        that (``--prob-plan`` plans cases while collecting) compared with the ``paired`` test."""
        return function in self.layouts if self.laid_out else monitored(self.config, mark)

    def unit_of(self, case: Case) -> str | None:
        info = state_of(self.config).arms.get(case.key)
        if info is not None and info.function in self.layouts:
            return info.function
        function = function_key(case)
        return function if function in self.baselines else None

    def run_order(self, item: Any) -> tuple[int, int, int, int]:
        """Run-major, then the input (baseline arm first, then the arms in axis order)."""
        info = state_of(self.config).arms.get(item.case.key)
        if info is not None and info.function in self.layouts:
            layout = self.layouts[info.function]
            rank = self._rank((info.function, True), layout.inputs).get(info.input_key, 0)
            return item.run, rank, info.arm != layout.baseline, info.arm_index
        function = function_key(item.case)
        cases = self.baselines[function].cases
        return item.run, self._rank((function, False), cases).get(item.case.key, len(cases)), 0, 0

    def _rank(self, function: tuple[str, bool], keys: Any) -> dict[str, int]:
        """Each key's place in sorted order (the readers' order), worked out once."""
        found = self._ranks.get(function)
        if found is None:
            found = self._ranks[function] = {key: n for n, key in enumerate(sorted(keys))}
        return found

    def _watch(self, session: pytest.Session) -> None:
        """One look per monitored comparison, over its paired inputs in input-key order (the
        report's order), and which run items feed which case."""
        for function, layout in self.layouts.items():
            arms = {arm for sides in layout.inputs.values() for arm in sides}
            for arm in sorted(arms - {layout.baseline}):
                paired = [
                    (sides[arm], sides[layout.baseline])
                    for _, sides in sorted(layout.inputs.items())
                    if arm in sides and layout.baseline in sides
                ]
                rule = (layout.margin, layout.equivalence)
                self._watch_one((function, arm), paired, layout.level, rule)
        for function, baseline in self.baselines.items():
            paired = [
                ((key, planned), Fixed(runs))
                for key, (planned, runs) in sorted(baseline.cases.items())
            ]
            self._watch_one((function, None), paired, baseline.level, (baseline.margin, False))
        for item in session.items:
            if isinstance(item, BenchRun) and item.case.key in self._judged:
                self._keys[item.nodeid] = item.case.key

    def _watch_one(
        self,
        name: tuple[str, str | None],
        paired: list[tuple[Any, Any]],
        level: float,
        rule: tuple[float | None, bool],
    ) -> None:
        """``paired`` holds each input's two sides, each a ``(case key, planned runs)`` or a
        :class:`~.track.Fixed`."""
        if not paired:
            return  # (no paired input: its reading is never known)
        inputs, feeds = [], []
        for index, found in enumerate(paired):
            sides = []
            for side in found:
                if isinstance(side, Fixed):
                    sides.append(Side(side, len(side.runs)))
                    continue
                key, planned = side
                sides.append(Side(self._judged.setdefault(key, Judged()), planned))
                feeds.append((key, index))
            inputs.append((sides[0], sides[1]))
        look = RunningLook(inputs, level, design(self.config))
        watched = Watched(look, {key for key, _ in feeds}, rule)
        self._watched[name] = watched
        for key, index in feeds:
            self._sides_of.setdefault(key, []).append((watched, index))

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note that a monitored case's records may have changed (the looks read them when a
        reader next asks). Called for every report in every process."""
        key = self._keys.get(report.nodeid)
        if key is not None:
            self._dirty.add(key)

    def _catch_up(self) -> None:
        if not self._dirty:
            return
        results = results_of(self.config)
        for key in self._dirty:
            result = results.get(key)
            if result is None:
                continue
            first = self._judged[key].update(result.records)
            for watched, index in self._sides_of[key]:
                watched.unseen.discard(key)
                watched.look.changed(index, first)
        self._dirty.clear()

    def reading(self, name: tuple[str, str | None]) -> tuple[bool, str | None]:
        """``(known, reading)`` of ``(function, arm)``'s comparison, or of ``(function, None)``
        (its ``--prob-margin`` one): ``known`` is false while some of its cases ran none of their
        runs here (they may be running elsewhere); the reading is :func:`~.rule.settle`'s,
        worked out again only when the look changed."""
        self._catch_up()
        watched = self._watched.get(name)
        if watched is None or watched.unseen:
            return False, None
        version = watched.look.version
        if watched.answered != version:
            margin, equivalence = watched.rule
            look = watched.look.look()
            watched.answer = settle(look, margin, equivalence, resolution(self.config))
            watched.answered = version
        return True, watched.answer

    def _reader(self, what: str, name: tuple[str, str | None]) -> StopReader:
        def settled(context: Any) -> bool:
            known, answer = self.reading(name)
            return known and answer is not None

        return StopReader(what, settled)

    def baseline_readers(self, case: Case) -> list[StopReader]:
        """Its function's monitored ``--prob-margin`` comparison, when the case pairs with a
        baseline case."""
        function = function_key(case)
        layout = self.baselines.get(function)
        if layout is None or case.key not in layout.cases:
            return []
        return [self._reader(WHAT.format(label=layout.label), (function, None))]

    def arm_readers(self, case: Case) -> list[StopReader]:
        """Its arm's comparison with the baseline arm, or every arm's its input has for a
        baseline-arm case (none when its input is not paired)."""
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
        return [
            self._reader(
                f"the comparison {layout.label}[{layout.axis}] {arm} − {layout.baseline}",
                (info.function, arm),
            )
            for arm in read
        ]


def interleaved(items: list[pytest.Item], plugin: SequentialComparisons) -> list[pytest.Item]:
    """``items`` with each monitored function's runs in run-major order inside the places
    its runs had: run 1 of each input's arms (baseline first), then run 2, … — so that pairs,
    and rounds of pairs, complete one after another."""
    slots: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        if isinstance(item, BenchRun):
            function = plugin.unit_of(item.case)
            if function is not None:
                slots.setdefault(function, []).append(index)
    if not slots:
        return items
    arranged = list(items)
    for places in slots.values():
        runs = sorted((items[i] for i in places), key=plugin.run_order)
        for place, item in zip(places, runs, strict=True):
            arranged[place] = item
    return arranged


def plugin_of(config: pytest.Config) -> SequentialComparisons | None:
    found = config.pluginmanager.get_plugin(PLUGIN_NAME)
    return found if isinstance(found, SequentialComparisons) else None


#: a run's node id suffix (and pytest-xdist's ``@group`` suffix after it, on pytest 7.4)
_RUN = re.compile(r"\[run\d+\](@[^\]]*)?$")


def interleaved_functions(collection: Iterable[str]) -> list[str]:
    """The functions (``bench_x.py::bench_f``) whose runs of several cases are interleaved
    in ``collection`` (node ids in a worker's collection order): the ones a worker laid out
    run-major because it monitors them (:func:`interleaved`), where every other function's
    runs come case by case. Pure."""
    order: dict[str, list[str]] = {}
    for nodeid in collection:
        found = _RUN.search(nodeid)
        if found is None:
            continue
        case = nodeid[: found.start()]
        parts = case.split("::")
        if len(parts) < 3:
            continue  # (an unparametrized function has one case)
        cases = order.setdefault("::".join(parts[:2]), [])
        if not cases or cases[-1] != case:
            cases.append(case)
    return [function for function, cases in order.items() if len(cases) != len(set(cases))]


class UnitsFromOrder:
    """Keeping a monitored function on one pytest-xdist worker without a verdict item.

    A function with a ``[compare:ARM]`` or ``[baseline]`` item already is one unit of work
    (the kernel's scheduler groups it); a comparison without a margin has no item, and the
    controller, which never collects, cannot read marks. But each worker lays a monitored
    function's runs out run-major before it sends its collection, so the controller reads
    the monitored functions from the order of the node ids it receives
    (``pytest_xdist_node_collection_finished``) and hands them to its scheduler
    (:func:`pytest_probability.api.add_function_units`). Nothing but the collection
    travels, so workers on other machines are grouped alike."""

    def __init__(self, config: Any) -> None:
        self.collection: list[str] = []
        xdist = getattr(config.option, "numprocesses", None) or getattr(config.option, "tx", None)
        if xdist and not hasattr(config, "workerinput"):
            add_function_units(config, lambda: interleaved_functions(self.collection))

    def seen(self, ids: Iterable[str]) -> None:
        """A worker's collection (every worker collects the same)."""
        if not self.collection:
            self.collection = list(ids)
