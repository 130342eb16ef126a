"""Time ``--prob-plan`` per case, including the hard one: a bar just under the assumed rate.

Run by hand (never from the test suite)::

    python benchmarks/plan.py [--repeat 5]

For each (bar, assumed rate, planned runs) it plans one case the way the plan extension does
(minimum runs, runs for 80% power, the chance of passing, the expected runs under sequential
stopping, the chance to catch each flake) with the exact (Clopper–Pearson) gate at 95% exactly as
the gates extension judges it, and prints the median time. The target (issue 8): no case over 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

from pytest_probability.extensions.gates.rate import RateSpec, rate_verdict
from pytest_probability.extensions.intervals.service import Settings
from pytest_probability.extensions.plan.power import catch_chance, pass_chance, runs_for_power
from pytest_probability.extensions.stopping.curtail import Thresholds
from pytest_probability.extensions.stopping.planning import expected_runs_sequential

CASES = [(0.9, 0.97, 40), (0.9, 0.97, 100), (0.96, 0.97, 100), (0.96, 0.97, 1000), (0.5, 0.6, 200)]


def plan_once(bar: float, assume: float, planned: int) -> tuple[int | None, float]:
    spec = RateSpec(bar, Settings("exact", 0.95, (1.0, 1.0)))
    thresholds = Thresholds(lambda passes, n: rate_verdict(spec, passes, n, None))  # type: ignore[arg-type]
    power = runs_for_power(thresholds, assume, start=1)
    pass_chance(thresholds, planned, assume)
    expected_runs_sequential(bar, 0.95, planned, assume)
    for flake in (0.1, 0.01):
        catch_chance(planned, flake)
    return power, 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("bar   assume  runs   80% power   median ms")
    for bar, assume, planned in CASES:
        times = []
        power = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            power, _ = plan_once(bar, assume, planned)
            times.append((time.perf_counter() - start) * 1000)
        print(f"{bar:<5} {assume:<7} {planned:<6} {power!s:<11} {statistics.median(times):8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
