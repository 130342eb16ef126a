"""Time the report phase of a large session: building the report (fractions, intervals,
function-level lines) and writing the JSON, then printing the terminal summary.

Run by hand (never from the test suite)::

    python benchmarks/report_phase.py [--cases 1000] [--runs 10] [--functions 2]

It writes a bench file whose cases pass a deterministic, varied number of their runs, runs
pytest once in a subprocess with a small timing plugin, and prints the seconds spent in
``pytest_sessionfinish`` (report building + JSON) and ``pytest_terminal_summary``, the JSON's
size, the whole session's wall time and its peak memory (``ru_maxrss`` of the child). The
scale target (issue 11): 10,000 cases × 10 runs under 1 GB, the report phase under 10 s and
the JSON under 100 MB: ``python benchmarks/report_phase.py --cases 10000 --runs 10``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

TIMER = """
import json, time
import pytest

TIMES = {}

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        TIMES["sessionfinish"] = time.perf_counter() - start

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        TIMES["terminal_summary"] = time.perf_counter() - start

def pytest_unconfigure(config):
    with open("times.json", "w") as handle:
        json.dump(TIMES, handle)
"""


def bench_source(cases: int, functions: int) -> str:
    per_function = cases // functions
    parts = ["import pytest", "from pytest_probability import current_run", ""]
    for index in range(functions):
        parts.append(
            textwrap.dedent(
                f"""
                @pytest.mark.parametrize("i", range({per_function}))
                def bench_f{index}(i):
                    assert current_run().run <= (i * 7 + {index}) % 11
                """
            )
        )
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--functions", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prob-report-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "bench_big.py").write_text(bench_source(args.cases, args.functions))
        (root / "report_timer.py").write_text(TIMER)
        env = dict(os.environ, PYTHONPATH=str(root))
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--tb=no",
            "-rN",
            "-p",
            "no:cacheprovider",
            "-p",
            "report_timer",
            f"--prob-runs={args.runs}",
            "--prob-json=report.json",
        ]
        started = time.perf_counter()
        subprocess.run(command, cwd=root, env=env, stdout=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB → MiB
        times = json.loads((root / "times.json").read_text())
        size = (root / "report.json").stat().st_size
    items = args.cases * args.runs
    print(f"{args.cases} cases × {args.runs} runs = {items} items, {args.functions} functions")
    # the terminal summary is printed from inside pytest_sessionfinish: subtract it
    building = times["sessionfinish"] - times["terminal_summary"]
    print(f"  build report + write JSON: {building:.3f} s")
    print(f"  terminal summary:          {times['terminal_summary']:.3f} s")
    print(f"  JSON report size:          {size / 1e6:.1f} MB")
    print(f"  whole session (wall):      {wall:.1f} s")
    print(f"  peak memory (max RSS):     {peak:.0f} MiB")


if __name__ == "__main__":
    main()
