"""Run budgets: the chance a gate passes, the runs for 80% power, the chance to catch a
flake, and the expected runs under ``--prob-stop=sequential``.

STATISTICS.md, "Stopping" (``--prob-plan``): exact binomial power at an assumed pass rate
``a``; a flake of rate ``F`` is caught when at least one of ``n`` runs fails:
``1 − (1 − F)ⁿ``. Pure module: never imports pytest.
"""

from __future__ import annotations

import math

from ..intervals.special import binom_sf
from ..stopping.curtail import Thresholds
from ..stopping.sequence import log_mixture

#: the run counts below the first one found that are searched again (power saw-tooths
#: with n, so an earlier run count may reach the target too)
REFINE = 60
#: the largest run count searched
MAX_RUNS = 1_000_000


def pass_chance(thresholds: Thresholds, runs: int, rate: float, guess: int | None = None) -> float:
    """The chance the gate PASSes with ``runs`` runs when each passes with ``rate``:
    ``P(X ≥ pass_min(runs))`` for ``X ~ Binomial(runs, rate)``."""
    needed = thresholds.pass_min(runs) if guess is None else thresholds.pass_min_near(runs, guess)
    if needed > runs:
        return 0.0
    if needed <= 0:
        return 1.0
    return binom_sf(needed - 1, runs, rate)


def runs_for_power(
    thresholds: Thresholds, rate: float, target: float = 0.8, start: int = 1
) -> int | None:
    """The fewest runs with which the gate PASSes with probability ``target`` at ``rate``
    (``None`` when even a million runs do not get there, e.g. a bar above ``rate``).

    Found by doubling then bisection on ``n`` (power grows with ``n`` overall), then the
    :data:`REFINE` run counts below are checked one by one, each threshold found from its
    neighbour's, because exact power saw-tooths with ``n``.
    """

    def power(n: int) -> float:
        return pass_chance(thresholds, n, rate)

    high = max(1, start)
    while power(high) < target:
        if high >= MAX_RUNS:
            return None
        high = min(high * 2, MAX_RUNS)
    low = max(high // 2, start - 1, 0)  # power(low) < target, or low is below the start
    while high - low > 1:
        middle = (low + high) // 2
        if power(middle) >= target:
            high = middle
        else:
            low = middle
    best = high
    guess = thresholds.pass_min(high)
    for n in range(high - 1, max(start, high - REFINE) - 1, -1):
        guess = thresholds.pass_min_near(n, guess)
        if guess <= n and binom_sf(guess - 1, n, rate) >= target:
            best = n
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


def expected_runs_sequential(bar: float, level: float, planned: int, rate: float) -> float:
    """The expected runs of a rate gate under ``--prob-stop=sequential`` at ``rate``: it
    stops at the first run after which the confidence sequence lies wholly above or below
    ``bar``, else runs all ``planned``. (The rule may also stop an UNDECIDED case a little
    earlier once no remaining run can matter, so this is an upper bound.)"""
    bound = math.log(1.0 / (1.0 - level))

    def decided(x: int, n: int) -> bool:
        return x != n * bar and log_mixture(bar, x, n) >= bound

    alive: dict[int, float] = {0: 1.0}
    expected = 0.0
    for n in range(1, planned + 1):
        expected += sum(alive.values())  # the chance run n is made
        moved: dict[int, float] = {}
        for x, chance in alive.items():
            moved[x + 1] = moved.get(x + 1, 0.0) + chance * rate
            moved[x] = moved.get(x, 0.0) + chance * (1.0 - rate)
        alive = {x: c for x, c in moved.items() if c > 1e-15 and not decided(x, n)}
        if not alive:
            break
    return expected
