"""The end of a session per bundled feature: each feature on its own and all of them together,
at two session sizes, to show any feature whose report phase grows faster than its session.

Run by hand (never from the test suite)::

    python benchmarks/feature_matrix.py [--cases 1000,5000] [--runs 3] [--rounds 1]
                                        [--clock cpu|wall] [--only NAME,NAME] [--keep]

For each size it writes a bench file of two functions, each parametrized over a ``prompt``
axis (``terse``, ``verbose``: the comparison axis) and ``CASES / 4`` inputs, whose cases
pass a deterministic, varied number of their runs (about a quarter of the cases fail at
least one run). Every configuration below then runs as its own pytest subprocess with a
small timing plugin whose ``tryfirst`` hookwrappers around ``pytest_sessionfinish`` and
``pytest_terminal_summary`` note when each starts and ends.

*Session end* is the time from the start of ``pytest_sessionfinish`` to the later of the
two ends. pytest prints the terminal summary from inside its own ``pytest_sessionfinish``,
so the two spans nest and their sum would count the summary twice: the union is the
report building, the files written (JSON, HTML, Markdown, baseline), the terminal summary
and pytest's own sections. It is read on the child's CPU clock (``time.process_time``) by
default, which other work on a shared machine moves far less than the wall clock
(``--clock wall`` reads ``time.perf_counter``). Every session runs with ``-q --tb=no -rN``
(no ``FAILURES`` section, as in ``report_phase.py``) except the ``failures*`` rows, which
show the output.

The table has one row per configuration: the session end at each size (best of
``--rounds``; a round runs each configuration at every size back to back), the seconds it
adds over the row named in ``over`` (``base``, ``gate`` for the stopping rules, which need
a gate to stop anything, and the single feature for the pairs), and two growth ratios,
largest size over smallest: of the session end (``growth``) and of the added seconds
(``+growth``, shown only when the feature adds more than 0.05 s at the smallest size:
below that the difference is noise). Linear growth is the ratio of the sizes (5 by
default); a ratio above 1.3 times that (6.5) is flagged ``!`` as possibly superlinear. A
second table gives each session's whole wall time and its growth: the run loop's share of
a feature (stopping, recording) shows there, not in the session end.

Every session runs with ``--prob-runs=RUNS`` and blocks (``-p no:NAME``) the installed
third-party extensions (``pytest_probability.extensions`` entry points, ``probability.<name>``)
and every other ``pytest11`` plugin, so that only pytest, the kernel and the bundled
extensions load: hypothesis's plugin, for one, imports hypothesis in its terminal summary,
a fixed 0.3 s of every session end. The blocked names are printed first. Bytecode is cached
in a private ``PYTHONPYCACHEPREFIX`` (``PYTHONDONTWRITEBYTECODE`` is removed), filled by
unmeasured warm-up sessions, so that no session compiles the modules it imports late. The
configurations:

* ``base``: the plugin with no option. Its defaults are on here, as they are for every
  user: row intervals (exact), the function-level and Overall lines with their 5,000-resample
  case bootstrap (the ``intervals`` extension; ``--prob-bootstrap=5000`` is the default, so
  it is in ``base`` rather than a row of its own), and grouped failure output.
* ``no-function-lines``: ``-o prob_min_inputs=N`` above the number of cases, which turns the
  function-level and Overall lines off; its negative difference is what ``base`` spends on
  them. ``wilson``, ``bayes``: ``--prob-method``; ``no-intervals``: ``--prob-no-intervals``.
* ``compare``: ``--prob-compare=prompt`` (one arm per function, paired bootstrap);
  ``compare-margin``: the mark ``probability(compare="prompt", margin=0.05)`` (a gate, with
  its ``[compare:…]`` items).
* ``metrics``: ``--prob-metric=pass^3,pass@3``.
* ``gate``: ``--prob-min-rate=0.2`` (a rate gate and a ``[gate]`` item per case; with 3
  runs, 3/3 passes it and the rest are undecided; a higher bar cannot pass with 3 runs and
  every case would carry a warning).
* ``latency``: ``--prob-latency``; ``latency-gate``: the mark
  ``probability(max_latency=1.0, latency_quantile=0.25)`` (p95 would need 72 runs to have an
  upper end, p25 has one with 3).
* ``cost``: every run calls ``record_usage`` (two models, by prompt) and ``record_cost``
  (an environment variable read by the bench file turns the calls on, so other rows have no
  cost). ``budget``: ``--prob-budget-runs`` set above the session's runs, so it tallies but
  never cuts the session.
* ``curtail``, ``sequential``: ``--prob-stop`` with the ``gate`` row's ``--prob-min-rate``
  (at 3 runs each stops about a fifth of the cases after one or two runs; the function-level
  intervals over stopped cases are hidden, so these rows skip the bootstrap that ``gate``
  pays). ``seq+compare``: ``sequential`` with the ``compare-margin`` mark, whose comparison
  the sequential rule monitors while it runs; ``seq+baseline``: ``sequential`` with the
  ``baseline`` row's options (the ``--prob-margin`` comparison, monitored too).
* ``json``, ``html``, ``markdown``: ``--prob-json``, ``--prob-html``, ``--prob-markdown``
  (``GITHUB_STEP_SUMMARY`` is removed from the environment).
* ``explain``: ``--prob-explain``; ``html+explain``: both, counted over ``explain`` (the
  HTML page renders every explanation the JSON document holds).
* ``failures``: ``--tb=short`` with the default ``--prob-failures=grouped`` (one traceback
  per failing case); ``failures-first``: ``--prob-failures=first``; ``failures-all``:
  ``--prob-failures=all`` (pytest's own output, one traceback per failing run; pytest's
  ``_get_teardown_reports`` makes printing each traceback scan every report of the session,
  so this row is quadratic whatever the plugin does).
* ``baseline``: ``--prob-baseline`` (a JSON report of an unmeasured ``base`` session of the
  same size) with ``--prob-margin=0.05`` (a ``[baseline]`` item per function);
  ``save-baseline``: ``--prob-save-baseline``.
* ``transpose``: ``--prob-transpose``.
* ``texts``: every run calls ``texts_expect_recall_range`` on a scripted judge registered by
  the generated ``conftest.py`` (the one of docs/texts.rst, no network), which also records
  the judge's usage (so the row prints cost and tokens too).
* ``plan``: ``--prob-plan`` (runs nothing; its rows are computed at collection, so its
  session end is printing the plan: see its wall time too). Not part of ``all``.
* ``all``: everything above at once, except ``plan`` (it replaces the run), the interval
  variants (``--prob-method=wilson`` stands for them; ``--prob-no-intervals`` would hide
  what the others print), ``curtail`` (``sequential`` stands for the stopping rules),
  the ``failures*`` rows (``all`` keeps ``--tb=no``: pytest's quadratic scan of the
  ``FAILURES`` section would hide everything else, and those rows show it alone) and
  ``budget`` by runs (``--prob-budget`` by amount instead, far above the recorded spend).
  ``--prob-adjust=holm`` is added for the comparisons, and the ``compare-margin`` and
  ``latency-gate`` marks are merged.

Left out: ``--prob-delay`` (it sleeps between runs, nothing at the session's end),
``--prob-confidence``, ``--prob-seed``, ``--prob-undecided``, ``--prob-no-gate-items`` and
``--prob-compare-resolution`` (settings of features above that change numbers, not work),
``--prob-plan-*`` (settings of ``plan``), pytest-xdist and the case-aware scheduler (the
controller builds the same report; see ``distribution.py``) and the contrib extensions
(``--prob-price-table``, ``--prob-slowest`` and the others are not bundled).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

TIMER = """
import json, time
import pytest

SPANS = {}

def now():
    return {"wall": time.perf_counter(), "cpu": time.process_time()}

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    start = now()
    try:
        return (yield)
    finally:
        SPANS["sessionfinish"] = (start, now())

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    start = now()
    try:
        return (yield)
    finally:
        SPANS["terminal_summary"] = (start, now())

def pytest_unconfigure(config):
    with open("times.json", "w") as handle:
        json.dump(SPANS, handle)
"""

#: the scripted judge of docs/texts.rst ("A scripted judge"): the same replies every time
CONFTEST = """
import json
import re
from dataclasses import dataclass

FACTS = ("refund", "approved", "5 days", "card", "call")


@dataclass
class Reply:
    text: str
    finish_reason: str = "stop"
    model: str = "scripted-judge"
    input_tokens: int | None = 150
    output_tokens: int | None = 40
    cached_input_tokens: int | None = 0


class ScriptedJudge:
    def complete(self, messages, *, json_mode=None):
        prompt = messages[-1]["content"]
        text = prompt.split("<<<")[1].split(">>>")[0]
        if "Questions:" in prompt:
            asked = re.findall(r"mention '(.+?)'", prompt.split("Questions:")[1])
            answers = [
                {"question": number, "score": 1 if fact in text else 0}
                for number, fact in enumerate(asked, start=1)
            ]
            return Reply(json.dumps({"answers": answers}))
        questions = [f"Does the text mention '{fact}'?" for fact in FACTS if fact in text]
        return Reply(json.dumps({"questions": questions}))


def pytest_prob_register_llm_backends(register, config):
    register("scripted", lambda settings: ScriptedJudge(), description="canned replies")
"""

BENCH = """
import json
import os

import pytest
from pytest_probability import current_run, record_cost, record_usage

COST = os.environ.get("PROB_MATRIX_COST") == "1"
TEXTS = os.environ.get("PROB_MATRIX_TEXTS") == "1"
MARK = json.loads(os.environ.get("PROB_MATRIX_MARK") or "{{}}")
EXPECTED = "Your refund was approved; we will call you within 5 days."
if TEXTS:
    from pytest_probability.texts import texts_expect_recall_range


def marked(function):
    return pytest.mark.probability(**MARK)(function) if MARK else function


def body(i, prompt, offset):
    run = current_run().run
    verbose = prompt == "verbose"
    if COST:
        record_usage(
            model="m-large" if verbose else "m-small",
            input_tokens=400 + i % 97,
            output_tokens=30 + i % 13,
            cached_input_tokens=64,
            cost=0.0004 if verbose else 0.0001,
        )
        record_cost(0.00001)
    if TEXTS:
        texts_expect_recall_range(EXPECTED, EXPECTED, min_score=0.5, max_score=1.0)
    assert run <= (i * 7 + offset + verbose) % 11, f"run {{run}} of input {{i}}"
{functions}
"""

FUNCTION = """
@marked
@pytest.mark.parametrize("prompt", ["terse", "verbose"])
@pytest.mark.parametrize("i", range({inputs}))
def bench_f{index}(i, prompt):
    body(i, prompt, {index})
"""

FUNCTIONS = 2
#: removed from the sessions' environment (bytecode is cached in a private prefix instead)
DROPPED = ("CI", "BUILD_NUMBER", "GITHUB_STEP_SUMMARY", "PYTHONDONTWRITEBYTECODE")
PROMPTS = 2
QUIET = ("--tb=no", "-rN")
SHORT = ("--tb=short",)


@dataclass(frozen=True)
class Config:
    """One session's settings: pytest arguments (``{root}`` is the size's directory,
    ``{cases}`` its number of cases), environment, the probability mark's keywords and the
    row its added seconds are counted over."""

    name: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    mark: dict[str, object] = field(default_factory=dict)
    over: str = "base"
    output: tuple[str, ...] = QUIET


GATE = ("--prob-min-rate=0.2",)
TEXTS_ARGS = ("-o", "texts_backend=scripted", "-o", "texts_model=scripted-judge")
HTML = ("--prob-html={root}/out/report.html",)
SEQUENTIAL = (*GATE, "--prob-stop=sequential")
MARGIN = {"compare": "prompt", "margin": 0.05}
LATENCY_GATE = {"max_latency": 1.0, "latency_quantile": 0.25}
BASELINE = ("--prob-baseline={root}/baseline.json", "--prob-margin=0.05")

CONFIGS = (
    Config("base"),
    Config("no-function-lines", ("-o", "prob_min_inputs={above}")),
    Config("wilson", ("--prob-method=wilson",)),
    Config("bayes", ("--prob-method=bayes",)),
    Config("no-intervals", ("--prob-no-intervals",)),
    Config("compare", ("--prob-compare=prompt",)),
    Config("compare-margin", mark=MARGIN),
    Config("metrics", ("--prob-metric=pass^3,pass@3",)),
    Config("gate", GATE),
    Config("latency", ("--prob-latency",)),
    Config("latency-gate", mark=LATENCY_GATE),
    Config("cost", env={"PROB_MATRIX_COST": "1"}),
    Config("budget", ("--prob-budget-runs={above_runs}",)),
    Config("curtail", (*GATE, "--prob-stop=curtail"), over="gate"),
    Config("sequential", SEQUENTIAL, over="gate"),
    Config("seq+compare", SEQUENTIAL, mark=MARGIN, over="sequential"),
    Config("seq+baseline", (*SEQUENTIAL, *BASELINE), over="sequential"),
    Config("json", ("--prob-json={root}/out/report.json",)),
    Config("html", HTML),
    Config("markdown", ("--prob-markdown={root}/out/report.md",)),
    Config("explain", ("--prob-explain",)),
    Config("html+explain", (*HTML, "--prob-explain"), over="explain"),
    Config("failures", output=SHORT),
    Config("failures-first", ("--prob-failures=first",), output=SHORT),
    Config("failures-all", ("--prob-failures=all",), output=SHORT),
    Config("baseline", BASELINE),
    Config("save-baseline", ("--prob-save-baseline={root}/out/baseline.toml",)),
    Config("transpose", ("--prob-transpose",)),
    Config("texts", TEXTS_ARGS, env={"PROB_MATRIX_TEXTS": "1"}),
    Config("plan", ("--prob-plan",)),
    Config(
        "all",
        (
            "--prob-method=wilson",
            "--prob-compare=prompt",
            "--prob-adjust=holm",
            "--prob-metric=pass^3,pass@3",
            *GATE,
            "--prob-latency",
            "--prob-budget=1000000",
            "--prob-stop=sequential",
            "--prob-json={root}/out/report.json",
            "--prob-html={root}/out/report.html",
            "--prob-markdown={root}/out/report.md",
            "--prob-explain",
            *BASELINE,
            "--prob-save-baseline={root}/out/baseline.toml",
            "--prob-transpose",
            *TEXTS_ARGS,
        ),
        env={"PROB_MATRIX_COST": "1", "PROB_MATRIX_TEXTS": "1"},
        mark={**MARGIN, **LATENCY_GATE},
    ),
)


@dataclass
class Timing:
    """One session: its end (seconds of the chosen clock) and its whole wall time."""

    end: float
    wall: float


def third_party() -> list[str]:
    """Plugin names to block in every session: the installed third-party extensions
    (``probability.<name>``) and every other ``pytest11`` plugin but the probability one."""
    group = metadata.entry_points(group="pytest_probability.extensions")
    names = {f"probability.{entry_point.name}" for entry_point in group}
    names |= {e.name for e in metadata.entry_points(group="pytest11") if e.name != "probability"}
    return sorted(names)


def bench_source(cases: int) -> str:
    inputs = cases // (FUNCTIONS * PROMPTS)
    functions = "".join(FUNCTION.format(inputs=inputs, index=index) for index in range(FUNCTIONS))
    return BENCH.format(functions=functions)


def session_end(spans: dict[str, list[dict[str, float]]], clock: str) -> float:
    """Seconds of ``clock`` from the start of ``pytest_sessionfinish`` to the end of the
    later hook."""
    starts = [start[clock] for start, _ in spans.values()]
    ends = [end[clock] for _, end in spans.values()]
    return max(ends) - min(starts)


@dataclass
class Harness:
    """What every session shares: runs per case, plugins to block, the clock read, and
    whether to keep each session's output."""

    runs: int
    blocked: list[str]
    clock: str
    keep: bool

    def run(self, root: Path, config: Config, cases: int) -> Timing:
        """Run one session in ``root`` (the directory of a ``cases``-case bench file)."""
        values = {
            "root": str(root),
            "above": str(cases + 1),
            "above_runs": str(cases * self.runs + 1),
        }
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        for name in (*DROPPED, "PROB_MATRIX_COST", "PROB_MATRIX_TEXTS"):
            env.pop(name, None)
        env.update(config.env)
        env["PROB_MATRIX_MARK"] = json.dumps(config.mark)
        env["PYTHONPATH"] = str(root.parent)
        env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
        env["COLUMNS"] = "100"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "matrix_timer"]
        command += ["-p", "no:cacheprovider", "-p", "no:randomly"]
        for name in self.blocked:
            command += ["-p", f"no:{name}"]
        command += [*config.output, f"--prob-runs={self.runs}"]
        command += [arg.format(**values) for arg in config.args]
        (root / "times.json").unlink(missing_ok=True)
        output = root / f"{config.name}.out.txt"
        started = time.perf_counter()
        with output.open("w") as handle:
            done = subprocess.run(
                command, cwd=root, env=env, stdout=handle, stderr=subprocess.STDOUT
            )
        wall = time.perf_counter() - started
        if done.returncode not in (0, 1) or not (root / "times.json").exists():
            tail = "\n".join(output.read_text().splitlines()[-15:])
            raise SystemExit(f"{config.name} at {cases} cases: exit {done.returncode}\n{tail}")
        if not self.keep:
            output.unlink()
        spans = json.loads((root / "times.json").read_text())
        return Timing(session_end(spans, self.clock), wall)


def growth(small: float, large: float, linear: float, floor: float = 0.0) -> str:
    """``large / small``, flagged ``!`` when above 1.3 times ``linear``; ``-`` when
    ``small`` is not above ``floor`` (or either is not positive)."""
    if small <= max(floor, 0.0) or large <= 0:
        return f"{'-':>7}"
    ratio = large / small
    return f"{ratio:6.1f}{'!' if ratio > 1.3 * linear else ' '}"


def print_tables(
    configs: tuple[Config, ...], sizes: list[int], best: dict[tuple[str, int], Timing]
) -> None:
    small, large = sizes[0], sizes[-1]
    linear = large / small
    names = {config.name: config for config in configs}
    width = max(len(config.name) for config in configs)
    over = max(len(config.over) for config in configs)
    head = f"{'configuration':{width}}  {'over':{over}}"
    head += "".join(f"  {f'end@{size}':>9}" for size in sizes)
    head += "".join(f"  {f'+@{size}':>8}" for size in sizes)
    head += f"  {'growth':>7}  {'+growth':>7}"
    print(head)
    for config in configs:
        row = f"{config.name:{width}}  "
        row += f"{'-' if config.name == 'base' else config.over:{over}}"
        row += "".join(f"  {best[config.name, size].end:9.3f}" for size in sizes)
        added = []
        if config.name == "base" or config.over not in names:
            row += "".join(f"  {'-':>8}" for _ in sizes)
        else:
            for size in sizes:
                added.append(best[config.name, size].end - best[config.over, size].end)
                row += f"  {added[-1]:+8.3f}"
        row += "  " + growth(best[config.name, small].end, best[config.name, large].end, linear)
        row += "  " + (growth(added[0], added[-1], linear, floor=0.05) if added else f"{'-':>7}")
        print(row)
    print()
    head = "".join(f"  {f'wall@{size}':>10}" for size in sizes)
    print(f"{'configuration':{width}}{head}  {'growth':>7}")
    for config in configs:
        walls = "".join(f"  {best[config.name, size].wall:10.1f}" for size in sizes)
        ratio = growth(best[config.name, small].wall, best[config.name, large].wall, linear)
        print(f"{config.name:{width}}{walls}  {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="1000,5000", help="comma-separated sizes")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1, help="best of ROUNDS per cell")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--only", default="", help="comma-separated configurations")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.cases.split(","))
    unit = FUNCTIONS * PROMPTS
    if len(sizes) < 2 or any(size % unit or size < 10 * unit for size in sizes):
        parser.error(f"two sizes or more, each a multiple of {unit} and at least {10 * unit}")
    by_name = {config.name: config for config in CONFIGS}
    wanted = {"base", *filter(None, args.only.split(","))} if args.only else set(by_name)
    if unknown := wanted - set(by_name):
        parser.error(f"unknown configurations: {', '.join(sorted(unknown))}")
    while missing := {by_name[name].over for name in wanted} - wanted:
        wanted |= missing  # (and the rows they are counted over)
    configs = tuple(config for config in CONFIGS if config.name in wanted)
    harness = Harness(args.runs, third_party(), args.clock, args.keep)
    print(f"blocked plugins: {', '.join(harness.blocked) or 'none'}")
    print(
        f"{FUNCTIONS} functions x {PROMPTS} prompts, --prob-runs={args.runs}, "
        f"sizes {', '.join(map(str, sizes))} cases, session end in {args.clock} seconds, "
        f"best of {args.rounds} round(s)"
    )
    tmp = Path(tempfile.mkdtemp(prefix="prob-matrix-"))
    (tmp / "matrix_timer.py").write_text(TIMER)
    roots = {}
    for size in sizes:
        root = roots[size] = tmp / f"cases_{size}"
        (root / "out").mkdir(parents=True)
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "conftest.py").write_text(CONFTEST)
        (root / "bench_matrix.py").write_text(bench_source(size))
        # unmeasured: the baseline report of --prob-baseline, and the bytecode of every
        # module the configurations import (the first size also runs 'all' and 'plan')
        harness.run(root, Config("warm-up", ("--prob-json={root}/baseline.json",)), size)
    for config in (c for c in CONFIGS if c.name in ("all", "plan")):
        harness.run(roots[sizes[0]], config, sizes[0])
    best: dict[tuple[str, int], Timing] = {}
    started = time.perf_counter()
    for _ in range(args.rounds):
        for config in configs:
            for size in sizes:  # (the sizes of a row back to back: drift hits both)
                timing = harness.run(roots[size], config, size)
                key = (config.name, size)
                if key not in best or timing.end < best[key].end:
                    best[key] = timing
                print(f"  {config.name} @ {size}: {timing.end:.3f} s", file=sys.stderr)
    print(f"(measured in {time.perf_counter() - started:.0f} s)")
    print()
    print_tables(configs, sizes, best)
    if args.keep:
        print(f"kept: {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
