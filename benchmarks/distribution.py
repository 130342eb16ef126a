"""Case-aware scheduling against pytest-xdist's own ``--dist load`` on the same items.

Run by hand (never from the test suite)::

    python benchmarks/distribution.py [--cases 200] [--runs 20] [--sleep 0.005] [--workers 2]

Three sessions with CASES × RUNS items whose body sleeps SLEEP seconds: the plugin's bench
items with ``-n WORKERS`` (the case-aware scheduler keeps each case's runs on one worker);
the same plugin session on pytest-xdist's own load scheduling (``-p _xdist_load``, a
generated plugin that answers ``pytest_xdist_make_scheduler`` before the kernel); and the
same number of plain ``test_`` items with ``-p no:probability -n WORKERS --dist load``.
Prints each session's best and median wall time and the plugin session's items per worker
(from its JSON report). The target (issue 12): the case-aware session is no slower than
``--dist load``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

BENCH = """
import time
import pytest

@pytest.mark.parametrize("i", range({cases}))
def bench_sleep(i):
    time.sleep({sleep})
"""
PLAIN = """
import time
import pytest

@pytest.mark.parametrize("i", range({items}))
def test_sleep(i):
    time.sleep({sleep})
"""


#: loaded with ``-p _xdist_load``: the same plugin session on pytest-xdist's own load
#: scheduling (tryfirst, so it answers before the kernel's case-aware scheduler)
XDIST_LOAD = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScheduling
    return LoadScheduling(config, log)
"""


def run(root: Path, args: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS",)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sleep", type=float, default=0.005)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    items = options.cases * options.runs
    with tempfile.TemporaryDirectory(prefix="prob-dist-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "bench_sleep.py").write_text(BENCH.format(cases=options.cases, sleep=options.sleep))
        (root / "test_sleep.py").write_text(PLAIN.format(items=items, sleep=options.sleep))
        workers = ["-n", str(options.workers)]
        case_aware: list[float] = []
        plugin_on_load: list[float] = []
        load: list[float] = []
        (root / "_xdist_load.py").write_text(XDIST_LOAD)
        bench = [*workers, f"--prob-runs={options.runs}", "bench_sleep.py"]
        plugin_load = ["-p", "_xdist_load", *bench]
        plain = ["-p", "no:probability", *workers, "--dist", "load", "test_sleep.py"]
        sessions = [(case_aware, bench), (plugin_on_load, plugin_load), (load, plain)]
        for index in range(options.repeat):  # rotating, so no session is always first
            for times, args in sessions[index % 3 :] + sessions[: index % 3]:
                times.append(run(root, args))
        run(root, [*bench, "--prob-json=r.json"])  # untimed: which worker ran what
        per_worker = Counter(
            r["worker"] for r in json.loads((root / "r.json").read_text())["records"]
        )
    print(f"{items} items ({options.cases} cases × {options.runs} runs), body {options.sleep}s, "
          f"-n {options.workers}, {options.repeat} sessions each")  # fmt: skip
    print(
        f"  case-aware (plugin):         best {min(case_aware):.2f} s"
        f"  median {statistics.median(case_aware):.2f} s"
    )
    print(
        f"  --dist load (plugin):        best {min(plugin_on_load):.2f} s"
        f"  median {statistics.median(plugin_on_load):.2f} s"
    )
    print(
        f"  --dist load (plain pytest):  best {min(load):.2f} s"
        f"  median {statistics.median(load):.2f} s"
    )
    print(f"  plugin items per worker:     {dict(sorted(per_worker.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
