"""The ``latency`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    FAIL,
    PASS,
    SKIP,
    UNDECIDED,
    OptionError,
    option_value,
    parse_bool,
    parse_fraction,
    run_context_of,
)
from pytest_probability.lazy import current_module

from . import ORDER_STATISTIC

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from pytest_probability.api import Case, GateResult, OptionRegistry, ReportBuilder, Results

    from .service import CaseLatency, LatencySettings

# What a feature computes is imported where it is used (the methods, the quantiles, the
# service): a session that times no bench run imports none of it.

LATENCY_SECTION_ORDER = 300
GATES_PLUGIN = "probability.gates"
#: the per-config watcher of plugins registered after start-up (:class:`LateMethods`)
LATE_METHODS = "probability.latency.late-methods"
WORDS = {PASS: "PASS", FAIL: "FAIL", UNDECIDED: "UNDECIDED"}


def parse_quantile(value: Any) -> float:
    """A quantile strictly between 0 and 1; ``95`` gets a did-you-mean for ``0.95``."""
    return parse_fraction(
        value,
        expected="a quantile between 0 and 1 (exclusive) such as 0.95 for p95",
        percent_hint=lambda n: f"p{n:g}",
        hint_from=1.0 + 1e-12,
    )


def parse_seconds(value: Any) -> float:
    """A latency limit: a finite number of seconds greater than 0."""
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not (math.isfinite(number) and number > 0):
        raise ValueError(
            f"expected a number of seconds greater than 0 such as 2.0 (0.5 for 500 ms), "
            f"got {value!r}"
        )
    return number


def parse_latency_method(value: Any, config: pytest.Config) -> str:
    """A registered latency method name."""
    from .service import latency_methods

    return latency_methods(config).check(value)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the latency settings. Called by the kernel's historic hook; returns nothing."""
    owner = "latency"
    options.add(
        "latency",
        parse=parse_bool,
        default=False,
        cli="--prob-latency",
        ini="prob_latency",
        flag_value=True,
        help="show each case's latency quantile and its interval",
        ini_help="show each case's latency quantile and its interval (default false)",
        owner=owner,
    )
    options.add(
        "latency_quantile",
        parse=parse_quantile,
        default=0.95,
        ini="prob_latency_quantile",
        mark=True,
        help="latency quantile for cases whose mark sets none (default 0.95, p95)",
        owner=owner,
    )
    options.add(
        "max_latency",
        parse=parse_seconds,
        mark=True,
        help="gate a case on its latency quantile: PASS when the whole interval is below "
        "this many seconds",
        owner=owner,
    )
    options.add(
        "latency_method",
        parse=parse_latency_method,
        with_config=True,
        default=ORDER_STATISTIC,
        ini="prob_latency_method",
        mark=True,
        help="latency quantile method (default order-statistic, distribution-free)",
        owner=owner,
    )


def registers_methods(manager: pytest.PytestPluginManager, plugin: object | None = None) -> bool:
    """Whether ``plugin`` (else any plugin other than this module: a third-party extension,
    a conftest) implements ``pytest_prob_register_latency_methods``."""
    this = sys.modules[__name__]
    impls = manager.hook.pytest_prob_register_latency_methods.get_hookimpls()
    if plugin is None:
        return any(impl.plugin is not this for impl in impls)
    return any(impl.plugin is plugin for impl in impls)


def pytest_configure(config: pytest.Config) -> None:
    """Register the latency methods now when a registration could fail — another plugin
    registers methods — so that a broken one is a usage error before anything runs (a
    ``prob_latency_method`` setting has registered them already: the kernel checked it
    against them). Otherwise they are registered on first use, or when a plugin that
    registers methods arrives later (:class:`LateMethods`, registered here for this
    config), and a session that times nothing never imports them. Called once per process;
    returns nothing."""
    if registers_methods(config.pluginmanager):
        from .service import latency_methods

        latency_methods(config)
    if config.pluginmanager.get_plugin(LATE_METHODS) is None:
        config.pluginmanager.register(LateMethods(config), LATE_METHODS)


class LateMethods:
    """Watches, for one configured session, the plugins registered after start-up."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_plugin_registered(self, plugin: object, manager: pytest.PytestPluginManager) -> None:
        """Register the latency methods as soon as a plugin registered after start-up (a
        conftest file that collection imports) registers methods, as they would be had they
        been registered at start-up: its registration runs there, and a broken one fails
        there.

        Called by pytest for every plugin registered from this session's
        ``pytest_configure`` on (historically: also, on this watcher's registration, for
        those registered before, which :func:`pytest_configure` has looked at already);
        returns nothing. The bundled registration (this module's) waits for first use.
        """
        if plugin is sys.modules[__name__] or plugin is self:
            return
        if registers_methods(manager, plugin):
            from .service import latency_methods

            latency_methods(self.config)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_latency_methods(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``order-statistic`` method. Called once per session through the
    historic hook; returns nothing."""
    from .methods import order_statistic

    register(
        ORDER_STATISTIC,
        order_statistic,
        description="the ⌈nq⌉-th smallest time; distribution-free order-statistic interval",
    )


# -- the latency gate kind ------------------------------------------------------------------------
def configure_gate(mark: dict[str, Any], config: pytest.Config) -> LatencySettings | None:
    """A latency gate for a case whose merged mark sets ``max_latency=``."""
    if mark.get("max_latency") is None:
        return None
    from .service import case_settings

    return case_settings(config, mark)


def judge_gate(chosen: LatencySettings, case: Any, config: pytest.Config) -> GateResult:
    """The latency gate's result on a case's runs (lower is better)."""
    from pytest_probability.api import GateResult

    from .service import case_latency

    found = case_latency(config, case)
    verdict = found.verdict or UNDECIDED
    cells = latency_cells(found)
    return GateResult(
        kind="latency",
        verdict=verdict,
        line="  ".join(cells[1:]),
        data=found.to_json(),
        cells=cells,
    )


def describe_gate(chosen: LatencySettings) -> str:
    """``max_latency=2.0 (p95)``."""
    from pytest_probability.api import quantile_label

    assert chosen.limit is not None
    return f"max_latency={chosen.limit:g} ({quantile_label(chosen.quantile)})"


def gate_minimum_runs(chosen: LatencySettings, config: pytest.Config) -> int | None:
    """The fewest runs with which the interval has an upper end (so the gate can pass)."""
    from .service import minimum_runs

    return minimum_runs(chosen)


# trylast: entries it adds to another extension's registry follow other plugins', however
# late it registers (on use)
@pytest.hookimpl(trylast=True)
def pytest_prob_register_gates(register: Any, config: pytest.Config) -> None:
    """Register the ``latency`` gate kind (``max_latency=``): it judges speed only, so it
    does not take over the runs' outcomes, and its section is ``probability: latency``.
    Called once per session through the gates extension's historic hook; returns nothing."""
    register(
        "latency",
        configure=configure_gate,
        judge=judge_gate,
        minimum_runs=gate_minimum_runs,
        describe=describe_gate,
        decides_runs=False,
        render=None,
    )


def pytest_prob_collect_verdicts(case: Case, config: pytest.Config) -> list[Any]:
    """Refuse a ``max_latency=`` gate when the gates extension is disabled. Called once per
    case at collection in collecting processes; returns no verdict requests (the gates
    extension adds the ``[gate]`` item)."""
    if case.mark.get("max_latency") is not None and (
        config.pluginmanager.get_plugin(GATES_PLUGIN) is None
    ):
        raise OptionError(
            "max_latency= needs the bundled gates extension: remove -p no:probability.gates"
        )
    return []


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``, note the runs a ``max_latency`` gate needs before its interval
    has an upper end (and so before it can pass). Called once per case; returns nothing."""
    limit_seconds = case.mark.get("max_latency")
    if limit_seconds is None:
        return
    from pytest_probability.api import limit, quantile_label

    from .service import case_settings, minimum_runs

    chosen = case_settings(config, case.mark)
    needed = minimum_runs(chosen)
    if needed is None:
        return
    label = quantile_label(chosen.quantile)
    enough = "enough" if case.runs >= needed else f"not enough with {case.runs}"
    row.notes.append(
        f"latency: {label} ≤{limit(limit_seconds)} needs at least {needed} runs at "
        f"{chosen.level * 100:g}% for an upper end ({enough})"
    )
    row.data["latency_min_runs"] = needed


# -- executing process --------------------------------------------------------------------------
def _recording() -> ModuleType:
    """The ``recording`` module, imported by the first call (a dictionary lookup afterwards:
    never cached here, see :func:`pytest_probability.lazy.current_module`)."""
    return current_module(f"{__package__}.recording")


def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Put the run's latency into its record: the value given to ``record_latency`` or the
    measured body time (``latency``, with ``latency_source`` ``"recorded"`` or
    ``"measured"``; both ``None`` for a skipped run or a failed setup). Called in the
    executing process once per run; returns nothing."""
    if record["outcome"] == SKIP:  # a skipped run is not a sample
        record["latency"] = record["latency_source"] = None
        return
    context = run_context_of(item)
    recorded = context.data.get(_recording().RECORDED) if context is not None else None
    if recorded is not None and record["phase"] == "call":
        record["latency"] = recorded
        record["latency_source"] = "recorded"
    else:
        record["latency"] = record["elapsed"]
        record["latency_source"] = None if record["elapsed"] is None else "measured"


# -- aggregating process -------------------------------------------------------------------------
def latency_cells(found: CaseLatency) -> list[str]:
    """``[runs, label, estimate, interval, limit, verdict]`` (no limit or verdict without a
    gate); the interval's ends are padded by :func:`render_rows`."""
    from pytest_probability.api import duration, limit, quantile_label

    q = found.quantile
    n = q.n
    cells = [
        f"{n} run{'' if n == 1 else 's'}",
        quantile_label(found.settings.quantile),
        duration(q.estimate),
        f"[{duration(q.low)}, {duration(q.high)}]",
    ]
    if found.settings.limit is not None and found.verdict is not None:
        cells += [f"≤{limit(found.settings.limit)}", WORDS[found.verdict]]
    return cells


def render_rows(rows: Sequence[tuple[str, CaseLatency]]) -> list[str]:
    """The ``probability: latency`` lines, aligned column by column."""
    from pytest_probability.api import duration

    table: list[list[str]] = []
    ends: list[tuple[str, str]] = []
    for display, found in rows:
        q = found.quantile
        ends.append((duration(q.low), duration(q.high)))
        table.append([display, *latency_cells(found)])
    low_width = max(len(low) for low, _ in ends)
    high_width = max(len(high) for _, high in ends)
    for cells, (low, high) in zip(table, ends, strict=True):
        cells[4] = f"[{low:>{low_width}}, {high:>{high_width}}]"
    runs_width = max(len(cells[1].split()[0]) for cells in table)
    for cells in table:
        count, word = cells[1].split()
        cells[1] = f"{count:>{runs_width}} {word}"
    columns = max(len(cells) for cells in table)
    widths = [max(len(cells[i]) for cells in table if len(cells) > i) for i in range(columns)]
    aligned = {3, 4}  # durations read best right-aligned
    lines = []
    for cells in table:
        parts = [
            cell.rjust(widths[i]) if i in aligned else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        lines.append(("  " + "  ".join(parts)).rstrip())
    return lines


def open_end_notes(rows: Sequence[tuple[str, CaseLatency]]) -> list[str]:
    """One note per quantile and level whose interval lacks an upper end somewhere."""
    from pytest_probability.api import MISSING, quantile_label

    from .quantiles import min_runs_for_upper

    notes: dict[tuple[float, float], list[CaseLatency]] = {}
    for _, found in rows:
        chosen = found.settings
        if found.quantile.high is None and chosen.method == ORDER_STATISTIC:
            notes.setdefault((chosen.quantile, chosen.level), []).append(found)
    lines = []
    for (q, level), open_rows in notes.items():
        needed = min_runs_for_upper(q, level)
        what = "1 row has" if len(open_rows) == 1 else f"{len(open_rows)} rows have"
        gated = any(found.settings.limit is not None for found in open_rows)
        lines.append(
            f"  {what} no upper end ({MISSING}): {quantile_label(q)} at {level * 100:g}% "
            f"needs at least {needed} runs"
            + (", and a max_latency gate cannot pass without one" if gated else "")
        )
    return lines


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: latency`` section (every timed case with
    ``--prob-latency``, else only latency-gated cases) and ``rows[].latency``. Called once
    in the aggregating process; returns nothing."""
    from .service import case_latency

    show_all = option_value(config, "latency")
    if show_all:  # so that a page rendered later from the JSON shows what the session did
        report.set_json("latency", {"every_case": True})
    shown: list[tuple[str, CaseLatency]] = []
    for case in results.cases():
        found = case_latency(config, case)
        if found.quantile.n == 0:
            report.add_row_json(case.key, {"latency": None})
            continue
        report.add_row_json(case.key, {"latency": found.to_json()})
        if show_all or found.settings.limit is not None:
            shown.append((case.display, found))
    if shown:
        report.add_section(
            "latency", render_rows(shown) + open_end_notes(shown), order=LATENCY_SECTION_ORDER
        )


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read the latency rows. Called once in the aggregating process by the explain
    extension; returns the readings."""
    from .explain import readings

    return readings(report, results, bool(option_value(config, "latency")))


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without
    ``--prob-explain``; returns the count."""
    from .explain import count

    return count(report, results, bool(option_value(config, "latency")))
