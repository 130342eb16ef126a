"""Failure output grouped per case against pytest's per-run output: terminal lines and the
time the session takes to end.

Run by hand (never from the test suite)::

    python benchmarks/failures.py [--rounds 5] [--tb short]

Two suites, as in issue 26: 100 cases × 10 runs with half of the cases failing every run,
and 1,000 cases × 10 runs with 10% failing every run (an assertion on a model's answer
whose text varies with the case, so pytest prints a full diff for each). Each runs in a
subprocess with ``--prob-failures=grouped`` (the default) and ``--prob-failures=all``,
alternating, ``-q --tb=short``, 80 columns and no ``CI`` variable (as in a terminal). It
prints, per suite and mode, the lines pytest printed, the failure output's lines (the
``FAILURES`` section and the short summary) per failing case, and the median time of
``pytest_sessionfinish`` — building the report and printing the whole terminal summary,
which pytest does inside it — measured by a small plugin in the child; then the ratios
grouped / all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

TIMER = """
import json, time
import pytest

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        with open("times.json", "w") as handle:
            json.dump({"sessionfinish": time.perf_counter() - start}, handle)
"""

#: (name, cases, runs, every how many cases one fails)
SUITES = (("100 x 10, half failing", 100, 10, 2), ("1,000 x 10, 10% failing", 1000, 10, 10))


def bench_source(cases: int, every: int) -> str:
    return textwrap.dedent(
        f"""
        import pytest

        def answer(i):
            return "other" if i % {every} == 0 else f"label {{i}}"

        @pytest.mark.parametrize("i", range({cases}))
        def bench_classify(i):
            assert answer(i) == f"label {{i}}"
        """
    )


def failure_lines(lines: list[str]) -> int:
    """Lines of the FAILURES section and of the short test summary."""
    count, inside = 0, False
    for line in lines:
        title = re.match(r"=+ (.+?) =+$", line)
        if title:
            inside = title.group(1) in ("FAILURES", "short test summary info")
        elif inside:
            count += 1
    return count


def session(root: Path, mode: str, runs: int, tb: str) -> tuple[list[str], float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("CI", None)
    env.pop("BUILD_NUMBER", None)
    env["COLUMNS"] = "80"
    env["PYTHONPATH"] = str(root)
    command = [sys.executable, "-m", "pytest", "-p", "prob_failures_timer", "-q"]
    command += ["-p", "no:cacheprovider", "-p", "no:randomly", f"--tb={tb}"]
    command += [f"--prob-runs={runs}", f"--prob-failures={mode}"]
    done = subprocess.run(
        command,
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    times = json.loads((root / "times.json").read_text())
    return done.stdout.splitlines(), times["sessionfinish"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tb", default="short")
    args = parser.parse_args()
    for name, cases, runs, every in SUITES:
        failing = len(range(0, cases, every))
        with tempfile.TemporaryDirectory(prefix="prob-failures-") as tmp:
            root = Path(tmp)
            (root / "prob_failures_timer.py").write_text(TIMER)
            (root / "bench_classify.py").write_text(bench_source(cases, every))
            session(root, "grouped", runs, args.tb)  # warm-up: bytecode, disk caches
            lines: dict[str, list[str]] = {}
            times: dict[str, list[float]] = {"grouped": [], "all": []}
            for _ in range(args.rounds):
                for mode in ("grouped", "all"):
                    lines[mode], seconds = session(root, mode, runs, args.tb)
                    times[mode].append(seconds)
        print(f"{name}: {cases * runs:,} runs, {failing} failing cases, --tb={args.tb}")
        medians = {mode: statistics.median(found) for mode, found in times.items()}
        for mode in ("grouped", "all"):
            shown = failure_lines(lines[mode])
            print(
                f"  {mode:8} {len(lines[mode]):6,} lines  failure output {shown:6,} lines "
                f"({shown / failing:5.1f} per failing case)  session end {medians[mode]:.3f}s"
            )
        print(
            f"  grouped/all: lines {len(lines['grouped']) / len(lines['all']):.3f}x, "
            f"failure output {failure_lines(lines['grouped']) / failure_lines(lines['all']):.3f}x, "
            f"session end {medians['grouped'] / medians['all']:.3f}x"
        )


if __name__ == "__main__":
    main()
