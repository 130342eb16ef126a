"""How long a SIGTERM held in the report phase waits (issue 35 §2).

Run by hand (never from the test suite)::

    python benchmarks/held_signal.py [--arms 20] [--inputs 10] [--runs 3] [--bootstrap 1000000]

It writes a bench file comparing ``--arms`` arms of one axis against the first, each with a
margin (so every comparison is a gate bootstrapped at ``--bootstrap`` resamples), and a
plugin that sends the process SIGTERM as the run loop ends, then runs pytest once in a
subprocess with the JSON and HTML reports. It prints the seconds from the signal to the end
of the session (the reports are written meanwhile), the process's exit status and the JSON
report's ``exit_status`` (both 2). The issue measured 185 s for 19 comparisons at the
largest ``--prob-bootstrap``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BENCH = """
import pytest
from pytest_probability import current_run

ARMS = [f"p{{i}}" for i in range({arms})]


@pytest.mark.probability(compare="arm", baseline="p0", margin=0.1)
@pytest.mark.parametrize("arm", ARMS)
@pytest.mark.parametrize("q", range({inputs}))
def bench_ab(q, arm):
    assert (current_run().run + q + len(arm)) % 4 != 0
"""
SENDER = """
import os, signal, time
import pytest

SENT = {}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session):
    try:
        return (yield)
    finally:
        SENT["at"] = time.perf_counter()
        os.kill(os.getpid(), signal.SIGTERM)


def pytest_unconfigure(config):
    if "at" in SENT:
        print(f"\\nHELD FOR {time.perf_counter() - SENT['at']:.2f} s")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", type=int, default=20)
    parser.add_argument("--inputs", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bootstrap", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        (where / "bench_ab.py").write_text(BENCH.format(arms=args.arms, inputs=args.inputs))
        (where / "conftest.py").write_text(textwrap.dedent(SENDER))
        done = subprocess.run(
            [
                sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                f"--prob-runs={args.runs}", f"--prob-bootstrap={args.bootstrap}",
                "--prob-json=r.json", "--prob-html=r.html",
            ],
            cwd=where, capture_output=True, text=True, check=False,
        )  # fmt: skip
        held = [line for line in done.stdout.splitlines() if line.startswith("HELD FOR")]
        report = json.loads((where / "r.json").read_text(encoding="utf-8"))
        print(f"{args.arms - 1} comparisons, --prob-bootstrap={args.bootstrap}")
        print(held[0] if held else "the signal was not held")
        print(f"exit status {done.returncode}; JSON exit_status {report['exit_status']}")


if __name__ == "__main__":
    main()
