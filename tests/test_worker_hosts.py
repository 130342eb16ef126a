"""pytest-xdist workers on another host (issue 37 §7–§9), on the test bed of tests/hosts.py:
each worker behind execnet's socket server in its own mount namespace, the controller's
temporary directory hidden from it, its environment only what ``--tx …//env`` gives.

Results equal a one-machine session's, a budget's overshoot stays within the runs a remote
worker is handed, and a host that disappears mid-session ends the session with one message
and every report written.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import EXPLORATORY_BENCH, load_json, section, stable
from hosts import WorkerHost

#: the ``worker_hosts`` fixture (tests/conftest.py): starts one more host per call
Hosts = Callable[[], WorkerHost]

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]

#: a gate with curtailment, a function-level line, steps and an error: what must travel
GATED = """
import os
import re
import pytest
from pytest_probability import current_run


@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("i", range(8))
def bench_gated(i):
    run = current_run().run
    assert (run * (i + 1)) % 4 != 0 or i == 3


def bench_env():
    assert os.environ.get("BENCH_KEY") == "from-tx"


def bench_steps():
    yield {"label": "one", "passed": True}
    yield {"label": "two", "passed": current_run().run != 2}
"""


#: what differs between two sessions of the same seeds: the time the page was made, measured
#: durations, and the worker that made each run
_TIMINGS = re.compile(
    r"created [0-9: -]+|data-lat=\"[^\"]*\"|-?[0-9][0-9.,]*\s?(µs|ms|s)\b|\bgw[0-9]+\b"
)


def _without_timings(path: Path) -> str:
    """An HTML report with its timings and worker names blanked."""
    return _TIMINGS.sub("·", path.read_text(encoding="utf-8"))


def _tx(hosts: Hosts, workers: int, chdir: Path, **env: str) -> list[str]:
    args = ["--dist", "load", "-p", "no:randomly"]
    for _ in range(workers):
        args += ["--tx", hosts().spec(chdir, **env)]
    return args


def test_two_hosts_give_the_one_machine_report(
    pytester: pytest.Pytester, worker_hosts: Hosts
) -> None:
    """Fractions, gate verdicts under curtailment, steps, the function-level lines and the
    Markdown summary are those of ``-n 2`` on one machine; the environment reaches the remote workers only
    through ``--tx …//env``."""
    pytester.makepyfile(bench_hosts=GATED)
    common = ("--prob-runs=8", "--prob-stop=curtail", "-p", "no:randomly")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCH_KEY", "from-tx")
        local = pytester.runpytest_subprocess(
            *common,
            "-n",
            "2",
            "--prob-json=local.json",
            "--prob-markdown=local.md",
            "--prob-html=local.html",
        )
    remote = pytester.runpytest_subprocess(
        *common,
        "--prob-json=remote.json",
        "--prob-markdown=remote.md",
        "--prob-html=remote.html",
        *_tx(worker_hosts, 2, pytester.path, BENCH_KEY="from-tx"),
    )
    assert remote.ret == local.ret
    one, two = load_json(pytester.path / "local.json"), load_json(pytester.path / "remote.json")
    assert stable(two["rows"]) == stable(one["rows"])
    assert stable(two["aggregates"]) == stable(one["aggregates"])
    outcomes = [{(r["case"], r["run"]): r["outcome"] for r in x["records"]} for x in (one, two)]
    assert outcomes[1] == outcomes[0]
    assert {record["worker"] for record in two["records"]} == {"gw0", "gw1"}
    assert section(remote.outlines) == section(local.outlines)
    markdown = [
        (pytester.path / name).read_text(encoding="utf-8") for name in ("local.md", "remote.md")
    ]
    assert markdown[1] == markdown[0] and "| gated::7 |" in markdown[0]
    pages = [_without_timings(pytester.path / name) for name in ("local.html", "remote.html")]
    assert pages[1] == pages[0] and "gated::7" in pages[0]
    # without the env spec the remote worker does not see the controller's environment
    bare = pytester.runpytest_subprocess(
        "--prob-runs=1", "-k", "env", *_tx(worker_hosts, 1, pytester.path)
    )
    assert bare.ret == 1


BUDGET = """
import pytest
from pytest_probability import record_cost


@pytest.mark.parametrize("i", range(20))
def bench_paid(i):
    record_cost(0.01)
"""


def test_a_budget_holds_across_hosts(pytester: pytest.Pytester, worker_hosts: Hosts) -> None:
    """$0.20 at $0.01 a run over two remote workers, which cannot read the controller's
    tally file: the controller hands each at most two runs at a time, so the session
    overshoots by at most two runs per worker (docs/budget.rst)."""
    pytester.makepyfile(bench_paid=BUDGET)
    result = pytester.runpytest_subprocess(
        "--prob-runs=5", "--prob-budget=0.20", "--prob-json=r.json",
        *_tx(worker_hosts, 2, pytester.path),
    )  # fmt: skip
    report = load_json(pytester.path / "r.json")
    made = [r for r in report["records"] if r["outcome"] != "skip"]
    assert 20 <= len(made) <= 20 + 2 * 2, len(made)
    assert result.ret == 1  # (a session its budget cut exits 1 without --prob-budget-ok)
    assert report["budget"]["reached"] is True


OVERLAPPED = """
import asyncio
import pytest
from pytest_probability import current_run, record_cost

PEAK = {"in": 0, "peak": 0}


@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("i", range(4))
async def bench_waits(i):
    PEAK["in"] += 1
    PEAK["peak"] = max(PEAK["peak"], PEAK["in"])
    try:
        for _ in range(4000):  # (counted attempts: until 4 runs of this worker are in flight)
            if PEAK["peak"] >= 4:
                break
            await asyncio.sleep(0.005)
        assert PEAK["peak"] >= 4, "never 4 in flight"
    finally:
        PEAK["in"] -= 1
    record_cost(0.001 * i)
    assert (current_run().run + i) % 3 != 0
"""


def test_each_host_keeps_k_runs_in_flight(pytester: pytest.Pytester, worker_hosts: Hosts) -> None:
    """``--prob-concurrency`` works inside each remote worker (it is sent a case's runs
    together), and the report is the one a single process makes."""
    pytester.makepyfile(bench_waits=OVERLAPPED)
    common = ("--prob-runs=6", "--prob-concurrency=4", "-p", "no:randomly")
    local = pytester.runpytest_subprocess(*common, "--prob-json=local.json")
    remote = pytester.runpytest_subprocess(
        *common, "--prob-json=remote.json", *_tx(worker_hosts, 2, pytester.path)
    )
    assert remote.ret == local.ret == 1
    assert "never 4 in flight" not in remote.stdout.str()
    one, two = load_json(pytester.path / "local.json"), load_json(pytester.path / "remote.json")
    assert stable(two["rows"]) == stable(one["rows"])
    assert [row["passes"] for row in two["rows"]] == [4, 4, 4, 4]
    assert {record["worker"] for record in two["records"]} == {"gw0", "gw1"}


def test_a_comparison_without_a_margin_stops_across_hosts(
    pytester: pytest.Pytester, worker_hosts: Hosts
) -> None:
    """No file is shared: the controller reads the monitored function from the order of the
    collection the remote workers send, keeps it on one worker, and it stops where a
    serial session stops it."""
    pytester.makepyfile(bench_ab=EXPLORATORY_BENCH)
    common = ("--prob-runs=30", "--prob-stop=sequential", "-p", "no:randomly")
    serial = pytester.runpytest_subprocess(*common, "--prob-json=s.json")
    remote = pytester.runpytest_subprocess(
        *common, "--prob-json=r.json", *_tx(worker_hosts, 2, pytester.path)
    )
    assert remote.ret == serial.ret
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "r.json")
    assert two["comparisons"] == one["comparisons"]
    assert one["comparisons"][0]["detail"]["settled_after"] < 30
    assert len({r["worker"] for r in two["records"] if r["case"].startswith("ab::")}) == 1
    assert {r["worker"] for r in two["records"]} == {"gw0", "gw1"}


def test_a_baseline_margin_holds_across_hosts(
    pytester: pytest.Pytester, worker_hosts: Hosts
) -> None:
    """``--prob-baseline`` with ``--prob-margin``: the remote workers read the baseline
    report from their working directory, and the rows, the baseline comparisons and the
    terminal's probability section are those of ``-n 2`` on one machine."""
    pytester.makepyfile(bench_hosts=GATED)
    base = pytester.runpytest_subprocess("--prob-runs=8", "-p", "no:randomly", "--prob-json=b.json")
    assert (pytester.path / "b.json").exists(), base.outlines
    pytester.makepyfile(bench_hosts=GATED.replace("% 4 != 0", "% 3 != 0"))
    common = ("--prob-runs=8", "--prob-baseline=b.json", "--prob-margin=0.1", "-p", "no:randomly")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCH_KEY", "from-tx")
        local = pytester.runpytest_subprocess(*common, "-n", "2", "--prob-json=local.json")
    remote = pytester.runpytest_subprocess(
        *common,
        "--prob-json=remote.json",
        *_tx(worker_hosts, 2, pytester.path, BENCH_KEY="from-tx"),
    )
    assert remote.ret == local.ret == 1
    one, two = load_json(pytester.path / "local.json"), load_json(pytester.path / "remote.json")
    assert stable(two["rows"]) == stable(one["rows"])
    assert two["baseline"] == one["baseline"] and one["baseline"]["functions"]
    assert section(remote.outlines) == section(local.outlines)


LOST = """
import os
import re
import time
import pytest
from pytest_probability import current_run


@pytest.mark.parametrize("i", range(6))
def bench_lost(i):
    if i == 0 and current_run().run == 2:
        with open(os.environ["VICTIM_FILE"], "w") as handle:
            handle.write(str(os.getpid()))
        time.sleep(120)
"""


def test_a_lost_host_ends_the_session_with_one_message(
    pytester: pytest.Pytester,
    worker_hosts: Hosts,
) -> None:
    """A worker host that disappears mid-run (its server killed while a run is in flight):
    the run is an error record naming the crash, pytest-xdist cannot replace the worker
    from its spec, and the session ends with one message saying so — no INTERNALERROR —
    exit status 1, the probability section and the JSON report written."""
    pytester.makepyfile(bench_lost=LOST)
    victim = pytester.path / "victim.pid"
    hosts = [worker_hosts(), worker_hosts()]
    env = {"VICTIM_FILE": str(victim)}
    args = ["--dist", "load", "-p", "no:randomly"]
    for host in hosts:
        args += ["--tx", host.spec(pytester.path, **env)]
    command = [sys.executable, "-m", "pytest", "--prob-runs=4", "--prob-json=r.json", *args]
    controller = subprocess.Popen(
        command,
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    for _ in range(1200):  # (attempts 0.05 s apart, not a measured deadline)
        if victim.exists():
            break
        time.sleep(0.05)
    assert victim.exists(), "the run never started"
    pid = int(victim.read_text())
    next(host for host in hosts if host.process.pid == pid).kill()
    out, _ = controller.communicate(timeout=120)
    text = out.decode()
    assert controller.returncode == 1, text
    assert "INTERNALERROR" not in text and "Traceback" not in text, text
    lines = text.splitlines()
    (where,) = [i for i, line in enumerate(lines) if "probability: workers" in line]
    # (the host's socket refuses the new connection, or resets one xdist had opened)
    assert re.search(
        r" went down and could not be replaced: Connection(Refused|Reset)Error", lines[where + 1]
    ), lines[where + 1]
    assert lines[where + 1].startswith(f"  worker gw0 (socket=127.0.0.1:{hosts[0].port}") or (
        lines[where + 1].startswith(f"  worker gw1 (socket=127.0.0.1:{hosts[1].port}")
    )
    assert "items never ran" in lines[where + 2] or "probability" in lines[where + 2]
    assert sum("could not be replaced" in line for line in lines) == 1  # (one message)
    report = load_json(pytester.path / "r.json")
    crashed = [r for r in report["records"] if r["case"] == "lost::0" and r["run"] == 2]
    assert [r["outcome"] for r in crashed] == ["error"]
    assert report["exit_status"] == 1
