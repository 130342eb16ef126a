"""Fixed-run budgets: the chance a gate passes, the runs for 80% power and the chance to
catch a flake.

STATISTICS.md, "Stopping" (``--prob-plan``): exact binomial power at an assumed pass rate
``a``; a flake of rate ``F`` is caught when at least one of ``n`` runs fails:
``1 − (1 − F)ⁿ``. Under a stopping rule the ``stopping`` extension replaces the chances
with those of its rule (:mod:`pytest_probability.extensions.stopping.planning`). Pure
module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math

from pytest_probability.api import Thresholds, binom_sf

#: the largest run count searched
MAX_RUNS = 1_000_000


def pass_chance(thresholds: Thresholds, runs: int, rate: float) -> float:
    """The chance the gate PASSes with ``runs`` runs when each passes with ``rate``."""
    return _at_least(thresholds.pass_min(runs), runs, rate)


def _at_least(needed: int, runs: int, rate: float) -> float:
    """``P(X ≥ needed)`` for ``X ~ Binomial(runs, rate)``."""
    return 0.0 if needed > runs else 1.0 if needed <= 0 else binom_sf(needed - 1, runs, rate)


#: upward jumps of power below the first crossing found that must all stay under the
#: target before the search stops walking back (see :func:`runs_for_power`)
JUMPS_BACK = 4


def runs_for_power(
    thresholds: Thresholds, rate: float, target: float = 0.8, start: int = 1
) -> int | None:
    """The fewest runs (from ``start``) with which the gate PASSes with probability
    ``target`` at ``rate`` (``None`` when even a million runs do not get there, e.g. a bar
    above ``rate``).

    Exact power saw-tooths with n: when one more run raises the pass threshold, power falls a
    little; when it does not, power jumps up, so the first run count reaching the target is
    one of those jumps. Doubling then bisection find a run count that reaches the target;
    then the search walks back one run count at a time (each threshold found from its
    neighbour's), keeping the earliest that reaches the target, until :data:`JUMPS_BACK`
    jumps in a row stay below it (the jumps' heights grow with n).
    """

    ratio = [1.0]  # the last threshold over its run count: a close guess for the next

    def power(n: int) -> float:
        needed = thresholds.pass_min_near(n, math.ceil(n * ratio[0]))
        ratio[0] = needed / n
        return _at_least(needed, n, rate)

    high = max(1, start)
    while power(high) < target:
        if high >= MAX_RUNS:
            return None
        high = min(high * 2, MAX_RUNS)
    low = max(start - 1, high // 2, 0)
    while high - low > 1:
        middle = (low + high) // 2
        if power(middle) >= target:
            high = middle
        else:
            low = middle
    best = high
    above = thresholds.pass_min(high)  # the threshold at n + 1 while walking down
    above_power = power(high)
    jumps_below = 0
    n = high
    while n > start and jumps_below < JUMPS_BACK:
        n -= 1
        needed = thresholds.pass_min_near(n, above)
        if needed == above:  # n + 1 was a jump up
            if above_power >= target:
                best = n + 1
                jumps_below = 0
            else:
                jumps_below += 1
        chance = _at_least(needed, n, rate)
        if chance >= target:
            best = n
        above, above_power = needed, chance
    return best


def catch_chance(runs: int, flake: float) -> float:
    """The chance that at least one of ``runs`` runs fails when each fails with ``flake``."""
    return 1.0 - (1.0 - flake) ** runs


def runs_to_catch(flake: float, chance: float = 0.95) -> int:
    """The fewest runs that catch a flake of rate ``flake`` with probability ``chance``
    (29 for a 10% flake at 95%)."""
    if not 0.0 < flake < 1.0:
        raise ValueError(f"flake must be strictly between 0 and 1, got {flake!r}")
    n = max(1, math.ceil(math.log1p(-chance) / math.log1p(-flake)))
    while n > 1 and catch_chance(n - 1, flake) >= chance:
        n -= 1
    while catch_chance(n, flake) < chance:
        n += 1
    return n
