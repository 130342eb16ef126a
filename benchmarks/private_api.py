"""What the kernel's uses of pytest internals save a whole session (issue 34, section 4).

    python benchmarks/private_api.py [--cases 100] [--runs 20] [--body-ms 1] [--rounds 5]
    python benchmarks/private_api.py --instructions [--cases 50] [--runs 10]

Two shortcuts in ``core/collector.py`` read pytest's private API to save work per run item:
``RunCopier`` copies a case's first run item for the other runs (``_initrequest``,
``keywords._markers``) instead of building each through ``from_parent``, and
``direct_arguments`` hands directly parametrized values to the body without pytest's fixture
request (``_fixtureinfo``, ``get_direct_param_fixture_func``). The issue keeps a private API
only where it saves at least 10% of a realistic session's wall time.

Each session is a child process, ``pytest -q -p no:cacheprovider --prob-runs=RUNS`` on one
bench function parametrized over ``CASES`` inputs whose body sleeps ``BODY_MS`` (a fast local
model or service; an LLM call takes 200 ms or more, which makes every difference smaller).
Variants, alternated round by round (the best round of each is kept): ``as shipped``;
``no copies`` (every run built by ``BenchRun.from_parent``, as pytest builds items);
``no direct arguments`` (every run's arguments through pytest's fixture request); ``neither``.
Prints each variant's wall time and its ratio to ``as shipped``.

On a shared machine timings drift by more than the differences measured; ``--instructions``
counts instead the instructions each variant's session executes under
``valgrind --tool=callgrind`` (hash seed 0, bytecode cached, the body not sleeping): a
count that repeats to a few hundred instructions, and the saving it shows is the most any
session can gain (a body that waits only adds time the shortcuts do not touch).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = """
import time
import pytest

@pytest.mark.parametrize("i", range({cases}))
def bench_case(i):
    time.sleep({body})
    assert i >= 0
"""

#: run pytest in the child with the shortcut(s) switched off by replacing the functions
RUNNER = """
import sys
import pytest
from pytest_probability.collection import collector

variant = sys.argv[1]
if variant in ("no-copies", "neither"):
    def run(self, run, _from_parent=collector.BenchRun.from_parent):
        first = self.first
        return _from_parent(
            first.parent,
            name=first.case.run_item_name(run),
            callspec=getattr(first, "callspec", None),
            callobj=first.obj,
            fixtureinfo=first._fixtureinfo,
            originalname=first.case.function,
            case=first.case,
            run=run,
            place=first.location[:2],
            hooks=first.ihook,
            direct_arguments=first._direct_arguments,
        )
    collector.RunCopier.run = run
if variant in ("no-direct", "neither"):
    collector.direct_arguments = lambda generated: None
sys.exit(pytest.main(sys.argv[2:]))
"""

VARIANTS = ("as-shipped", "no-copies", "no-direct", "neither")


def session(directory: Path, variant: str, runs: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, variant, "-q", "-p", "no:cacheprovider",
         f"--prob-runs={runs}", "bench_private.py"],
        cwd=directory, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{variant} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def instructions(directory: Path, variant: str, runs: int) -> int:
    command = [sys.executable, "-c", RUNNER, variant, "-q", "-p", "no:cacheprovider",
               f"--prob-runs={runs}", "bench_private.py"]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    subprocess.run(command, cwd=directory, env=env, capture_output=True, check=True)  # warm
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=directory, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = re.search(r"Collected : ([0-9]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind failed for {variant}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--body-ms", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    if args.instructions:
        with tempfile.TemporaryDirectory() as name:
            directory = Path(name)
            (directory / "bench_private.py").write_text(BENCH.format(cases=args.cases, body=0))
            counts = {variant: instructions(directory, variant, args.runs) for variant in VARIANTS}
        print(f"{args.cases} cases x {args.runs} runs, body 0 ms: instructions per session")
        for variant in VARIANTS:
            ratio = counts[variant] / counts["as-shipped"]
            print(f"  {variant:<12} {counts[variant]:>15,}  {ratio:.4f}x")
        return
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        (directory / "bench_private.py").write_text(
            BENCH.format(cases=args.cases, body=args.body_ms / 1000)
        )
        session(directory, "as-shipped", args.runs)  # warm-up: bytecode cached
        best = dict.fromkeys(VARIANTS, float("inf"))
        for _ in range(args.rounds):
            for variant in VARIANTS:
                best[variant] = min(best[variant], session(directory, variant, args.runs))
    items = args.cases * args.runs
    print(f"{args.cases} cases x {args.runs} runs = {items} run items, body {args.body_ms} ms")
    for variant in VARIANTS:
        ratio = best[variant] / best["as-shipped"]
        print(f"  {variant:<12} {best[variant]:7.2f} s  {ratio:.3f}x")


if __name__ == "__main__":
    main()
