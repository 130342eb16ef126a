"""The runs a sequential comparison saves against the fixed-run comparison (issue 25).

Run by hand (never from the test suite)::

    python benchmarks/sequential_ab.py [--sessions 400] [--resamples 1000] [--seed 0]

For 20 inputs × 10 runs and 1 input × 100 runs, at true differences of 0, 10, 20 and 30
points (the better arm at about 80 %, each input's rate spread around it), it simulates
sessions through the stopper's rule (``--prob-stop=sequential``, 95 %, resolution 5 points)
under both designs (``horizon``, the default, and ``anytime``) and the fixed-run comparison
of every planned run (paired bootstrap over inputs, or Newcombe's interval for one input),
and prints the runs saved and how often each finds the difference (issues 25 and 36).
The computation is ``saved_table`` of tests/test_comparisons_sequential_sim.py (which checks
a small version of it); the table in docs/comparisons.rst is this script's output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_comparisons_sequential_sim import saved_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        "inputs × runs  difference   horizon: saved  finds   anytime: saved  finds"
        "   fixed run: finds"
    )
    for inputs, runs, difference, saved, found, old_saved, old_found, fixed in saved_table(
        args.sessions, args.resamples, args.seed
    ):
        print(
            f"{inputs:>6} × {runs:<6} {round(100 * difference):>6} pp"
            f"  {100 * saved:>13.1f}% {100 * found:>5.1f}%"
            f"  {100 * old_saved:>14.1f}% {100 * old_found:>5.1f}%"
            f"  {100 * fixed:>17.1f}%"
        )


if __name__ == "__main__":
    main()
