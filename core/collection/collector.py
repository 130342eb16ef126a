"""Collection: bench files, bench functions, one pytest item per (function, case, run).

``BenchModule`` takes over files matching ``prob_pattern``; parametrization, fixtures and ids
come from pytest's own machinery (``_genfunctions``), so ids, ``dup`` suffixes, escaping and
empty parameter sets behave exactly as for ``test_*`` functions. Each generated case becomes
``Case.runs`` ``BenchRun`` items, followed by any verdict items extensions ask for.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from time import perf_counter
from types import ModuleType
from typing import Any

import pytest

from ..execution.context import RunContext
from ..execution.steps import (
    INVALID_STEP,
    StepErrored,
    StepFailed,
    raise_for_failed_step,
    read_steps,
    run_body,
)
from ..execution.user_values import short_repr
from ..formatting.terminal_text import visible
from ..options import OptionError, OptionRegistry
from ..sessionviews import call_hook, options_of
from .cases import BENCH_PREFIX, Case, FunctionCases, case_id, function_label
from .verdict_items import VerdictRequest

ELAPSED_KEY = pytest.StashKey[float]()
STEPS_KEY = pytest.StashKey[list[Any]]()
#: the steps in their JSON form, once read after the body returned (:func:`read_steps`)
STEP_RECORDS_KEY = pytest.StashKey[list[dict[str, Any]]]()
CONTEXT_KEY = pytest.StashKey[RunContext]()
#: a body that ran concurrently, for its call phase to replay (a ``FinishedBody``)
FINISHED_KEY = pytest.StashKey[Any]()
#: set on a run whose start the concurrency scheduler paces (no ``--prob-delay`` sleep)
PACED_KEY = pytest.StashKey[bool]()
#: how many cases this process collected so far (their ``sequence``: definition order)
CASES_COLLECTED_KEY = pytest.StashKey[int]()
_SETUP_FIXTURE_ATTR = "_pytest_probability_module_setup"


def _set_nodeid(node: pytest.Item, nodeid: str) -> None:
    """Give ``node`` the plain-string id pytest itself would build (``--lf`` relies on it)."""
    if hasattr(node, "_id"):  # pytest >= 9.2: structured node ids
        from _pytest.nodeid import NodeId

        node._id = NodeId.parse(nodeid)
    else:
        node._nodeid = nodeid


class BenchRun(pytest.Function):
    """One run of one case: ``bench_x.py::bench_classify::identify_pii[run3]``.

    Its own attributes live in slots, so the instance dictionary keeps the size of a plain
    ``Function``'s (a larger one is allocated again when pytest caches ``location``).
    """

    __slots__ = ("case", "ihook", "location", "run")

    def __init__(
        self,
        *,
        case: Case,
        run: int,
        place: tuple[str, int | None],
        hooks: Any,
        **kwargs: Any,
    ) -> None:
        # pytest's hook proxy for the item's file, looked up once per case instead of on
        # every access (about ten per run); the kernel looks it up again once per file when
        # collection finishes, so conftests found later in collection are never missed
        self.ihook = hooks
        super().__init__(**kwargs)
        self.case = case
        self.run = run
        nodeid = f"{self.parent.nodeid}::{self.name}"
        _set_nodeid(self, nodeid)
        # what pytest's cached ``location`` would hold, with the file and line looked up
        # once per case instead of once per run
        self.location = (place[0], place[1], nodeid.split("::", 1)[1])
        self.extra_keyword_matches.add(case.case_id)

    def getmodpath(self, stopatmodule: bool = True, includemodule: bool = False) -> str:
        """``bench_classify::identify_pii[run3]``: failure headlines read like node ids."""
        return self.nodeid.split("::", 1)[1]

    def runtest(self) -> None:
        """Run the bench body to completion, timing it and keeping its steps (or replay the
        body that already ran concurrently: its output, log records and exception)."""
        steps: list[Any] = []
        self.stash[STEPS_KEY] = steps
        finished = self.stash.get(FINISHED_KEY, None)
        if finished is not None:  # it ran concurrently (--prob-concurrency): replay it here
            del self.stash[FINISHED_KEY]
            steps.extend(finished.steps)
            self.stash[ELAPSED_KEY] = finished.elapsed
            finished.replay()
        else:
            kwargs = {name: self.funcargs[name] for name in self._fixtureinfo.argnames}
            # the run context is current: the kernel enters it at setup, leaves it at teardown
            start = perf_counter()
            try:
                run_body(self.obj, kwargs, steps)
            finally:
                self.stash[ELAPSED_KEY] = perf_counter() - start
        read, problem = read_steps(steps)
        self.stash[STEP_RECORDS_KEY] = read
        if problem is not None:
            raise StepErrored(problem, INVALID_STEP)
        raise_for_failed_step(read)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """Failed steps get their one-line message, without the plugin's traceback (escapes
        made visible: an invalid step's message quotes the user's value)."""
        if isinstance(excinfo.value, (StepFailed, StepErrored)):
            return visible(str(excinfo.value), keep_newlines=True)
        return super().repr_failure(excinfo)


class VerdictItem(pytest.Item):
    """A verdict (``identify_pii[gate]``) judged after the case's last run.

    :ivar runs: the run items of its case (of its function, for a function-level verdict),
        which the kernel puts back into the session when the verdict item is selected
        without any of them (``-k gate``, ``--lf``).
    :ivar selected_runs: the runs of :attr:`runs` the session runs (set when collection
        finishes): a selection that keeps some runs (``--deselect …[run10]``, ``-k "not
        run10"``) is respected, and the verdict judges those.
    """

    def __init__(
        self,
        *,
        case: Case,
        request: VerdictRequest,
        runs: list[pytest.Item] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.request = request
        self.runs: list[pytest.Item] = list(runs or [])
        self.selected_runs: list[pytest.Item] = list(self.runs)
        self.extra_keyword_matches.add(case.case_id)

    def selected_run_numbers(self) -> dict[str, set[int]]:
        """Case key → the run numbers of that case this session selected."""
        out: dict[str, set[int]] = {}
        for run in self.selected_runs:
            if isinstance(run, BenchRun):
                out.setdefault(run.case.key, set()).add(run.run)
        return out

    def selected_runs_here(self, results: Any) -> tuple[int, int]:
        """``(selected runs whose record this process holds, selected runs)`` from this
        process's :class:`~pytest_probability.report.results.Results`: a verdict judged here needs
        the two equal (under pytest-xdist some runs may have run on another worker)."""
        here = total = 0
        for key, runs in self.selected_run_numbers().items():
            case = results.get(key)
            here += len(runs & set(case.records)) if case is not None else 0
            total += len(runs)
        return here, total

    def runtest(self) -> None:
        try:
            self.request.judge(self)
        except pytest.skip.Exception as exc:
            if getattr(exc, "_use_item_location", True):
                raise
            # report the skip at the bench function, not inside the extension's judge
            raise pytest.skip.Exception(exc.msg, _use_item_location=True) from None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        """The verdict line alone (no traceback), escapes made visible: it may hold a third
        party's gate line."""
        if isinstance(excinfo.value, AssertionError):
            return visible(str(excinfo.value), keep_newlines=True)
        if isinstance(excinfo.value, pytest.fail.Exception):  # a judge's pytest.fail(msg)
            return visible(str(excinfo.value.msg), keep_newlines=True)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Any, int | None, str]:
        code = getattr(self.runs[0], "obj", None) if self.runs else None
        line = getattr(getattr(code, "__code__", None), "co_firstlineno", 1) - 1
        return self.path, line, self.nodeid.split("::", 1)[1]


class BenchFunction(pytest.Collector):
    """A parametrized bench function: its cases' run items are its children."""

    def __init__(self, *, entries: list[tuple[pytest.Function, Case]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._entries = entries

    def collect(self) -> list[pytest.Item]:
        assert self.parent is not None
        return _function_nodes(self, self.parent, self.name, self._entries)


class BrokenBench(pytest.Collector):
    """A bench function whose ``probability`` mark is invalid: a collection error."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._message = message

    def collect(self) -> list[pytest.Item]:
        raise self.CollectError(self._message)


class BenchModule(pytest.Module):
    """A ``bench_*.py`` file: its ``bench_*`` functions, plus any ``test_*`` it holds."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        _attach_module_setup(self.config, self.obj)
        others = [node for node in super().collect() if not _is_bench_function(node)]
        benches: list[pytest.Item | pytest.Collector] = []
        for name, obj in list(vars(self.obj).items()):
            if name.startswith(BENCH_PREFIX) and inspect.isfunction(obj):
                benches.extend(bench_nodes(self, name, obj))
        return benches + others


def is_marked_test(collector: pytest.Collector, name: str, obj: Any) -> bool:
    """Whether ``name`` is a test function of a module (not a class) that carries its own
    ``probability(...)`` mark: it is collected as a bench function (its cases run N
    times), as a user reaching for the mark first expects."""
    return (
        isinstance(collector, pytest.Module)
        and inspect.isfunction(obj)
        and not name.startswith(BENCH_PREFIX)
        and any(
            getattr(mark, "name", None) == "probability" for mark in getattr(obj, "pytestmark", ())
        )
        and collector.funcnamefilter(name)  # (test_*, or the python_functions setting)
    )


def bench_nodes(module: pytest.Module, name: str, obj: Any) -> list[pytest.Item | pytest.Collector]:
    """The nodes of one bench function of ``module`` (a ``bench_*`` function, or a test
    function with a ``probability(...)`` mark): a ``BenchFunction`` for a parametrized one,
    else its items; a ``BrokenBench`` when a mark argument is invalid."""
    options = options_of(module.config)
    entries: list[tuple[pytest.Function, Case]] = []
    for generated in module._genfunctions(name, obj):
        param_id = generated.name[len(name) + 1 : -1] if generated.name != name else None
        key = f"{module.nodeid}::{name}" + (f"::{param_id}" if param_id is not None else "")
        try:
            mark = options.validate_mark(_merged_mark_args(generated, options))
        except OptionError as exc:
            return [BrokenBench.from_parent(module, name=name, message=f"{key}: {exc}")]
        callspec = getattr(generated, "callspec", None)
        case = Case(
            key=key,
            case_id=case_id(name, param_id),
            label=function_label(name),
            function=name,
            param_id=param_id,
            module=module.nodeid,
            runs=options.case_value("runs", mark),
            params=dict(callspec.params) if callspec is not None else {},
            mark=mark,
            param_ids=tuple(getattr(callspec, "_idlist", ()) or ()),
            param_indices=dict(getattr(callspec, "indices", {}) or {}),
            sequence=module.config.stash.get(CASES_COLLECTED_KEY, 0) + 1,
        )
        module.config.stash[CASES_COLLECTED_KEY] = case.sequence
        entries.append((generated, case))
    if any(case.param_id is not None for _, case in entries):
        return [BenchFunction.from_parent(module, name=name, entries=entries)]
    return [*_function_nodes(module, module, name, entries)]


def _function_nodes(
    collector: pytest.Collector,
    module: pytest.Collector,
    name: str,
    entries: list[tuple[pytest.Function, Case]],
) -> list[pytest.Item]:
    """The items of one bench function: each case's (:func:`make_case_items`), then the
    function-level verdict items (``bench_triage[compare:x]``), children of the module,
    judging every run of the function."""
    items = [
        item for generated, case in entries for item in make_case_items(collector, generated, case)
    ]
    if not entries:
        return items
    function = FunctionCases(
        key=f"{module.nodeid}::{name}",
        function=name,
        label=function_label(name),
        module=module.nodeid,
        cases=tuple(case for _, case in entries),
    )
    config = collector.config
    # the function's own marks (skip/skipif, -m); parametrize-case marks stay with cases
    marks = [
        m
        for m in getattr(entries[0][0].obj, "pytestmark", [])  # (the function is shared)
        if isinstance(m, pytest.Mark) and m.name not in ("parametrize", "probability")
    ]
    hook = "pytest_prob_collect_function_verdicts"
    runs = [item for item in items if isinstance(item, BenchRun)]
    made = _verdict_items(
        module, function.as_case(), runs, marks, function.key, hook, function=function
    )
    if made and _loadgroup(config):
        group = pytest.mark.xdist_group(function.key)
        for item in [*items, *made]:  # the whole function on one worker (checked at run time)
            item.own_markers[:] = [m for m in item.own_markers if m.name != "xdist_group"]
            item.add_marker(group)
    return [*items, *made]


def make_case_items(
    parent: pytest.Collector, generated: pytest.Function, case: Case
) -> list[pytest.Item]:
    """The run items of one case, then its verdict items."""
    callspec = getattr(generated, "callspec", None)
    place = generated.location[:2]  # (the same for every run of the case)
    hooks = parent.session.gethookproxy(parent.path)
    runs: list[pytest.Item] = [
        BenchRun.from_parent(
            parent,
            name=case.run_item_name(run),
            callspec=callspec,
            callobj=generated.obj,
            fixtureinfo=generated._fixtureinfo,
            originalname=case.function,
            case=case,
            run=run,
            place=place,
            hooks=hooks,
        )
        for run in range(1, case.runs + 1)
    ]
    # the case's own marks (function and pytest.param marks): skip/skipif/xfail and -m treat
    # the verdict like its runs; module marks reach it through its parents
    hook = "pytest_prob_collect_verdicts"
    verdicts = _verdict_items(parent, case, runs, generated.own_markers, case.key, hook, case=case)
    if verdicts and _loadgroup(parent.config):
        for item in [*runs, *verdicts]:  # one group per case (co-location is checked at run time)
            item.add_marker(pytest.mark.xdist_group(case.key))
    return [*runs, *verdicts]


def _verdict_items(
    parent: pytest.Collector,
    case: Case,
    runs: list[pytest.Item],
    marks: Iterable[pytest.Mark],
    key: str,
    hook: str,
    /,
    **kwargs: Any,
) -> list[pytest.Item]:
    """The verdict items the extensions request through the collect-verdicts ``hook``,
    children of ``parent`` judging ``runs`` and carrying ``marks``. An extension refusing
    the settings (:class:`OptionError`) is a collection error naming ``key``; one that
    raises or answers something else than requests is left out, named."""
    try:
        answers = call_hook(
            parent.config,
            hook,
            check=_not_requests,
            passing=(OptionError,),
            config=parent.config,
            **kwargs,
        )
    except OptionError as exc:
        raise pytest.Collector.CollectError(f"{key}: {exc}") from None
    made: list[pytest.Item] = []
    for answer in answers:
        for request in answer if isinstance(answer, (list, tuple)) else [answer]:
            name = case.verdict_item_name(request.kind)
            nodeid = f"{parent.nodeid}::{name}"
            made.append(
                VerdictItem.from_parent(
                    parent, name=name, nodeid=nodeid, case=case, request=request, runs=runs
                )
            )
            made[-1].own_markers.extend(marks)
    return made


def _not_requests(answer: Any) -> str | None:
    """What is wrong with a collect-verdicts answer (``None`` when it is requests)."""
    requests = answer if isinstance(answer, (list, tuple)) else [answer]
    if all(isinstance(request, VerdictRequest) for request in requests):
        return None
    return f"answered {short_repr(answer)}, not a VerdictRequest or a list of them"


def _loadgroup(config: pytest.Config) -> bool:
    option = config.option
    return getattr(option, "loadgroup", False) or getattr(option, "dist", "") == "loadgroup"


def _merged_mark_args(generated: pytest.Function, options: OptionRegistry) -> dict[str, Any]:
    """Merged ``probability(...)`` arguments: the closest mark wins key by key
    (case > function > class > module), and a closer mark setting one of a group of
    alternatives (``min_rate`` or ``min_passes``) replaces the group set farther out
    (:meth:`~pytest_probability.options.OptionRegistry.merge_marks`)."""
    callspec = getattr(generated, "callspec", None)
    param_marks = [m for m in getattr(callspec, "marks", ()) if m.name == "probability"]
    levels: list[list[pytest.Mark]] = [param_marks]
    last: Any = None
    for node, mark in generated.iter_markers_with_node("probability"):
        if any(mark is p for p in param_marks):
            continue
        if node is not last:
            levels.append([])
            last = node
        levels[-1].append(mark)
    for mark in (m for level in levels for m in level):
        if mark.args:
            raise OptionError(
                f"probability mark takes keyword arguments only, got positional {mark.args!r}"
            )
    return options.merge_marks([[m.kwargs for m in level] for level in levels])


def _is_bench_function(node: Any) -> bool:
    return isinstance(node, pytest.Function) and node.originalname.startswith(BENCH_PREFIX)


def _own_function(module: ModuleType, name: str) -> Any:
    obj = getattr(module, name, None)
    if inspect.isfunction(obj) and obj.__module__ == module.__name__:
        return obj
    return None


def nose_handles_module_setup(config: pytest.Config, module: ModuleType) -> bool:
    """pytest < 8 runs a module's ``setup``/``teardown`` itself when its nose plugin is active
    (and the module has no ``setup_module``); then the kernel must not run them again."""
    return config.pluginmanager.has_plugin("nose") and not any(
        hasattr(module, n) for n in ("setUpModule", "setup_module")
    )


def _attach_module_setup(config: pytest.Config, module: ModuleType) -> None:
    """Turn module-level ``setup()``/``teardown()`` into a module-scoped autouse fixture."""
    setup = _own_function(module, "setup")
    teardown = _own_function(module, "teardown")
    done = hasattr(module, _SETUP_FIXTURE_ATTR) or nose_handles_module_setup(config, module)
    if (setup is None and teardown is None) or done:
        return

    @pytest.fixture(autouse=True, scope="module", name=f"_probability_setup_{module.__name__}")
    def module_setup() -> Any:
        if setup is not None:
            setup()
        yield
        if teardown is not None:
            teardown()

    setattr(module, _SETUP_FIXTURE_ATTR, module_setup)
