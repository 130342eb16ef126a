"""Curtailment: is a gate's verdict already settled, whatever the remaining runs do?

A gate whose verdict depends only on the pass count ``P`` of ``N`` judged runs, monotonely in
``P``, is settled after ``p`` passes in ``n`` judged runs with ``r`` runs left when every
completion gives the same verdict. A remaining run may pass (``P+1, N+1``), fail
(``N+1``), or not be judged at all (a skip, an excluded error: ``N`` unchanged), so the
completions are ``N`` in ``[n, n+r]`` with ``P`` in ``[p, p + N − n]``. Because the verdict is
monotone in ``P``, it is enough to compare, for each ``N``, the fewest passes that PASS and
the most passes that FAIL. The verdict on the runs actually made is one of those
completions, so judging a stopped case on its runs gives the settled verdict. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_probability.api import FAIL, PASS, UNDECIDED

VerdictAt = Callable[[int, int], str]
#: (largest pass_min, smallest pass_min − n, largest fail_max, smallest fail_max − n)
Span = tuple[int, int, int, int]


class Thresholds:
    """The pass-count thresholds of one monotone verdict, per number of judged runs
    (computed by bisection and remembered)."""

    def __init__(self, verdict_at: VerdictAt) -> None:
        self._verdicts: dict[tuple[int, int], str] = {}
        self._verdict_of = verdict_at
        self._pass_min: dict[int, int] = {}
        self._fail_max: dict[int, int] = {}
        #: last judged-run count → its suffix aggregates, index ``n - low`` (see :meth:`span`)
        self._suffixes: dict[int, tuple[int, list[Span]]] = {}

    def _verdict_at(self, passes: int, n: int) -> str:
        key = (passes, n)
        found = self._verdicts.get(key)
        if found is None:
            found = self._verdicts[key] = self._verdict_of(passes, n)
        return found

    def verdict(self, passes: int, n: int) -> str:
        """The verdict on ``passes`` of ``n`` judged runs (remembered)."""
        return self._verdict_at(passes, n)

    def at(self, passes: int, n: int) -> str:
        """The verdict on ``passes`` of ``n`` read off the thresholds: the same as
        :meth:`verdict` for a verdict monotone in ``passes`` (what ``verdict_at`` promises),
        without a new verdict per pass count."""
        if passes >= self.pass_min(n):
            return PASS
        if passes <= self.fail_max(n):
            return FAIL
        return UNDECIDED

    def pass_min(self, n: int) -> int:
        """The fewest passes of ``n`` that PASS (``n + 1`` when none does)."""
        found = self._pass_min.get(n)
        if found is None:
            low, high = -1, n + 1  # verdict(low) is not PASS, verdict(high) is (sentinels)
            if self._verdict_at(n, n) != PASS:
                found = n + 1
            else:
                high = n
                while high - low > 1:
                    middle = (low + high) // 2
                    if self._verdict_at(middle, n) == PASS:
                        high = middle
                    else:
                        low = middle
                found = high
            self._pass_min[n] = found
        return found

    def pass_min_near(self, n: int, guess: int) -> int:
        """:meth:`pass_min` found by galloping out from ``guess`` (a neighbour's threshold):
        a handful of verdicts instead of a full bisection when ``n`` changes by one."""
        found = self._pass_min.get(n)
        if found is not None:
            return found
        guess = min(max(guess, 0), n)

        def passing(p: int) -> bool:
            return p <= n and self._verdict_at(p, n) == PASS

        if passing(guess):  # go down until the verdict is no longer PASS
            step, high = 1, guess
            while high - step >= 0 and passing(high - step):
                high -= step
                step *= 2
            low = max(high - step, -1)
        else:  # go up until it is PASS (or past n: none passes)
            step, low = 1, guess
            while low + step <= n and not passing(low + step):
                low += step
                step *= 2
            high = min(low + step, n + 1)
            if high == n + 1 and not passing(n):
                self._pass_min[n] = n + 1
                return n + 1
        while high - low > 1:  # passing(high), not passing(low)
            middle = (low + high) // 2
            if passing(middle):
                high = middle
            else:
                low = middle
        self._pass_min[n] = high
        return high

    def fail_max_near(self, n: int, guess: int) -> int:
        """:meth:`fail_max` found by galloping out from ``guess`` (a neighbour's
        threshold), like :meth:`pass_min_near`."""
        found = self._fail_max.get(n)
        if found is not None:
            return found

        def failing(p: int) -> bool:
            return p >= 0 and self._verdict_at(p, n) == FAIL

        guess = min(max(guess, 0), n)
        if failing(guess):  # go up until the verdict is no longer FAIL
            step, low = 1, guess
            while low + step <= n and failing(low + step):
                low += step
                step *= 2
            high = min(low + step, n + 1)
        else:  # go down until it is FAIL (or past 0: none fails)
            step, high = 1, guess
            while high - step >= 0 and not failing(high - step):
                high -= step
                step *= 2
            low = max(high - step, -1)
            if low == -1 and not failing(0):
                self._fail_max[n] = -1
                return -1
        while high - low > 1:  # failing(low), not failing(high)
            middle = (low + high) // 2
            if failing(middle):
                low = middle
            else:
                high = middle
        self._fail_max[n] = low
        return low

    def span(self, low: int, high: int) -> Span:
        """What every judged-run count from ``low`` to ``high`` (inclusive) allows, as four
        numbers: the largest :meth:`pass_min`, the smallest ``pass_min(n) − n``, the
        largest :meth:`fail_max` and the smallest ``fail_max(n) − n``.

        The aggregates over ``[n, high]`` are kept for every ``n`` down to the lowest asked,
        so after the first question about ``high`` each is a lookup: a stopping rule asks
        with the same ``high`` (the runs planned) before every run, and ``--prob-plan``'s
        dynamic programme once per state. The thresholds are found from their neighbours'
        (:meth:`pass_min_near`), from ``high`` down.
        """
        if low > high:
            raise ValueError(f"an empty span of judged runs: {low}..{high}")
        start, kept = self._suffixes.get(high, (high + 1, []))
        if start > low:
            fresh: list[Span] = []
            below = kept[0] if kept else None
            for n in range(start - 1, low - 1, -1):
                passing = self._near(self._pass_min, self.pass_min, self.pass_min_near, n)
                failing = self._near(self._fail_max, self.fail_max, self.fail_max_near, n)
                point = (passing, passing - n, failing, failing - n)
                below = point if below is None else _joined(point, below)
                fresh.append(below)
            fresh.reverse()
            start, kept = low, fresh + kept
            self._suffixes[high] = (start, kept)
        return kept[low - start]

    @staticmethod
    def _near(
        known: dict[int, int],
        scratch: Callable[[int], int],
        near: Callable[[int, int], int],
        n: int,
    ) -> int:
        """A threshold at ``n`` from those at ``n + 1`` and ``n + 2``: the next step is
        guessed to be the last one (a rate gate's thresholds move by about the bar per run),
        so the gallop usually needs two verdicts."""
        above = known.get(n + 1)
        if above is None:
            return scratch(n)
        further = known.get(n + 2)
        return near(n, above if further is None else 2 * above - further)

    def fail_max(self, n: int) -> int:
        """The most passes of ``n`` that FAIL (``-1`` when none does)."""
        found = self._fail_max.get(n)
        if found is None:
            if self._verdict_at(0, n) != FAIL:
                found = -1
            else:
                low, high = 0, n + 1  # verdict(low) is FAIL, verdict(high) is not (sentinel)
                while high - low > 1:
                    middle = (low + high) // 2
                    if self._verdict_at(middle, n) == FAIL:
                        low = middle
                    else:
                        high = middle
                found = low
            self._fail_max[n] = found
        return found


def _joined(one: Span, other: Span) -> Span:
    """The aggregates of two spans side by side."""
    return (
        max(one[0], other[0]),
        min(one[1], other[1]),
        max(one[2], other[2]),
        min(one[3], other[3]),
    )


@dataclass(frozen=True)
class GateState:
    """What the completions of a case allow one gate: the verdict they all give
    (``settled``, ``None`` while it can still change), and whether some completion passes
    (``can_pass``) or fails (``can_fail``) it."""

    settled: str | None
    can_pass: bool
    can_fail: bool


#: a gate already PASS for good (a sequential rate gate that passes on its sequence now)
SETTLED_PASS = GateState(PASS, True, False)


def gate_state(thresholds: Thresholds, passes: int, judged: int, remaining: int) -> GateState:
    """One gate's :class:`GateState` after ``passes`` of ``judged`` with ``remaining`` runs
    left.

    A completion ends with ``N`` judged runs, ``judged ≤ N ≤ judged + remaining``, and
    between ``passes`` and ``passes + N − judged`` passes. PASS is settled when even the
    fewest passes pass at every ``N``: ``passes ≥ pass_min(N)``; FAIL when even the most
    fail: ``passes + N − judged ≤ fail_max(N)``. Some completion passes when the most passes
    reach ``pass_min(N)`` at some ``N``, and some fails when the fewest are at most
    ``fail_max(N)`` at some ``N``; UNDECIDED is settled when neither can happen. Each is one
    comparison with :meth:`Thresholds.span`.
    """
    most_needed, needed_gap, most_failing, failing_gap = thresholds.span(judged, judged + remaining)
    can_pass = passes - judged >= needed_gap
    can_fail = passes <= most_failing
    if passes >= most_needed:
        return GateState(PASS, True, can_fail)
    if passes - judged <= failing_gap:
        return GateState(FAIL, can_pass, True)
    if not can_pass and not can_fail:
        return GateState(UNDECIDED, False, False)
    return GateState(None, can_pass, can_fail)


def combined(states: Sequence[GateState]) -> str | None:
    """The case's verdict, the worst of its gates' (docs/gates.rst), once it is certain:
    FAIL as soon as one gate is certainly FAIL, whatever the others do; PASS when every gate
    is certainly PASS; UNDECIDED once no gate can still FAIL and one can no longer PASS.
    ``None`` while it can still change. (A gate whose verdict does not follow the pass
    count, a latency gate, is not among the states: the stopper holds a case for it unless
    the verdict is FAIL, :func:`~.service.holding_readers`.)
    """
    if any(state.settled == FAIL for state in states):
        return FAIL
    if all(state.settled == PASS for state in states):
        return PASS
    if not any(state.can_fail for state in states) and not all(s.can_pass for s in states):
        return UNDECIDED
    return None


def settled(thresholds: Thresholds, passes: int, judged: int, remaining: int) -> str | None:
    """The verdict every completion gives one gate, or ``None`` while it can still change
    (:func:`gate_state`)."""
    return gate_state(thresholds, passes, judged, remaining).settled


def curtail(gates: Sequence[Thresholds], passes: int, judged: int, remaining: int) -> str | None:
    """The case's verdict once certain (:func:`combined` of each gate's
    :func:`gate_state`); ``None`` otherwise."""
    return combined([gate_state(thresholds, passes, judged, remaining) for thresholds in gates])
