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
            usage = (
                f", 'usage': [{{'model': {self.usage!r}, 'input_tokens': 12, "
                "'output_tokens': 3, 'cost': 0.0001}]"
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
                lines.append(
                    f"    record_usage(model={self.usage!r}, input_tokens=10 * run, "
                    "output_tokens=2, cost=0.0001)"
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
    no_gate_items: bool = False
    no_intervals: bool = False
    prior: str | None = None
    baseline: tuple[tuple[tuple[str, Any], ...], ...] | None = None
    keep_nodeid: bool = True
    margin: float | None = None
    budget_runs: int | None = None
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

OUTCOME = st.sampled_from("ppppffes")
#: a case's outcome sequence: often steady (every run passes, or one run in four fails),
#: else any mix of passes, fails, errors and skips
SEQUENCE = st.one_of(
    st.sampled_from(["p", "pppf", "fppp", "f"]), st.text(alphabet=OUTCOME, min_size=1, max_size=5)
)


@st.composite
def gate_marks(
    draw: Any, *, case_level: bool, arms: tuple[str, ...] | None, gates: bool = True
) -> dict[str, Any]:
    """``probability`` mark keys for a function (``case_level=False``) or one case.

    One mark never sets both ``min_rate`` and ``min_passes`` (the spec: "min_rate or
    min_passes"; issue 20 §3 makes that a collection error)."""
    mark: dict[str, Any] = {}
    gate = draw(st.sampled_from([None, None, "min_rate", "min_passes"])) if gates else None
    if gate == "min_rate":
        mark["min_rate"] = draw(st.sampled_from(RATES))
    elif gate == "min_passes":
        mark["min_passes"] = draw(st.integers(1, 3))
        mark["runs"] = draw(st.integers(mark["min_passes"], 6))
    if "runs" not in mark and draw(st.booleans()):
        mark["runs"] = draw(st.integers(1, 6))
    if draw(st.sampled_from([False, False, False, True])):
        mark["max_latency"] = draw(st.sampled_from((0.015, 0.04)))
        if draw(st.booleans()):
            mark["latency_quantile"] = 0.5
    if not case_level and arms is not None and len(arms) > 1 and draw(st.booleans()):
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
def axes(draw: Any) -> tuple[Axis, ...]:
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
            mark = draw(gate_marks(case_level=True, arms=None, gates=gates))
            gated = gated or any(k in mark for k in ("min_rate", "min_passes"))
            if mark:
                marks.append((at, tuple(mark.items())))
        found.append(Axis(name, values, tuple(marks)))
    return tuple(found)


@st.composite
def functions(draw: Any, name: str, file: int) -> Function:
    found_axes = draw(axes())
    arms = next((a.values for a in found_axes if a.name == ARM_AXIS), None)
    mark = draw(gate_marks(case_level=False, arms=arms))
    function = Function(name=name, file=file, axes=found_axes, mark=tuple(mark.items()))
    outcomes = tuple((suffix, draw(SEQUENCE)) for suffix in function.suffixes())
    return replace(
        function,
        outcomes=outcomes,
        steps=draw(st.sampled_from([False, False, True])),
        cost=draw(st.sampled_from([None, 0.001, 0.0025])),
        usage=draw(st.sampled_from([None, "m-small", "m-large"])),
        latency=draw(st.sampled_from([0.01, 0.02])),
    )


@st.composite
def suites(draw: Any, max_functions: int = 3) -> Suite:
    count = draw(st.integers(1, max_functions))
    two_files = draw(st.booleans()) and count > 1
    found = tuple(
        draw(functions(f"f{index}", file=(index % 2 if two_files else 0))) for index in range(count)
    )
    module = {}
    if draw(st.sampled_from([False, False, False, True])):
        module = {"runs": draw(st.integers(1, 5))}
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


@st.composite
def flag_sets(draw: Any, suite: Suite, budget: bool = False) -> Flags:
    """A random session: every bundled option is drawn, most of them usually off."""
    maybe = st.sampled_from([False, False, True])
    flags = Flags(
        runs=draw(st.sampled_from([None, 2, 3, 4, 5, 6])),
        method=draw(st.sampled_from([None, None, "exact", "wilson", "bayes", "seq"])),
        confidence=draw(st.sampled_from([None, None, 0.8, 0.9])),
        min_rate=draw(st.sampled_from([None, None, *RATES])),
        undecided=draw(st.sampled_from([None, None, "fail", "pass"])),
        errors=draw(st.sampled_from([None, None, "count", "exclude"])),
        bootstrap=draw(st.sampled_from([50, 200])),
        seed=draw(st.sampled_from([None, 1, 7])),
        min_inputs=draw(st.sampled_from([None, 2, 3])),
        compare=draw(st.sampled_from([None, None, ARM_AXIS])),
        adjust=draw(st.sampled_from([None, None, "holm", "bonferroni", "bh"])),
        metric=draw(st.sampled_from([(), (), ("pass^1",), ("pass^2", "pass@2"), ("pass@3",)])),
        latency=draw(maybe),
        latency_quantile=draw(st.sampled_from([None, None, None, 0.5])),
        stop=draw(st.sampled_from([None, None, "curtail", "sequential"])),
        transpose=draw(maybe),
        explain=draw(maybe),
        html=draw(maybe),
        markdown=draw(st.sampled_from([False, False, False, True])),
        save_baseline=draw(st.sampled_from([False, False, False, True])),
        no_gate_items=draw(maybe),
        no_intervals=draw(st.sampled_from([False, False, False, True])),
        prior=draw(st.sampled_from([None, None, None, "0.5,0.5"])),
    )
    if draw(st.sampled_from([False, False, True])):
        flags = replace(
            flags,
            baseline=draw(baseline_rows(suite)),
            # (0: "must show no drop")
            margin=draw(st.sampled_from([None, *MARGINS, 0.0])),
            # a report written by another tool: rows paired by case id
            keep_nodeid=draw(st.sampled_from([True, True, False])),
        )
    if draw(st.sampled_from([False, False, False, True])):
        flags = replace(flags, writer_dir="out/new")  # writers create missing directories
    if draw(st.sampled_from([False, False, False, False, True])):
        flags = replace(flags, runxfail=True)
    if budget and draw(maybe):
        flags = replace(flags, budget_runs=draw(st.integers(1, 12)))
    return flags


@dataclass(frozen=True)
class Example:
    """One drawn example: a suite and the flags of its reference session."""

    suite: Suite
    flags: Flags

    def describe(self) -> str:
        return f"{self.suite.source()}\n# drawn flags: {self.flags.command()}"


@st.composite
def examples(draw: Any, budget: bool = False, max_functions: int = 3) -> Example:
    suite = draw(suites(max_functions=max_functions))
    return Example(suite, draw(flag_sets(suite, budget=budget)))


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
