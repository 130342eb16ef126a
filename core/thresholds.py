"""The pass-count thresholds of a monotone verdict (:class:`Thresholds`), and how the verdicts
of a case's gates combine (:func:`worst_verdict`).

A verdict that depends only on the pass count ``P`` of ``N`` judged runs, monotonely in ``P``
(a rate gate, a count gate: a gate kind with ``verdict_at``), is known at every ``N`` by two
numbers: the fewest passes that PASS and the most that FAIL. The stopping rules decide on
them (:class:`~pytest_probability.api.StopContext` carries a case's gates as thresholds),
and ``--prob-plan`` follows the same thresholds. Published through
:mod:`pytest_probability.api`. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .outcomes import FAIL, PASS, UNDECIDED

__all__ = ["Span", "Thresholds", "VerdictAt", "worst_verdict"]

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


def worst_verdict(verdicts: Sequence[str]) -> str:
    """A case's verdict over its gates, the worst of theirs: any FAIL fails, else any
    UNDECIDED, else PASS (docs/gates.rst)."""
    if FAIL in verdicts:
        return FAIL
    if UNDECIDED in verdicts:
        return UNDECIDED
    return PASS
