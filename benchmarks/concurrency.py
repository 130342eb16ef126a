"""Up to K runs in flight in one process: ``--prob-concurrency=K`` (issue 37, section 5).

    python benchmarks/concurrency.py [--runs-total 1000] [--cases 40] [--latency 0.2]
                                     [--ks 1,4,16,64] [--variants async-http,...]
                                     [--xdist-ks 4,16] [--full] [--no-xdist] [--rounds 1]
    python benchmarks/concurrency.py --quick      # R = 200 runs: about five minutes

Every session is one child process ``python -m pytest -q -p no:cacheprovider
--prob-runs=RUNS`` on one bench function parametrized over ``CASES`` inputs, so it makes
``R = CASES x RUNS`` runs (default 40 cases x 25 runs = 1,000), each a pytest item whose
body waits ``L`` seconds (default 0.2, an LLM call's order of magnitude). Variants:

* ``async-http``: ``async def`` body, a GET on a local HTTP server through
  ``asyncio.open_connection`` (hand-written HTTP/1.1 request); the server answers after L;
* ``async-sleep``: ``async def`` body, ``await asyncio.sleep(L)``;
* ``thread-http``: plain body with ``--prob-threads``, the same GET through ``urllib``;
* ``thread-sleep``: plain body with ``--prob-threads``, ``time.sleep(L)``;
* ``xdist``: the plain ``time.sleep(L)`` body under pytest-xdist ``-n K`` and no
  ``--prob-concurrency`` (K processes instead of K runs in one process).

The HTTP server is a ``ThreadingHTTPServer`` in a thread of this script; the request says
how long to wait (``/?delay=L``). Each variant runs with ``--prob-concurrency=K`` for every
K. For each session it prints the child's wall time (``time.monotonic`` around it) and the
target ``1.3 x R x L / K + start-up``, where start-up is the wall time of the same session
(same R, K and variant) with L = 0, so it holds everything but the waiting: interpreter
start, collection, the per-run overhead and the report. It also prints the child's peak RSS
(``ru_maxrss`` from ``os.wait4``) and the memory per run in flight,
``(peak RSS at K - peak RSS at K=1) / K`` (target at most 2 MB). The xdist rows take the
peak of the summed RSS of the controller and its workers (``/proc``, sampled every 50 ms)
against a serial session of the same body with L = 0, so what they show per worker is
a whole interpreter. For the HTTP variants the server counts the most requests it held at
once (K, when the scheduler keeps K runs in flight). Every session must exit 0 and print
``R passed``; a session that does not is marked ``!`` and its output is printed at the end.
Nothing asserts a duration.

K = 1 at the defaults waits 200 s per variant: ``--quick`` (R = 200), ``--runs-total``,
``--latency``, ``--ks`` and ``--variants`` make shorter runs. ``--full`` adds xdist at
``-n 64`` (64 interpreters on a small machine take a while to start). Run it with the
Python of an environment that has the plugin and pytest-xdist installed.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

HEADER = """
import asyncio
import time
import urllib.request

import pytest

PORT = {port}
LATENCY = {latency!r}
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({{}}))  # no proxy
"""

BODIES = {
    "async-http": """
@pytest.mark.parametrize("i", range({cases}))
async def bench_http(i):
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    writer.write(
        f"GET /?delay={{LATENCY}}&i={{i}} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n"
        "Connection: close\\r\\n\\r\\n".encode()
    )
    await writer.drain()
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    assert data.split(b"\\r\\n", 1)[0].split()[1] == b"200"
""",
    "async-sleep": """
@pytest.mark.parametrize("i", range({cases}))
async def bench_sleep(i):
    await asyncio.sleep(LATENCY)
""",
    "thread-http": """
@pytest.mark.parametrize("i", range({cases}))
def bench_http(i):
    url = f"http://127.0.0.1:{{PORT}}/?delay={{LATENCY}}&i={{i}}"
    with OPENER.open(url, timeout=60) as response:
        assert response.status == 200
        response.read()
""",
    "thread-sleep": """
@pytest.mark.parametrize("i", range({cases}))
def bench_sleep(i):
    time.sleep(LATENCY)
""",
}
BODIES["xdist"] = BODIES["thread-sleep"]
VARIANTS = ("async-http", "async-sleep", "thread-http", "thread-sleep")


class Handler(BaseHTTPRequestHandler):
    """Answers ``200 ok`` after ``?delay=SECONDS``, counting the requests it holds."""

    lock = threading.Lock()
    held = 0
    peak = 0  # the most requests held at once since the last reset

    def do_GET(self) -> None:
        query = parse_qs(urlsplit(self.path).query)
        with Handler.lock:
            Handler.held += 1
            Handler.peak = max(Handler.peak, Handler.held)
        try:
            time.sleep(float(query.get("delay", ["0"])[0]))
        finally:
            with Handler.lock:
                Handler.held -= 1
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the listen backlog: 64 connections may arrive at once


@dataclass
class Session:
    wall: float
    rss_mb: float  # the child's own peak (ru_maxrss), or the tree's summed peak (xdist)
    ok: bool
    output: str


def tree_rss_kb(root: int) -> int:
    """The summed VmRSS of ``root`` and its descendants, in kB (Linux ``/proc``)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
    members, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in members:
                members.add(pid)
                frontier.append(pid)
    total = 0
    for pid in members:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def session(directory: Path, args: list[str], runs_total: int, tree: bool) -> Session:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    with tempfile.TemporaryFile("w+") as out:
        start = time.monotonic()
        child = subprocess.Popen(command, cwd=directory, env=env, stdout=out, stderr=out)
        peak_kb, done = 0, threading.Event()

        def sample() -> None:
            nonlocal peak_kb
            while not done.wait(0.05):
                peak_kb = max(peak_kb, tree_rss_kb(child.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        if tree:
            sampler.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
        done.set()
        child.returncode = os.waitstatus_to_exitcode(status)
        if tree:
            sampler.join()
        out.seek(0)
        output = out.read()
    last = output.strip().splitlines()[-1] if output.strip() else ""
    passed = re.search(r"(\d+) passed", last)
    ok = (
        child.returncode == 0
        and passed is not None
        and int(passed.group(1)) == runs_total
        and not re.search(r"failed|error", last)
    )
    rss_mb = (peak_kb if tree else usage.ru_maxrss) / 1024
    return Session(wall, rss_mb, ok, output)


def best(directory: Path, args: list[str], runs_total: int, rounds: int, tree: bool) -> Session:
    """The round with the least wall time (a failed round is returned at once)."""
    kept: Session | None = None
    for _ in range(rounds):
        got = session(directory, args, runs_total, tree)
        if not got.ok:
            return got
        if kept is None or got.wall < kept.wall:
            kept = got
    assert kept is not None
    return kept


def write(directory: Path, variant: str, port: int, latency: float, cases: int) -> str:
    name = f"bench_{variant.replace('-', '_')}_{'l0' if latency == 0 else 'l'}.py"
    text = HEADER.format(port=port, latency=latency) + BODIES[variant].format(cases=cases)
    (directory / name).write_text(text)
    return name


def versions() -> str:
    code = "import pytest, xdist; print(pytest.__version__, xdist.__version__)"
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    pytest_version, _, xdist_version = found.stdout.strip().partition(" ")
    return (
        f"{os.cpu_count()} cores ({platform.machine()}), Linux {platform.release()}, "
        f"Python {platform.python_version()}, pytest {pytest_version or '?'}, "
        f"pytest-xdist {xdist_version or 'not installed'}, load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-total", type=int, default=1000, help="R (default 1000)")
    parser.add_argument("--cases", type=int, default=40, help="inputs; runs = R / cases")
    parser.add_argument("--latency", type=float, default=0.2, help="L in seconds")
    parser.add_argument("--ks", default="1,4,16,64")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--xdist-ks", default="4,16")
    parser.add_argument("--full", action="store_true", help="xdist at -n 64 too")
    parser.add_argument("--no-xdist", action="store_true")
    parser.add_argument("--quick", action="store_true", help="R = 200 (40 cases x 5 runs)")
    parser.add_argument("--rounds", type=int, default=1, help="sessions per cell; the fastest")
    args = parser.parse_args()
    if args.quick:
        args.runs_total = 200
    if args.runs_total % args.cases:
        parser.error(f"--runs-total {args.runs_total} is not a multiple of --cases {args.cases}")
    runs = args.runs_total // args.cases
    total = args.runs_total
    ks = sorted({int(k) for k in args.ks.split(",")} | {1})
    variants = [v for v in args.variants.split(",") if v]
    for variant in variants:
        if variant not in VARIANTS:
            parser.error(f"unknown variant {variant!r}: expected some of {', '.join(VARIANTS)}")
    xdist_ks = [] if args.no_xdist else sorted({int(k) for k in args.xdist_ks.split(",")})
    if args.full and not args.no_xdist and 64 not in xdist_ks:
        xdist_ks.append(64)

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    machine = versions()
    failures: list[tuple[str, Session]] = []
    lines = [
        f"{args.cases} cases x {runs} runs = R {total} runs, L {args.latency} s; {machine}",
        "",
        "| variant | K | wall s | start-up s | target s | met | peak RSS MB | MB per run "
        "in flight | requests held at once |",
        "|---|---:|---:|---:|---:|:---:|---:|---:|---:|",
    ]

    def row(variant: str, k: int, args_: list[str], tree: bool, base_mb: float | None) -> float:
        waits = write(directory, variant, port, args.latency, args.cases)
        Handler.peak = 0
        slow = best(directory, [*args_, waits], total, args.rounds, tree)
        held = str(Handler.peak) if variant.endswith("http") else ""
        answers = write(directory, variant, port, 0.0, args.cases)  # start-up: L = 0
        fast = best(directory, [*args_, answers], total, args.rounds, tree)
        for label, got in (("", slow), (" L=0", fast)):
            if not got.ok:
                failures.append((f"{variant} K={k}{label}: {' '.join(args_)}", got))
        target = 1.3 * total * args.latency / k + fast.wall
        per_run = "" if base_mb is None or k == 1 else f"{(slow.rss_mb - base_mb) / k:.2f}"
        mark = "" if slow.ok and fast.ok else " !"
        lines.append(
            f"| {variant}{mark} | {k} | {slow.wall:.1f} | {fast.wall:.1f} | {target:.1f} | "
            f"{'yes' if slow.wall <= target else 'no'} | {slow.rss_mb:.1f} | {per_run} | "
            f"{held} |"
        )
        print(lines[-1], flush=True)
        return slow.rss_mb

    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        (directory / "pytest.ini").write_text("[pytest]\n")  # no repository settings
        common = [f"--prob-runs={runs}"]
        print("\n".join(lines), flush=True)
        warm = write(directory, "thread-sleep", port, 0.0, args.cases)
        session(directory, [*common, warm], total, tree=False)  # bytecode cached
        for variant in variants:
            threads = ["--prob-threads"] if variant.startswith("thread") else []
            base: float | None = None
            for k in ks:
                rss = row(variant, k, [*common, *threads, f"--prob-concurrency={k}"], False, base)
                if k == 1:
                    base = rss
        if xdist_ks:
            plain = write(directory, "xdist", port, 0.0, args.cases)
            serial = session(directory, [*common, plain], total, tree=True)
            lines.append(
                f"| serial sync, L=0 (xdist's base) | 1 | {serial.wall:.1f} | | | | "
                f"{serial.rss_mb:.1f} | | |"
            )
            print(lines[-1], flush=True)
            for k in xdist_ks:
                row("xdist", k, [*common, "-n", str(k)], True, serial.rss_mb)
    server.shutdown()
    print()
    print("\n".join(lines))
    for label, got in failures:
        print(f"\n! {label}\n{got.output[-3000:]}")


if __name__ == "__main__":
    main()
