"""Ten comparisons under sequential stopping: what each multiplicity correction finds
(issue 36 §3).

Run by hand (never from the test suite)::

    python benchmarks/sequential_multiplicity.py [--sessions 2000] [--seed 0]

Ten arms against one shared baseline arm, one input × 100 runs each, monitored pair by pair
on the default ``horizon`` design through the stopper's rule — with boundaries at α/10 for a
family correction (``--prob-adjust=bonferroni|holm|bh``, as the session designs them), at α
without one, and at α for Holm too ("holm at α", for comparison); two arms 40 points better
than the baseline (40 % → 80 %), then every arm equal (at 50 %). For each correction of
``--prob-adjust`` on the p-values the report gives (the stagewise p at the stop), and for
the fixed-run comparison of every run (Fisher's p), it prints the share of the two real
differences found, the chance of finding both, the family-wise error rate and the false
discovery rate, at α = 5 %. The computation is ``multiplicity_table`` of
tests/test_comparisons_multiplicity_sim.py (which checks a small version of it); the table in
docs/statistics.rst is this script's output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_comparisons_multiplicity_sim import multiplicity_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    power = multiplicity_table(args.sessions, seed=args.seed)
    null = multiplicity_table(args.sessions, seed=args.seed + 1, true_arms=0, base=0.5)
    print("correction    two real differences: found  both   FWER    FDR   all equal: FWER")
    for name, row in power.items():
        print(
            f"{name:<12} {100 * row['found']:>28.1f}% {100 * row['all']:>5.1f}%"
            f" {100 * row['fwer']:>5.1f}% {100 * row['fdr']:>5.1f}%"
            f" {100 * null[name]['fwer']:>16.1f}%"
        )


if __name__ == "__main__":
    main()
