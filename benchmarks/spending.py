"""The spending function's trade-off (issue 36): runs saved against power, exactly.

Run by hand (never from the test suite; needs numpy and scipy, the test extras)::

    python benchmarks/spending.py

For one input × 100 pairs and 20 inputs × 10 rounds, the better arm at 80 % and the other
0, 10, 20 and 30 points lower (every input at the same rates), it follows the pooled counts
through the exact boundaries of each spending function (the design's own
``groupseq.exact_boundaries``) by dynamic programming — no simulation — and prints the chance
of finding the difference and the share of the runs saved, next to the fixed-run score test
of every pair. Kim and DeMets's power family α·t^ρ (ρ = 2, the default, 2.5, 3) and
O'Brien–Fleming-type spending. docs/statistics.rst ("Why α·t²") quotes this output.
"""

from __future__ import annotations

import numpy as np
from pytest_probability.extensions.comparisons.statistics import groupseq
from scipy.signal import fftconvolve
from scipy.stats import binom

ALPHA = 0.05
BETTER = 0.8


def _power_family(rho: float):
    return lambda t, alpha: alpha * min(max(t, 0.0), 1.0) ** rho


FUNCTIONS = {
    "power-2": groupseq.SPENDING[groupseq.QUADRATIC],
    "power-2.5": _power_family(2.5),
    "power-3": _power_family(3.0),
    "obrien-fleming": groupseq.SPENDING[groupseq.OBRIEN_FLEMING],
}


def _z(n: int, size: tuple[int, int]) -> np.ndarray:
    xa = np.arange(size[0])[:, None]
    xb = np.arange(size[1])[None, :]
    total = xa + xb
    spread = total * (2 * n - total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(spread > 0, (xa - xb) * np.sqrt(2 * n / np.maximum(spread, 1)), 0.0)


def run(bounds: tuple[float, ...], per_look: int, arm: float, base: float) -> tuple[float, float]:
    """(chance of crossing, share of the pairs saved) through ``bounds``."""
    step = np.outer(
        binom.pmf(np.arange(per_look + 1), per_look, arm),
        binom.pmf(np.arange(per_look + 1), per_look, base),
    )
    mass = np.ones((1, 1))
    found = used = 0.0
    looks = len(bounds)
    for k in range(1, looks + 1):
        mass = np.clip(fftconvolve(mass, step), 0.0, None)
        crossed = np.abs(_z(k * per_look, mass.shape)) >= bounds[k - 1] - 1e-12
        share = float(mass[crossed].sum())
        found += share
        used += share * k
        mass = np.where(crossed, 0.0, mass)
    used += float(mass.sum()) * looks
    return found, 1.0 - used / looks


def fixed(per_look: int, looks: int, arm: float, base: float) -> float:
    """The fixed-run score test of every pair at α."""
    n = per_look * looks
    a = binom.pmf(np.arange(n + 1), n, arm)
    b = binom.pmf(np.arange(n + 1), n, base)
    cut = 1.959963984540054  # (the two-sided 5 % normal quantile)
    return float((np.outer(a, b) * (np.abs(_z(n, (n + 1, n + 1))) >= cut)).sum())


def main() -> None:
    for per_look, looks in ((1, 100), (20, 10)):
        print(f"{per_look} input(s) × {looks} {'pairs' if per_look == 1 else 'rounds'}")
        for difference in (0.0, 0.1, 0.2, 0.3):
            found = fixed(per_look, looks, BETTER, BETTER - difference)
            print(f"  {round(100 * difference):>2} pp  fixed run: finds {100 * found:5.1f}%")
        for name, spend in FUNCTIONS.items():
            groupseq.SPENDING["bench"] = spend
            bounds, level = groupseq.exact_boundaries(per_look, looks, ALPHA, "bench")
            groupseq.exact_boundaries.cache_clear()
            cells = []
            for difference in (0.0, 0.1, 0.2, 0.3):
                found, saved = run(bounds, per_look, BETTER, BETTER - difference)
                points = round(100 * difference)
                cells.append(f"{points} pp {100 * found:5.1f}% {100 * saved:5.1f}%")
            print(f"  {name:<15} level {100 * level:.3f}%  " + "  ".join(cells))


if __name__ == "__main__":
    main()
