"""A monitored comparison's look kept up to date run by run, for the stopper's readers.

The readers (:mod:`.runtime`) ask before every run of a monitored case whether its
comparison is settled; building the look afresh each time (:func:`.rule.look_of`) would
be quadratic in the session. So each case's judged outcomes are kept as its records arrive
(:class:`Judged`), and each comparison's look grows from them (:class:`RunningLook`): a run
costs a few dictionary reads and a completed round the inputs once. A record that changes
an outcome already read (a rerun, a teardown that fails after its call passed, runs
arriving out of run order) makes the look rebuild from the start, so the look always
equals :func:`.rule.look_of` on the same runs. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_probability.api import PASS, SKIP

from ..statistics.bernstein import RoundSequence
from .rule import HORIZON, HorizonLook, Look, MixtureLook, RoundsLook, outcomes


@dataclass
class Judged:
    """One case's judged outcomes in run order (1 pass, 0 fail or error)."""

    runs: list[int] = field(default_factory=list)
    #: the records read so far, and the highest run among them
    seen: int = 0
    last: int = 0

    def update(self, records: Mapping[int, Mapping[str, Any]]) -> int:
        """Read the case's records again; return the first index of :attr:`runs` that may
        differ from before. One new record for a later run is appended; anything else (a
        replaced or altered record, a run before one already read) rereads them all."""
        before = len(self.runs)
        if len(records) == self.seen + 1:
            run = next(reversed(records))  # (records are kept in arrival order)
            if run > self.last:
                self.seen, self.last = self.seen + 1, run
                outcome = records[run]["outcome"]
                if outcome != SKIP:
                    self.runs.append(int(outcome == PASS))
                return before
        fresh = list(outcomes(records))
        first = 0
        for old, new in zip(self.runs, fresh, strict=False):
            if old != new:
                break
            first += 1
        self.runs, self.seen, self.last = fresh, len(records), max(records, default=0)
        return first


@dataclass(frozen=True)
class Fixed:
    """A side whose runs are all known (the baseline report's runs in their drawn order)."""

    runs: tuple[int, ...]


@dataclass(frozen=True)
class Side:
    """One side of a paired input: where its runs come from and how many are planned."""

    source: Judged | Fixed
    planned: int

    @property
    def most(self) -> int:
        return max(len(self.source.runs), self.planned)


class RunningLook:
    """The look of one comparison over its paired inputs, equal at every moment to
    :func:`.rule.look_of` on the inputs' current pairs: call :meth:`changed` when an input's
    side changed, then :meth:`look`; :attr:`version` changes whenever the look does."""

    def __init__(
        self, inputs: Sequence[tuple[Side, Side]], level: float, design: str = HORIZON
    ) -> None:
        if not inputs:
            raise ValueError("a sequential comparison needs at least one paired input")
        self.inputs = list(inputs)
        self.level = level
        self.design = design
        #: several inputs under ``horizon``: the rounds added and both sides' passes in them
        self._made = self._arm_passes = self._base_passes = 0
        self._pairs = [0] * len(self.inputs)
        self._most = [0] * len(self.inputs)
        self._most_all = 0
        self._stale = True  # (build from the start at the next look)
        #: one input: the pairs summed so far and each side's passes among them
        self._n = self._xa = self._xb = 0
        #: several inputs: the sequence over the rounds added, and the inputs whose pairs
        #: do not reach past its rounds (the next round completes when there are none)
        self._sequence: RoundSequence | None = None
        self._short = 0
        self._rebuilds = 0

    def changed(self, index: int, first: int) -> None:
        """Input ``index`` has new runs, or runs from position ``first`` on changed."""
        arm, base = self.inputs[index]
        pairs = min(len(arm.source.runs), len(base.source.runs))
        most = min(arm.most, base.most)
        if most != self._most[index]:
            self._most[index] = most
            self._most_all = min(self._most)
        if self._stale:
            self._pairs[index] = pairs
            return
        used = self._n if len(self.inputs) == 1 else self._rounds
        if first < used:
            self._stale = True  # an outcome the look read changed: rebuild
        else:  # (the input reaches past the rounds made, or no longer does)
            self._short += (self._pairs[index] > used) - (pairs > used)
        self._pairs[index] = pairs

    @property
    def _rounds(self) -> int:
        if self.design == HORIZON:
            return self._made
        return self._sequence.rounds if self._sequence is not None else 0

    @property
    def version(self) -> tuple[int, int, int]:
        """Its pairs (or rounds), the most it can reach, and how often it was rebuilt."""
        self._catch_up()
        used = self._n if len(self.inputs) == 1 else self._rounds
        return used, self._most_all, self._rebuilds

    def look(self) -> Look:
        self._catch_up()
        if len(self.inputs) == 1:
            left = max(0, self._most_all - self._n)
            if self.design == HORIZON:
                return HorizonLook(self._xa, self._xb, self._n, 1, self._n, left, self.level)
            return MixtureLook(self._xa, self._xb, self._n, left, self.level)
        if self.design == HORIZON:
            count, made = len(self.inputs), self._made
            return HorizonLook(
                self._arm_passes,
                self._base_passes,
                made * count,
                count,
                made,
                max(0, self._most_all - made),
                self.level,
            )
        return RoundsLook(self._sequence, max(0, self._most_all - self._sequence.rounds))

    def _catch_up(self) -> None:
        if self._stale:
            self._start_over()
        if len(self.inputs) == 1:
            (arm, base), pairs = self.inputs[0], self._pairs[0]
            if pairs > self._n:
                self._xa += sum(arm.source.runs[self._n : pairs])
                self._xb += sum(base.source.runs[self._n : pairs])
                self._n = pairs
            return
        if self.design == HORIZON:
            while self._short == 0:
                k = self._made
                self._arm_passes += sum(a.source.runs[k] for a, _ in self.inputs)
                self._base_passes += sum(b.source.runs[k] for _, b in self.inputs)
                self._made += 1
                self._short = sum(1 for pairs in self._pairs if pairs <= k + 1)
            return
        sequence = self._sequence
        while self._short == 0:
            k = sequence.rounds
            sequence.add_round([a.source.runs[k] - b.source.runs[k] for a, b in self.inputs])
            self._short = sum(1 for pairs in self._pairs if pairs <= k + 1)

    def _start_over(self) -> None:
        self._stale = False
        self._rebuilds += 1
        for index, (arm, base) in enumerate(self.inputs):
            self._pairs[index] = min(len(arm.source.runs), len(base.source.runs))
            self._most[index] = min(arm.most, base.most)
        self._most_all = min(self._most)
        self._n = self._xa = self._xb = 0
        self._made = self._arm_passes = self._base_passes = 0
        if len(self.inputs) > 1 and self.design == HORIZON:
            self._short = sum(1 for pairs in self._pairs if pairs <= 0)
        elif len(self.inputs) > 1:
            self._sequence = RoundSequence(len(self.inputs), self.level)
            self._short = sum(1 for pairs in self._pairs if pairs <= 0)
