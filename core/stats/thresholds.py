"""The pass-count thresholds of a monotone verdict (:class:`Thresholds`), and how the verdicts
of a case's gates combine (:func:`worst_verdict`). Pure module: never imports pytest.

A verdict that depends only on the pass count of ``N`` judged runs, monotonely (a gate kind
with ``verdict_at``), is known at every ``N`` by two numbers: the fewest passes that PASS
and the most that FAIL. The stopping rules and ``--prob-plan`` decide on them.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..contracts.outcomes import FAIL, PASS, UNDECIDED

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

    def verdict(self, passes: int, n: int) -> str:
        """The verdict on ``passes`` of ``n`` judged runs (remembered)."""
        found = self._verdicts.get((passes, n))
        if found is None:
            found = self._verdicts[passes, n] = self._verdict_of(passes, n)
        return found

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
        return self._edge(n, None, PASS)

    def fail_max(self, n: int) -> int:
        """The most passes of ``n`` that FAIL (``-1`` when none does)."""
        return self._edge(n, None, FAIL)

    def pass_min_near(self, n: int, guess: int) -> int:
        """:meth:`pass_min` found by galloping out from ``guess`` (a neighbour's threshold):
        a handful of verdicts instead of a full bisection when ``n`` changes by one."""
        return self._edge(n, guess, PASS)

    def fail_max_near(self, n: int, guess: int) -> int:
        """:meth:`fail_max` found like :meth:`pass_min_near`."""
        return self._edge(n, guess, FAIL)

    def _edge(self, n: int, guess: int | None, verdict: str) -> int:
        """:meth:`pass_min` (``verdict`` PASS) or :meth:`fail_max` (FAIL) at ``n``, searched
        over ``q`` = the passes (PASS) or ``n`` − the passes (FAIL), in which the verdict
        holds from some ``q`` up (:func:`_first`)."""
        known = self._pass_min if verdict == PASS else self._fail_max
        found = known.get(n)
        if found is None:

            def passes(q: int) -> int:
                return q if verdict == PASS else n - q

            def holds(q: int) -> bool:
                return 0 <= q <= n and self.verdict(passes(q), n) == verdict

            start = None if guess is None else passes(min(max(guess, 0), n))
            found = known[n] = passes(_first(holds, n, start))
        return found

    def span(self, low: int, high: int) -> Span:
        """What every judged-run count from ``low`` to ``high`` (inclusive) allows, as four
        numbers: the largest :meth:`pass_min`, the smallest ``pass_min(n) − n``, the
        largest :meth:`fail_max` and the smallest ``fail_max(n) − n``.

        The aggregates over ``[n, high]`` are kept for every ``n`` down to the lowest asked
        (found from ``high`` down, each threshold from its neighbours'), so a stopping rule
        asking before every run and ``--prob-plan`` asking once per state mostly look up.
        """
        if low > high:
            raise ValueError(f"an empty span of judged runs: {low}..{high}")
        start, kept = self._suffixes.get(high, (high + 1, []))
        if start > low:
            fresh: list[Span] = []
            below = kept[0] if kept else None
            for n in range(start - 1, low - 1, -1):
                passing = self._edge(n, _guess(self._pass_min, n), PASS)
                failing = self._edge(n, _guess(self._fail_max, n), FAIL)
                point = (passing, passing - n, failing, failing - n)
                below = point if below is None else _joined(point, below)
                fresh.append(below)
            fresh.reverse()
            start, kept = low, fresh + kept
            self._suffixes[high] = (start, kept)
        return kept[low - start]


def _first(holds: Callable[[int], bool], n: int, guess: int | None) -> int:
    """The smallest ``q`` of ``0..n`` for which ``holds`` (``n + 1`` when none), where it
    holds from some ``q`` up: by bisection, after galloping out from ``guess`` when given."""
    if guess is None:
        if not holds(n):
            return n + 1
        low, high = -1, n
    elif holds(guess):  # go down until it no longer holds
        step, high = 1, guess
        while high - step >= 0 and holds(high - step):
            high -= step
            step *= 2
        low = max(high - step, -1)
    else:  # go up until it holds (or past n: it never does)
        step, low = 1, guess
        while low + step <= n and not holds(low + step):
            low += step
            step *= 2
        high = min(low + step, n + 1)
        if high == n + 1 and not holds(n):
            return n + 1
    while high - low > 1:  # holds(high), not holds(low)
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def _guess(known: dict[int, int], n: int) -> int | None:
    """A threshold at ``n`` guessed from those at ``n + 1`` and ``n + 2``: the next step is
    guessed to be the last one (a rate gate's thresholds move by about the bar per run), so
    the gallop usually needs two verdicts; ``None`` (bisect) without a neighbour."""
    above = known.get(n + 1)
    if above is None:
        return None
    further = known.get(n + 2)
    return above if further is None else 2 * above - further


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
    return next((worst for worst in (FAIL, UNDECIDED) if worst in verdicts), PASS)
