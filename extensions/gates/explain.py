"""The "about N runs would settle it" search of ``--prob-explain``'s gate readings.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from .rate import first_true

#: the most runs the "would settle it" search considers
MAX_SETTLE = 1_000_000
#: the most run counts below the bisection's answer checked one by one: verdicts at a fixed
#: rate are not monotone in n (the passes are rounded to whole runs), so the first settling
#: count can lie below the point the bisection lands on, by about 2 / |rate - bar| counts
MAX_WINDOW = 1024


def runs_to_settle(kind: Any, spec: Any, passes: int, n: int, config: pytest.Config) -> int | None:
    """About how many runs would decide an UNDECIDED gate if the case kept passing at its
    observed rate (``None`` when no number of runs up to :data:`MAX_SETTLE` would, e.g. a
    rate on the bar).

    Doubling from ``n`` finds a settling count, bisection a count where the verdict turns,
    and the counts below it where rounding can still settle the gate (about
    ``2 / |rate - bar|``, at most :data:`MAX_WINDOW`) are checked one by one for an earlier
    one: about ``2 log2(answer / n)`` verdicts plus that window, never a scan of every count.
    """
    if kind.verdict_at is None or n == 0:
        return None
    rate = passes / n

    def decided(m: int) -> bool:
        return kind.verdict_at(spec, round(rate * m), m, config) != "undecided"

    high = first_true(decided, max(n, 1), MAX_SETTLE)
    if high is None:
        return None
    gap = abs(rate - bar) if (bar := getattr(spec, "min_rate", None)) is not None else 0.0
    window = MAX_WINDOW if gap == 0 else min(MAX_WINDOW, math.ceil(2 / gap) + 16)
    return next((m for m in range(max(n, high - window), high) if decided(m)), high)
