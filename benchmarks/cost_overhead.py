"""What recording cost and usage adds to a session.

Run by hand (never collected by the test suite)::

    python benchmarks/cost_overhead.py [--cases 200] [--runs 10] [--calls 5] [--repeat 7]

Two bench files with the same ``CASES`` cases × ``--prob-runs=RUNS``: ``quiet`` (the body
asserts and returns) and ``recording`` (the same body plus ``CALLS`` ``record_usage`` and
``CALLS`` ``record_cost`` calls per run). Each session is a fresh
``python -m pytest -q -p no:cacheprovider`` subprocess (hash seed 0, bytecode cached in the
temporary directory), the two alternate (order flipped every round) after one warm-up round;
wall and CPU times are reported as medians and minimums, with the relative difference and the
cost per recording call, and as the median of the paired per-round differences (the
steadiest figure on a shared machine, whose speed drifts from one minute to the next).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUIET = """\
import pytest

@pytest.mark.parametrize("i", range({cases}))
def bench_quiet(i):
    assert i >= 0
"""

RECORDING = """\
import pytest
from pytest_probability import record_cost, record_usage

@pytest.mark.parametrize("i", range({cases}))
def bench_recording(i):
    for call in range({calls}):
        record_usage(model="m-small" if call % 2 else "m-large", input_tokens=1200,
                     output_tokens=80, cached_input_tokens=640, cost=0.0001)
        record_cost(0.0002)
    assert i >= 0
"""


def session_env(directory: Path) -> dict[str, str]:
    """The environment of every session: no PYTEST_ADDOPTS or PYTEST_PLUGINS, a fixed hash
    seed, and a bytecode cache in the temporary directory (filled in the warm-up round), so
    no session compiles modules whatever PYTHONDONTWRITEBYTECODE says."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(directory / "_pycache")
    env["PYTHONHASHSEED"] = "0"
    return env


def run(directory: Path, name: str, runs: int) -> tuple[float, float]:
    """One session: (wall seconds, CPU seconds of the child)."""
    env = session_env(directory)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--prob-runs={runs}",
            f"bench_{name}.py",
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"session {name} failed:\n{result.stdout}\n{result.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--calls", type=int, default=5, help="record_usage and record_cost calls each"
    )
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "pytest.ini").write_text("[pytest]\n")
        (directory / "bench_quiet.py").write_text(QUIET.format(cases=args.cases))
        (directory / "bench_recording.py").write_text(
            RECORDING.format(cases=args.cases, calls=args.calls)
        )
        times: dict[str, list[tuple[float, float]]] = {"quiet": [], "recording": []}
        for round_index in range(args.repeat + 1):
            order = ["quiet", "recording"] if round_index % 2 else ["recording", "quiet"]
            for name in order:
                measured = run(directory, name, args.runs)
                if round_index:  # round 0 warms caches and is not counted
                    times[name].append(measured)
    items = args.cases * args.runs
    calls = items * args.calls * 2
    print(
        f"{args.cases} cases x {args.runs} runs = {items} items; "
        f"{args.calls} record_usage + {args.calls} record_cost per run; "
        f"median of {args.repeat} sessions each"
    )
    for index, kind in enumerate(("wall", "cpu")):
        paired = statistics.median(
            (r[index] - q[index]) / q[index]
            for q, r in zip(times["quiet"], times["recording"], strict=True)
        )
        print(f"  {kind:4} paired  median of per-round differences  {100 * paired:+.1f}%")
        for label, pick in (("median", statistics.median), ("min", min)):
            quiet = pick(t[index] for t in times["quiet"])
            recording = pick(t[index] for t in times["recording"])
            extra = recording - quiet
            print(
                f"  {kind:4} {label:6}  quiet {quiet:.3f} s  recording {recording:.3f} s  "
                f"{100 * extra / quiet:+.1f}%  ({1e6 * extra / calls:+.2f} µs per call)"
            )


if __name__ == "__main__":
    main()
