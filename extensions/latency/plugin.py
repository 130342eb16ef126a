"""The ``latency`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import pytest
from pytest_probability.api import (
    MISSING,
    SKIP,
    UNDECIDED,
    Case,
    GateResult,
    OptionError,
    OptionRegistry,
    Reading,
    ReportBuilder,
    Results,
    duration,
    implemented_outside,
    limit,
    option_value,
    parse_bool,
    parse_fraction,
    quantile_label,
    run_context_of,
)

from . import ORDER_STATISTIC, RECORDED
from .quantiles import latency_quantile, min_runs_for_upper
from .service import (
    CaseLatency,
    LatencySettings,
    case_latency,
    case_settings,
    latency_methods,
    minimum_runs,
)

#: the per-config watcher of plugins registered after start-up (:class:`LateMethods`)
LATE_METHODS = "probability.latency.late-methods"


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


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the latency settings. Called by the kernel's historic hook."""
    add = partial(options.add, owner="latency")
    add(
        "latency",
        parse=parse_bool,
        default=False,
        cli="--prob-latency",
        ini="prob_latency",
        flag_value=True,
        help="show each case's latency quantile and its interval",
        ini_help="show every case's latency quantile (default false)",
    )
    add(
        "latency_quantile",
        # ``95`` gets a did-you-mean for ``0.95``
        parse=partial(
            parse_fraction,
            expected="a quantile between 0 and 1 (exclusive) such as 0.95 for p95",
            percent_hint=lambda n: f"p{n:g}",
            hint_from=1.0 + 1e-12,
        ),
        default=0.95,
        ini="prob_latency_quantile",
        mark=True,
        help="latency quantile to show and gate (default 0.95: p95)",
    )
    add(
        "max_latency",
        parse=parse_seconds,
        mark=True,
        help="gate a case on its latency quantile: PASS when the whole interval is below "
        "this many seconds",
    )
    add(
        "latency_method",
        parse=lambda value, config: latency_methods(config).check(value),
        with_config=True,
        default=ORDER_STATISTIC,
        ini="prob_latency_method",
        mark=True,
        help="latency quantile method (default order-statistic)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register :class:`LateMethods` for this config. Called once per process."""
    if config.pluginmanager.get_plugin(LATE_METHODS) is None:
        config.pluginmanager.register(LateMethods(config), LATE_METHODS)


class LateMethods:
    """Registers the latency methods as soon as a plugin other than the bundled extensions
    implements ``pytest_prob_register_latency_methods`` (so that a broken registration fails
    there): at ``pytest_configure``, or when a conftest file collection imports registers.
    Otherwise they are registered on first use (a ``prob_latency_method`` setting does: the
    kernel checks it against them)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_plugin_registered(self) -> None:
        """Called by pytest for every plugin registered from this session's
        ``pytest_configure`` on (historically: also, on this watcher's registration, for
        those registered before)."""
        if implemented_outside(self.config.hook.pytest_prob_register_latency_methods):
            latency_methods(self.config)


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_latency_methods(register: Any, config: pytest.Config) -> None:
    """Register the bundled ``order-statistic`` method. Called once per session through the
    historic hook."""
    register(
        ORDER_STATISTIC,
        latency_quantile,
        description="the ⌈nq⌉-th smallest time; distribution-free order-statistic interval",
    )


# -- the latency gate kind ------------------------------------------------------------------------
def configure_gate(mark: dict[str, Any], config: pytest.Config) -> LatencySettings | None:
    """A latency gate for a case whose merged mark sets ``max_latency=``."""
    return None if mark.get("max_latency") is None else case_settings(config, mark)


def judge_gate(chosen: LatencySettings, case: Any, config: pytest.Config) -> GateResult:
    """The latency gate's result on a case's runs (lower is better)."""
    found = case_latency(config, case)
    cells = latency_cells(found)
    return GateResult(
        "latency", found.verdict or UNDECIDED, "  ".join(cells[1:]), found.to_json(), cells
    )


# trylast: entries it adds to another extension's registry follow other plugins', however
# late it registers (on use)
@pytest.hookimpl(trylast=True)
def pytest_prob_register_gates(register: Any, config: pytest.Config) -> None:
    """Register the ``latency`` gate kind (``max_latency=``): it judges speed only, so it
    does not take over the runs' outcomes, and its section is ``probability: latency``.
    Called once per session through the gates extension's historic hook."""
    register(
        "latency",
        configure=configure_gate,
        judge=judge_gate,
        # the fewest runs with which the interval has an upper end (so the gate can pass)
        minimum_runs=lambda chosen, config: minimum_runs(chosen),
        describe=lambda chosen: f"max_latency={chosen.limit:g} ({quantile_label(chosen.quantile)})",
        decides_runs=False,
    )


def pytest_prob_collect_verdicts(case: Case, config: pytest.Config) -> list[Any]:
    """Refuse a ``max_latency=`` gate when the gates extension is disabled. Called once per
    case at collection in collecting processes; returns no verdict requests (the gates
    extension adds the ``[gate]`` item)."""
    gates = config.pluginmanager.get_plugin("probability.gates")
    if case.mark.get("max_latency") is not None and gates is None:
        raise OptionError(
            "max_latency= needs the bundled gates extension: remove -p no:probability.gates"
        )
    return []


def pytest_prob_plan_case(case: Case, row: Any, config: pytest.Config) -> None:
    """Under ``--prob-plan``, note the runs a ``max_latency`` gate needs before its interval
    has an upper end (and so before it can pass). Called once per case."""
    limit_seconds = case.mark.get("max_latency")
    if limit_seconds is None:
        return
    chosen = case_settings(config, case.mark)
    needed = minimum_runs(chosen)
    if needed is None:
        return
    enough = "enough" if case.runs >= needed else f"not enough with {case.runs}"
    row.notes.append(
        f"latency: {quantile_label(chosen.quantile)} ≤{limit(limit_seconds)} needs at least "
        f"{needed} runs at {chosen.level * 100:g}% for an upper end ({enough})"
    )
    row.data["latency_min_runs"] = needed


# -- executing process --------------------------------------------------------------------------
def pytest_prob_run_finished(item: pytest.Item, record: dict[str, Any]) -> None:
    """Put the run's latency into its record: the value given to ``record_latency`` or the
    measured body time (``latency``, with ``latency_source`` ``"recorded"`` or
    ``"measured"``; both ``None`` for a skipped run or a failed setup). Called in the
    executing process once per run."""
    if record["outcome"] == SKIP:  # a skipped run is not a sample
        record["latency"] = record["latency_source"] = None
        return
    context = run_context_of(item)
    recorded = context.data.get(RECORDED) if context is not None else None
    if recorded is not None and record["phase"] == "call":
        record["latency"], record["latency_source"] = recorded, "recorded"
    else:
        record["latency"] = record["elapsed"]
        record["latency_source"] = None if record["elapsed"] is None else "measured"


# -- aggregating process -------------------------------------------------------------------------
def latency_cells(found: CaseLatency) -> list[str]:
    """``[runs, label, estimate, interval, limit, verdict]`` (no limit or verdict without a
    gate); the interval's ends are padded by :func:`render_rows`."""
    q = found.quantile
    cells = [
        f"{q.n} run{'' if q.n == 1 else 's'}",
        quantile_label(found.settings.quantile),
        duration(q.estimate),
        f"[{duration(q.low)}, {duration(q.high)}]",
    ]
    if found.settings.limit is not None and found.verdict is not None:
        cells += [f"≤{limit(found.settings.limit)}", found.verdict.upper()]
    return cells


def render_rows(rows: Sequence[tuple[str, CaseLatency]]) -> list[str]:
    """The ``probability: latency`` lines, aligned column by column (the run counts, the
    durations and each end of the intervals right-aligned)."""
    table = [[display, *latency_cells(found)] for display, found in rows]
    ends = [(duration(found.quantile.low), duration(found.quantile.high)) for _, found in rows]
    low_width = max(len(low) for low, _ in ends)
    high_width = max(len(high) for _, high in ends)
    runs_width = max(len(cells[1].split()[0]) for cells in table)
    for cells, (low, high) in zip(table, ends, strict=True):
        cells[4] = f"[{low:>{low_width}}, {high:>{high_width}}]"
        count, word = cells[1].split()
        cells[1] = f"{count:>{runs_width}} {word}"
    columns = max(len(cells) for cells in table)
    widths = [max(len(cells[i]) for cells in table if len(cells) > i) for i in range(columns)]
    lines = []
    for cells in table:
        parts = [
            cell.rjust(widths[i]) if i in (3, 4) else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        lines.append(("  " + "  ".join(parts)).rstrip())
    return lines


def open_end_notes(rows: Sequence[tuple[str, CaseLatency]]) -> list[str]:
    """One note per quantile and level whose interval lacks an upper end somewhere."""
    notes: dict[tuple[float, float], list[CaseLatency]] = {}
    for _, found in rows:
        chosen = found.settings
        if found.quantile.high is None and chosen.method == ORDER_STATISTIC:
            notes.setdefault((chosen.quantile, chosen.level), []).append(found)
    lines = []
    for (q, level), open_rows in notes.items():
        what = "1 row has" if len(open_rows) == 1 else f"{len(open_rows)} rows have"
        gated = any(found.settings.limit is not None for found in open_rows)
        lines.append(
            f"  {what} no upper end ({MISSING}): {quantile_label(q)} at {level * 100:g}% "
            f"needs at least {min_runs_for_upper(q, level)} runs"
            + (", and a max_latency gate cannot pass without one" if gated else "")
        )
    return lines


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: latency`` section (every timed case with
    ``--prob-latency``, else only latency-gated cases) and ``rows[].latency``. Called once
    in the aggregating process."""
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
        report.add_section("latency", render_rows(shown) + open_end_notes(shown), order=300)


def _read(report: ReportBuilder, results: Results, config: pytest.Config) -> list[Any]:
    """The rows that get a reading, with their latency data: every gated latency row (and
    every timed row with ``--prob-latency``)."""
    show_all = option_value(config, "latency")
    rows = [(case, report.row_json.get(case.key, {}).get("latency")) for case in results.rows()]
    return [(case, data) for case, data in rows if data and (show_all or data["max_latency"])]


def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    """Read the latency rows. Called once in the aggregating process by the explain
    extension."""
    found = []
    for case, data in _read(report, results, config):
        label = quantile_label(data["quantile"])
        share = f"{data['quantile'] * 100:g}%"
        text = (
            f"{label} is {duration(data['estimate'])}: {share} of its {data['n']} runs "
            f"finished within about that."
        )
        if data["low"] is not None and data["high"] is not None:
            text += (
                f" With {data['level'] * 100:g}% confidence the true {label} is between "
                f"{duration(data['low'])} and {duration(data['high'])} (distribution-free: it "
                "assumes only independent runs)."
            )
        elif data["high"] is None:
            needed = min_runs_for_upper(data["quantile"], data["level"])
            text += (
                f" With {data['n']} runs its interval has no upper end: {needed} runs are "
                f"needed before a gate on {label} can pass."
            )
        if data.get("verdict") is not None:
            bound = limit(data["max_latency"])
            text += {
                "pass": f" All of it is below the {bound} limit: PASS.",
                "fail": f" All of it is above the {bound} limit: FAIL — it is too slow.",
                "undecided": f" It reaches across the {bound} limit: UNDECIDED; more runs "
                "narrow it.",
            }[data["verdict"]]
        found.append(Reading(case.display, text, ("quantile", "interval"), data, order=600))
    return found


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without ``--prob-explain``."""
    return len(_read(report, results, config))
