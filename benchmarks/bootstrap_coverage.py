"""Coverage of the bootstrap intervals over few inputs (issue 36 §4): how often the 95%
interval of the function-level (case) bootstrap and of the comparisons' paired bootstrap
covers the truth, for each ``--prob-bootstrap-method``.

Run by hand (never collected by the test suite), with the plugin installed::

    python benchmarks/bootstrap_coverage.py [--datasets 2000] [--resamples 5000]
        [--inputs 10,20,40] [--methods percentile,expanded,bca] [--jobs 1]

It prints one row per cell: coverage in percent with a 95% Clopper–Pearson interval over the
simulated datasets (the docs/statistics.rst table, "Bootstrap interval methods").

**Simulation model.** A benchmark's inputs are a random sample from a population of inputs;
each input has its own true pass rate, and its runs are independent Bernoulli draws at that
rate — so the runs of one input are correlated through the input (the intra-class
correlation of the 0/1 outcomes is ``1/(a + b + 1)`` for rates from Beta(a, b)). 10 runs per
input (per arm).

* ``rate`` cells (the function-level, Overall and metric lines): rates from Beta(4, 1)
  ("moderate": mean 0.8, sd 0.16, ρ = 0.17) or Beta(0.8, 0.2) ("polarized": mean 0.8, most
  inputs near always or never passing, ρ = 0.5). The interval is
  :func:`~pytest_probability.api.case_bootstrap_interval` of the per-input pass fractions.
* ``paired`` cells (a comparison with at least ``prob_min_inputs`` pairs): the baseline's rate
  on an input ``b`` from Beta(4, 1); the arm's rate on it ``expit(logit(b) + Δ + 0.5·Z)`` with
  Z standard normal, so the arm's effect differs from input to input but an input that is
  hard for one arm tends to be hard for the other (the pairing). Δ is set so that the
  population mean difference E[a − b] is exactly 0 or +10 points (:data:`SHIFTS`, checked
  by :func:`mean_difference`). The interval is
  :func:`~pytest_probability.extensions.comparisons.statistics.signflip.bootstrap_difference`
  of the per-input differences, as a comparison computes it.

**Estimand.** The population mean: the mean pass rate (difference) over the whole population
of inputs, not over the inputs that happened to be sampled. That is what the docs promise the
interval is for ("the mean pass rate over that population of inputs"), and it is what a
bootstrap over inputs estimates: re-drawing inputs reproduces the variation between inputs,
which the mean over the sampled inputs does not have (an interval for it would need only the
run-to-run noise, and would be narrower).

Each cell draws its datasets with ``random.Random`` seeded from the cell, and dataset ``i``
bootstraps with seed ``i`` (as sessions with different ``--prob-seed``); every method of a
cell reads the same datasets and resamples. Deterministic for the arguments.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

from pytest_probability.api import binomial_variate, case_bootstrap_interval
from pytest_probability.extensions.comparisons.statistics.signflip import bootstrap_difference
from pytest_probability.stats.rate_intervals import clopper_pearson

#: Rate populations: name → Beta shape (a, b).
POPULATIONS = {"moderate": (4.0, 1.0), "polarized": (0.8, 0.2)}
#: Paired cells: the spread of the arm's effect on the logit scale, and Δ for each true
#: population mean difference with baseline rates from Beta(4, 1) (solved with scipy's
#: ``dblquad`` and ``brentq`` to 1e-10; :func:`mean_difference` checks them).
SPREAD = 0.5
SHIFTS = {0.0: 0.052490542129725475, 0.1: 1.0205096557036473}
RUNS = 10
LEVEL = 0.95


def expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def logit(p: float) -> float:
    return math.log(p) - math.log1p(-p)


def mean_difference(shift: float, spread: float = SPREAD, steps: int = 400) -> float:
    """E[expit(logit(b) + shift + spread·Z)] − E[b] for b ~ Beta(4, 1) (density 4b³), by
    composite Simpson rules over b ∈ [0, 1] and Z ∈ [−8, 8] (accurate to ~1e-9)."""

    def simpson(f: Callable[[float], float], lo: float, hi: float, n: int) -> float:
        h = (hi - lo) / n
        total = f(lo) + f(hi)
        total += sum((4 if i % 2 else 2) * f(lo + i * h) for i in range(1, n))
        return total * h / 3

    def phi(z: float) -> float:
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def arm(b: float) -> float:
        if b <= 0.0:
            return 0.0
        if b >= 1.0:
            return 1.0
        x = logit(b) + shift
        return simpson(lambda z: expit(x + spread * z) * phi(z), -8.0, 8.0, steps)

    arm_mean = simpson(lambda b: 4 * b**3 * arm(b), 0.0, 1.0, steps)
    return arm_mean - 0.8


@dataclass(frozen=True)
class Cell:
    kind: str  # "rate" or "paired"
    population: str  # a POPULATIONS key, or "moderate" for paired
    difference: float  # paired: the true mean difference
    inputs: int
    datasets: int
    resamples: int
    methods: tuple[str, ...]

    @property
    def truth(self) -> float:
        if self.kind == "rate":
            a, b = POPULATIONS[self.population]
            return a / (a + b)
        return self.difference

    @property
    def name(self) -> str:
        if self.kind == "rate":
            return f"rate {self.population}"
        return f"paired {self.difference * 100:+.0f} pp"

    def seed(self) -> int:
        key = f"{self.kind}/{self.population}/{self.difference}/{self.inputs}"
        return sum(ord(c) * 31**i for i, c in enumerate(key)) % 2**31


def dataset(cell: Cell, rng: random.Random) -> list[float] | list[Fraction]:
    """One simulated session's per-input values: pass fractions, or differences."""
    if cell.kind == "rate":
        a, b = POPULATIONS[cell.population]
        out: list[float] = []
        for _ in range(cell.inputs):
            rate = rng.betavariate(a, b)
            out.append(binomial_variate(rng, RUNS, rate) / RUNS)
        return out
    shift = SHIFTS[cell.difference]
    differences: list[Fraction] = []
    for _ in range(cell.inputs):
        base = rng.betavariate(4.0, 1.0)
        base = min(max(base, 1e-300), 1.0 - 2**-53)
        arm = expit(logit(base) + shift + SPREAD * rng.gauss(0.0, 1.0))
        differences.append(
            Fraction(binomial_variate(rng, RUNS, arm), RUNS)
            - Fraction(binomial_variate(rng, RUNS, base), RUNS)
        )
    return differences


def interval(cell: Cell, values: Sequence, method: str, seed: int) -> tuple[float, float]:
    """The library's interval, as a session computes it."""
    if cell.kind == "rate":
        ids = [f"c{i:03d}" for i in range(len(values))]
        return case_bootstrap_interval(
            ids, values, resamples=cell.resamples, seed=seed, level=LEVEL, method=method
        )
    return bootstrap_difference(values, LEVEL, cell.resamples, seed, method)


def run_cell(cell: Cell) -> dict[str, int]:
    """Hits per method over the cell's datasets."""
    rng = random.Random(cell.seed())
    hits = dict.fromkeys(cell.methods, 0)
    for index in range(cell.datasets):
        values = dataset(cell, rng)
        for method in cell.methods:
            low, high = interval(cell, values, method, index)
            hits[method] += low <= cell.truth <= high
    return hits


def coverage_text(hits: int, total: int) -> str:
    ci = clopper_pearson(hits, total, 0.95)
    return f"{100 * hits / total:5.1f} [{100 * ci.low:4.1f}, {100 * ci.high:5.1f}]"


def cells(
    inputs: Sequence[int], datasets: int, resamples: int, methods: Sequence[str]
) -> list[Cell]:
    out = []
    for population in POPULATIONS:
        for n in inputs:
            out.append(Cell("rate", population, 0.0, n, datasets, resamples, tuple(methods)))
    for difference in SHIFTS:
        for n in inputs:
            out.append(
                Cell("paired", "moderate", difference, n, datasets, resamples, tuple(methods))
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=5000)
    parser.add_argument("--inputs", default="10,20,40")
    parser.add_argument("--methods", default="percentile,expanded,bca")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--check-truth", action="store_true", help="recompute E[a − b]")
    args = parser.parse_args()
    if args.check_truth:
        for difference, shift in SHIFTS.items():
            print(f"Δ = {shift:.6f}: E[a − b] = {mean_difference(shift):+.9f} ({difference:+})")
    methods = args.methods.split(",")
    todo = cells([int(n) for n in args.inputs.split(",")], args.datasets, args.resamples, methods)
    print(
        f"{args.datasets} datasets per cell, B = {args.resamples}, {RUNS} runs per input "
        f"(per arm), level {LEVEL}; coverage % [95% Clopper–Pearson]"
    )
    header = f"{'cell':<20} {'N':>3}  " + "  ".join(f"{m:<21}" for m in methods)
    print(header)
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for cell, hits in zip(todo, pool.map(run_cell, todo), strict=True):
            row = "  ".join(f"{coverage_text(hits[m], cell.datasets):<21}" for m in methods)
            print(f"{cell.name:<20} {cell.inputs:>3}  {row}", flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
