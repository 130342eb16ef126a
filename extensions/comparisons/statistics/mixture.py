"""The anytime-valid confidence sequence for the difference of two pass rates (one paired
input of a sequential comparison): ``{δ : M(δ) < 1/α}``, with ``M(δ)`` the runs'
likelihood averaged over Jeffreys mixtures of both rates over the profile likelihood at
``pa − pb = δ`` — the sequential likelihood-ratio argument of "universal inference"
(docs/statistics.rst, "Sequential comparisons", gives the derivation). ``log M`` is convex
in ``δ`` and smallest at the observed difference, so the set is an interval containing
it, found by bisection on each side. The profile's constrained maximum has the closed form
of Miettinen and Nurminen (1985), the root of a cubic; a bisection on the derivative stands
in where rounding defeats it. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable

from pytest_probability.api import log_beta

_LOG_PRIOR = log_beta(0.5, 0.5)
#: bisection steps at most (the ends are exact to the float well before)
STEPS = 100


def log_mixture(xa: int, na: int, xb: int, nb: int) -> float:
    """The two Jeffreys mixtures' log probability of the observed runs (in order)."""
    return (
        log_beta(0.5 + xa, 0.5 + na - xa) - _LOG_PRIOR + log_beta(0.5 + xb, 0.5 + nb - xb)
    ) - _LOG_PRIOR


def log_likelihood(pa: float, pb: float, xa: int, na: int, xb: int, nb: int) -> float:
    """With ``0·log 0 = 0`` (``-inf`` where a rate with a count is 0 or 1)."""
    total = 0.0
    for p, passes, fails in ((pa, xa, na - xa), (pb, xb, nb - xb)):
        for chance, count in ((p, passes), (1.0 - p, fails)):
            if count:
                if chance <= 0.0:
                    return -math.inf
                total += count * math.log(chance)
    return total


def restricted_rates(delta: float, xa: int, na: int, xb: int, nb: int) -> tuple[float, float]:
    """The rates ``(pa, pb)`` with ``pa − pb = δ`` of largest likelihood."""
    low, high = max(0.0, -delta), min(1.0, 1.0 - delta)  # where pb may lie
    if high <= low:
        return low + delta, low
    if na == 0 or nb == 0:  # only one arm has runs: its own rate, kept feasible
        if na == 0 and nb == 0:
            return (low + high) / 2 + delta, (low + high) / 2
        pb = xb / nb if nb else xa / na - delta
        pb = min(max(pb, low), high)
        return pb + delta, pb
    pb = _cubic(delta, xa, na, xb, nb)
    if (
        pb is None
        or not low <= pb <= high
        or abs(_slope(pb, delta, xa, na, xb, nb)) > 1e-6 * (na + nb)
    ):
        pb = _bisect_slope(delta, xa, na, xb, nb, low, high)
    return pb + delta, pb


def _slope(pb: float, delta: float, xa: int, na: int, xb: int, nb: int) -> float:
    """The derivative in ``pb`` along ``pa = pb + δ`` (decreasing)."""
    pa = pb + delta
    value = 0.0
    for p, passes, fails in ((pa, xa, na - xa), (pb, xb, nb - xb)):
        if passes:
            value += math.inf if p <= 0.0 else passes / p
        if fails:
            value -= math.inf if p >= 1.0 else fails / (1.0 - p)
    return value


def _cubic(delta: float, xa: int, na: int, xb: int, nb: int) -> float | None:
    """Miettinen and Nurminen's closed form (``pb``), or ``None`` when rounding leaves the
    cubic's trigonometric solution undefined."""
    theta = nb / na
    pa_hat, pb_hat = xa / na, xb / nb
    a = 1.0 + theta
    b = -(1.0 + theta + pa_hat + theta * pb_hat + delta * (theta + 2.0))
    c = delta * delta + delta * (2.0 * pa_hat + theta + 1.0) + pa_hat + theta * pb_hat
    d = -pa_hat * delta * (1.0 + delta)
    v = b**3 / (3.0 * a) ** 3 - b * c / (6.0 * a * a) + d / (2.0 * a)
    square = b * b / (3.0 * a) ** 2 - c / (3.0 * a)
    if square <= 0.0:
        return None
    u = math.copysign(math.sqrt(square), v) if v else math.sqrt(square)
    ratio = v / u**3
    if not -1.0 - 1e-12 <= ratio <= 1.0 + 1e-12:
        return None
    w = (math.pi + math.acos(min(1.0, max(-1.0, ratio)))) / 3.0
    pa = 2.0 * u * math.cos(w) - b / (3.0 * a)
    return pa - delta


def _bisect_slope(
    delta: float, xa: int, na: int, xb: int, nb: int, low: float, high: float
) -> float:
    if _slope(low, delta, xa, na, xb, nb) <= 0.0:
        return low
    if _slope(high, delta, xa, na, xb, nb) >= 0.0:
        return high
    for _ in range(STEPS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if _slope(middle, delta, xa, na, xb, nb) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def log_ratio(delta: float, xa: int, na: int, xb: int, nb: int) -> float:
    """``log M(δ)`` (``inf`` where no pair of rates with that difference can give the runs)."""
    pa, pb = restricted_rates(delta, xa, na, xb, nb)
    best = log_likelihood(pa, pb, xa, na, xb, nb)
    return math.inf if best == -math.inf else log_mixture(xa, na, xb, nb) - best


def excludes(delta: float, xa: int, na: int, xb: int, nb: int, level: float) -> bool:
    return log_ratio(delta, xa, na, xb, nb) >= math.log(1.0 / (1.0 - level))


def difference_sequence(xa: int, na: int, xb: int, nb: int, level: float) -> tuple[float, float]:
    """The sequence's interval for ``pa − pb`` (``[−1, 1]`` before any run): each end the
    float next to the boundary on the inside."""
    if na == 0 and nb == 0:
        return -1.0, 1.0
    centre = (xa / na if na else 0.5) - (xb / nb if nb else 0.5)
    bound = math.log(1.0 / (1.0 - level))

    def inside(delta: float) -> bool:
        return log_ratio(delta, xa, na, xb, nb) < bound

    return interval_end(inside, centre, -1.0), interval_end(inside, centre, 1.0)


def interval_end(inside: Callable[[float], bool], centre: float, edge: float) -> float:
    """The end of the interval ``inside`` holds towards ``edge`` from ``centre`` (which it
    holds), by bisection to the float's precision; ``edge`` itself when it holds there."""
    if inside(edge):
        return edge
    kept, outside = centre, edge
    for _ in range(STEPS):
        middle = (kept + outside) / 2
        if middle in (kept, outside):
            break
        if inside(middle):
            kept = middle
        else:
            outside = middle
    return kept


def log_e_value(xa: int, na: int, xb: int, nb: int) -> float:
    """``log M(0)``: the e-value against "the arms are equally good"."""
    if na + nb == 0:
        return 0.0
    pooled = (xa + xb) / (na + nb)
    best = log_likelihood(pooled, pooled, xa, na, xb, nb)
    return log_mixture(xa, na, xb, nb) - best
