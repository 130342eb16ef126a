"""A latency quantile with a distribution-free interval, and the ``max_latency=`` verdict.

The method is docs/statistics.rst's "Latency quantiles": the estimate is the ``⌈nq⌉``-th
smallest of ``n`` times, the interval ``[X₍r₎, X₍s₎]`` (order statistics, 1-based) with ranks
that leave at most ``α/2`` (``α = 1 − level``) in each tail of ``B ~ Binomial(n, q)``, the
number of runs at or below the true quantile.

**Boundary.** A tail is taken to be at most ``α/2`` when it is at most ``α/2 · (1 + 10⁻⁹)``.
``α/2`` itself is computed exactly from the level as written (``0.95`` → ``0.025``, not
``(1 − 0.95)/2`` in floating point), and the binomial tails (the public API's ``binom_cdf``
and ``binom_sf``) are accurate to ~1e-13 relative, so the tolerance only decides exact ties
(``0.5³ = 0.125`` at level 0.75: the upper end exists at ``n = 3``), which rounding could
otherwise break either way; it never moves a rank by more than a tie would.

Ranks are found by bisection on the binomial distribution function: ``O(log n)`` evaluations,
each a continued fraction of ``O(n^⅓)`` terms at worst. The times are sorted once, so a
quantile costs ``O(n log n)`` overall (10⁵ times take a few hundredths of a second). Pure
module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction

# LatencyQuantile, the latency methods' contract, is defined in the kernel and published by
# the API (which therefore never imports this module); it is re-exported here
from pytest_probability.api import LatencyQuantile, binom_cdf, binom_sf

#: Relative slack when comparing a binomial tail with ``α/2`` (see "Boundary" above).
TAIL_TOLERANCE = 1e-9


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise ValueError(f"n must be an integer, got {n!r}")
    n = n.__index__()
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return n


def _unit(name: str, value: float) -> float:
    """``value`` as a float strictly between 0 and 1 (else a ``ValueError`` naming it)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    number = float(value)
    if not 0.0 < number < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {number!r}")
    return number


def _half_alpha(level: float) -> float:
    """``α/2 = (1 − level)/2`` computed exactly from the level as written, then rounded once."""
    return float((1 - Fraction(repr(_unit("level", level)))) / 2)


def _within(tail: float, half_alpha: float) -> bool:
    """Whether a tail probability is at most ``α/2`` (up to :data:`TAIL_TOLERANCE`)."""
    return tail <= half_alpha * (1.0 + TAIL_TOLERANCE)


def _check_rank(name: str, rank: int | None, n: int) -> int | None:
    if rank is None:
        return None
    if isinstance(rank, bool) or not hasattr(rank, "__index__"):
        raise ValueError(f"{name} must be an integer or None, got {rank!r}")
    rank = rank.__index__()
    if not 1 <= rank <= n:
        raise ValueError(f"{name} must be between 1 and n ({n}), got {rank}")
    return rank


def estimate_rank(n: int, q: float) -> int:
    """``⌈n·q⌉``: the 1-based rank of the estimate among ``n`` sorted times (0 when ``n = 0``).

    Computed exactly from ``q`` as written, so ``n = 100, q = 0.95`` gives 95 and
    ``n = 100, q = 0.07`` gives 7 (in floating point ``100 · 0.07 = 7.000000000000001``).
    """
    n = _check_n(n)
    q = _unit("quantile", q)
    return math.ceil(n * Fraction(repr(q)))


def interval_ranks(n: int, q: float, level: float) -> tuple[int | None, int | None]:
    """Ranks ``(r, s)`` of the distribution-free interval ``[X₍r₎, X₍s₎]`` for the ``q``-quantile.

    ``r`` is the largest ``r ≥ 1`` with ``P(B ≤ r − 1) ≤ α/2`` — ``None`` when even
    ``P(B ≤ 0) = (1 − q)ⁿ`` exceeds ``α/2``; ``s`` is the smallest ``s ≤ n`` with
    ``P(B ≥ s) ≤ α/2`` — ``None`` when even ``P(B ≥ n) = qⁿ`` exceeds it. ``B ~
    Binomial(n, q)``, ``α = 1 − level``. When both exist ``r < s`` and the interval covers the
    quantile with probability at least ``level`` (:func:`coverage`). ``n = 0`` gives
    ``(None, None)``. 100 runs, p95, 95% → ``(90, 100)``: ``[X₍90₎, X₍100₎]``, the
    largest time being the upper end.
    """
    n = _check_n(n)
    q = _unit("quantile", q)
    half_alpha = _half_alpha(level)
    low = high = None
    # B ~ Binomial(n, q): P(B ≤ k) = binom_cdf(k, n, q), P(B ≥ k) = binom_sf(k − 1, n, q)
    if n > 0 and _within(binom_cdf(0, n, q), half_alpha):
        # r = 1 is admissible; r = n + 1 is not (P(B ≤ n) = 1 > α/2)
        low = _boundary(lambda r: _within(binom_cdf(r - 1, n, q), half_alpha), 1, n + 1)
    if n > 0 and _within(binom_sf(n - 1, n, q), half_alpha):
        # s = n is admissible; s = 0 is not (P(B ≥ 0) = 1 > α/2)
        high = _boundary(lambda s: _within(binom_sf(s - 1, n, q), half_alpha), n, 0)
    return low, high


def _boundary(admissible: Callable[[int], bool], good: int, bad: int) -> int:
    """The admissible rank nearest ``bad`` by bisection between an admissible ``good`` and
    an inadmissible ``bad`` (admissibility changes once between them)."""
    while abs(good - bad) > 1:
        middle = (good + bad) // 2
        if admissible(middle):
            good = middle
        else:
            bad = middle
    return good


def min_runs_for_upper(q: float, level: float) -> int:
    """Fewest runs for which the interval has an upper end: the smallest ``n`` with
    ``qⁿ ≤ α/2``. At level 0.95: 6 (p50), 36 (p90), 72 (p95), 368 (p99).
    """
    return _fewest_runs(q, level, upper=True)


def min_runs_for_lower(q: float, level: float) -> int:
    """Fewest runs for which the interval has a lower end: the smallest ``n`` with
    ``(1 − q)ⁿ ≤ α/2``. At level 0.95: 6 (p50), 2 (p90), 2 (p95), 1 (p99).
    """
    return _fewest_runs(q, level, upper=False)


def _fewest_runs(q: float, level: float, upper: bool) -> int:
    """The smallest ``n ≥ 1`` whose end exists (``qⁿ ≤ α/2`` for the upper one, ``(1 − q)ⁿ ≤
    α/2`` for the lower), searched from the answer in logarithms (off by at most a tie)."""
    q = _unit("quantile", q)
    half_alpha = _half_alpha(level)

    def holds(n: int) -> bool:
        return _within(binom_sf(n - 1, n, q) if upper else binom_cdf(0, n, q), half_alpha)

    n = max(1, math.ceil(math.log(half_alpha) / (math.log(q) if upper else math.log1p(-q))))
    while n > 1 and holds(n - 1):
        n -= 1
    while not holds(n):
        n += 1
    return n


def coverage(n: int, q: float, r: int | None, s: int | None) -> float:
    """The exact probability that ``[X₍r₎, X₍s₎]`` contains the true ``q``-quantile.

    For a continuous distribution (with ties in the times it is at least this), ``B ~
    Binomial(n, q)``:

    * both ends: ``P(r ≤ B ≤ s − 1) = 1 − P(B ≤ r − 1) − P(B ≥ s)``;
    * lower end only (``s is None``, the interval ``[X₍r₎, ∞)``): ``P(B ≥ r)``;
    * upper end only (``r is None``, the interval ``(−∞, X₍s₎]``): ``P(B ≤ s − 1)``;
    * no end: the whole line, 1.

    Ranks must lie in ``1..n`` with ``r ≤ s`` (``r = s`` gives 0).
    """
    n = _check_n(n)
    q = _unit("quantile", q)
    r = _check_rank("r", r, n)
    s = _check_rank("s", s, n)
    if r is not None and s is not None and r > s:
        raise ValueError(f"r must be at most s, got r={r}, s={s}")
    miss_low = 0.0 if r is None else binom_cdf(r - 1, n, q)
    miss_high = 0.0 if s is None else binom_sf(s - 1, n, q)
    return min(1.0, max(0.0, 1.0 - miss_low - miss_high))


def latency_quantile(times: Iterable[float], q: float, level: float) -> LatencyQuantile:
    """The ``q``-quantile of ``times`` (seconds, finite) with its distribution-free interval.

    Sorts once (``O(n log n)``); fast for 10⁵ times and more.
    """
    q = _unit("quantile", q)
    _half_alpha(level)  # validates the level
    ordered = sorted(_check_time(t) for t in times)
    n = len(ordered)
    low_rank, high_rank, rank, covered = _ranks(n, q, float(level))
    ends = (None if k is None else ordered[k - 1] for k in (rank, low_rank, high_rank))
    estimate, low, high = ends
    return LatencyQuantile(
        q, float(level), n, estimate, low, high, rank, low_rank, high_rank, covered
    )


@functools.lru_cache(maxsize=1024)
def _ranks(n: int, q: float, level: float) -> tuple[int | None, int | None, int | None, float]:
    """``(low rank, high rank, estimate rank, coverage)``, cached: a session's cases mostly
    share their run count, so thousands of cases cost a handful of rank searches."""
    low_rank, high_rank = interval_ranks(n, q, level)
    rank = estimate_rank(n, q) if n else None
    return low_rank, high_rank, rank, coverage(n, q, low_rank, high_rank)


def _check_time(value: float) -> float:
    number = math.nan if isinstance(value, bool) else float(value)
    if not math.isfinite(number):
        raise ValueError(f"a time must be a finite number, got {value!r}")
    return number


def latency_verdict(result: LatencyQuantile, limit: float) -> str:
    """``"pass"``, ``"fail"`` or ``"undecided"`` for the gate ``quantile < limit`` (lower is
    better): pass iff the upper end exists and is below ``limit``; fail iff the lower end
    exists and is above it; otherwise (an end missing, or ``limit`` inside the interval,
    endpoints included) undecided.
    """
    if result.high is not None and result.high < limit:
        return "pass"
    if result.low is not None and result.low > limit:
        return "fail"
    return "undecided"
