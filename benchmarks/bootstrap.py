"""Time the case bootstrap behind the function-level and Overall intervals.

Run by hand (never collected by the test suite), with the plugin installed::

    python benchmarks/bootstrap.py [--resamples 5000] [--repeat 5]

Each row times one ``bootstrap_mean_interval(values, resamples=B, seed=0, level=0.95)`` call
(the median of ``--repeat`` runs, after one warm-up) for a synthetic set of per-case pass
fractions:

* ``1000 cases, x/10``     — 1000 cases with k = 10 runs: 11 distinct values (grouped path,
  multinomial counts by conditional binomials); the target is under 0.3 s at B = 5000;
* ``1000 cases, uniform``  — the same with the 11 values equally frequent (every
  conditional binomial is then large: the slowest grouped case);
* ``1000 cases, distinct`` — 1000 different values (index-drawing path);
* ``10000 cases, x/10``    — 10,000 cases with k = 10 runs;
* ``40 cases, x/10``       — the spec's ``N=40 inputs × k=10`` function line;
* ``1000 cases, k=5..10``  — uneven run counts (up to 35 distinct fractions).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from pytest_probability.extensions.intervals.sampling import bootstrap_mean_interval


def fractions_x_over_k(cases: int, runs: Callable[[random.Random], int], seed: int) -> list[float]:
    """Per-case pass fractions, true rates from Beta(4, 1), run counts from ``runs``."""
    rng = random.Random(seed)
    out = []
    for _ in range(cases):
        k = runs(rng)
        rate = rng.betavariate(4.0, 1.0)
        out.append(sum(rng.random() < rate for _ in range(k)) / k)
    return out


def datasets() -> list[tuple[str, list[float]]]:
    """The benchmark rows: (name, per-case values)."""
    rng = random.Random(2)
    return [
        ("1000 cases, x/10", fractions_x_over_k(1000, lambda r: 10, seed=1)),
        ("1000 cases, uniform", [rng.randint(0, 10) / 10 for _ in range(1000)]),
        ("1000 cases, distinct", [rng.random() for _ in range(1000)]),
        ("10000 cases, x/10", fractions_x_over_k(10_000, lambda r: 10, seed=3)),
        ("40 cases, x/10", fractions_x_over_k(40, lambda r: 10, seed=4)),
        ("1000 cases, k=5..10", fractions_x_over_k(1000, lambda r: r.randint(5, 10), seed=5)),
    ]


def main(argv: list[str] | None = None) -> int:
    """Time every row and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resamples", type=int, default=5000, help="B (default 5000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per row (default 5)")
    args = parser.parse_args(argv)

    print(f"bootstrap_mean_interval, B={args.resamples}, median of {args.repeat} runs")
    print(f"{'data':<22} {'distinct':>8} {'median s':>9} {'min s':>7}  interval")
    for name, values in datasets():
        bootstrap_mean_interval(values, resamples=args.resamples, seed=0, level=0.95)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            low, high = bootstrap_mean_interval(
                values, resamples=args.resamples, seed=0, level=0.95
            )
            times.append(time.perf_counter() - start)
        print(
            f"{name:<22} {len(set(values)):>8} {statistics.median(times):>9.3f} "
            f"{min(times):>7.3f}  [{low:.4f}, {high:.4f}]"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
