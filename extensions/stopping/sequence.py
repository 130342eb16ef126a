"""The anytime-valid confidence sequence of ``--prob-stop=sequential``.

STATISTICS.md, "Stopping": the beta-binomial mixture with a Jeffreys Beta(½, ½) prior. After
``x`` passes in ``n`` runs, ``p`` stays in the sequence while

    M(p) = B(½ + x, ½ + n − x) / (B(½, ½) · pˣ (1 − p)ⁿ⁻ˣ)  <  1/α,

a nonnegative martingale under the true ``p`` (Ville's inequality: the chance it ever reaches
``1/α`` is at most ``α``), so the interval may be checked after every run. ``log M`` is convex
in ``p`` with its minimum at ``x/n``, so the set is an interval found by bisection on each
side. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from pytest_probability.api import log_beta

#: bisection steps at most: the ends are exact to the float
STEPS = 100
#: Newton steps at most (from outside, a few reach the end to within a few floats)
NEWTON_STEPS = 60
EPSILON = 2.0**-52
LOW, HIGH = "low", "high"
TINY = 2.0**-1074
_LOG_PRIOR = log_beta(0.5, 0.5)


@functools.lru_cache(maxsize=65536)
def _log_evidence(passes: int, runs: int) -> float:
    """The Jeffreys mixture's log probability of the runs, in order: the part of ``log M``
    that does not depend on ``p``, kept per count (a search or a simulation asks for the same
    counts at many values of ``p``)."""
    return log_beta(0.5 + passes, 0.5 + runs - passes) - _LOG_PRIOR


def log_mixture(p: float, passes: int, runs: int) -> float:
    """``log M(p)`` for ``passes`` of ``runs`` (``0 < p < 1``)."""
    value = _log_evidence(passes, runs)
    if passes:
        value -= passes * math.log(p)
    if runs - passes:
        value -= (runs - passes) * math.log1p(-p)
    return value


def confidence_sequence(passes: int, runs: int, level: float) -> tuple[float, float]:
    """The sequence's interval ``{p : M(p) < 1/α}`` with ``α = 1 − level`` (``[0, 1]`` for
    no runs); asked many thousands of times in a plan.

    Each end is the float next to the boundary on the inside: Newton's method on ``log M``
    (convex, so from outside it approaches the end without crossing it) brings an outside
    point within a few floats of the end, an inside point is found a few floats further, and
    bisection closes the gap in a few steps instead of some fifty. (Rounding makes ``M``
    ragged within some 1e-15 of the end: the test suite checks that no verdict against a bar
    and no printed percent depends on it.)
    """
    _check(passes, runs, level)
    return _end(passes, runs, level, LOW), _end(passes, runs, level, HIGH)


def sequence_end(passes: int, runs: int, level: float, side: str) -> float:
    """One end (``"low"`` or ``"high"``) of :func:`confidence_sequence`, the very float it
    returns, for a caller that needs only one (a verdict against a bar)."""
    _check(passes, runs, level)
    return _end(passes, runs, level, side)


def _check(passes: int, runs: int, level: float) -> None:
    for name, value in (("passes", passes), ("runs", runs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    if passes > runs:
        raise ValueError(f"passes must be at most runs ({runs}), got {passes}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")


def _end(passes: int, runs: int, level: float, side: str) -> float:
    fails = runs - passes
    if runs == 0 or (side == LOW and passes == 0) or (side == HIGH and fails == 0):
        return 0.0 if side == LOW else 1.0
    bound = math.log(1.0 / (1.0 - level))
    centre = passes / runs
    constant = _log_evidence(passes, runs)  # log_mixture's, once

    def excess(p: float) -> float:  # log_mixture(p, passes, runs) − bound, term by term
        value = constant
        if passes:
            value -= passes * math.log(p)
        if fails:
            value -= fails * math.log1p(-p)
        return value - bound

    def slope(p: float) -> float:
        return -passes / p + fails / (1.0 - p)

    start, edge = (centre / 2, 0.0) if side == LOW else ((centre + 1.0) / 2, 1.0)
    return _bisect(excess, *_bracket(excess, slope, start, centre, edge))


def _bracket(
    excess: Callable[[float], float],
    slope: Callable[[float], float],
    start: float,
    centre: float,
    edge: float,
) -> tuple[float, float]:
    """A point outside the interval and one inside, a few floats apart around its end on
    the ``edge`` side (0 for the low end, 1 for the high end); ``(edge, …)`` when the end is
    closer to the edge than any float can say."""
    point = start
    value = excess(point)
    while value < 0.0:  # inside: halve the distance to the edge
        farther = (point + edge) / 2
        if farther in (point, edge):
            return edge, point
        point = farther
        value = excess(point)
    for _ in range(NEWTON_STEPS):  # from outside toward the end, without crossing it
        gradient = slope(point)
        if gradient == 0.0:
            return point, _step_until(excess, point, centre, inside=True)
        step = point - value / gradient
        if not (min(point, centre) < step < max(point, centre)):
            return point, _step_until(excess, point, centre, inside=True)
        step_value = excess(step)
        if step_value < 0.0:  # rounding carried it a few floats over the end
            return _step_until(excess, step, edge, inside=False), step
        point, value = step, step_value
    return point, _step_until(excess, point, centre, inside=True)


def _step_until(
    excess: Callable[[float], float], start: float, toward: float, *, inside: bool
) -> float:
    """The first point inside (or outside) found from ``start`` toward ``toward`` with
    steps that double from a few floats (``toward`` itself when none is)."""
    step = max(abs(start) * 4 * EPSILON, 4 * TINY) * (1.0 if toward > start else -1.0)
    while True:
        point = start + step
        if (point >= toward) if step > 0 else (point <= toward):
            return toward
        if (excess(point) < 0.0) == inside:
            return point
        step *= 2


def _bisect(excess: Callable[[float], float], outside: float, kept: float) -> float:
    """Bisect between ``outside`` and ``kept`` (inside) until no float lies between them;
    the inside one."""
    for _ in range(STEPS):
        middle = (outside + kept) / 2
        if middle in (outside, kept) or not 0.0 < middle < 1.0:  # no float between
            break
        if excess(middle) < 0.0:
            kept = middle
        else:
            outside = middle
    return kept
