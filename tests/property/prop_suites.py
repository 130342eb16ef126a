"""Random bench suites and flag sets for the property suite: the model, its rendering to
bench files and command lines, and the hypothesis strategies that draw them.

A :class:`Suite` is a few bench functions spread over one or two files. Each function has
0-2 stacked ``parametrize`` axes with explicit ids (``q`` for inputs, ``arm`` for the arms a
comparison reads), ``probability`` marks on the function and on single cases, and for every
case a deterministic outcome sequence over ``p`` (pass), ``f`` (fail), ``e`` (error) and
``s`` (a pytest skip): run ``r`` plays ``sequence[(r - 1) % len(sequence)]``, read through
``pytest_probability.current_run().run``, so every session replays the same runs whatever
its order, stopping rule or process. Runs record a cost, token usage and a latency
(``record_latency``, so latency gates are deterministic too); a function may instead yield
steps.

Ids are chosen so that no case id is a prefix or substring of another, nor of a keyword
pytest matches ``-k`` against (``parametrize``, ``probability``, directory names):
``in0``..``in3``, ``arm0``..``arm2``, functions ``f0``..``f3``. ``-k`` and ``--deselect`` then
select whole cases.
"""

from __future__ import annotations

import importlib.metadata
import json
import shlex
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

#: parametrize argument names: inputs, and the arms of a comparison
INPUT_AXIS, ARM_AXIS = "q", "arm"
INPUT_VALUES = ("in0", "in1", "in2", "in3")
ARM_VALUES = ("arm0", "arm1", "arm2")

#: rate bars, 0.5 among them: a case whose rate equals its bar once cost the explain
#: extension's "runs to settle" search 20,000 verdicts
#: (tests/property/test_regressions.py::test_runs_to_settle_work_is_bounded_at_the_bar).
RATES = (0.3, 0.5, 0.55, 0.72, 0.85)
MARGINS = (0.15, 0.35, 0.6)

#: gate kinds a third party registers (:data:`THIRD_PARTY_CONFTEST`), both count-like (their
#: verdict depends only on the pass count, monotone, so ``--prob-stop`` can curtail them):
#: ``max_fails=L`` passes with at most ``L`` non-passing judged runs and fails otherwise;
#: ``fail_band=K`` passes with at most ``K``, fails with more than ``2K``, and is undecided
#: between. A case of the same function may so carry a rate or count gate and a third-party
#: one: the only way two count-like checks meet on one case (docs/gates.rst: ``min_rate`` and
#: ``min_passes`` are one choice, the closest mark's).
THIRD_PARTY = ("max_fails", "fail_band")
THIRD_PARTY_CONFTEST = """\
from pytest_probability.extensions.gates.registry import GateResult


def _limit(value, config=None):
    return int(value)


def pytest_prob_addoption(options):
    options.add("max_fails", parse=_limit, mark=True, help="at most this many failing runs",
                owner="prop-third-party")
    options.add("fail_band", parse=_limit, mark=True, help="pass at most K, fail over 2K",
                owner="prop-third-party")


def _max_fails(limit, passes, n, config):
    return "fail" if n - passes > limit else "pass"


def _fail_band(k, passes, n, config):
    fails = n - passes
    return "pass" if fails <= k else "fail" if fails > 2 * k else "undecided"


def _judge(name, verdict_at):
    def judge(limit, case, config):
        n = case.passes + case.fails + case.errors
        if (config.getini("prob_errors") or "").strip().lower() == "exclude":
            n -= case.errors
        verdict = verdict_at(limit, case.passes, n, config)
        return GateResult(name, verdict, f"{n - case.passes} not passed  {name}={limit}  "
                          f"{verdict.upper()}", {"limit": limit, "passes": case.passes, "n": n})
    return judge


def pytest_prob_register_gates(register, config):
    register("max_fails", configure=lambda mark, config: mark.get("max_fails"),
             judge=_judge("max_fails", _max_fails),
             describe=lambda limit: f"max_fails={limit}", verdict_at=_max_fails)
    register("fail_band", configure=lambda mark, config: mark.get("fail_band"),
             judge=_judge("fail_band", _fail_band),
             describe=lambda k: f"fail_band={k}", verdict_at=_fail_band)
"""


def _mark_source(kwargs: Mapping[str, Any]) -> str:
    inner = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
    return f"pytest.mark.probability({inner})"


@dataclass(frozen=True)
class Axis:
    """One ``parametrize`` decorator: argument ``name``, values (their ids are the values),
    and ``probability`` marks on single values (``{value index: mark kwargs}``)."""

    name: str
    values: tuple[str, ...]
    marks: tuple[tuple[int, tuple[tuple[str, Any], ...]], ...] = ()

    def mark_of(self, index: int) -> dict[str, Any] | None:
        for at, kwargs in self.marks:
            if at == index:
                return dict(kwargs)
        return None

    def source(self) -> str:
        params = []
        for index, value in enumerate(self.values):
            mark = self.mark_of(index)
            marks = f", marks={_mark_source(mark)}" if mark else ""
            params.append(f"pytest.param({value!r}, id={value!r}{marks})")
        return f"@pytest.mark.parametrize({self.name!r}, [{', '.join(params)}])"


@dataclass(frozen=True)
class Function:
    """A bench function ``bench_<name>`` in file ``bench_<file>.py``.

    ``axes`` are in id order: the first is the decorator nearest the function, whose id comes
    first in the case id (``q0-a``). ``outcomes`` maps each case suffix (``""`` when
    unparametrized) to its outcome sequence.
    """

    name: str
    file: int = 0
    axes: tuple[Axis, ...] = ()
    mark: tuple[tuple[str, Any], ...] = ()
    outcomes: tuple[tuple[str, str], ...] = (("", "p"),)
    steps: bool = False
    cost: float | None = None
    usage: str | None = None
    #: whether the usage carries its cost (else ``--prob-price-table`` may price it)
    usage_cost: bool = True
    latency: float = 0.01

    @property
    def label(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        return f"bench_{self.file}.py"

    def suffixes(self) -> list[str]:
        """Case suffixes in pytest's collection order (the outer decorator varies fastest)."""
        combos: list[tuple[str, ...]] = [()]
        for axis in self.axes:
            combos = [(*combo, value) for combo in combos for value in axis.values]
        return ["-".join(combo) for combo in combos]

    def case_id(self, suffix: str) -> str:
        return f"{self.name}::{suffix}" if suffix else self.name

    def nodeid(self, suffix: str) -> str:
        base = f"{self.path}::bench_{self.name}"
        return f"{base}::{suffix}" if suffix else base

    def keyword(self, suffix: str) -> str:
        """A ``-k`` expression selecting exactly this case."""
        return f"(bench_{self.name} and {suffix})" if suffix else f"bench_{self.name}"

    def outcome_of(self, suffix: str) -> str:
        return dict(self.outcomes)[suffix]

    def source(self) -> str:
        lines = []
        if self.mark:
            lines.append(f"@{_mark_source(dict(self.mark))}")
        lines.extend(axis.source() for axis in reversed(self.axes))
        names = [axis.name for axis in self.axes]
        lines.append(f"def bench_{self.name}({', '.join(names)}):")
        key = " + '-' + ".join(names) if names else "''"
        table = {suffix: sequence for suffix, sequence in self.outcomes}
        lines.append(f"    sequence = {table!r}[{key}]")
        lines.append("    run = current_run().run")
        lines.append("    outcome = sequence[(run - 1) % len(sequence)]")
        lines.append(f"    record_latency({self.latency!r} * (run % 3 + 1))")
        if self.steps:
            lines.append("    if outcome == 's':")
            lines.append("        pytest.skip(f'not run {run}')")
            first = {"label": "fetch", "passed": True}
            if self.cost is not None:
                first["cost"] = self.cost
            lines.append(f"    yield {first!r}")
            priced = ", 'cost': 0.0001" if self.usage_cost else ""
            usage = (
                f", 'usage': [{{'model': {self.usage!r}, 'input_tokens': 12, "
                f"'output_tokens': 3{priced}}}]"
                if self.usage
                else ""
            )
            lines.append(
                "    yield {'label': 'judge', 'passed': outcome != 'f', "
                "'error': 'TimeoutError' if outcome == 'e' else None, "
                f"'message': f'run {{run}}: {{outcome}}'{usage}}}"
            )
        else:
            if self.cost is not None:
                lines.append(f"    record_cost({self.cost!r})")
            if self.usage:
                priced = ", cost=0.0001" if self.usage_cost else ""
                lines.append(
                    f"    record_usage(model={self.usage!r}, input_tokens=10 * run, "
                    f"output_tokens=2{priced})"
                )
            lines.append("    if outcome == 's':")
            lines.append("        pytest.skip(f'not run {run}')")
            lines.append("    if outcome == 'e':")
            lines.append("        raise ValueError(f'harness broke in run {run}')")
            lines.append("    assert outcome == 'p', f'wrong answer in run {run}'")
        return "\n".join(lines)


HEADER = """\
import pytest
from pytest_probability import current_run, record_cost, record_latency, record_usage
"""


@dataclass(frozen=True)
class Suite:
    """Bench functions, and an optional module-level ``pytestmark`` for file 0."""

    functions: tuple[Function, ...]
    module_mark: tuple[tuple[str, Any], ...] = ()

    def files(self) -> dict[str, str]:
        """``{file name: source}``."""
        found: dict[str, list[str]] = {}
        for function in self.functions:
            found.setdefault(function.path, []).append(function.source())
        out = {}
        for path, bodies in found.items():
            head = HEADER
            if self.module_mark and path == "bench_0.py":
                head += f"\npytestmark = {_mark_source(dict(self.module_mark))}\n"
            out[path] = head + "\n\n" + "\n\n\n".join(bodies) + "\n"
        if self.third_party():
            out["conftest.py"] = THIRD_PARTY_CONFTEST
        return out

    def marks(self) -> Iterator[dict[str, Any]]:
        """Every ``probability`` mark of the suite (module, functions, single cases)."""
        yield dict(self.module_mark)
        for function in self.functions:
            yield dict(function.mark)
            for axis in function.axes:
                for _, kwargs in axis.marks:
                    yield dict(kwargs)

    def third_party(self) -> bool:
        """Whether a mark sets a third-party gate (the suite then writes its conftest)."""
        return any(key in mark for mark in self.marks() for key in THIRD_PARTY)

    def cases(self) -> Iterator[tuple[Function, str]]:
        for function in self.functions:
            for suffix in function.suffixes():
                yield function, suffix

    def case_ids(self) -> list[str]:
        return [function.case_id(suffix) for function, suffix in self.cases()]

    def source(self) -> str:
        """Every file, for a regression test or a report."""
        return "\n".join(f"# {path}\n{text}" for path, text in self.files().items())

    def scaled(self, factor: int) -> Suite:
        """The suite with ``factor`` times the cases: a function with an input axis gets
        ``factor`` times its inputs (the new ones replay the old ones' outcomes), one without
        is copied ``factor`` times. The report-work invariant grows a suite by this."""
        functions: list[Function] = []
        for function in self.functions:
            names = [axis.name for axis in function.axes]
            if INPUT_AXIS not in names:
                functions += [
                    replace(function, name=f"{function.name}c{copy}") for copy in range(factor)
                ]
                continue
            at = names.index(INPUT_AXIS)
            old = function.axes[at]
            values = tuple(f"in{index}" for index in range(len(old.values) * factor))
            new_axes = list(function.axes)
            new_axes[at] = replace(old, values=values)
            outcomes = dict(function.outcomes)
            grown = replace(function, axes=tuple(new_axes))
            table = []
            for suffix in grown.suffixes():
                parts = suffix.split("-")
                parts[at] = old.values[int(parts[at][2:]) % len(old.values)]
                table.append((suffix, outcomes["-".join(parts)]))
            functions.append(replace(grown, outcomes=tuple(table)))
        return replace(self, functions=tuple(functions))


@dataclass(frozen=True)
class Flags:
    """A session's options. ``None``/``False`` means "not given" (the default applies).

    ``baseline`` is a list of earlier rows (``case``, ``nodeid``, counts) the harness writes
    as a JSON report for ``--prob-baseline``; ``keep_nodeid=False`` leaves ``nodeid`` out of
    those rows (issue 20 §5). Writers take file names inside the session's directory;
    ``writer_dir`` puts them in a directory that does not exist yet (issue 20 §4).
    """

    runs: int | None = None
    method: str | None = None
    confidence: float | None = None
    min_rate: float | None = None
    undecided: str | None = None
    errors: str | None = None
    bootstrap: int = 200
    seed: int | None = None
    min_inputs: int | None = None
    compare: str | None = None
    adjust: str | None = None
    metric: tuple[str, ...] = ()
    latency: bool = False
    latency_quantile: float | None = None
    stop: str | None = None
    transpose: bool = False
    explain: bool = False
    json: bool = True
    html: bool = False
    markdown: bool = False
    save_baseline: bool = False
    #: ``--prob-history=history`` (beside the other writers) and ``--prob-history-keep=N``
    history: bool = False
    history_keep: int | None = None
    no_gate_items: bool = False
    no_intervals: bool = False
    prior: str | None = None
    baseline: tuple[tuple[tuple[str, Any], ...], ...] | None = None
    keep_nodeid: bool = True
    margin: float | None = None
    budget_runs: int | None = None
    #: ``--prob-budget=AMOUNT`` and ``--prob-budget-ok``
    budget: float | None = None
    budget_ok: bool = False
    delay: float | None = None
    #: ``--prob-concurrency=K`` and ``--prob-threads`` (the bodies are plain functions: runs
    #: overlap only with threads)
    concurrency: int | None = None
    threads: bool = False
    failures: str | None = None
    compare_resolution: float | None = None
    #: ``--prob-compare-sequential`` and ``--prob-bootstrap-method`` (issue 36)
    compare_sequential: str | None = None
    bootstrap_method: str | None = None
    #: ini ``prob_latency_method`` and ``prob_compare_test`` (each has one bundled value)
    latency_method: str | None = None
    compare_test: str | None = None
    #: ``--prob-plan`` (nothing runs) and its options; ``plan_report``: the harness writes
    #: an earlier report with a cost per case (``costs.json``); ``plan_write``: ``plan.toml``
    plan: bool = False
    plan_assume: float | None = None
    plan_assume_diff: float | None = None
    plan_flake: str | None = None
    plan_report: bool = False
    plan_write: bool = False
    #: the contrib extensions' options (drawn only where installed): a price table the
    #: harness writes (``prices.toml``), and ``--prob-slowest=N``
    price_table: bool = False
    slowest: int | None = None
    writer_dir: str = ""
    runxfail: bool = False
    keyword: str | None = None
    #: keep pytest's cache plugin (the harness passes ``-p no:cacheprovider`` otherwise)
    cache: bool = False
    extra: tuple[str, ...] = field(default=())

    # -- rendering ---------------------------------------------------------------------
    def args(self) -> list[str]:
        """The command line (without ``-n``), writers named in the current directory."""
        out: list[str] = []
        if self.runs is not None:
            out.append(f"--prob-runs={self.runs}")
        if self.method:
            out.append(f"--prob-method={self.method}")
        if self.confidence is not None:
            out.append(f"--prob-confidence={self.confidence}")
        if self.min_rate is not None:
            out.append(f"--prob-min-rate={self.min_rate}")
        if self.undecided:
            out.append(f"--prob-undecided={self.undecided}")
        if self.errors:
            out += ["-o", f"prob_errors={self.errors}"]
        out.append(f"--prob-bootstrap={self.bootstrap}")
        if self.seed is not None:
            out.append(f"--prob-seed={self.seed}")
        if self.min_inputs is not None:
            out += ["-o", f"prob_min_inputs={self.min_inputs}"]
        if self.compare:
            out.append(f"--prob-compare={self.compare}")
        if self.adjust:
            out.append(f"--prob-adjust={self.adjust}")
        if self.metric:
            out.append(f"--prob-metric={','.join(self.metric)}")
        if self.latency:
            out.append("--prob-latency")
        if self.latency_quantile is not None:
            out += ["-o", f"prob_latency_quantile={self.latency_quantile}"]
        if self.stop:
            out.append(f"--prob-stop={self.stop}")
        if self.transpose:
            out.append("--prob-transpose")
        if self.explain:
            out.append("--prob-explain")
        where = f"{self.writer_dir}/" if self.writer_dir else ""
        if self.json:
            out.append(f"--prob-json={where}report.json")
        if self.html:
            out.append(f"--prob-html={where}report.html")
        if self.markdown:
            out.append(f"--prob-markdown={where}report.md")
        if self.save_baseline:
            out.append(f"--prob-save-baseline={where}saved.toml")
        if self.history:
            out.append(f"--prob-history={where}history")
            if self.history_keep is not None:
                out.append(f"--prob-history-keep={self.history_keep}")
        if self.no_gate_items:
            out.append("--prob-no-gate-items")
        if self.no_intervals:
            out.append("--prob-no-intervals")
        if self.prior:
            out += ["-o", f"prob_prior={self.prior}"]
        if self.baseline is not None:
            out.append("--prob-baseline=earlier.json")
            if self.margin is not None:
                out.append(f"--prob-margin={self.margin}")
        if self.budget_runs is not None:
            out.append(f"--prob-budget-runs={self.budget_runs}")
        if self.budget is not None:
            out.append(f"--prob-budget={self.budget}")
        if self.budget_ok:
            out.append("--prob-budget-ok")
        if self.delay is not None:
            out.append(f"--prob-delay={self.delay}")
        if self.concurrency is not None:
            out.append(f"--prob-concurrency={self.concurrency}")
        if self.threads:
            out.append("--prob-threads")
        if self.failures:
            out.append(f"--prob-failures={self.failures}")
        if self.compare_resolution is not None:
            out.append(f"--prob-compare-resolution={self.compare_resolution}")
        if self.compare_sequential is not None:
            out.append(f"--prob-compare-sequential={self.compare_sequential}")
        if self.bootstrap_method is not None:
            out.append(f"--prob-bootstrap-method={self.bootstrap_method}")
        if self.latency_method:
            out += ["-o", f"prob_latency_method={self.latency_method}"]
        if self.compare_test:
            out += ["-o", f"prob_compare_test={self.compare_test}"]
        if self.plan:
            out.append("--prob-plan")
            if self.plan_assume is not None:
                out.append(f"--prob-plan-assume={self.plan_assume}")
            if self.plan_assume_diff is not None:
                out.append(f"--prob-plan-assume-diff={self.plan_assume_diff}")
            if self.plan_flake:
                out.append(f"--prob-plan-flake={self.plan_flake}")
            if self.plan_report:
                out.append("--prob-plan-report=costs.json")
            if self.plan_write:
                out.append(f"--prob-plan-write={where}plan.toml")
        if self.price_table:
            out.append("--prob-price-table=prices.toml")
        if self.slowest is not None:
            out.append(f"--prob-slowest={self.slowest}")
        if self.runxfail:
            out.append("--runxfail")
        if self.keyword:
            out += ["-k", self.keyword]
        out += list(self.extra)
        return out

    def baseline_document(self) -> dict[str, Any] | None:
        if self.baseline is None:
            return None
        rows = []
        for raw in self.baseline:
            row = dict(raw)
            if not self.keep_nodeid:
                row.pop("nodeid", None)
            rows.append(row)
        return {"schema_version": 1, "runs": 1, "exit_status": 0, "rows": rows}

    def command(self) -> str:
        return "pytest " + shlex.join(self.args())


def baseline_json(flags: Flags) -> str | None:
    document = flags.baseline_document()
    return None if document is None else json.dumps(document, indent=1)


# -- strategies --------------------------------------------------------------------------

#: What a drawn example is for. ``""``: any relation. ``"stopping"``: the stopping relations,
#: where most examples must stop some case — more gates, more runs (at most 20, so the exact
#: replay's brute force stays cheap), steadier outcomes. ``"combined"``: every function
#: carries two or three checks (a rate or count gate with a latency or a third-party gate).
BIASES = ("", "stopping", "combined")

OUTCOME = st.sampled_from("ppppffes")
#: a case's outcome sequence: often steady (every run passes, or one run in four fails),
#: else any mix of passes, fails, errors and skips
SEQUENCE = st.one_of(
    st.sampled_from(["p", "pppf", "fppp", "f"]), st.text(alphabet=OUTCOME, min_size=1, max_size=5)
)
#: the same for stopping: steady sequences settle a gate early more often
STOPPING_SEQUENCE = st.one_of(
    st.sampled_from(["p", "f", "p", "f", "pppf", "fppp", "ffp", "pfff", "ppppf", "fs", "pe"]),
    st.text(alphabet=OUTCOME, min_size=1, max_size=5),
)
#: how much rarer comparisons and baselines are under each bias (a compared function one in
#: ``1 + RARER``, ``--prob-compare`` and ``--prob-baseline`` one in ``2 + RARER``): under
#: ``sequential`` a monitored comparison or baseline margin decides when the cases it reads
#: stop, which the exact replay (prop_replay.py) leaves out
RARER = {"": 1, "stopping": 3, "combined": 7}
#: run counts of a mark under the stopping biases (at most 20)
STOPPING_RUNS = (4, 6, 8, 8, 10, 10, 12, 16, 20)
#: the checks a function's mark combines under the ``combined`` bias: a rate or count gate
#: (or none: then the session's ``--prob-min-rate``, which the stopping relations set) and
#: a latency or third-party gate, sometimes both
COMBINATIONS = (
    ("min_rate", "max_latency"),
    ("min_passes", "max_latency"),
    ("min_rate", "third_party"),
    ("min_passes", "third_party"),
    (None, "third_party"),
    ("min_rate", "third_party", "max_latency"),
    ("min_passes", "third_party", "max_latency"),
)


@st.composite
def gate_marks(
    draw: Any,
    *,
    case_level: bool,
    arms: tuple[str, ...] | None,
    gates: bool = True,
    bias: str = "",
) -> dict[str, Any]:
    """``probability`` mark keys for a function (``case_level=False``) or one case.

    One mark never sets both ``min_rate`` and ``min_passes`` (the spec: "min_rate or
    min_passes"; issue 20 §3 makes that a collection error). A third-party gate
    (:data:`THIRD_PARTY`) goes with the gate kinds: on the function, or on the cases of one
    axis."""
    mark: dict[str, Any] = {}
    stopping = bias in ("stopping", "combined")
    if bias == "combined" and not case_level and gates:
        chosen = set(draw(st.sampled_from(COMBINATIONS)))
    else:
        kinds = [None, "min_rate", "min_passes", "min_passes"] if stopping else None
        gate = draw(st.sampled_from(kinds or [None, None, "min_rate", "min_passes"]))
        chosen = {gate} if gates else set()
        third = [False, True] if stopping else [False, False, False, False, False, True]
        if gates and draw(st.sampled_from(third)):
            chosen.add("third_party")
        latency = [False, False, True] if stopping else [False, False, False, True]
        if draw(st.sampled_from(latency)):
            chosen.add("max_latency")
    if "min_rate" in chosen:
        mark["min_rate"] = draw(st.sampled_from(RATES))
    elif "min_passes" in chosen:
        mark["min_passes"] = draw(st.integers(1, 4 if stopping else 3))
        runs = [r for r in STOPPING_RUNS if r >= mark["min_passes"]] if stopping else None
        mark["runs"] = draw(st.sampled_from(runs) if runs else st.integers(mark["min_passes"], 6))
    if "runs" not in mark and draw(st.booleans()):
        mark["runs"] = draw(st.sampled_from(STOPPING_RUNS) if stopping else st.integers(1, 6))
    if "third_party" in chosen:
        key = draw(st.sampled_from(THIRD_PARTY))
        mark[key] = draw(st.integers(0, 3) if key == "max_fails" else st.integers(1, 2))
    if "max_latency" in chosen:
        mark["max_latency"] = draw(st.sampled_from((0.015, 0.04)))
        if draw(st.booleans()):
            mark["latency_quantile"] = 0.5
    # (a comparison decides when its cases stop under sequential: the replay leaves them out)
    compared = [*[False] * RARER[bias], True]
    if not case_level and arms is not None and len(arms) > 1 and draw(st.sampled_from(compared)):
        mark["compare"] = ARM_AXIS
        if draw(st.booleans()):
            mark["margin"] = draw(st.sampled_from(MARGINS))
            if draw(st.sampled_from([False, False, True])):
                mark["equivalence"] = True
        if len(arms) > 1 and draw(st.sampled_from([False, False, True])):
            mark["baseline"] = arms[-1]
    if not case_level and draw(st.sampled_from([False, False, False, True])):
        mark["method"] = draw(st.sampled_from(("wilson", "bayes")))
    return mark


@st.composite
def axes(draw: Any, bias: str = "") -> tuple[Axis, ...]:
    layout = draw(st.sampled_from([(), (INPUT_AXIS,), (ARM_AXIS,), (INPUT_AXIS, ARM_AXIS)]))
    if len(layout) == 2 and draw(st.booleans()):
        layout = tuple(reversed(layout))
    found = []
    gated = False
    for name in layout:
        if name == INPUT_AXIS:
            values = INPUT_VALUES[: draw(st.integers(1, 3))]
        else:  # (one arm: --prob-compare lists the function as not compared)
            values = ARM_VALUES[: draw(st.sampled_from([2, 2, 3, 1]))]
        marks = []
        if draw(st.sampled_from([False, False, True])):
            at = draw(st.integers(0, len(values) - 1))
            # gate kinds on the case marks of one axis only: a case reached by a min_rate
            # from one axis's pytest.param and a min_passes from another's is a collection
            # error today (two marks at one level; see the report in CHANGELOG "Seams")
            gates = not gated
            mark = draw(gate_marks(case_level=True, arms=None, gates=gates, bias=bias))
            gated = gated or any(k in mark for k in ("min_rate", "min_passes", *THIRD_PARTY))
            if mark:
                marks.append((at, tuple(mark.items())))
        found.append(Axis(name, values, tuple(marks)))
    return tuple(found)


@st.composite
def functions(draw: Any, name: str, file: int, bias: str = "") -> Function:
    found_axes = draw(axes(bias=bias))
    arms = next((a.values for a in found_axes if a.name == ARM_AXIS), None)
    mark = draw(gate_marks(case_level=False, arms=arms, bias=bias))
    function = Function(name=name, file=file, axes=found_axes, mark=tuple(mark.items()))
    sequence = STOPPING_SEQUENCE if bias else SEQUENCE
    outcomes = tuple((suffix, draw(sequence)) for suffix in function.suffixes())
    usage = draw(st.sampled_from([None, "m-small", "m-large"]))
    return replace(
        function,
        outcomes=outcomes,
        steps=draw(st.sampled_from([False, False, True])),
        cost=draw(st.sampled_from([None, 0.001, 0.0025])),
        usage=usage,
        usage_cost=usage is None or draw(st.sampled_from([True, True, False])),
        latency=draw(st.sampled_from([0.01, 0.02])),
    )


@st.composite
def suites(draw: Any, max_functions: int = 3, bias: str = "") -> Suite:
    count = draw(st.integers(1, max_functions))
    two_files = draw(st.booleans()) and count > 1
    found = tuple(
        draw(functions(f"f{index}", file=(index % 2 if two_files else 0), bias=bias))
        for index in range(count)
    )
    module = {}
    if draw(st.sampled_from([False, False, False, True])):
        runs = st.sampled_from(STOPPING_RUNS) if bias else st.integers(1, 5)
        module = {"runs": draw(runs)}
    return Suite(found, tuple(module.items()))


@st.composite
def baseline_rows(draw: Any, suite: Suite) -> tuple[tuple[tuple[str, Any], ...], ...]:
    """An earlier report's rows for some of the suite's cases (plus one removed case)."""
    rows = []
    for function, suffix in suite.cases():
        if not draw(st.sampled_from([True, True, True, False])):
            continue  # a new case
        total = draw(st.integers(1, 6))
        passes = draw(st.integers(0, total))
        row = {
            "case": function.case_id(suffix),
            "label": function.label,
            "nodeid": function.nodeid(suffix),
            "passes": passes,
            "fails": total - passes,
            "errors": 0,
            "total": total,
            "cost": None,
        }
        rows.append(tuple(row.items()))
    if draw(st.booleans()):
        removed = {
            "case": "gone",
            "label": "gone",
            "nodeid": "bench_gone.py::bench_gone",
            "passes": 1,
            "fails": 0,
            "errors": 0,
            "total": 1,
            "cost": None,
        }
        rows.append(tuple(removed.items()))
    return tuple(rows)


#: whether the contrib extensions whose options the generator draws are installed
#: (tests/run-all.sh installs every contrib package with the suite; a bare checkout may not)
CONTRIB = {
    entry.name for entry in importlib.metadata.entry_points(group="pytest_probability.extensions")
}


@st.composite
def flag_sets(draw: Any, suite: Suite, budget: bool = False, bias: str = "") -> Flags:
    """A random session: every bundled option is drawn, most of them usually off.

    ``budget`` allows the options after which no two sessions compare: the budgets (which
    runs are made depends on the order and on the spend), ``--prob-plan`` (nothing runs) and
    ``--prob-slowest`` (prints measured run times)."""
    maybe = st.sampled_from([False, False, True])
    rarely = st.sampled_from([False, False, False, True])
    runs = [None, 6, 8, 10, 12] if bias else [None, 2, 3, 4, 5, 6]
    flags = Flags(
        runs=draw(st.sampled_from(runs)),
        method=draw(st.sampled_from([None, None, "exact", "wilson", "bayes", "seq"])),
        confidence=draw(st.sampled_from([None, None, 0.8, 0.9])),
        min_rate=draw(st.sampled_from([None, None, *RATES])),
        undecided=draw(st.sampled_from([None, None, "fail", "pass"])),
        errors=draw(st.sampled_from([None, None, "count", "exclude"])),
        bootstrap=draw(st.sampled_from([50, 200])),
        seed=draw(st.sampled_from([None, 1, 7])),
        min_inputs=draw(st.sampled_from([None, 2, 3])),
        compare=draw(st.sampled_from([*[None] * (RARER[bias] + 1), ARM_AXIS])),
        adjust=draw(st.sampled_from([None, None, "holm", "bonferroni", "bh"])),
        metric=draw(st.sampled_from([(), (), ("pass^1",), ("pass^2", "pass@2"), ("pass@3",)])),
        latency=draw(maybe),
        latency_quantile=draw(st.sampled_from([None, None, None, 0.5])),
        stop=draw(st.sampled_from([None, None, "curtail", "sequential"])),
        transpose=draw(maybe),
        explain=draw(maybe),
        html=draw(maybe),
        markdown=draw(rarely),
        save_baseline=draw(rarely),
        no_gate_items=draw(maybe),
        no_intervals=draw(rarely),
        prior=draw(st.sampled_from([None, None, None, "0.5,0.5"])),
        # (a tiny delay: the option is exercised, the sessions stay fast)
        delay=draw(st.sampled_from([None, None, None, 0, 0.001])),
        concurrency=draw(st.sampled_from([None, None, None, 1, 3, 8])),
        threads=draw(maybe),
        failures=draw(st.sampled_from([None, None, "grouped", "first", "all"])),
        compare_resolution=draw(st.sampled_from([None, None, None, 0, 0.1, 0.3])),
        compare_sequential=draw(st.sampled_from([None, None, None, "horizon", "anytime"])),
        bootstrap_method=draw(
            st.sampled_from([None, None, None, "auto", "expanded", "bca", "percentile"])
        ),
        latency_method=draw(st.sampled_from([None, None, None, "order-statistic"])),
        compare_test=draw(st.sampled_from([None, None, None, "paired"])),
        price_table="price-table" in CONTRIB and draw(rarely),
    )
    # (rarer under the stopping biases: a baseline margin reads every case it pairs, which
    # then runs every run under curtail, and decides its stops under sequential)
    if draw(st.sampled_from([*[False] * (RARER[bias] + 1), True])):
        flags = replace(
            flags,
            baseline=draw(baseline_rows(suite)),
            # (0: "must show no drop")
            margin=draw(st.sampled_from([None, *MARGINS, 0.0])),
            # a report written by another tool: rows paired by case id
            keep_nodeid=draw(st.sampled_from([True, True, False])),
        )
    if draw(rarely):
        flags = replace(flags, writer_dir="out/new")  # writers create missing directories
    if draw(st.sampled_from([False, False, False, False, True])):
        flags = replace(flags, runxfail=True)
    if budget and draw(maybe):
        flags = replace(flags, budget_runs=draw(st.integers(1, 12)))
    if budget and draw(st.sampled_from([False, False, False, True])):
        # cost is recorded by some functions: an amount a few runs reach
        flags = replace(
            flags,
            budget=draw(st.sampled_from([0.002, 0.005, 0.02])),
            budget_ok=draw(st.booleans()),
        )
    if budget and "slowest" in CONTRIB and draw(rarely):
        flags = replace(flags, slowest=draw(st.integers(1, 3)))
    if budget and draw(rarely):
        flags = replace(
            flags,
            plan=True,
            plan_assume=draw(st.sampled_from([None, 0.8, 0.97])),
            plan_assume_diff=draw(st.sampled_from([None, 0.1, -0.05])),
            plan_flake=draw(st.sampled_from([None, "0.2", "0.1,0.01"])),
            plan_report=draw(st.sampled_from([True, True, False])),
            plan_write=draw(st.sampled_from([True, True, False])),
        )
    if budget and draw(rarely):  # (drawn last: the examples drawn before it stay the same)
        flags = replace(flags, history=True, history_keep=draw(st.sampled_from([None, 1, 2])))
    return flags


@dataclass(frozen=True)
class Example:
    """One drawn example: a suite and the flags of its reference session."""

    suite: Suite
    flags: Flags

    def describe(self) -> str:
        return f"{self.suite.source()}\n# drawn flags: {self.flags.command()}"


@st.composite
def examples(draw: Any, budget: bool = False, max_functions: int = 3, bias: str = "") -> Example:
    suite = draw(suites(max_functions=max_functions, bias=bias))
    return Example(suite, draw(flag_sets(suite, budget=budget, bias=bias)))


PRICE_TABLE = """\
per = 1000000

[models."m-small"]
input = 0.5
output = 1.5

[models."m-large"]
input = 5
output = 15
"""


def costs_json(suite: Suite) -> str:
    """An earlier JSON report with each case's cost per run, for ``--prob-plan-report``."""
    rows = []
    for function, suffix in suite.cases():
        rows.append(
            {
                "case": function.case_id(suffix),
                "label": function.label,
                "nodeid": function.nodeid(suffix),
                "passes": 2,
                "fails": 0,
                "errors": 0,
                "total": 2,
                "cost": None if function.cost is None else 2 * function.cost,
            }
        )
    return json.dumps({"schema_version": 1, "runs": 2, "exit_status": 0, "rows": rows}, indent=1)


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
