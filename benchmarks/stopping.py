"""What the stopper costs per run: ``--prob-stop=curtail`` against ``--prob-stop=sequential``.

Run by hand (never from the test suite)::

    python benchmarks/stopping.py [--cases 60] [--runs 100] [--rounds 5]

Writes a bench file of ``--cases`` cases gated at ``min_rate=0.9`` (a third always pass, a
third pass 3 runs in 4, a third pass 9 runs in 10: clear, clearly failing and borderline
cases, as in the spec's example), runs it in child sessions under each rule, and times the
stopper's hook (``pytest_prob_skip_run``, asked before every run of a gated case) with a
small plugin: the first case's calls apart (they work out the gate's threshold table, once
per gate), then the total, the calls, and the cost per call and per run made of the other
cases. The two rules alternate round by round and the best round of each is kept, so a
machine that other work shares moves both alike; the ratio per call is the figure to read
(a skipped run's call is a lookup, so "per run made" favours the rule that makes more).

The sequential rule reads its rate gate on a confidence sequence whose pass and fail
thresholds per run count are worked out once per gate (``curtail.Thresholds``, the boundary
table the plan and ``--prob-explain`` read too), so after the first case its per-call cost
is curtailment's.
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

SPENT = {"seconds": 0.0, "calls": 0, "first": 0.0, "first_calls": 0}
FIRST = []

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_prob_skip_run(item, case):
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        spent = time.perf_counter() - start
        if not FIRST:
            FIRST.append(case.key)
        if case.key == FIRST[0]:  # the first case builds the gate's threshold table
            SPENT["first"] += spent
            SPENT["first_calls"] += 1
        else:
            SPENT["seconds"] += spent
            SPENT["calls"] += 1

def pytest_prob_run_finished(item, record):
    if record["outcome"] != "skip":
        name = "made_first" if FIRST and record["key"] == FIRST[0] else "made"
        SPENT[name] = SPENT.get(name, 0) + 1

def pytest_unconfigure(config):
    with open("spent.json", "w") as handle:
        json.dump({**SPENT, "first_key": FIRST[0] if FIRST else None}, handle)
"""

BENCH = """
import pytest
from pytest_probability import current_run

KINDS = {kinds!r}

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("case", range({cases}))
def bench_stop(case):
    run = current_run().run
    kind = KINDS[case % 3]
    if kind == "weak":
        assert run % 4 != 0
    elif kind == "borderline":
        assert run % 10 != 0
"""


def session(folder: Path, rule: str, runs: int) -> dict[str, float]:
    """One child session under ``rule``: the stopper's seconds and calls, and runs made."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += ["-p", "timer", f"--prob-runs={runs}", f"--prob-stop={rule}"]
    env["PYTHONPATH"] = str(folder)
    subprocess.run(args, cwd=folder, env=env, stdout=subprocess.DEVNULL, check=False)
    spent = json.loads((folder / "spent.json").read_text())
    spent.pop("first_key")
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "timer.py").write_text(TIMER)
        kinds = ("solid", "weak", "borderline")
        (folder / "bench_stop.py").write_text(BENCH.format(kinds=kinds, cases=options.cases))
        best: dict[str, dict[str, float]] = {}
        for _ in range(options.rounds):
            for rule in ("curtail", "sequential"):
                found = session(folder, rule, options.runs)
                if rule not in best or found["seconds"] < best[rule]["seconds"]:
                    best[rule] = found
    for rule, found in best.items():
        per_call = found["seconds"] / max(found["calls"], 1) * 1e6
        per_run = found["seconds"] / max(found["made"], 1) * 1e6
        print(
            f"{rule:<11} first case {found['first'] * 1e3:6.1f} ms over "
            f"{found['first_calls']:3.0f} calls (the threshold table); then "
            f"{found['seconds'] * 1e3:6.1f} ms over {found['calls']:5.0f} calls "
            f"({per_call:5.1f} µs each), {found['made']:.0f} runs made "
            f"({per_run:5.1f} µs per run made)"
        )

    def ratio(rule: str, per: str) -> float:
        return best[rule]["seconds"] / max(best[rule][per], 1)

    calls = ratio("sequential", "calls") / ratio("curtail", "calls")
    made = ratio("sequential", "made") / ratio("curtail", "made")
    print(
        f"sequential / curtail after the first case: {calls:.2f}x per call, {made:.2f}x per "
        f"run made (best of {options.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
