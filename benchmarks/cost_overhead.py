"""What recording cost and usage adds to a session.

Run by hand (never collected by the test suite)::

    python benchmarks/cost_overhead.py [--cases 200] [--runs 10] [--calls 5] [--repeat 60]

Two bench files with the same ``CASES`` cases × ``--prob-runs=RUNS``: ``quiet`` (the body
asserts and returns) and ``recording`` (the same body plus ``CALLS`` ``record_usage`` and
``CALLS`` ``record_cost`` calls per run). Each session is a fresh
``python -m pytest -q -p no:cacheprovider`` subprocess (hash seed 0, bytecode cached in the
temporary directory). After one unmeasured session of each, they alternate, starting and
ending with a quiet one, so every recording session sits between two quiet ones: its
*bracketed* difference (against their mean) cancels the drift of a shared machine, whose
speed moves from one minute to the next. Wall and CPU times are reported as the median of
the bracketed differences, with a distribution-free 95% interval for that median, and as the
medians and minimums of the sessions, with the cost per recording call.
"""

from __future__ import annotations

import argparse
import math
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
    parser.add_argument(
        "--repeat", type=int, default=60, help="recording sessions (each between two quiet ones)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "pytest.ini").write_text("[pytest]\n")
        (directory / "bench_quiet.py").write_text(QUIET.format(cases=args.cases))
        (directory / "bench_recording.py").write_text(
            RECORDING.format(cases=args.cases, calls=args.calls)
        )
        run(directory, "quiet", args.runs)  # warm-up: fills the bytecode cache, not counted
        run(directory, "recording", args.runs)
        times: dict[str, list[tuple[float, float]]] = {"quiet": [], "recording": []}
        for _ in range(args.repeat):  # quiet, recording, quiet, ..., recording, quiet
            times["quiet"].append(run(directory, "quiet", args.runs))
            times["recording"].append(run(directory, "recording", args.runs))
        times["quiet"].append(run(directory, "quiet", args.runs))
    report(times, args)


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """A distribution-free interval for the median: the order statistics whose ranks a
    Binomial(n, 1/2) count puts the median between with at least ``level`` probability."""
    ordered = sorted(values)
    n = len(ordered)
    tail = 0.0
    lower = 0
    for k in range(n // 2):  # the largest k with P(count <= k) <= (1 - level) / 2
        tail += math.comb(n, k) / 2**n
        if tail > (1 - level) / 2:
            break
        lower = k + 1
    if lower == 0:
        return ordered[0], ordered[-1]
    return ordered[lower - 1], ordered[n - lower]


def report(times: dict[str, list[tuple[float, float]]], args: argparse.Namespace) -> None:
    items = args.cases * args.runs
    calls = items * args.calls * 2
    print(
        f"{args.cases} cases x {args.runs} runs = {items} items; "
        f"{args.calls} record_usage + {args.calls} record_cost per run; "
        f"{args.repeat} recording sessions, each between two quiet ones"
    )
    quiet_times, recording_times = times["quiet"], times["recording"]
    for index, kind in enumerate(("wall", "cpu")):
        bracketed = [
            recording[index] / ((before[index] + after[index]) / 2) - 1
            for before, recording, after in zip(
                quiet_times, recording_times, quiet_times[1:], strict=False
            )
        ]
        low, high = median_interval(bracketed)
        print(
            f"  {kind:4} bracketed  median {100 * statistics.median(bracketed):+.1f}%  "
            f"95% interval for the median [{100 * low:+.1f}%, {100 * high:+.1f}%]"
        )
        for label, pick in (("median", statistics.median), ("min", min)):
            quiet = pick(t[index] for t in quiet_times)
            recording = pick(t[index] for t in recording_times)
            extra = recording - quiet
            print(
                f"  {kind:4} {label:9}  quiet {quiet:.3f} s  recording {recording:.3f} s  "
                f"{100 * extra / quiet:+.1f}%  ({1e6 * extra / calls:+.2f} µs per call)"
            )


if __name__ == "__main__":
    main()
