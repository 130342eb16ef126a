"""What collecting run items costs, against pytest collecting as many plain test items.

    python benchmarks/collection.py [--cases 200] [--runs 10] [--rounds 7]

Writes two files in a fresh directory: ``bench_col.py``, one bench function parametrized
over ``CASES`` inputs (``CASES × RUNS`` run items under ``--prob-runs=RUNS``), and
``test_col.py``, one test function parametrized over the same inputs and over ``RUNS`` run
numbers (as many plain ``Function`` items, collected by pytest alone with
``-p no:probability``). Each session is a child process (``pytest --collect-only -qq``,
bytecode cached by an unmeasured warm-up) whose CPU time between ``pytest_collection``
and ``pytest_collection_finish`` is written by a small timing plugin. Each variant is also
collected at a tenth of the size: the difference is the cost per item beyond fixed costs
(the plugin imports its collection machinery when it meets the first bench file, work
that an unrelated session no longer pays at start-up, so it falls in this window). The
variants alternate round by round and the best round of each is kept, so a machine that
other work shares moves them alike. Prints the window, the cost per item, and both ratios.
A third variant, ``bare items``, collects as many bare ``pytest.Item`` objects from a file
plugin (no function, fixtures or parametrization): the floor for anything pytest collects
as items, and the ratios are also given against it.
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


#: the floor for any item pytest holds: a file plugin yielding bare ``pytest.Item``s (no
#: function, no fixtures, no parametrization), as many as the other variants have
BARE = """
import pytest


class BareItem(pytest.Item):
    def runtest(self):
        pass


class BareFile(pytest.File):
    def collect(self):
        for n in range(int(self.path.read_text())):
            yield BareItem.from_parent(self, name=f"item{n}")


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".bare":
        return BareFile.from_parent(parent, path=file_path)
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
    small = max(1, args.cases // 10)
    with tempfile.TemporaryDirectory(prefix="prob-collection-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "col_timer.py").write_text(TIMER)
        (root / "col_bare.py").write_text(BARE)
        for size, name in ((args.cases, "col"), (small, "small")):
            (root / f"bench_{name}.py").write_text(BENCH.format(cases=size))
            (root / f"test_{name}.py").write_text(PLAIN.format(cases=size, runs=args.runs))
            (root / f"{name}.bare").write_text(str(size * args.runs))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPATH"] = str(root)
        plugin = [f"--prob-runs={args.runs}", "-p", "no:randomly"]
        plain = ["-p", "no:probability", "-p", "no:randomly"]
        variants = {
            ("plugin", "large"): ["bench_col.py", *plugin],
            ("plugin", "small"): ["bench_small.py", *plugin],
            ("plain pytest", "large"): ["test_col.py", *plain],
            ("plain pytest", "small"): ["test_small.py", *plain],
            ("bare items", "large"): ["col.bare", "-p", "col_bare", *plain],
            ("bare items", "small"): ["small.bare", "-p", "col_bare", *plain],
        }
        best: dict[tuple[str, str], float] = {}
        items: dict[tuple[str, str], int] = {}
        for variant in variants.values():
            collect(root, variant, env)  # warm-up: bytecode written, not measured
        for _ in range(args.rounds):
            for key, variant in variants.items():
                seconds, items[key] = collect(root, variant, env)
                best[key] = min(best.get(key, seconds), seconds)
    marginal: dict[str, float] = {}
    for name in ("plugin", "plain pytest", "bare items"):
        large, few = (name, "large"), (name, "small")
        seconds = best[large]
        print(f"{name:<13} {items[large]:>6} items  {seconds:.3f} s CPU  (window)")
        extra = items[large] - items[few]
        marginal[name] = (best[large] - best[few]) / extra
        print(f"{'':<13} {marginal[name] * 1e6:.1f} µs per item beyond the first {items[few]}")
    for floor in ("plain pytest", "bare items"):
        window = best[("plugin", "large")] / best[(floor, "large")]
        per_item = marginal["plugin"] / marginal[floor]
        print(
            f"plugin / {floor}: {window:.2f}x the window, {per_item:.2f}x per item "
            f"(best of {args.rounds})"
        )


if __name__ == "__main__":
    main()
