"""Instruction counts under valgrind: the deterministic version of overhead.py and
cost_overhead.py.

Run by hand (never collected by the test suite); needs ``valgrind`` on PATH::

    python benchmarks/instructions.py [--cases 200] [--runs 10] [--calls 5]
                                      [--pairs overhead,cost]

Wall and CPU times on a shared machine move by 10–20% from one minute to the next, which
hides a difference of a few percent. Instructions executed barely move: each session runs
once under ``valgrind --tool=callgrind`` (hash seed 0, bytecode cached by an unmeasured
warm-up run first; a rerun of the same code gives the same count to a few hundred
instructions) and the script prints the instructions of each side and their ratio.

Pairs:

* ``overhead``: plain pytest running ``CASES*RUNS`` parametrized ``test_`` items
  (``-p no:probability``) against the plugin running ``CASES`` bench cases ×
  ``--prob-runs=RUNS``; the same files as ``overhead.py``'s pass pair.
* ``cost``: the plugin session without and with ``CALLS`` ``record_usage`` and ``CALLS``
  ``record_cost`` calls per run; the same files as ``cost_overhead.py``.

Instructions are not time: an instruction that misses the cache costs more than one that
hits, so read the ratio next to the timed scripts, not instead of them. A session of 2,000
items takes about 45 seconds under valgrind.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# the sibling scripts' session files and environment (this directory is on sys.path when a
# script in it runs)
from cost_overhead import QUIET, RECORDING, session_env
from overhead import PLAIN_FILE

COLLECTED = re.compile(r"Collected : (\d+)")


_counted: dict[tuple[str, ...], int] = {}


def count(python: str, directory: Path, args: list[str]) -> int:
    """Instructions executed by one ``python -m pytest ARGS`` session under callgrind
    (each distinct session once: the count does not change)."""
    key = (python, str(directory), *args)
    if key not in _counted:
        _counted[key] = _count(python, directory, args)
    return _counted[key]


def _count(python: str, directory: Path, args: list[str]) -> int:
    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    env = session_env(directory)
    warm = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True)
    if warm.returncode != 0:
        raise SystemExit(f"session failed: {' '.join(args)}\n{warm.stdout}\n{warm.stderr}")
    measured = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    found = COLLECTED.search(measured.stderr)
    if measured.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed: {' '.join(args)}\n{measured.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--calls", type=int, default=5, help="cost pair: calls of each kind")
    parser.add_argument("--pairs", default="overhead,cost", help="overhead, cost or both")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the sessions")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH")
    pairs = [name.strip() for name in args.pairs.split(",") if name.strip()]
    unknown = sorted(set(pairs) - {"overhead", "cost"})
    if unknown:
        raise SystemExit(f"--pairs: unknown pair {unknown[0]!r} (overhead, cost)")
    items = args.cases * args.runs
    runs = f"--prob-runs={args.runs}"
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "pytest.ini").write_text("[pytest]\n")
        files = {
            "test_trivial.py": PLAIN_FILE.format(
                cases=args.cases, runs=args.runs, condition="i >= 0"
            ),
            "bench_quiet.py": QUIET.format(cases=args.cases),
            "bench_recording.py": RECORDING.format(cases=args.cases, calls=args.calls),
        }
        for name, text in files.items():
            (directory / name).write_text(text)
        print(f"{args.cases} cases x {args.runs} runs = {items} items per session")
        if "overhead" in pairs:
            plain = count(args.python, directory, ["-p", "no:probability", "test_trivial.py"])
            plugin = count(args.python, directory, [runs, "bench_quiet.py"])
            print(
                f"  overhead  plain {plain:,}  plugin {plugin:,}  plugin/plain "
                f"{plugin / plain:.3f}x  ({(plugin - plain) / items:+,.0f} per item)"
            )
        if "cost" in pairs:
            quiet = count(args.python, directory, [runs, "bench_quiet.py"])
            recording = count(args.python, directory, [runs, "bench_recording.py"])
            calls = items * args.calls * 2
            print(
                f"  cost      quiet {quiet:,}  recording {recording:,}  "
                f"{100 * (recording - quiet) / quiet:+.2f}%  "
                f"({(recording - quiet) / calls:+,.0f} per call)"
            )


if __name__ == "__main__":
    main()
