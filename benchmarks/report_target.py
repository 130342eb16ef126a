"""The report phase of issue 22's reference session, against pytest's own end-of-session floor.

    python benchmarks/report_target.py [--inputs 500] [--runs 3] [--rounds 5]

The reference session: one bench function over ``INPUTS`` inputs and a two-armed ``prompt``
axis (``2 × INPUTS`` cases, 1,000 by default) run ``RUNS`` times each, with
``--prob-bootstrap=5000 --prob-compare=prompt --prob-metric=pass^3,pass@3`` (about half the
runs fail, so the failures extension groups them too). The floor: the same number of plain
pytest items with the same outcomes (``-p no:probability``). Both run with ``--tb=no -rN``
in child processes; a small timing plugin wraps ``pytest_sessionfinish`` (``tryfirst``, so
the whole end of the session: the plugin's report, the JSON if any, and pytest's terminal
summary printed from inside it) and writes its CPU seconds. The two alternate round by
round, best round of each kept (bytecode cached by an unmeasured warm-up). Prints both, the
difference (the plugin's report phase beyond pytest's floor) and the issue's target, 0.25 s.
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

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    start = time.process_time()
    try:
        return (yield)
    finally:
        with open("end.json", "w") as handle:
            json.dump({"seconds": time.process_time() - start}, handle)
"""

BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("prompt", ["terse", "verbose"])
@pytest.mark.parametrize("i", range({inputs}))
def bench_answer(i, prompt):
    assert current_run().run <= (i * 7 + len(prompt)) % 4
"""

PLAIN = """
import pytest

@pytest.mark.parametrize("run", range(1, {runs} + 1))
@pytest.mark.parametrize("prompt", ["terse", "verbose"])
@pytest.mark.parametrize("i", range({inputs}))
def test_answer(i, prompt, run):
    assert run <= (i * 7 + len(prompt)) % 4
"""

FEATURES = ["--prob-bootstrap=5000", "--prob-compare=prompt", "--prob-metric=pass^3,pass@3"]


def session_end(root: Path, args: list[str], env: dict[str, str]) -> float:
    """One session's end-of-session CPU seconds."""
    command = [sys.executable, "-m", "pytest", "-q", "--tb=no", "-rN", "-p", "end_timer"]
    subprocess.run(command + args, cwd=root, env=env, stdout=subprocess.DEVNULL, check=False)
    return float(json.loads((root / "end.json").read_text())["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prob-report-target-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "end_timer.py").write_text(TIMER)
        (root / "bench_answer.py").write_text(BENCH.format(inputs=args.inputs))
        (root / "test_answer.py").write_text(PLAIN.format(inputs=args.inputs, runs=args.runs))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPATH"] = str(root)
        variants = {
            "plugin": ["bench_answer.py", f"--prob-runs={args.runs}", *FEATURES],
            "pytest floor": ["test_answer.py", "-p", "no:probability"],
        }
        best: dict[str, float] = {}
        for variant in variants.values():
            session_end(root, variant, env)  # warm-up: bytecode written, not measured
        for _ in range(args.rounds):
            for name, variant in variants.items():
                seconds = session_end(root, variant, env)
                best[name] = min(best.get(name, seconds), seconds)
    cases = 2 * args.inputs
    print(f"{cases} cases x {args.runs} runs, {' '.join(FEATURES)}")
    for name, seconds in best.items():
        print(f"  {name:<13} end of session {seconds:.3f} s CPU  (best of {args.rounds})")
    beyond = best["plugin"] - best["pytest floor"]
    print(f"  report phase beyond pytest's floor: {beyond:.3f} s (target 0.25 s)")


if __name__ == "__main__":
    main()
