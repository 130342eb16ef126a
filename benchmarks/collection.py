"""What collecting run items costs, against pytest collecting as many plain test items.

    python benchmarks/collection.py [--cases 200] [--runs 10] [--rounds 7]

Writes two files in a fresh directory: ``bench_col.py``, one bench function parametrized
over ``CASES`` inputs (``CASES × RUNS`` run items under ``--prob-runs=RUNS``), and
``test_col.py``, one test function parametrized over the same inputs and over ``RUNS`` run
numbers (as many plain ``Function`` items, collected by pytest alone with
``-p no:probability``). Each session is a child process (``pytest --collect-only -qq``,
bytecode cached by an unmeasured warm-up) whose CPU time between ``pytest_collection``
and ``pytest_collection_finish`` is written by a small timing plugin. The two variants
alternate round by round and the best round of each is kept, so a machine that other work
shares moves both alike. Prints both times, their ratio, and the time per item.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TIMER = """
import json, time
import pytest

START = []

@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    START.append(time.process_time())

@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    seconds = time.process_time() - START[0]
    with open("collection.json", "w") as handle:
        json.dump({"seconds": seconds, "items": len(session.items)}, handle)
"""

BENCH = """
import pytest

@pytest.mark.parametrize("i", range({cases}))
def bench_case(i):
    assert i % 7 != 0
"""

PLAIN = """
import pytest

@pytest.mark.parametrize("run", range(1, {runs} + 1))
@pytest.mark.parametrize("i", range({cases}))
def test_case(i, run):
    assert i % 7 != 0
"""


def collect(root: Path, args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """One collection session: its collection CPU seconds and item count."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-qq", "-p", "col_timer"]
    subprocess.run(command + args, cwd=root, env=env, stdout=subprocess.DEVNULL, check=True)
    measured = json.loads((root / "collection.json").read_text())
    return float(measured["seconds"]), int(measured["items"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prob-collection-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "col_timer.py").write_text(TIMER)
        (root / "bench_col.py").write_text(BENCH.format(cases=args.cases))
        (root / "test_col.py").write_text(PLAIN.format(cases=args.cases, runs=args.runs))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPATH"] = str(root)
        variants = {
            "plugin": ["bench_col.py", f"--prob-runs={args.runs}", "-p", "no:randomly"],
            "plain pytest": ["test_col.py", "-p", "no:probability", "-p", "no:randomly"],
        }
        best: dict[str, float] = {}
        items: dict[str, int] = {}
        for variant in variants.values():
            collect(root, variant, env)  # warm-up: bytecode written, not measured
        for _ in range(args.rounds):
            for name, variant in variants.items():
                seconds, items[name] = collect(root, variant, env)
                best[name] = min(best.get(name, seconds), seconds)
    for name, seconds in best.items():
        per_item = seconds / items[name] * 1e6
        print(f"{name:<13} {items[name]:>6} items  {seconds:.3f} s CPU  {per_item:.1f} µs/item")
    ratio = best["plugin"] / best["plain pytest"]
    print(f"plugin / plain pytest: {ratio:.2f}x  (best of {args.rounds})")


if __name__ == "__main__":
    main()
