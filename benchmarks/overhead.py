"""Per-item overhead of pytest-probability against plain pytest on the same number of items.

Run by hand (never collected by the test suite)::

    python benchmarks/overhead.py [--cases 1000] [--runs 10] [--repeat 5]

Four sessions are generated in a temporary directory, each with CASES*RUNS items:

* ``pass-plain``   ``test_trivial(i)`` parametrized over CASES*RUNS values, ``assert i >= 0``,
  run with ``-p no:probability`` (the plugin is not even loaded);
* ``pass-plugin``  ``bench_trivial(i)`` parametrized over CASES values, ``--prob-runs=RUNS``;
* ``fail-plain`` / ``fail-plugin``  the same pair with ``assert i < 0`` (every item fails).

Optionally (default on) the pass pair is also run with ``--collect-only``. Each session is a
fresh ``python -m pytest -q -p no:cacheprovider -p no:randomly`` subprocess; rounds alternate
plain/plugin (and swap which goes first every round). Wall time is measured around the
subprocess, CPU time from ``resource.getrusage(RUSAGE_CHILDREN)`` deltas. A tiny timer plugin
(``-p _overhead_timer``, session-level hooks only, loaded in every session alike) splits each
session into startup / collection / run loop / report / exit (with the garbage collector's
share of each), and times the probability plugin's own session hooks
(``pytest_collection_modifyitems``, ``pytest_sessionfinish``, ``pytest_terminal_summary``)
and each extension's ``pytest_prob_build_report``.

``--profile`` additionally runs each session once under ``cProfile`` and prints where the
plugin's time goes (functions in ``core/`` and ``extensions/``) and the largest per-function
differences against the plain session. See ``benchmarks/README.md`` for how to read the output.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TIMER_MODULE = "_overhead_timer"
BASE_ARGS = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
#: Environment variables that would make the sessions differ from the command lines shown.
SCRUBBED_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")

# ---------------------------------------------------------------------------------------------
# generated files

BENCH_FILE = """\
import pytest

CASES = {cases}


@pytest.mark.parametrize("i", range(CASES))
def bench_trivial(i):
    assert {condition}
"""

PLAIN_FILE = """\
import pytest

CASES, RUNS = {cases}, {runs}


@pytest.mark.parametrize("i", range(CASES * RUNS))
def test_trivial(i):
    assert {condition}
"""

#: Loaded with ``-p _overhead_timer`` in every session (plain and plugin alike). It implements
#: session-level hooks only, so it adds nothing per item.
TIMER_PLUGIN = '''\
"""Phase marks for benchmarks/overhead.py (generated; session-level hooks only)."""
import atexit
import functools
import gc
import json
import os
import sys
import time

import pytest

_marks = {"import": (time.monotonic(), time.process_time())}
_owned = {}
_state = {"phase": "startup"}
#: garbage-collector seconds and collections, by phase and generation
_gc = {}
_gc_start = [0.0]


def _mark(name):
    _marks[name] = (time.monotonic(), time.process_time())
    _state["phase"] = name


def _gc_callback(phase, info):
    if phase == "start":
        _gc_start[0] = time.perf_counter()
        return
    entry = _gc.setdefault(_state["phase"], {}).setdefault(str(info["generation"]), [0.0, 0])
    entry[0] += time.perf_counter() - _gc_start[0]
    entry[1] += 1


gc.callbacks.append(_gc_callback)
if os.environ.get("OVERHEAD_NO_GC"):
    gc.disable()  # --profile: keep collector passes from being charged to random functions


def _is_owned(impl):
    module = getattr(impl.function, "__module__", "") or ""
    return module.startswith("pytest_probability") or str(impl.plugin_name).startswith(
        "probability"
    )


def _timed(function, key):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        w, c = time.monotonic(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            acc = _owned.setdefault(key, [0.0, 0.0])
            acc[0] += time.monotonic() - w
            acc[1] += time.process_time() - c

    return wrapper


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    _mark("configure")
    pm = config.pluginmanager
    _state["plugin_loaded"] = pm.get_plugin("probability.kernel") is not None
    _state["probability_plugins"] = sorted(
        str(name)
        for name, plugin in pm.list_name_plugin()
        if plugin is not None and "probability" in str(name)
    )
    # Time the plugin's own once-per-session hook implementations (plain functions only).
    for hook_name in (
        "pytest_collection_modifyitems",
        "pytest_sessionfinish",
        "pytest_terminal_summary",
        "pytest_prob_build_report",  # one entry per extension (inside kernel sessionfinish)
    ):
        caller = getattr(pm.hook, hook_name, None)
        for impl in caller.get_hookimpls() if caller is not None else ():
            if _is_owned(impl) and not (impl.wrapper or impl.hookwrapper):
                impl.function = _timed(impl.function, f"{hook_name}:{impl.plugin_name}")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    _state["session"] = session
    _mark("collect_start")
    yield
    _mark("collect_end")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    _mark("loop_start")
    yield
    _mark("loop_end")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    _mark("unconfigure")
    session = _state.get("session")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    stats = {}
    if reporter is not None:
        stats = {key: len(value) for key, value in reporter.stats.items() if key}
    _state["result"] = {
        "marks": _marks,
        "owned": _owned,
        "gc": _gc,
        "items": len(session.items) if session is not None else None,
        "stats": stats,
        "plugin_loaded": _state.get("plugin_loaded"),
        "probability_plugins": _state.get("probability_plugins"),
        "plugin_files": sorted(
            str(getattr(module, "__file__", None))
            for name, module in list(sys.modules.items())
            if name.split(".")[0] == "pytest_probability" and getattr(module, "__file__", None)
        ),
    }
    # Written at exit, so pytest's own cleanup (its final gc.collect()) is counted as well.
    atexit.register(_write)


def _write():
    _mark("atexit")
    out = os.environ.get("OVERHEAD_TIMER_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(_state["result"], handle)
'''


@dataclass(frozen=True)
class Variant:
    key: str  # pass-plain, pass-plugin, fail-plain, fail-plugin, co-plain, co-plugin
    kind: str  # pass / fail / co
    plugin: bool
    directory: Path
    filename: str
    extra: tuple[str, ...]

    def argv(self, python: str, passthrough: list[str]) -> list[str]:
        return [python, *BASE_ARGS, *self.extra, *passthrough, self.filename]

    def shown(self, python: str, passthrough: list[str]) -> str:
        """The command line as a user would type it (without the timer plugin)."""
        args = self.argv(python, passthrough)
        i = args.index(TIMER_MODULE)
        del args[i - 1 : i + 1]
        return f"(cd {self.directory.name} && {' '.join(args)})"


@dataclass
class Sample:
    wall: float
    cpu: float
    exit_code: int
    timer: dict[str, Any]
    launch: float
    end: float

    def phase(self, start: str | None, end: str | None, which: int) -> float:
        """Wall (``which=0``) or CPU (``which=1``) seconds between two marks.

        ``start=None`` means process launch (CPU 0), ``end=None`` means process exit.
        """
        marks = self.timer["marks"]
        if which == 0:
            t0 = self.launch if start is None else marks[start][0]
            t1 = self.end if end is None else marks[end][0]
        else:
            t0 = 0.0 if start is None else marks[start][1]
            t1 = self.cpu if end is None else marks[end][1]
        return t1 - t0

    def gc_seconds(self, table_phase: str | None = None) -> float:
        """Garbage-collector seconds in one table phase (``None``: the whole session)."""
        total = 0.0
        for mark, generations in self.timer.get("gc", {}).items():
            if table_phase is None or GC_PHASE.get(mark) == table_phase:
                total += sum(seconds for seconds, _ in generations.values())
        return total

    def owned(self, which: int, hook_prefix: str = "") -> float:
        return sum(v[which] for k, v in self.timer["owned"].items() if k.startswith(hook_prefix))


@dataclass
class Series:
    variant: Variant
    samples: list[Sample] = field(default_factory=list)

    def median(self, getter: Any) -> float:
        return statistics.median(getter(s) for s in self.samples)

    def spread(self, getter: Any) -> float:
        values = [getter(s) for s in self.samples]
        mid = statistics.median(values)
        return (max(values) - min(values)) / mid if mid else 0.0


# ---------------------------------------------------------------------------------------------
# setup


def make_tree(
    root: Path, cases: int, runs: int, with_fail: bool, with_co: bool, fail_extra: tuple[str, ...]
) -> list[Variant]:
    timer_dir = root / "_timer"
    timer_dir.mkdir()
    (timer_dir / f"{TIMER_MODULE}.py").write_text(TIMER_PLUGIN, encoding="utf-8")
    variants: list[Variant] = []
    kinds = [("pass", "i >= 0")] + ([("fail", "i < 0")] if with_fail else [])
    for kind, condition in kinds:
        for plugin in (False, True):
            directory = root / f"{kind}-{'plugin' if plugin else 'plain'}"
            directory.mkdir()
            (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
            if plugin:
                filename = "bench_trivial.py"
                text = BENCH_FILE.format(cases=cases, condition=condition)
                extra = (f"--prob-runs={runs}",)
            else:
                filename = "test_trivial.py"
                text = PLAIN_FILE.format(cases=cases, runs=runs, condition=condition)
                extra = ("-p", "no:probability")
            if kind == "fail":
                extra = (*extra, *fail_extra)
            (directory / filename).write_text(text, encoding="utf-8")
            variants.append(
                Variant(
                    directory.name, kind, plugin, directory, filename, ("-p", TIMER_MODULE, *extra)
                )
            )
    if with_co:
        for v in [v for v in variants if v.kind == "pass"]:
            variants.append(
                Variant(
                    v.key.replace("pass", "co"),
                    "co",
                    v.plugin,
                    v.directory,
                    v.filename,
                    (*v.extra, "--collect-only"),
                )
            )
    return variants


def child_env(root: Path, bytecode_cache: bool) -> dict[str, str]:
    env = dict(os.environ)
    for name in SCRUBBED_ENV:
        if env.pop(name, None) is not None:
            print(f"note: ignoring {name} from the environment", file=sys.stderr)
    timer_dir = root / "_timer"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(timer_dir), env.get("PYTHONPATH")) if p)
    env["PYTHONHASHSEED"] = "0"
    env["COLUMNS"] = "80"
    if bytecode_cache:
        # Every module (pytest's, the plugin's, the generated files) is compiled once in the
        # warm-up round and read from this cache afterwards, whatever PYTHONDONTWRITEBYTECODE
        # says and whether or not the editable plugin's __pycache__ is stale; nothing is
        # written into the repository.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "_pycache")
    return env


def source_snapshot(files: set[str]) -> dict[str, float]:
    """mtimes of the plugin modules the sessions loaded, to notice edits made mid-benchmark."""
    snapshot = {}
    for name in sorted(files):
        path = Path(name)
        try:
            snapshot[name] = path.stat().st_mtime
        except OSError:
            snapshot[name] = -1.0
    return snapshot


def changed_sources(before: dict[str, float]) -> list[str]:
    after = source_snapshot(set(before))
    return [_relative(name) for name in sorted(before) if before[name] != after[name]]


def _relative(name: str) -> str:
    try:
        return str(Path(name).relative_to(REPO))
    except ValueError:
        return name


# ---------------------------------------------------------------------------------------------
# running


def run_once(variant: Variant, python: str, passthrough: list[str], env: dict[str, str]) -> Sample:
    out = variant.directory / f"{variant.key}.timer.json"
    log = variant.directory / f"{variant.key}.out.txt"
    if out.exists():
        out.unlink()
    env = {**env, "OVERHEAD_TIMER_OUT": str(out)}
    with open(log, "wb") as handle:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        launch = time.monotonic()
        proc = subprocess.run(
            variant.argv(python, passthrough),
            cwd=variant.directory,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            check=False,
        )
        end = time.monotonic()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if not out.exists():
        raise SystemExit(f"{variant.key}: the timer plugin wrote nothing; see {log}")
    timer = json.loads(out.read_text(encoding="utf-8"))
    return Sample(end - launch, cpu, proc.returncode, timer, launch, end)


def check(variant: Variant, sample: Sample, items: int) -> list[str]:
    """Sanity checks: item counts, outcomes, plugin loaded or not."""
    problems = []
    expected_code = {"pass": 0, "fail": 1, "co": 0}[variant.kind]
    if sample.exit_code != expected_code:
        problems.append(f"exit code {sample.exit_code}, expected {expected_code}")
    if sample.timer["items"] != items:
        problems.append(f"{sample.timer['items']} items, expected {items}")
    outcome = {"pass": "passed", "fail": "failed"}.get(variant.kind)
    if outcome and sample.timer["stats"].get(outcome) != items:
        problems.append(f"stats {sample.timer['stats']}, expected {items} {outcome}")
    if sample.timer["plugin_loaded"] != variant.plugin:
        if variant.plugin:
            problems.append("the probability plugin is NOT loaded")
        else:
            problems.append(
                "-p no:probability did NOT disable the plugin (loaded: "
                f"{sample.timer['probability_plugins']})"
            )
    return [
        f"{variant.key}: {p} (log: {variant.directory / (variant.key + '.out.txt')})"
        for p in problems
    ]


# ---------------------------------------------------------------------------------------------
# reporting

#: (label, start mark, end mark); None = process launch / exit.
PHASES = [
    ("startup", None, "collect_start"),
    ("collect", "collect_start", "collect_end"),
    ("run loop", "loop_start", "loop_end"),
    ("report", "loop_end", "unconfigure"),
    ("exit", "unconfigure", None),
]


#: the timer's mark (the phase a GC pass started in) → the table's phase
GC_PHASE = {
    "import": "startup",
    "startup": "startup",
    "configure": "startup",
    "collect_start": "collect",
    "collect_end": "collect",
    "loop_start": "run loop",
    "loop_end": "report",
    "unconfigure": "exit",
    "atexit": "exit",
}


def fmt_s(value: float) -> str:
    return f"{value:8.3f}"


def fmt_us(value: float) -> str:
    return f"{value:+8.1f}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:7.3f}x" if b else "     n/a"


def print_tables(series: dict[str, Series], items: int, args: argparse.Namespace) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    print()
    print(
        f"pytest-probability overhead: {args.cases} cases x {args.runs} runs = {items} items per "
        f"session, {args.repeat} rounds, medians"
    )
    print()
    header = f"{'session':<14}{'wall s':>9}{'spread':>8}{'CPU s':>9}{'spread':>8}"
    print(header)
    print("-" * len(header))
    kinds = [k for k in ("pass", "fail", "co") if f"{k}-plain" in series]
    for kind in kinds:
        plain, plugin = series[f"{kind}-plain"], series[f"{kind}-plugin"]
        row: dict[str, Any] = {}
        for s in (plain, plugin):
            wall, cpu = s.median(lambda x: x.wall), s.median(lambda x: x.cpu)
            print(
                f"{s.variant.key:<14}{fmt_s(wall):>9}{s.spread(lambda x: x.wall):>7.0%} "
                f"{fmt_s(cpu):>9}{s.spread(lambda x: x.cpu):>7.0%}"
            )
            row[s.variant.key] = {"wall": wall, "cpu": cpu}
        pw, pc = plugin.median(lambda x: x.wall), plugin.median(lambda x: x.cpu)
        qw, qc = plain.median(lambda x: x.wall), plain.median(lambda x: x.cpu)
        print(f"{'  plugin/plain':<14}{ratio(pw, qw):>9}{'':>8}{ratio(pc, qc):>9}")
        print(
            f"{'  µs/item':<14}{fmt_us((pw - qw) / items * 1e6):>9}{'':>8}"
            f"{fmt_us((pc - qc) / items * 1e6):>9}"
        )
        print()
        row["ratio"] = {"wall": pw / qw, "cpu": pc / qc}
        row["us_per_item"] = {"wall": (pw - qw) / items * 1e6, "cpu": (pc - qc) / items * 1e6}
        summary[kind] = row

    # Phase breakdown (CPU, the steadier of the two on a shared machine).
    print(
        "Phases, CPU ms (median); 'of which GC': garbage-collector time in that phase; "
        "Δ = (plugin − plain) in µs per item"
    )
    header = (
        f"{'session':<14}" + "".join(f"{label:>10}" for label, _, _ in PHASES) + f"{'total':>10}"
    )
    print(header)
    print("-" * len(header))
    for kind in [k for k in kinds if k != "co"]:
        plain, plugin = series[f"{kind}-plain"], series[f"{kind}-plugin"]
        medians = {}
        gc_medians = {}
        for s in (plain, plugin):
            values = [s.median(lambda x, a=a, b=b: x.phase(a, b, 1)) for _, a, b in PHASES]
            values.append(s.median(lambda x: x.cpu))
            medians[s.variant.key] = values
            print(f"{s.variant.key:<14}" + "".join(f"{v * 1e3:10.0f}" for v in values))
            gc_values = [
                s.median(lambda x, label=label: x.gc_seconds(label)) for label, _, _ in PHASES
            ]
            gc_values.append(s.median(lambda x: x.gc_seconds()))
            gc_medians[s.variant.key] = gc_values
            print(f"{'  of which GC':<14}" + "".join(f"{v * 1e3:10.0f}" for v in gc_values))
        delta = [
            (p - q) / items * 1e6
            for p, q in zip(medians[f"{kind}-plugin"], medians[f"{kind}-plain"], strict=True)
        ]
        print(f"{'  Δ µs/item':<14}" + "".join(f"{d:+10.1f}" for d in delta))
        loop = medians[f"{kind}-plugin"][2] / medians[f"{kind}-plain"][2]
        print(f"{'  run loop':<14}{'plugin/plain':>20} {loop:.3f}x")
        summary[kind]["phases_cpu_ms"] = {
            key: dict(zip([p[0] for p in PHASES] + ["total"], [v * 1e3 for v in vals], strict=True))
            for key, vals in medians.items()
        }
        summary[kind]["gc_ms"] = {
            key: dict(zip([p[0] for p in PHASES] + ["total"], [v * 1e3 for v in vals], strict=True))
            for key, vals in gc_medians.items()
        }
        summary[kind]["run_loop_ratio_cpu"] = loop
        print()

    # The plugin's own session-level hooks (report phase at scale).
    print("Plugin-owned session hooks, CPU ms (median)")
    for kind in [k for k in kinds if k != "co"]:
        plugin = series[f"{kind}-plugin"]
        keys = sorted({k for s in plugin.samples for k in s.timer["owned"]})
        for key in keys:
            value = plugin.median(lambda x, k=key: x.timer["owned"].get(k, [0, 0])[1])
            print(f"  {kind:<5} {key:<55}{value * 1e3:8.1f}")
            summary[kind].setdefault("owned_hooks_cpu_ms", {})[key] = value * 1e3
    print()

    # Failing items: extra cost of a failure, plugin vs plain.
    if "fail" in kinds:
        print("Cost of a failure (fail − pass), CPU µs per item (median)")
        out = {}
        for flavour in ("plain", "plugin"):
            f, p = series[f"fail-{flavour}"], series[f"pass-{flavour}"]
            loop = (
                (
                    f.median(lambda x: x.phase("loop_start", "loop_end", 1))
                    - p.median(lambda x: x.phase("loop_start", "loop_end", 1))
                )
                / items
                * 1e6
            )
            report = (
                (
                    f.median(lambda x: x.phase("loop_end", "unconfigure", 1))
                    - p.median(lambda x: x.phase("loop_end", "unconfigure", 1))
                )
                / items
                * 1e6
            )
            total = (f.median(lambda x: x.cpu) - p.median(lambda x: x.cpu)) / items * 1e6
            print(
                f"  {flavour:<7} run loop {loop:+8.1f}   report {report:+8.1f}   "
                f"total {total:+8.1f}"
            )
            out[flavour] = {"run_loop": loop, "report": report, "total": total}
        summary["failure_cost_us"] = out
        print()

    if "co" in kinds:
        plain, plugin = series["co-plain"], series["co-plugin"]
        pc, qc = plugin.median(lambda x: x.cpu), plain.median(lambda x: x.cpu)
        print(
            f"--collect-only: plain {qc:.3f} s, plugin {pc:.3f} s CPU "
            f"({(pc - qc) / items * 1e6:+.1f} µs/item); in-session collection phase above "
            "should agree"
        )
        print()
    return summary


# ---------------------------------------------------------------------------------------------
# profiling


def _owned_file(filename: str) -> bool:
    path = filename.replace("\\", "/")
    return (
        "/pytest_probability/" in path
        or path.startswith(str(REPO / "core"))
        or path.startswith(str(REPO / "extensions"))
    )


def _short(func: tuple[str, int, str]) -> str:
    filename, line, name = func
    path = Path(filename)
    for base in (REPO, Path(sys.prefix)):
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        parts = rel.parts
        if "site-packages" in parts:
            rel = Path(*parts[parts.index("site-packages") + 1 :])
        return f"{rel}:{line}({name})"
    return f"{path.name}:{line}({name})" if filename != "~" else name


def _normalised(raw: dict[Any, Any]) -> dict[tuple[str, int, str], tuple[int, float]]:
    """(calls, self time) per function, built-ins keyed without their memory address."""
    out: dict[tuple[str, int, str], tuple[int, float]] = {}
    for (filename, line, name), (_, nc, tt, _, _) in raw.items():
        key = (filename, line, re.sub(r" at 0x[0-9a-f]+", "", name))
        calls, self_time = out.get(key, (0, 0.0))
        out[key] = (calls + nc, self_time + tt)
    return out


def profile(
    variants: list[Variant],
    python: str,
    passthrough: list[str],
    env: dict[str, str],
    items: int,
    out_dir: Path,
    top: int,
    with_gc: bool,
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    stats: dict[str, pstats.Stats] = {}
    for v in [v for v in variants if v.kind != "co"]:
        prof = out_dir / f"{v.key}.prof"
        argv = v.argv(python, passthrough)
        argv[1:1] = ["-m", "cProfile", "-o", str(prof)]
        print(f"profiling: (cd {v.directory}) {' '.join(argv)}")
        subprocess.run(
            argv,
            cwd=v.directory,
            env={**env, "OVERHEAD_TIMER_OUT": "", "OVERHEAD_NO_GC": "" if with_gc else "1"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        stats[v.key] = pstats.Stats(str(prof))
    print(f"profiles written to {out_dir} (open with: python -m pstats FILE, or snakeviz)")
    print("NOTE: cProfile inflates call-heavy code several-fold; read these as proportions.")
    if not with_gc:
        print("NOTE: profiled with the garbage collector disabled (see the GC rows above).")
    for kind in ("pass", "fail"):
        if f"{kind}-plugin" not in stats:
            continue
        plugin = stats[f"{kind}-plugin"].stats  # type: ignore[attr-defined]
        plain = stats[f"{kind}-plain"].stats  # type: ignore[attr-defined]
        total_plugin = stats[f"{kind}-plugin"].total_tt  # type: ignore[attr-defined]
        total_plain = stats[f"{kind}-plain"].total_tt  # type: ignore[attr-defined]
        print()
        print(f"== {kind}: profiled total {total_plain:.2f} s plain, {total_plugin:.2f} s plugin")
        owned = [(f, v) for f, v in plugin.items() if _owned_file(f[0])]
        self_total = sum(v[2] for _, v in owned)
        print(
            f"plugin-owned self time: {self_total:.3f} s = {self_total / items * 1e6:.1f} µs/item"
        )
        per_run = [(f, v) for f, v in owned if v[1] >= items / 2]
        once = [(f, v) for f, v in owned if v[1] < items / 2]
        for title, group, rows in (
            ("called per run (>= 0.5 calls/item)", per_run, top),
            ("collection, session and import time", once, max(5, top // 3)),
        ):
            print(f"-- plugin-owned functions {title}, by cumulative time (µs/item, calls/item)")
            print(f"{'cum':>9}{'self':>9}{'calls':>8}  function")
            for func, (_, nc, tt, ct, _) in sorted(group, key=lambda fv: -fv[1][3])[:rows]:
                print(
                    f"{ct / items * 1e6:9.1f}{tt / items * 1e6:9.1f}{nc / items:8.2f}"
                    f"  {_short(func)}"
                )
        print("-- largest self-time differences, plugin − plain (µs/item, calls/item)")
        print(f"{'Δself':>9}{'plugin':>9}{'plain':>9}{'Δcalls':>8}  function")
        a_norm, b_norm = _normalised(plugin), _normalised(plain)
        diffs = []
        for func in set(a_norm) | set(b_norm):
            a = a_norm.get(func, (0, 0.0))
            b = b_norm.get(func, (0, 0.0))
            diffs.append((a[1] - b[1], a[1], b[1], a[0] - b[0], func))
        for d, a, b, dn, func in sorted(diffs, key=lambda x: -abs(x[0]))[:top]:
            print(
                f"{d / items * 1e6:+9.1f}{a / items * 1e6:9.1f}{b / items * 1e6:9.1f}"
                f"{dn / items:+8.2f}  {_short(func)}"
            )


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="parametrize cases (default 1000)")
    parser.add_argument("--runs", type=int, default=10, help="--prob-runs (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="measured rounds (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured rounds first (default 1)")
    parser.add_argument("--no-fail", action="store_true", help="skip the failing pair")
    parser.add_argument("--no-collect-only", action="store_true", help="skip --collect-only")
    parser.add_argument(
        "--fail-tb",
        metavar="STYLE",
        help="add --tb=STYLE to the failing pair only (default: pytest's own default). "
        "pytest's FAILURES section is quadratic in the number of failures; "
        "--fail-tb=line avoids that and keeps the failing pair fast",
    )
    parser.add_argument(
        "--env-bytecode",
        action="store_true",
        help="use the environment's bytecode settings instead of a private warm "
        "PYTHONPYCACHEPREFIX cache",
    )
    parser.add_argument("--python", default=sys.executable, help="interpreter for the sessions")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        nargs="?",
        const="",
        default=None,
        help="also profile each session once with cProfile (.prof files in DIR, "
        "default: inside the temp dir)",
    )
    parser.add_argument("--top", type=int, default=20, help="rows per profile listing")
    parser.add_argument(
        "--profile-gc",
        action="store_true",
        help="profile with the garbage collector on (its passes are then charged to whatever "
        "function happened to allocate)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the medians and raw samples here")
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    parser.add_argument(
        "pytest_args",
        nargs="*",
        help="extra pytest arguments for every session (after --), e.g. -- --tb=no",
    )
    args = parser.parse_args(argv)

    items = args.cases * args.runs
    root = Path(tempfile.mkdtemp(prefix="prob-overhead-"))
    try:
        fail_extra = (f"--tb={args.fail_tb}",) if args.fail_tb else ()
        variants = make_tree(
            root, args.cases, args.runs, not args.no_fail, not args.no_collect_only, fail_extra
        )
        env = child_env(root, not args.env_bytecode)
        sources: dict[str, float] = {}
        print("sessions (each in its own directory with an empty pytest.ini):")
        for v in variants:
            print(f"  {v.key:<12} {v.shown(args.python, args.pytest_args)}")
        print(f"  (every session also gets -p {TIMER_MODULE}: session-level phase marks only)")
        print(f"temp dir: {root}")
        load = os.getloadavg()[0]
        print(f"cpus: {os.cpu_count()}, load average (1 min): {load:.2f}")
        if load > 0.5:
            print("WARNING: the machine is not idle; timings will be noisy", file=sys.stderr)
        if not args.no_fail and not args.fail_tb and items > 2000:
            print(
                "note: the failing pair uses pytest's default --tb; its FAILURES section is "
                "quadratic in the number of failures (TerminalReporter._get_teardown_reports), "
                "so those sessions are slow and noisy. --fail-tb=line avoids it.",
                file=sys.stderr,
            )

        series = {v.key: Series(v) for v in variants}
        problems: list[str] = []
        last_files: list[str] = []
        plugin_names: list[tuple[str, list[str]]] = []
        total_rounds = args.warmup + args.repeat
        for rnd in range(total_rounds):
            measured = rnd >= args.warmup
            label = f"round {rnd - args.warmup + 1}/{args.repeat}" if measured else "warm-up"
            order: list[Variant] = []
            for kind in dict.fromkeys(v.kind for v in variants):
                pair = [v for v in variants if v.kind == kind]  # [plain, plugin]
                order.extend(pair if rnd % 2 == 0 else pair[::-1])
            parts = []
            for v in order:
                sample = run_once(v, args.python, args.pytest_args, env)
                problems.extend(check(v, sample, items))
                last_files.extend(sample.timer.get("plugin_files", []))
                if v.plugin:
                    plugin_names.append((v.key, sample.timer.get("probability_plugins") or []))
                if measured:
                    series[v.key].samples.append(sample)
                parts.append(f"{v.key} {sample.wall:.2f}s")
            print(f"{label}: " + ", ".join(parts), flush=True)
            if problems:
                break
            if not sources:  # after the first round: the plugin modules the sessions loaded
                sources = source_snapshot(set(last_files))
                loaded = sorted({name for v, n in plugin_names for name in n})
                print(f"plugin sessions load: {', '.join(loaded)}", flush=True)
            edited = changed_sources(sources)
            if edited:
                problems.append(
                    "the plugin's sources changed during the measurement, results mix versions: "
                    + ", ".join(edited)
                )
                break
        if problems:
            print("\nPROBLEMS (results not comparable):", file=sys.stderr)
            for p in dict.fromkeys(problems):
                print(f"  {p}", file=sys.stderr)
            args.keep = True
            return 2

        summary = print_tables(series, items, args)
        if args.json:
            document = {
                "cases": args.cases,
                "runs": args.runs,
                "repeat": args.repeat,
                "items": items,
                "python": args.python,
                "pytest_args": args.pytest_args,
                "fail_tb": args.fail_tb,
                "summary": summary,
                "samples": {
                    key: [
                        {
                            "wall": s.wall,
                            "cpu": s.cpu,
                            "phases_cpu": {label: s.phase(a, b, 1) for label, a, b in PHASES},
                            "owned": s.timer["owned"],
                        }
                        for s in ser.samples
                    ]
                    for key, ser in series.items()
                },
            }
            Path(args.json).write_text(json.dumps(document, indent=2), encoding="utf-8")
            print(f"wrote {args.json}")
        if args.profile is not None:
            out_dir = Path(args.profile) if args.profile else root / "profiles"
            if not args.profile:
                args.keep = True
            profile(
                variants,
                args.python,
                args.pytest_args,
                env,
                items,
                out_dir,
                args.top,
                args.profile_gc,
            )
        return 0
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
