"""Two pass rates side by side: Newcombe's hybrid score interval (method 10, from the two
Wilson intervals without continuity correction) for their difference, and Fisher's exact
two-sided test. 10/10 against 8/10 at 0.95 → ``+20 pp [−11, +51]``, ``p = 0.47``. The
comparisons extension and the history read them (as ``newcombe_interval`` and
``fisher_exact_p`` of the public API). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import math

from .rate_intervals import wilson

#: A table counts as "as or less likely" than the observed one when its probability is at
#: most the observed probability times ``1 + FISHER_TOLERANCE`` — scipy's ``fisher_exact``
#: uses the same relative tolerance (``1e-14``), so exact ties, which rounding could break
#: either way in floating point, are always included. Here the comparison is exact.
FISHER_TOLERANCE = (1, 10**14)


def _check_counts(x: int, n: int, name: str) -> int:
    for label, value in ((f"x_{name}", x), (f"n_{name}", n)):
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise ValueError(f"{label} must be an integer, got {value!r}")
    if n < 1:
        raise ValueError(f"n_{name} must be >= 1, got {n}")
    if not 0 <= x <= n:
        raise ValueError(f"x_{name} must be between 0 and n_{name} ({n}), got {x}")
    return n


def newcombe_difference(
    x_arm: int, n_arm: int, x_base: int, n_base: int, level: float
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (method 10) for ``p_arm − p_base``, from the two
    arms' Wilson intervals at ``level``; both ends in ``[−1, 1]``. 10/10 vs 8/10 at 0.95 →
    (−0.1124, 0.5098)."""
    _check_counts(x_arm, n_arm, "arm")
    _check_counts(x_base, n_base, "base")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    p1 = x_arm / n_arm
    p2 = x_base / n_base
    arm = wilson(x_arm, n_arm, level)
    base = wilson(x_base, n_base, level)
    d = p1 - p2
    low = d - math.hypot(p1 - arm.low, base.high - p2)
    high = d + math.hypot(arm.high - p1, p2 - base.low)
    return max(-1.0, low), min(1.0, high)


def fisher_two_sided(x_arm: int, n_arm: int, x_base: int, n_base: int) -> float:
    """Fisher's exact two-sided p-value of the table ``[[x_arm, n_arm − x_arm], [x_base,
    n_base − x_base]]``: the probability, given both margins, of a table at most as likely as
    the observed one (within :data:`FISHER_TOLERANCE`, as scipy). The hypergeometric weights
    are exact integers walked by their ratio recurrence, so ties and tiny tails are exact.
    10/10 vs 8/10 → 0.4737."""
    _check_counts(x_arm, n_arm, "arm")
    _check_counts(x_base, n_base, "base")
    return _fisher_two_sided(int(x_arm), int(n_arm), int(x_base), int(n_base))


@functools.lru_cache(maxsize=1 << 14)
def _fisher_two_sided(x_arm: int, n_arm: int, x_base: int, n_base: int) -> float:
    """:func:`fisher_two_sided` of checked counts, remembered: the history command tests the
    same few tables again and again (a case's runs per session rarely change), and one
    table of a hundred runs costs a walk over a hundred big-integer weights."""
    successes = x_arm + x_base
    first = max(0, successes - n_base)
    last = min(n_arm, successes)
    if first == last:
        return 1.0
    # weights w(a) = C(n_arm, a)·C(n_base, s − a) for a = first … last
    weight = math.comb(n_arm, first) * math.comb(n_base, successes - first)
    weights = [weight]
    for a in range(first, last):
        weight = weight * (n_arm - a) * (successes - a) // ((a + 1) * (n_base - successes + a + 1))
        weights.append(weight)
    observed = weights[x_arm - first]
    tol_num, tol_den = FISHER_TOLERANCE
    bound = observed * (tol_den + tol_num)
    tail = sum(w for w in weights if w * tol_den <= bound)
    total = math.comb(n_arm + n_base, successes)
    return min(1.0, tail / total)
