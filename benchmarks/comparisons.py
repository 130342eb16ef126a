"""Time the comparisons extension at scale: INPUTS paired inputs × ARMS arms.

Run by hand (never from the test suite)::

    python benchmarks/comparisons.py [--inputs 500] [--arms 3] [--runs 10] [--bootstrap 5000]

It writes a bench function parametrized over INPUTS inputs and ARMS arms whose runs pass a
deterministic, varied number of times, runs pytest once in a subprocess with
``--prob-compare=arm`` and a small timing plugin, and prints the seconds the comparisons
extension spends building every comparison (its ``pytest_sessionfinish``: tests, bootstrap,
sign-flip, adjustment) and contributing the section and JSON (its
``pytest_prob_build_report``). The target (issue 6): under 0.5 s in total for 500 inputs × 3
arms with 5000 resamples.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

TIMER = """
import functools, json, os, time
import pytest

TIMES = {}

def _timed(function, key):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMES[key] = TIMES.get(key, 0.0) + time.perf_counter() - start
    return wrapper

@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    plugin = config.pluginmanager.get_plugin("probability.comparisons")
    for name in ("pytest_sessionfinish", "pytest_prob_build_report"):
        for impl in getattr(config.hook, name).get_hookimpls():
            if impl.plugin is plugin:
                impl.function = _timed(impl.function, name)

def pytest_unconfigure(config):
    with open(os.environ["COMPARISONS_TIMES"], "w") as handle:
        json.dump(TIMES, handle)
"""

BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("arm", [f"a{{i}}" for i in range({arms})])
@pytest.mark.parametrize("item", range({inputs}))
def bench_pick(item, arm):
    passes = (item * 7 + int(arm[1:]) * 3) % ({runs} + 1)
    assert current_run().run <= passes
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=500)
    parser.add_argument("--arms", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--bootstrap", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prob-comparisons-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "_comparisons_timer.py").write_text(TIMER)
        (root / "bench_pick.py").write_text(
            textwrap.dedent(BENCH.format(inputs=args.inputs, arms=args.arms, runs=args.runs))
        )
        times_path = root / "times.json"
        env = {**os.environ, "COMPARISONS_TIMES": str(times_path), "PYTHONPATH": str(root)}
        env.pop("PYTEST_ADDOPTS", None)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "_comparisons_timer",
            f"--prob-runs={args.runs}",
            f"--prob-bootstrap={args.bootstrap}",
            "--prob-compare=arm",
            "--tb=no",
            "--no-header",
        ]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        times = json.loads(times_path.read_text())
        lines = done.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if "probability: comparisons" in line)
        print("\n".join(lines[start : start + args.arms + 1]))
    build = times.get("pytest_sessionfinish", 0.0)
    report = times.get("pytest_prob_build_report", 0.0)
    print(
        f"\n{args.inputs} inputs x {args.arms} arms x {args.runs} runs, "
        f"{args.bootstrap} resamples:\n"
        f"  building the comparisons (sessionfinish)  {build:.3f} s\n"
        f"  section and JSON (build_report)           {report:.3f} s\n"
        f"  total                                     {build + report:.3f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
