"""Curtailment: is a gate's verdict already settled, whatever the remaining runs do?

A gate whose verdict depends only on the pass count ``P`` of ``N`` judged runs, monotonely in
``P``, is settled after ``p`` passes in ``n`` judged runs with ``r`` runs left when every
completion gives the same verdict. A remaining run may pass (``P+1, N+1``), fail
(``N+1``), or not be judged at all (a skip, an excluded error: ``N`` unchanged), so the
completions are ``N`` in ``[n, n+r]`` with ``P`` in ``[p, p + N − n]``. Because the verdict is
monotone in ``P``, it is enough to compare, for each ``N``, the fewest passes that PASS and
the most passes that FAIL. The verdict on the runs actually made is one of those
completions, so judging a stopped case on its runs gives the settled verdict. Pure module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"

VerdictAt = Callable[[int, int], str]


class Thresholds:
    """The pass-count thresholds of one monotone verdict, per number of judged runs
    (computed by bisection and remembered)."""

    def __init__(self, verdict_at: VerdictAt) -> None:
        self._verdicts: dict[tuple[int, int], str] = {}
        self._verdict_of = verdict_at
        self._pass_min: dict[int, int] = {}
        self._fail_max: dict[int, int] = {}

    def _verdict_at(self, passes: int, n: int) -> str:
        key = (passes, n)
        found = self._verdicts.get(key)
        if found is None:
            found = self._verdicts[key] = self._verdict_of(passes, n)
        return found

    def verdict(self, passes: int, n: int) -> str:
        """The verdict on ``passes`` of ``n`` judged runs (remembered)."""
        return self._verdict_at(passes, n)

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


def settled(thresholds: Thresholds, passes: int, judged: int, remaining: int) -> str | None:
    """The verdict every completion gives, or ``None`` while it can still change."""
    span = range(judged, judged + remaining + 1)
    if all(passes >= thresholds.pass_min(n) for n in span):
        return PASS
    if all(passes + (n - judged) <= thresholds.fail_max(n) for n in span):
        return FAIL
    if all(
        thresholds.fail_max(n) < passes and passes + (n - judged) < thresholds.pass_min(n)
        for n in span
    ):
        return UNDECIDED
    return None


def curtail(gates: Sequence[Thresholds], passes: int, judged: int, remaining: int) -> str | None:
    """The case's settled verdict when each of its gates is settled (any FAIL fails, else
    any UNDECIDED, else PASS); ``None`` otherwise."""
    verdicts = []
    for thresholds in gates:
        verdict = settled(thresholds, passes, judged, remaining)
        if verdict is None:
            return None
        verdicts.append(verdict)
    if FAIL in verdicts:
        return FAIL
    if UNDECIDED in verdicts:
        return UNDECIDED
    return PASS
