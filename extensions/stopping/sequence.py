"""The anytime-valid confidence sequence of ``--prob-stop=sequential``.

STATISTICS.md, "Stopping": the beta-binomial mixture with a Jeffreys Beta(½, ½) prior. After
``x`` passes in ``n`` runs, ``p`` stays in the sequence while

    M(p) = B(½ + x, ½ + n − x) / (B(½, ½) · pˣ (1 − p)ⁿ⁻ˣ)  <  1/α,

a nonnegative martingale under the true ``p`` (Ville's inequality: the chance it ever reaches
``1/α`` is at most ``α``), so the interval may be checked after every run. ``log M`` is convex
in ``p`` with its minimum at ``x/n``, so the set is an interval found by bisection on each
side. Pure module: never imports pytest.
"""

from __future__ import annotations

import math

from ..intervals.special import log_beta

#: bisection steps: the ends are exact to well below 1e-12
STEPS = 100
_LOG_PRIOR = log_beta(0.5, 0.5)


def log_mixture(p: float, passes: int, runs: int) -> float:
    """``log M(p)`` for ``passes`` of ``runs`` (``0 < p < 1``)."""
    value = log_beta(0.5 + passes, 0.5 + runs - passes) - _LOG_PRIOR
    if passes:
        value -= passes * math.log(p)
    if runs - passes:
        value -= (runs - passes) * math.log1p(-p)
    return value


def confidence_sequence(passes: int, runs: int, level: float) -> tuple[float, float]:
    """The sequence's interval ``{p : M(p) < 1/α}`` with ``α = 1 − level`` (``[0, 1]`` for
    no runs)."""
    for name, value in (("passes", passes), ("runs", runs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    if passes > runs:
        raise ValueError(f"passes must be at most runs ({runs}), got {passes}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    if runs == 0:
        return 0.0, 1.0
    bound = math.log(1.0 / (1.0 - level))
    centre = passes / runs

    def inside(p: float) -> bool:
        return log_mixture(p, passes, runs) < bound

    low = 0.0
    if passes > 0:
        outside, kept = 0.0, centre  # bisect between a point outside and one inside
        for _ in range(STEPS):
            middle = (outside + kept) / 2
            if middle <= 0.0:
                break
            if inside(middle):
                kept = middle
            else:
                outside = middle
        low = kept
    high = 1.0
    if passes < runs:
        kept, outside = centre, 1.0
        for _ in range(STEPS):
            middle = (kept + outside) / 2
            if middle >= 1.0:
                break
            if inside(middle):
                kept = middle
            else:
                outside = middle
        high = kept
    return low, high
