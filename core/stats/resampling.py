"""Resampling shared by every interval over cases (function-level, Overall and metric
lines, the comparisons' bootstrap): an exact binomial sampler, exact multinomial counts, the
type-7 quantile and the case bootstrap of a mean. Pure module: never imports pytest.

The bootstrap re-draws whole cases (STATISTICS.md, "Function-level and Overall lines").
Per-case pass fractions take few distinct values, so a resample is drawn as multinomial
counts over them instead of one index per case (indices when most values are distinct);
both are deterministic for a seed. Three intervals read the same resampled means
(:data:`BOOTSTRAP_METHODS`, docs/statistics.rst "Bootstrap interval methods"): the
percentile interval, the expanded percentile interval (Hesterberg 2015) and BCa (Efron 1987).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import accumulate

from .special_functions import beta_ppf, norm_ppf

#: Below this mean (n · min(p, 1 − p)) the sampler inverts the distribution function.
_INVERSION_LIMIT = 10.0


def binomial_variate(rng: random.Random, n: int, p: float) -> int:
    """One draw from Binomial(n, p) using ``rng`` (exact up to floating point).

    Sequential-search inversion when ``n · min(p, 1−p) < 10``, otherwise Hörmann's BTRS
    (transformed rejection with squeeze, 1993); ``p > ½`` by symmetry ``n − X(n, 1−p)``.
    """
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise ValueError(f"n must be an integer, got {n!r}")
    n = n.__index__()
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    return _binomial(rng.random, n, p)


def _binomial(uniform: Callable[[], float], n: int, p: float) -> int:
    """:func:`binomial_variate` without argument checks, drawing from ``uniform()``."""
    if n == 0 or p == 0.0:
        return 0
    if p == 1.0:
        return n
    if p > 0.5:
        return n - _binomial(uniform, n, 1.0 - p)
    if n * p < _INVERSION_LIMIT:
        return _inversion(uniform, n, p)
    return _btrs(uniform, n, p)


def _inversion(uniform: Callable[[], float], n: int, p: float) -> int:
    """Sequential search from 0 through the pmf (recurrence ``f(x) = f(x−1)·((n+1)s/x − s)``,
    ``s = p/q``). Expected ``1 + n p`` steps; ``p ≤ ½``."""
    s = p / (1.0 - p)
    a = (n + 1) * s
    f0 = math.exp(n * math.log1p(-p))
    while True:
        u = uniform()
        f = f0
        x = 0
        while u > f:
            u -= f
            x += 1
            if x > n:  # u fell in the rounding gap at the far tail: draw again
                break
            f *= a / x - s
        else:
            return x


def _btrs(uniform: Callable[[], float], n: int, p: float) -> int:
    """Hörmann's BTRS for ``p ≤ ½`` and ``n p ≥ 10``.

    The hat is a transformed (``(2a/u_s + b) u + c``) uniform whose acceptance region
    contains the squeeze ``u_s ≥ 0.07, v ≤ v_r``; outside it the draw is accepted iff
    ``ln(v · α / (a/u_s² + b)) ≤ ln f(k) − ln f(m)`` with ``m`` the mode.
    """
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    two_a = 2.0 * a
    alpha = lpq = h = 0.0
    m = 0
    while True:
        u = uniform() - 0.5
        v = uniform()
        us = 0.5 - abs(u)
        k = math.floor((two_a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        if alpha == 0.0:  # the rest of the setup, needed only outside the squeeze
            alpha = (2.83 + 5.1 / b) * spq
            lpq = math.log(p / q)
            m = math.floor((n + 1) * p)
            h = math.lgamma(m + 1.0) + math.lgamma(n - m + 1.0)
        v *= alpha / (a / (us * us) + b)
        if math.log(v) <= h - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0) + (k - m) * lpq:
            return k


def _conditional_probabilities(sizes: Sequence[int]) -> list[float]:
    """``size_i / (size_i + size_{i+1} + …)`` for each category (1.0 for the last nonzero)."""
    remaining = list(accumulate(reversed(sizes)))[::-1]  # size_i + size_{i+1} + …
    return [size / left if left > 0 else 0.0 for size, left in zip(sizes, remaining, strict=True)]


def _multinomial(uniform: Callable[[], float], n: int, conditional: Sequence[float]) -> list[int]:
    """Sequential conditional binomials over precomputed conditional probabilities."""
    counts = [0] * len(conditional)
    left = n
    for i, prob in enumerate(conditional):
        if left == 0:
            break
        if prob >= 1.0:
            counts[i] = left
            break
        counts[i] = _binomial(uniform, left, prob)
        left -= counts[i]
    return counts


def quantile_type7(sorted_values: Sequence[float], q: float) -> float:
    """Hyndman–Fan type 7 quantile (linear interpolation; numpy's default) of ascending
    ``sorted_values``: ``x[j] + g (x[j+1] − x[j])`` with ``h = (n − 1) q``, ``j = ⌊h⌋``,
    ``g = h − j``.
    """
    n = len(sorted_values)
    if n == 0:
        raise ValueError("quantile of an empty sequence")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    h = (n - 1) * q
    j = math.floor(h)
    if j >= n - 1:
        return float(sorted_values[n - 1])
    g = h - j
    lo = float(sorted_values[j])
    hi = float(sorted_values[j + 1])
    if lo == hi:
        return lo
    # interpolate from the nearer end (monotone in g, exact at g = 0 and g = 1)
    if g < 0.5:
        return lo + g * (hi - lo)
    return hi - (1.0 - g) * (hi - lo)


def bootstrap_means(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    """The ``resamples`` means of a case bootstrap of ``values`` (in resampling order).

    Equal values are grouped (distinct values in order of first appearance); each resample
    draws multinomial counts over them with ``random.Random(seed)``, mean ``Σ count·value / N``.
    With more than ``N/4`` distinct values it draws ``N`` indices per resample instead.
    Deterministic for a given seed and input order.
    """
    data = [float(v) for v in values]
    total = len(data)
    if total == 0:
        raise ValueError("bootstrap of an empty sequence")
    if isinstance(resamples, bool) or not hasattr(resamples, "__index__") or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")
    resamples = resamples.__index__()
    groups = Counter(data)  # (in order of first appearance)
    distinct = list(groups)
    if len(distinct) == 1:
        return [distinct[0]] * resamples
    rng = random.Random(seed)
    if len(distinct) > total / 4:
        choices = rng.choices
        return [sum(choices(data, k=total)) / total for _ in range(resamples)]
    conditional = _conditional_probabilities(list(groups.values()))
    draws = (_multinomial(rng.random, total, conditional) for _ in range(resamples))
    return [sum(c * v for c, v in zip(counts, distinct, strict=True)) / total for counts in draws]


#: The interval methods of :func:`bootstrap_mean_interval`, ``--prob-bootstrap-method``.
BOOTSTRAP_METHODS = ("expanded", "bca", "percentile")


def norm_cdf(x: float) -> float:
    """Standard normal distribution function Φ(x) (``erfc``, full relative accuracy in both
    tails)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def student_t_two_sided(alpha: float, df: int) -> float:
    """The ``t`` with ``P(|T| > t) = alpha`` for Student's t with ``df`` degrees of freedom
    (``t_{1−α/2, df}``): ``ν/(ν + T²)`` is Beta(ν/2, ½), so ``t = √(ν(1 − x)/x)`` with ``x``
    its ``alpha`` quantile."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    if df < 1:
        raise ValueError(f"df must be >= 1, got {df!r}")
    x = beta_ppf(alpha, df / 2.0, 0.5)
    return math.sqrt(df * (1.0 - x) / x)


def expanded_tail(alpha: float, size: int) -> float:
    """The expanded percentile interval's tail probability for ``size`` inputs (Hesterberg
    2015, "What teachers should know about the bootstrap", Am. Stat. 69:371):
    ``Φ(−√(N/(N−1)) · t_{1−α/2, N−1})``, so that for normal data the interval is as wide as
    the t interval (the percentile interval is as wide as a z interval with the divisor-N
    standard deviation: too narrow for few inputs). ``α/2`` for one input."""
    if size < 2:
        return alpha / 2.0
    return norm_cdf(-math.sqrt(size / (size - 1)) * student_t_two_sided(alpha, size - 1))


def jackknife_acceleration(values: Sequence[float]) -> float:
    """BCa's acceleration for the mean, from the jackknife over inputs (Efron 1987, eq. 6.6):
    ``a = Σ dᵢ³ / (6 (Σ dᵢ²)^{3/2})`` with ``dᵢ = θ̄₍.₎ − θ₍ᵢ₎ = (xᵢ − x̄)/(N − 1)`` (the
    factor cancels). 0 when every value is the same."""
    center = math.fsum(values) / len(values)
    deviations = [v - center for v in values]
    squares = math.fsum(d * d for d in deviations)
    if squares == 0.0:
        return 0.0
    return math.fsum(d * d * d for d in deviations) / (6.0 * squares**1.5)


def bca_levels(
    means: Sequence[float], estimate: float, acceleration: float, level: float
) -> tuple[float, float] | None:
    """BCa's adjusted quantile levels ``(α₁, α₂)`` (Efron 1987; DiCiccio & Efron 1996):
    ``z₀ = Φ⁻¹((#{θ* < θ̂} + ½·#{θ* = θ̂})/B)`` (ties counted half, as scipy does; a mean within
    ``1e-12·max(1, |θ̂|)`` of the estimate is a tie, since a resample that draws the sample's
    own values may sum them in another order), ``αⱼ = Φ(z₀ + (z₀ + zⱼ)/(1 − a(z₀ + zⱼ)))`` for
    ``zⱼ = Φ⁻¹(α/2)``, ``Φ⁻¹(1 − α/2)``. ``None`` when every resample lies on one side of the
    estimate (``z₀`` infinite: there is nothing to correct by)."""
    tolerance = 1e-12 * max(1.0, abs(estimate))
    below = sum(1 for m in means if m < estimate - tolerance)
    ties = sum(1 for m in means if abs(m - estimate) <= tolerance)
    share = (below + 0.5 * ties) / len(means)
    if share <= 0.0 or share >= 1.0:
        return None
    z0 = norm_ppf(share)
    alpha = 1.0 - level
    adjusted = []
    for z in (norm_ppf(alpha / 2.0), norm_ppf(1.0 - alpha / 2.0)):
        shifted = z0 + z
        denominator = 1.0 - acceleration * shifted
        if denominator <= 0.0:  # past the formula's pole: the far end of its own side
            adjusted.append(0.0 if shifted < 0.0 else 1.0)
        else:
            adjusted.append(norm_cdf(z0 + shifted / denominator))
    return adjusted[0], adjusted[1]


def bootstrap_mean_interval(
    values: Sequence[float],
    *,
    resamples: int,
    seed: int,
    level: float,
    method: str = "percentile",
) -> tuple[float, float]:
    """Bootstrap interval for the mean of ``values`` (cases re-drawn whole), read off the
    sorted :func:`bootstrap_means` by type-7 quantiles at levels set by ``method``:

    * ``"percentile"``: ``α/2`` and ``1 − α/2`` (the spec's method);
    * ``"expanded"``: :func:`expanded_tail` and its complement — wider for few inputs;
    * ``"bca"``: :func:`bca_levels` with :func:`jackknife_acceleration` (the percentile
      levels when every resample lies on one side of the mean).

    Every method reads the same resampled means, so an interval with all values equal is
    that value for each: ``[1.0, 1.0]``.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"method must be one of {', '.join(BOOTSTRAP_METHODS)}, got {method!r}")
    means = sorted(bootstrap_means(values, resamples, seed))
    alpha = 1.0 - level
    low_level, high_level = alpha / 2.0, 1.0 - alpha / 2.0
    if method == "expanded":
        low_level = expanded_tail(alpha, len(values))
        high_level = 1.0 - low_level
    elif method == "bca" and means[0] != means[-1]:
        data = [float(v) for v in values]
        adjusted = bca_levels(
            means, math.fsum(data) / len(data), jackknife_acceleration(data), level
        )
        if adjusted is not None:
            low_level, high_level = adjusted
    return quantile_type7(means, low_level), quantile_type7(means, high_level)


def case_mean(values: Sequence[float]) -> float:
    """The mean of per-case values, the same to the last digit in any order (an exactly
    rounded sum): the estimate of the function-level, Overall and metric lines."""
    if not values:
        raise ValueError("mean of no cases")
    return math.fsum(values) / len(values)


def case_bootstrap_interval(
    case_ids: Sequence[str],
    values: Sequence[float],
    *,
    resamples: int,
    seed: int,
    level: float,
    method: str = "percentile",
) -> tuple[float, float]:
    """The case bootstrap of STATISTICS.md ("Function-level and Overall lines"): one value
    per case, put in case-id order (equal ids keep their order), then
    :func:`bootstrap_mean_interval` with ``method``.

    The one resampler and draw order of every interval over cases — the function-level and
    Overall lines and the metric lines — so that ``pass^1``, whose per-case values are the
    pass fractions, has exactly the function-level interval.
    """
    if len(case_ids) != len(values):
        raise ValueError(f"{len(case_ids)} case ids for {len(values)} values")
    order = sorted(range(len(values)), key=lambda index: case_ids[index])
    ordered = [values[index] for index in order]
    return bootstrap_mean_interval(
        ordered, resamples=resamples, seed=seed, level=level, method=method
    )
