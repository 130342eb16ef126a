"""Many paired inputs: the two-sided sign-flip (paired permutation) test and the paired
bootstrap interval for the mean difference of pass rates (docs/statistics.rst,
"Comparisons", states the test).

**Exact.** The differences are scaled to integers ``aᵢ = |dᵢ|·L/g`` (``L`` the least common
multiple of the denominators, ``g`` the gcd of the scaled values); flipping a subset of total
``F`` turns the sum ``A = Σ aᵢ`` into ``A − 2F``, and by the symmetry ``F ↔ A − F`` the p-value
is ``2·#{subsets: F ≤ t} / 2^m`` with ``t = ⌊(A − |T|)/2⌋`` (``T`` the observed scaled sum,
``m`` the nonzero count). The subset counts are the coefficients of ``Π (1 + x^aᵢ)``, a
polynomial kept *packed* in one Python integer (``m + 1`` bits per coefficient, enough for
any count ≤ 2^m) so that multiplying by ``1 + x^a`` is one shift and one add in C, truncated
to degree ``t``; the sum of the kept coefficients is the packed integer modulo
``2^(m+1) − 1``. It runs while the bits it touches, at most ``m·(t + 1)·(m + 1)`` (4–9·10⁻¹¹ s
per bit), are at most ``exact_budget`` (:data:`EXACT_BUDGET`, so under ~0.1 s).

**Monte Carlo.** Beyond the budget, ``B = resamples`` sign patterns are drawn with
``random.Random(seed)``: for a distinct ``|d|`` value occurring ``c ≥ 8`` times the number
flipped is Binomial(c, ½); the remaining differences take one random bit each, looked up
eight at a time in tables of signed subset sums. ``p = (1 + hits)/(1 + B)``, never 0;
deterministic for a seed and the multiset of differences. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from pytest_probability.api import binomial_variate, bootstrap_mean_interval

#: Default largest ``m·(t + 1)·(m + 1)`` (bits of packed polynomial touched) counted exactly.
EXACT_BUDGET = 1_000_000_000
#: A distinct ``|d|`` value at least this frequent draws its flips as one binomial variate.
_BINOMIAL_MIN_COUNT = 8
#: Differences looked up per table in the Monte Carlo draw (one byte of random bits).
_CHUNK = 8


@dataclass(frozen=True)
class SignFlipResult:
    """``p`` the two-sided p-value; ``exact`` whether it was counted exactly (else Monte
    Carlo with ``resamples`` draws); ``statistic`` the observed ``Σ dᵢ``; ``nonzero`` the
    number of nonzero differences."""

    p: float
    exact: bool
    resamples: int | None
    statistic: Fraction
    nonzero: int


def _check_positive_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__") or value.__index__() < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return value.__index__()


def _as_fractions(differences: Sequence[Fraction]) -> list[Fraction]:
    out: list[Fraction] = []
    for d in differences:
        if isinstance(d, bool) or not isinstance(d, Rational):
            raise ValueError(
                f"differences must be Fractions (or ints), got {d!r}; "
                "build them exactly, e.g. Fraction(x_arm, n_arm) - Fraction(x_base, n_base)"
            )
        out.append(Fraction(d))
    return out


def _exact_tail_count(sizes: Sequence[int], t: int) -> int:
    """``#{subsets of sizes with sum ≤ t}`` (``sizes`` positive integers, ``t ≥ 0``)."""
    m = len(sizes)
    width = m + 1  # every coefficient is a subset count ≤ 2^m < 2^width − 1
    mask = (1 << ((t + 1) * width)) - 1
    poly = 1
    degree = 0
    for a in sorted(sizes):
        if a > t:
            break  # sorted: no larger size fits under t any more
        poly += poly << (a * width)
        degree += a
        if degree > t:
            poly &= mask
            degree = t
    # the sum of the base-2^width digits, which is below 2^width − 1
    return poly % ((1 << width) - 1)


def _monte_carlo(sizes: Counter[int], target: int, resamples: int, seed: int) -> int:
    """Number of ``resamples`` random sign patterns with ``|Σ sᵢ aᵢ| ≥ target``."""
    rng = random.Random(seed)
    counted = sorted(sizes.items())
    grouped = [(a, count) for a, count in counted if count >= _BINOMIAL_MIN_COUNT]
    singles = [a for a, count in counted if count < _BINOMIAL_MIN_COUNT for _ in range(count)]
    chunks = [singles[start : start + _CHUNK] for start in range(0, len(singles), _CHUNK)]
    # 256 entries each, so that every byte of random bits indexes a table (a last, shorter
    # chunk's entries repeat: they read only its own bits)
    tables = [
        [sum(-a if pattern >> j & 1 else a for j, a in enumerate(chunk)) for pattern in range(256)]
        for chunk in chunks
    ]
    nbytes = len(tables)
    nbits = 8 * nbytes
    hits = 0
    for _ in range(resamples):
        total = sum(a * (count - 2 * binomial_variate(rng, count, 0.5)) for a, count in grouped)
        if nbytes:
            draws = rng.getrandbits(nbits).to_bytes(nbytes, "little")
            total += sum(map(list.__getitem__, tables, draws))
        if abs(total) >= target:
            hits += 1
    return hits


def sign_flip_test(
    differences: Sequence[Fraction],
    *,
    resamples: int,
    seed: int,
    exact_budget: int = EXACT_BUDGET,
) -> SignFlipResult:
    """Two-sided sign-flip test of the per-input differences, exact rationals (floats raise
    :class:`ValueError`); ``resamples`` and ``seed`` are used only when the exact count would
    exceed ``exact_budget``."""
    values = _as_fractions(differences)
    resamples = _check_positive_int("resamples", resamples)
    if isinstance(exact_budget, bool) or not hasattr(exact_budget, "__index__"):
        raise ValueError(f"exact_budget must be an integer, got {exact_budget!r}")
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    statistic = sum(values, Fraction(0))
    nonzero = [d for d in values if d != 0]
    m = len(nonzero)
    if statistic == 0:  # every pattern is at least as extreme (also covers m = 0)
        return SignFlipResult(1.0, True, None, statistic, m)
    scale = math.lcm(*(d.denominator for d in nonzero))
    scaled = [abs(d.numerator) * (scale // d.denominator) for d in nonzero]
    common = math.gcd(*scaled)
    sizes = [a // common for a in scaled]
    target = abs(statistic.numerator) * (scale // statistic.denominator) // common
    t = (sum(sizes) - target) // 2
    if m * (t + 1) * (m + 1) <= exact_budget:
        count = _exact_tail_count(sizes, t)
        return SignFlipResult(min(1.0, 2 * count / (1 << m)), True, None, statistic, m)
    hits = _monte_carlo(Counter(sizes), target, resamples, seed)
    return SignFlipResult((1 + hits) / (1 + resamples), False, resamples, statistic, m)


def bootstrap_difference(
    differences: Sequence[float | Fraction],
    level: float,
    resamples: int,
    seed: int,
    method: str = "percentile",
) -> tuple[float, float]:
    """Paired bootstrap interval for the mean of the per-input differences: whole inputs
    re-drawn with replacement, ``resamples`` times with ``random.Random(seed)``
    (:func:`~pytest_probability.api.bootstrap_mean_interval`, the function-level lines'
    bootstrap), ends by ``method`` (``"percentile"``, ``"expanded"`` or ``"bca"``). Pass
    :class:`~fractions.Fraction` values (or floats converted from them): equal differences
    must be equal floats for the fast grouped resampling."""
    if len(differences) == 0:
        raise ValueError("bootstrap_difference needs at least one difference")
    values: list[float] = []
    for d in differences:
        if isinstance(d, bool) or not isinstance(d, int | float | Rational):
            raise ValueError(f"differences must be numbers, got {d!r}")
        value = float(d)
        if not math.isfinite(value):
            raise ValueError(f"differences must be finite, got {d!r}")
        values.append(value)
    resamples = _check_positive_int("resamples", resamples)
    return bootstrap_mean_interval(
        values, resamples=resamples, seed=seed, level=level, method=method
    )
