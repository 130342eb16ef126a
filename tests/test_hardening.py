"""Production hardening: other plugins (pytest-randomly, pytest-asyncio), xdist modes,
report paths that cannot take a report, and a real SIGINT in the middle of a run.

pytest-randomly and pytest-asyncio load themselves in every session of a venv where they
are installed. The sessions here never rely on that: they enable (``-p randomly``,
``-p asyncio``) or disable (``-p no:randomly``, ``-p no:asyncio``) them explicitly.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json, section, stable

#: sessions that must not be shuffled or touched by pytest-asyncio, whatever is installed
PLAIN = ("-p", "no:randomly", "-p", "no:asyncio")


def _plugin(module: str) -> None:
    """Skip without ``module`` installed, except in CI's plugin leg (``PROB_NEEDS_PLUGINS``
    set by tests/run-all.sh), where a missing plugin is a failure."""
    if os.environ.get("PROB_NEEDS_PLUGINS"):
        importlib.import_module(module)
    else:
        pytest.importorskip(module)


def _rows(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (row["case"], row["passes"], row["fails"], row["errors"], row["total"], row["pass_rate"])
        for row in report["rows"]
    ]


# -- 1. pytest-randomly --------------------------------------------------------------------

RANDOMLY_ALPHA = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", ["a", "b", "c"])
def bench_alpha(item):
    run = current_run().run  # (asserts name plain values: no object addresses in messages)
    assert not (item == "b" and run == 2)
"""

RANDOMLY_BETA = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.3)
@pytest.mark.parametrize("item", ["x", "y"])
def bench_gated(item):
    run = current_run().run
    assert not (item == "y" and run in (1, 3))

def bench_plain():
    run = current_run().run
    assert run != 4
"""

#: the rows without pytest-randomly, in collection order
RANDOMLY_ROWS = [
    "  alpha::a  4/4  [40%, 100%]",
    "  alpha::b  3/4  [19%,  99%]  FLAKY",
    "  alpha::c  4/4  [40%, 100%]",
    "  gated::x  4/4  [40%, 100%]",
    "  gated::y  2/4  [ 7%,  93%]  FLAKY",
    "  plain     3/4  [19%,  99%]  FLAKY",
]
RANDOMLY_TAIL = [
    "",
    "  Overall: 20/24 passed (83%)",
    "  Gates:   1 passed, 1 undecided",
]
#: with this suite, seeds 1, 3 and 4 put both [gate] items before the runs of their cases,
#: seeds 0, 2 and 5 after them (pytest-randomly 4.1 and 5.1 shuffle alike)
SEEDS = (0, 1, 2, 3, 4, 5)


@pytest.fixture
def randomly_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    _plugin("pytest_randomly")
    pytester.makepyfile(bench_alpha=RANDOMLY_ALPHA, bench_beta=RANDOMLY_BETA)
    return pytester


def _shuffled(pytester: pytest.Pytester, seed: int, *args: str) -> pytest.RunResult:
    """A session shuffled by pytest-randomly with ``seed`` (4 runs unless ``args`` say)."""
    return pytester.runpytest(
        "--prob-runs=4", "-p", "no:asyncio", "-p", "randomly", f"--randomly-seed={seed}", *args
    )


def _case_of(nodeid: str) -> str:
    return nodeid.rsplit("[", 1)[0]


def test_randomly_keeps_every_fraction_and_verdict(randomly_suite: pytest.Pytester) -> None:
    plain = randomly_suite.runpytest("--prob-runs=4", *PLAIN, "--prob-json=plain.json")
    assert plain.ret == 1
    assert section(plain.outlines) == RANDOMLY_ROWS + RANDOMLY_TAIL
    expected = load_json(randomly_suite.path / "plain.json")
    for seed in SEEDS:
        shuffled = _shuffled(randomly_suite, seed, "--prob-json=r.json")
        assert f"Using --randomly-seed={seed}" in shuffled.outlines
        assert shuffled.ret == 1
        lines = section(shuffled.outlines)
        assert sorted(lines[:6]) == RANDOMLY_ROWS and lines[6:] == RANDOMLY_TAIL
        report = load_json(randomly_suite.path / "r.json")
        assert sorted(_rows(report)) == sorted(_rows(expected))
        verdicts = {row["case"]: row["gate"]["verdict"] for row in report["rows"] if "gate" in row}
        assert verdicts == {"gated::x": "pass", "gated::y": "undecided"}
        assert report["gates"] == expected["gates"]
        assert report["exit_status"] == 1


def test_randomly_rows_keep_definition_order(randomly_suite: pytest.Pytester) -> None:
    """Under pytest-randomly the items run shuffled, but the rows (and the records, grouped by
    row with each case's runs in run order) keep definition order; two sessions with one
    seed give the same report."""
    seed = 3
    collected = _shuffled(randomly_suite, seed, "--collect-only", "-q")
    nodeids = [line for line in collected.outlines if line.startswith("bench_")]
    assert len(nodeids) == 6 * 4 + 2  # every run and both [gate] items
    first_seen = list(dict.fromkeys(_case_of(nodeid) for nodeid in nodeids))
    definition = [
        "bench_alpha.py::bench_alpha::a",
        "bench_alpha.py::bench_alpha::b",
        "bench_alpha.py::bench_alpha::c",
        "bench_beta.py::bench_gated::x",
        "bench_beta.py::bench_gated::y",
        "bench_beta.py::bench_plain",
    ]
    assert sorted(first_seen) == definition and first_seen != definition  # really shuffled

    one = _shuffled(randomly_suite, seed, "--prob-json=one.json")
    two = _shuffled(randomly_suite, seed, "--prob-json=two.json")
    first, second = (
        load_json(randomly_suite.path / "one.json"),
        load_json(randomly_suite.path / "two.json"),
    )
    assert [row["nodeid"] for row in first["rows"]] == definition
    assert section(one.outlines) == RANDOMLY_ROWS + RANDOMLY_TAIL
    assert section(one.outlines) == section(two.outlines)
    runs = [(record["case"], record["run"]) for record in first["records"]]
    assert runs == [(row["case"], run) for row in first["rows"] for run in (1, 2, 3, 4)]
    assert runs == [(record["case"], record["run"]) for record in second["records"]]
    assert stable(first) == stable(second)


def test_randomly_gate_items_run_after_their_runs(randomly_suite: pytest.Pytester) -> None:
    """Whatever the seed, the kernel puts each [gate] item after the last of its case's runs
    (seeds 1, 3 and 4 shuffle both gate items before their runs), so it judges there."""
    for seed in SEEDS:
        result = _shuffled(randomly_suite, seed, "-rA", "--prob-json=r.json")
        assert "PASSED bench_beta.py::bench_gated::x[gate]" in result.outlines, seed
        assert any(
            line.startswith("FAILED bench_beta.py::bench_gated::y[gate]")
            for line in result.outlines
        ), seed
        report = load_json(randomly_suite.path / "r.json")
        assert [row["gate"]["judged"] for row in report["rows"] if "gate" in row] == [
            "item",
            "item",
        ], seed
        gates = section(result.outlines, "probability: gates")
        assert gates == ["  gated::y  2/4  [7%, 93%]  ≥30%  UNDECIDED"], seed


STOP_SHUFFLED_BENCH = """
import pytest
from pytest_probability import current_run

@pytest.mark.probability(min_rate=0.9)
@pytest.mark.parametrize("kind", ["always", "never"])
def bench_stop(kind):
    assert kind == "always" or current_run().run in (1, 2, 3)
"""


def test_randomly_shuffled_cases_still_stop(pytester: pytest.Pytester) -> None:
    """--prob-stop stops a case whatever order pytest-randomly gives its runs: ``never``
    passes 3 runs of 40, so in any order its FAIL is settled after at most 12 runs, and the
    verdicts are those of running every run."""
    _plugin("pytest_randomly")
    pytester.makepyfile(bench_stop=STOP_SHUFFLED_BENCH)
    for seed in (0, 1, 2):
        result = _shuffled(
            pytester, seed, "--prob-runs=40", "--prob-stop=curtail", "--prob-json=r.json"
        )
        assert result.ret == 1, seed
        report = load_json(pytester.path / "r.json")
        rows = {row["case"]: row for row in report["rows"]}
        assert rows["stop::always"]["stopped"] is None, seed
        stopped = rows["stop::never"]["stopped"]
        assert stopped is not None and stopped["verdict"] == "fail", seed
        assert stopped["after"] <= 12 and stopped["skipped"] == 40 - stopped["after"], seed
        assert rows["stop::never"]["gate"]["verdict"] == "fail", seed
        assert rows["stop::always"]["gate"]["verdict"] == "pass", seed


ANALYSIS_BENCH = """
import pytest
from pytest_probability import current_run

LEVEL = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3]

@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("item", range(12))
def bench_c(item, arm):
    run = current_run().run
    level = LEVEL[item] if arm == "a" else LEVEL[(item * 5) % 12] // 2
    assert run > level
"""
ANALYSIS_ARGS = ("--prob-runs=4", "--prob-compare=arm", "--prob-metric=pass^2")
#: the bootstrap lines without pytest-randomly
FUNCTION_LINES = [
    "  c  N=24 inputs × k=4  86.5%  [78.1%, 93.8%]  ρ=0.15",
    "     runs ×2 → interval −16%  ·  inputs ×2 → −29%",
]
METRIC_LINES = ["  c  pass^2  N=24 inputs  76.4%  [63.2%, 88.9%]"]
COMPARISON_LINES = ["  c[arm]  b − a  +15 pp [0, +33]  p=0.16  12 paired"]


@pytest.fixture
def analysis_suite(pytester: pytest.Pytester) -> pytest.Pytester:
    _plugin("pytest_randomly")
    pytester.makepyfile(bench_c=ANALYSIS_BENCH)
    plain = pytester.runpytest(*ANALYSIS_ARGS, *PLAIN)
    assert section(plain.outlines)[-2:] == FUNCTION_LINES
    assert section(plain.outlines, "probability: metrics") == METRIC_LINES
    assert section(plain.outlines, "probability: comparisons") == COMPARISON_LINES
    return pytester


def test_randomly_keeps_the_function_level_line(analysis_suite: pytest.Pytester) -> None:
    """The function-level bootstrap sorts the cases by id first: no seed changes it."""
    for seed in SEEDS:
        result = analysis_suite.runpytest(
            *ANALYSIS_ARGS, "-p", "no:asyncio", "-p", "randomly", f"--randomly-seed={seed}"
        )
        assert section(result.outlines)[-2:] == FUNCTION_LINES, seed


def test_randomly_keeps_metric_and_comparison_intervals(analysis_suite: pytest.Pytester) -> None:
    """The bootstraps resample cases in row order, which is definition order whatever the
    seed: the intervals are those of the unshuffled session."""
    for seed in SEEDS:
        result = analysis_suite.runpytest(
            *ANALYSIS_ARGS, "-p", "no:asyncio", "-p", "randomly", f"--randomly-seed={seed}"
        )
        assert section(result.outlines, "probability: metrics") == METRIC_LINES, seed
        assert section(result.outlines, "probability: comparisons") == COMPARISON_LINES, seed


# -- 2. pytest-asyncio ----------------------------------------------------------------------

ASYNC_BENCH = """
import asyncio
from pytest_probability import current_run

LOOPS = []

async def bench_async():
    await asyncio.sleep(0)
    LOOPS.append(asyncio.get_running_loop())  # kept alive: distinct ids mean distinct loops
    run = current_run().run
    assert run != 2

def test_each_run_had_its_own_loop():
    assert len(LOOPS) == 3 and len({id(loop) for loop in LOOPS}) == 3
    assert not any(loop.is_running() for loop in LOOPS)
"""

ASYNC_TESTS = """
import asyncio
import pytest

@pytest.mark.asyncio
async def test_marked():
    await asyncio.sleep(0)
    assert asyncio.get_running_loop().is_running()
"""

ASYNC_UNMARKED = """

async def test_unmarked():
    await asyncio.sleep(0)
"""


def _asyncio_ini(mode: str) -> str:
    """The ini for ``mode``; pytest-asyncio >= 0.24 warns (PytestDeprecationWarning) unless
    ``asyncio_default_fixture_loop_scope`` is set, and 0.23 does not know the key."""
    lines = ["[pytest]", f"asyncio_mode = {mode}"]
    version = importlib.metadata.version("pytest-asyncio")
    major, minor = (int(part) for part in version.split(".")[:2])
    if (major, minor) >= (0, 24):
        lines.append("asyncio_default_fixture_loop_scope = function")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("mode", ["strict", "auto"])
def test_asyncio_tests_and_async_benches_in_one_session(
    pytester: pytest.Pytester, mode: str
) -> None:
    _plugin("pytest_asyncio")
    pytester.makeini(_asyncio_ini(mode))
    tests = ASYNC_TESTS + (ASYNC_UNMARKED if mode == "auto" else "")
    pytester.makepyfile(bench_a=ASYNC_BENCH, test_b=tests)
    result = pytester.runpytest_subprocess(
        "--prob-runs=3", "-p", "asyncio", "-p", "no:randomly", "-rA", "--prob-json=r.json"
    )
    assert result.ret == 1
    assert f"asyncio: mode=Mode.{mode.upper()}" in "\n".join(result.outlines)
    assert section(result.outlines) == [
        "  async  2/3  [9%, 99%]  FLAKY",
        "",
        "  Overall: 2/3 passed (67%)",
    ]
    passed = [line for line in result.outlines if line.startswith(("PASSED", "FAILED"))]
    assert passed == [  # -rA is per case: the failing case's passing runs get no PASSED line
        "PASSED bench_a.py::test_each_run_had_its_own_loop",
        "PASSED test_b.py::test_marked",
        *(["PASSED test_b.py::test_unmarked"] if mode == "auto" else []),
        "FAILED bench_a.py::bench_async - 1/3 runs failed: assert 2 != 2",  # grouped per case
    ]
    outcomes = result.parseoutcomes()
    assert outcomes == {"failed": 1, "passed": 5 if mode == "auto" else 4}  # no "warnings"
    everything = "\n".join(result.outlines + result.errlines)
    assert "Warning" not in everything and "warnings summary" not in everything
    records = load_json(pytester.path / "r.json")["records"]
    assert [(r["run"], r["outcome"]) for r in records] == [(1, "pass"), (2, "fail"), (3, "pass")]


# -- 3. xdist: --dist loadscope and --tx ---------------------------------------------------

XDIST_ONE = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", [
    "steady",
    "flaky",
    pytest.param("gated", marks=pytest.mark.probability(min_rate=0.3)),
])
def bench_alpha(item):
    run = current_run().run  # (asserts name plain values: no object addresses in messages)
    if item == "flaky":
        assert run != 2
"""

XDIST_TWO = """
import pytest
from pytest_probability import current_run

@pytest.mark.parametrize("item", [
    pytest.param("curtailed", marks=pytest.mark.probability(min_rate=0.6)),
    "broken",
])
def bench_beta(item):
    run = current_run().run
    if item == "curtailed":
        assert run == 1
    if item == "broken" and run == 3:
        raise RuntimeError("harness")

def bench_plain():
    run = current_run().run
    assert run != 5
"""

XDIST_ROWS = {
    "all": [
        "  alpha::steady    5/5  [48%, 100%]",
        "  alpha::flaky     4/5  [28%,  99%]  FLAKY",
        "  alpha::gated     5/5  [48%, 100%]",
        "  beta::curtailed  1/5  [ 1%,  72%]  FLAKY",
        "  beta::broken     4/5  [28%,  99%]  1 ERRORED",
        "  plain            4/5  [28%,  99%]  FLAKY",
        "",
        "  Overall: 23/30 passed (77%)",
        "  Gates:   1 passed, 1 undecided",
    ],
    "curtail": [
        "  alpha::steady    5/5  [48%, 100%]",
        "  alpha::flaky     4/5  [28%,  99%]  FLAKY",
        "  alpha::gated     5/5  [48%, 100%]",
        "  beta::curtailed  1/1               decided after 1/5",
        "  beta::broken     4/5  [28%,  99%]  1 ERRORED",
        "  plain            4/5  [28%,  99%]  FLAKY",
        "",
        "  Overall: 23/26 passed (88%)",
        "  Gates:   1 passed, 1 undecided",
        "  Stopped: 1 case early, saving 4 of 30 runs (13%)",
    ],
}
XDIST_GATES = {
    "all": ["  beta::curtailed  1/5  [1%, 72%]  ≥60%  UNDECIDED"],
    "curtail": ["  beta::curtailed  1/1  [3%, 100%]  ≥60%  UNDECIDED"],
}


@pytest.mark.subprocess
@pytest.mark.parametrize("stop", ["all", "curtail"])
@pytest.mark.parametrize(
    "dist",
    [
        pytest.param(("-n", "2", "--dist", "loadscope"), id="loadscope"),
        pytest.param(("--tx", "2*popen", "--dist", "load"), id="tx-load"),
        pytest.param(("--tx", "2*popen", "--dist", "loadscope"), id="tx-loadscope"),
        pytest.param(("--tx", "2*popen"), id="tx-alone"),
    ],
)
def test_xdist_modes_equal_the_serial_session(
    pytester: pytest.Pytester, dist: tuple[str, ...], stop: str
) -> None:
    pytester.makepyfile(bench_one=XDIST_ONE, bench_two=XDIST_TWO)
    common = ["--prob-runs=5", *PLAIN]
    if stop == "curtail":
        common.append("--prob-stop=curtail")
    serial = pytester.runpytest_subprocess(*common, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*common, *dist, "--prob-json=p.json")
    assert serial.ret == parallel.ret == 1
    assert section(serial.outlines) == section(parallel.outlines) == XDIST_ROWS[stop]
    gates = section(parallel.outlines, "probability: gates")
    assert gates == section(serial.outlines, "probability: gates") == XDIST_GATES[stop]
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert _rows(one) == _rows(two)
    assert [(r["case"], r.get("gate", {}).get("verdict")) for r in two["rows"]] == [
        ("alpha::steady", None),
        ("alpha::flaky", None),
        ("alpha::gated", "pass"),
        ("beta::curtailed", "undecided"),
        ("beta::broken", None),
        ("plain", None),
    ]
    assert [r["gate"]["judged"] for r in two["rows"] if "gate" in r] == ["item", "item"]
    assert stable(one) == stable(two)
    workers = {r["case"]: r["worker"] for r in two["records"]}
    if dist == ("--tx", "2*popen"):
        # without --dist (or -n) pytest-xdist does not distribute: --tx alone is ignored
        assert set(workers.values()) == {None}
        return
    assert set(workers.values()) == {"gw0", "gw1"}
    for row in two["rows"]:  # every run of a case on one worker
        assert len({r["worker"] for r in two["records"] if r["case"] == row["case"]}) == 1
    if stop == "curtail":
        assert two["stopping"]["spread_cases"] == 0
        curtailed = [r["run"] for r in two["records"] if r["case"] == "beta::curtailed"]
        assert curtailed == [1, 2, 3, 4, 5]  # runs 2-5 have skip records: decided, not run
        skipped = [r for r in two["records"] if r["outcome"] == "skip"]
        assert [(r["run"], r["message"]) for r in skipped] == [
            (run, "decided after 1/5 (UNDECIDED)") for run in (2, 3, 4, 5)
        ]


# -- 4. report paths that cannot take a report ---------------------------------------------

REPORT_OPTIONS = {"json": "--prob-json", "html": "--prob-html"}
FULL_BENCH = "def bench_a():\n    pass\n"


def _full_device(directory: Path) -> Path:
    """A character device like /dev/full (major 1, minor 7) in ``directory``: writes to it
    fail with ENOSPC, and replacing it cannot hurt the machine."""
    device = directory / "full"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return device


@pytest.mark.parametrize("kind", ["json", "html"])
def test_a_full_device_is_a_write_error(pytester: pytest.Pytester, kind: str) -> None:
    device = _full_device(pytester.path)
    pytester.makepyfile(bench_a=FULL_BENCH)
    result = pytester.runpytest("--prob-runs=2", *PLAIN, f"{REPORT_OPTIONS[kind]}={device}")
    assert stat.S_ISCHR(device.stat().st_mode)  # still the device
    what = kind.upper()
    assert section(result.outlines) == [
        "  a  2/2  [16%, 100%]",
        "",
        "  Overall: 2/2 passed (100%)",
        f"ERROR: could not write the {what} report to {device}: No space left on device",
    ]
    assert result.ret == 1


def _cannot(reason: str) -> None:
    """Skip, except in run-all.sh's unprivileged leg (``PROB_NEEDS_UNPRIVILEGED``), which
    exists to run these tests: there it is a failure."""
    if os.environ.get("PROB_NEEDS_UNPRIVILEGED"):
        pytest.fail(reason)
    pytest.skip(reason)


def _unprivileged(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run pytest as ``nobody`` when this process is root (so that /dev stays unwritable,
    as for any user), directly otherwise. As root the interpreter and its environment must
    be readable by that user (tests/run-all.sh makes one in its unprivileged leg)."""
    command = [sys.executable, "-m", "pytest", *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            _cannot("running as root without setpriv: /dev would be writable")
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    check = [*command[: command.index("-m")], "-c", "import pytest, pytest_probability"]
    ready = subprocess.run(check, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    if ready.returncode != 0:
        _cannot(f"the unprivileged user cannot run this environment: {ready.stderr}")
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def open_directory() -> Iterator[Path]:
    """A directory anyone may write to (the unprivileged session works in it)."""
    path = Path(tempfile.mkdtemp(prefix="prob-hardening-"))
    path.chmod(0o777)
    (path / "bench_a.py").write_text(FULL_BENCH)
    (path / "bench_a.py").chmod(0o666)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.subprocess
@pytest.mark.unprivileged
@pytest.mark.parametrize("kind", ["json", "html"])
def test_dev_full_as_a_user(open_directory: Path, kind: str) -> None:
    """What a user (not root) gets for the machine's /dev/full: /dev is not writable, but
    the device is, and it is written in place (never through a temporary file and a rename):
    the write fails with ENOSPC, which is one error line after the printed summary."""
    if not Path("/dev/full").exists():
        _cannot("no /dev/full")
    option = REPORT_OPTIONS[kind]
    done = _unprivileged(
        ["--prob-runs=2", "-p", "no:cacheprovider", *PLAIN, f"{option}=/dev/full"],
        open_directory,
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert "  Overall: 2/2 passed (100%)" in lines
    what = kind.upper()
    assert f"ERROR: could not write the {what} report to /dev/full: No space left on device" in (
        lines
    )
    assert "Traceback" not in done.stdout + done.stderr


# -- 5. a real SIGINT ------------------------------------------------------------------------

SIGINT_BENCH = """
import os
import time
from pytest_probability import current_run

def bench_k():
    if current_run().run == 3:
        open("ready.tmp", "w").close()
        os.rename("ready.tmp", "ready")  # atomic: seen only once the bench is here
        time.sleep(60)
"""


def _default_sigint() -> None:
    # a child of a background job (or of an xdist worker) may inherit SIGINT ignored; a
    # user's pytest gets the default handler, so Python turns SIGINT into KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.subprocess
def test_sigint_mid_run_writes_both_reports(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_k=SIGINT_BENCH)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    args = ["--prob-runs=5", "-p", "no:cacheprovider", *PLAIN, "--prob-json=r.json"]
    with open(pytester.path / "out.txt", "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", *args, "--prob-html=r.html"],
            cwd=pytester.path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_default_sigint,
        )
        try:
            for _ in range(3000):  # a liveness bound (60 s of polls), not a measurement
                if (pytester.path / "ready").exists():
                    break
                assert process.poll() is None, "the session ended before run 3"
                time.sleep(0.02)
            else:
                pytest.fail("run 3 never started")
            os.kill(process.pid, signal.SIGINT)
            status = process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    output = (pytester.path / "out.txt").read_text().splitlines()
    assert status == 2
    assert section(output) == [
        "  k  2/2  [16%, 100%]  of 5 planned, session stopped early",
        "",
        "  Overall: 2/2 passed (100%)",
    ]
    # then the files written, then pytest's "!!! KeyboardInterrupt !!!" lines
    end = output.index("  Overall: 2/2 passed (100%)")
    written = [line.strip("- ") for line in output[end + 1 : end + 3]]
    assert [line.rsplit(" (", 1)[0] for line in written] == [
        "probability: JSON report r.json",
        "probability: HTML report r.html",
    ]
    assert re.fullmatch(r"!+ KeyboardInterrupt !+", output[end + 3])
    # the interrupt lands in the bench, at the rename's line or the sleep's (a busy machine
    # may deliver it between the two)
    assert output[end + 4] in [
        f"{pytester.path / 'bench_k.py'}:{n}: KeyboardInterrupt" for n in (8, 9)
    ]
    report = load_json(pytester.path / "r.json")
    assert report["exit_status"] == 2
    assert [(r["run"], r["outcome"]) for r in report["records"]] == [(1, "pass"), (2, "pass")]
    assert (report["rows"][0]["planned"], report["rows"][0]["total"]) == (5, 2)
    assert report["totals"]["count"] == 2
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert (
        '<div class="label">Exit status</div><div class="value">2</div>'
        '<div class="note">interrupted</div>'
    ) in page
    assert '<div class="label">Runs passed</div><div class="value">2/2 (100%)</div>' in page
    leftovers = [p.name for p in pytester.path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
