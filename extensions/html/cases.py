"""The case table: one ``<tbody>`` per case (its row and its runs), sortable and filterable.

Each ``<tbody>`` carries its sort keys as ``data-*`` attributes, read by the page script;
without the script the table is still complete, in report order.

Each case's run records are one click away, a ``<details>`` holding the case's distinct
failures (the JSON row's ``failures``, one line per group as the terminal says it) and a
compact run table. To keep a 20,000-run report small, columns appear only when some run of
the case has something to show in them, a message repeated by a later run says "same as
run N", long messages are cut (the JSON report keeps them whole), and a step the kernel
synthesized from the run itself is not repeated. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_probability.api import (
    ERROR,
    FAIL,
    PASS,
    SKIP,
    fraction,
    integer,
    num,
    obj,
    objects,
    runs_text,
    text,
)
from pytest_probability.api import items as json_array

from . import fmt
from .fmt import MISSING, case_id, duration, money_per_run, plural
from .markup import Markup, css_token, escape
from .svg import interval_bar

#: Status keys in order of severity (a status and a verdict show upper-cased).
STATUSES = ("fail", "error", "errored", "flaky", "pass", "skipped")


def status_of(row: Mapping[str, Any]) -> str:
    """The row's status key (``pass`` … ``skipped``), derived when the report has none."""
    status = row.get("status")
    if isinstance(status, str) and status:
        return status
    total, passes = integer(row.get("total")) or 0, integer(row.get("passes")) or 0
    if total == 0:
        return "skipped"
    return "pass" if passes == total else ("fail" if passes == 0 else "flaky")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def gate_text(check: Mapping[str, Any]) -> str:
    """One gate check in words: ``≥90%``, ``≥19 passes``, ``p95 ≤ 2.00s``."""
    kind = text(check.get("kind"), "gate")
    if kind == "rate" and num(check.get("min_rate")) is not None:
        return f"≥{fmt.percent(check.get('min_rate'))}"
    if kind == "count" and integer(check.get("min_passes")) is not None:
        return f"≥{fmt.plural(integer(check.get('min_passes')) or 0, 'pass', 'passes')}"
    if kind == "latency":
        return f"{fmt.quantile(check.get('quantile'))} ≤ {fmt.duration(check.get('max_latency'))}"
    return kind


def rate_gate(row: Mapping[str, Any]) -> float | None:
    """The ``min_rate`` of the row's rate gate, if it has one."""
    checks = objects(obj(row.get("gate")).get("checks"))
    rates = (fraction(check.get("min_rate")) for check in checks if check.get("kind") == "rate")
    return next((rate for rate in rates if rate is not None), None)


def _columns(rows: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> list[tuple[str, ...]]:
    """``(sort key, label, CSS class)`` of every column; an optional one (gate, latency,
    cost) shows when some row fills it."""
    optional = {
        ("gate", "Gate", ""): any(obj(row.get("gate")) for row in rows),
        ("latency", "Latency", "num"): any(
            num(obj(row.get("latency")).get("estimate")) is not None for row in rows
        ),
        ("cost", "Cost", "num"): any(num(row.get("cost")) is not None for row in rows),
    }
    return [
        ("case", "Case", "case"),
        ("runs", "Runs", "num"),
        ("fraction", "Pass rate", "num"),
        ("low", "Interval (0–100%)", "plot"),
        ("status", "Status", ""),
        *(column for column, shown in optional.items() if shown),
        *((f"m{i + 1}", name, "num") for i, name in enumerate(metrics)),
    ]


def _status_cell(row: Mapping[str, Any], status: str) -> str:
    parts = [f'<span class="badge s-{css_token(status)}">{escape(status.upper())}</span>']
    errors = integer(row.get("errors")) or 0
    if errors and status in ("flaky", "fail"):
        parts.append(f"<small>{errors} errored</small>")
    if row.get("xfail") is True:
        parts.append("<small>xfail</small>")
    stopped = obj(row.get("stopped"))
    if stopped:
        after, planned = integer(stopped.get("after")), integer(stopped.get("planned"))
        parts.append(f"<small>stopped {after}/{planned}</small>")
    return " ".join(parts)


def _gate_cell(row: Mapping[str, Any]) -> tuple[str, str]:
    gate = obj(row.get("gate"))
    if not gate:
        return "", ""
    verdict = text(gate.get("verdict"))
    word = verdict.upper() or MISSING
    bars = ", ".join(gate_text(check) for check in objects(gate.get("checks")))
    badge = f'<span class="badge v-{css_token(verdict)}">{escape(word)}</span>'
    return verdict, f"{badge} {escape(bars)}"


def _row(
    index: int,
    row: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    keys: set[str],
    metric_names: Sequence[str],
    limit: int,
) -> str:
    status = status_of(row)
    ci = obj(row.get("ci"))
    low, high = fraction(ci.get("low")), fraction(ci.get("high"))
    passes, total = integer(row.get("passes")), integer(row.get("total"))
    rate_value = num(row.get("pass_rate"))
    estimate = None if rate_value is None else min(1.0, max(0.0, rate_value / 100))
    latency = obj(row.get("latency"))
    verdict, gate_cell = _gate_cell(row)
    data = {
        "fn": text(row.get("label")),
        "status": status,
        "rate": _number(estimate),
        "low": _number(low),
        "high": _number(high),
        "n": _number(total),
        "gate": verdict,
        "lat": _number(num(latency.get("estimate"))),
        "cost": _number(num(row.get("cost"))),
    }
    metrics = [fraction(obj(row.get("metrics")).get(name)) for name in metric_names]
    data.update((f"m{i + 1}", _number(value)) for i, value in enumerate(metrics))
    attributes = "".join(f' data-{key}="{escape(value)}"' for key, value in data.items() if value)
    runs = MISSING if passes is None or total is None else f"{passes}/{total}"
    planned = integer(row.get("planned"))
    if planned is not None and total is not None and planned != total:
        runs += f" <small>of {planned}</small>"
    cells = [
        f'<th scope="row" class="case">{case_id(text(row.get("case")))}</th>',
        f"<td>{runs}</td>",
        f"<td>{fmt.rate(row.get('pass_rate'))}</td>",
        f'<td class="plot">{interval_bar(low, high, estimate, gate=rate_gate(row), status=status)}'
        f" <span>{fmt.interval(low, high)}</span></td>",
        f'<td class="l">{_status_cell(row, status)}</td>',
    ]
    if "gate" in keys:
        cells.append(f'<td class="l">{gate_cell}</td>')
    if "latency" in keys:
        shown = ""
        if num(latency.get("estimate")) is not None:
            label = fmt.quantile(latency.get("quantile"))
            shown = f"{fmt.duration(latency.get('estimate'))} <small>{label}</small>"
        cells.append(f"<td>{shown}</td>")
    if "cost" in keys:
        cells.append(f"<td>{fmt.money(row.get('cost'), '')}</td>")
    cells += [f"<td>{'' if value is None else fmt.percent1(value)}</td>" for value in metrics]
    readings = [text(said) for said in (row.get("explanation"), latency.get("explanation")) if said]
    details = case_details(row, records, readings, limit)
    return (
        f'<tbody id="c{index}" data-i="{index}"{attributes}><tr>{"".join(cells)}</tr>'
        f'<tr class="runs-row"><td colspan="{len(cells)}">{details}</td></tr></tbody>'
    )


def _filters(rows: Sequence[Mapping[str, Any]], gated: bool) -> str:
    def select(name: str, label: str, counts: Iterable[tuple[str, int]], upper: bool = True) -> str:
        shown = "".join(
            f'<option value="{escape(value)}">{escape(value.upper() if upper else value)} ({n})'
            "</option>"
            for value, n in counts
        )
        return (
            f'<label>{label} <select id="f-{name}" data-param="{name}">'
            f'<option value="">all</option>{shown}</select></label>'
        )

    statuses = Counter(status_of(row) for row in rows)
    ordered = sorted(statuses, key=lambda s: STATUSES.index(s) if s in STATUSES else 99)
    functions = Counter(text(row.get("label")) for row in rows)
    parts = [
        select("filter", "Status", [(s, statuses[s]) for s in ordered]),
        select("fn", "Function", functions.items(), upper=False),
    ]
    if gated:
        verdicts = Counter(text(obj(row.get("gate")).get("verdict")) for row in rows)
        parts.append(select("gate", "Gate", [(v, n) for v, n in verdicts.items() if v]))
    parts.append(
        '<label>Search <input id="f-q" data-param="q" type="search" '
        'placeholder="case id contains…" autocomplete="off"></label>'
        '<output id="f-count" aria-live="polite"></output>'
    )
    return f'<form class="filters" id="case-filters" role="search" hidden>{"".join(parts)}</form>'


def render_cases(document: Mapping[str, Any]) -> Markup | None:
    """The case table section body, or ``None`` when the report has no row."""
    rows = objects(document.get("rows"))
    if not rows:
        return None
    records = objects(document.get("records"))
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_case.setdefault(text(record.get("case")), []).append(record)
    limit = message_limit([len(r["message"]) for r in records if isinstance(r.get("message"), str)])
    metrics = [text(name) for name in json_array(obj(document.get("metrics")).get("metrics"))]
    columns = _columns(rows, metrics)
    keys = {key for key, _, _ in columns}
    head = [
        f'<th scope="col" class="{css}" aria-sort="none">'
        f'<button type="button" data-sort="{escape(key)}">{escape(label)}</button></th>'
        for key, label, css in columns
    ]
    bodies = [
        _row(index, row, by_case.get(text(row.get("case")), []), keys, metrics, limit)
        for index, row in enumerate(rows)
    ]
    hint = (
        '<p class="muted hint">Click a column to sort (again to reverse); each case\'s runs '
        "are under its row. Links keep the view: <code>#filter=fail&amp;sort=-fraction</code>."
        "</p>"
    )
    return Markup(
        f"{hint}{_filters(rows, 'gate' in keys)}"
        f'<div class="scroll"><table id="cases" class="cases"><thead><tr>{"".join(head)}</tr>'
        f"</thead>{''.join(bodies)}</table></div>"
    )


#: Characters of a message shown before it is cut.
MESSAGE_LIMIT = 1200
#: Characters of all messages of a page: past it every message is cut shorter, down to
#: ``MESSAGE_FLOOR``, so a session with thousands of failing runs still makes a small page.
MESSAGE_BUDGET = 1_500_000
MESSAGE_FLOOR = 160
#: Characters of a step's message shown before it is cut.
STEP_MESSAGE_LIMIT = 300
OUTCOMES = (PASS, FAIL, ERROR, SKIP)


def message_limit(lengths: Sequence[int]) -> int:
    """The longest message shown whole: ``MESSAGE_LIMIT``, or less when the page's
    messages together would exceed ``MESSAGE_BUDGET`` characters (never below the floor)."""
    limit = MESSAGE_LIMIT
    while limit > MESSAGE_FLOOR and sum(min(n, limit) for n in lengths) > MESSAGE_BUDGET:
        limit = max(MESSAGE_FLOOR, limit * 3 // 4)
    return limit


def _message(value: str, limit: int) -> str:
    shown, cut = value[:limit], max(0, len(value) - limit)
    note = f'<span class="cut">… {cut:,} more characters in the JSON</span>' if cut else ""
    return f"{escape(shown)}{note}"


def _synthesized(record: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the steps are only the kernel's mirror of the run (nothing to add): one
    step labelled with the function, with the run's message and error (its usage and cost
    are the run's own)."""
    if len(steps) != 1:
        return not steps
    step = steps[0]
    return (
        step.get("label") == record.get("label")
        and step.get("message") == record.get("message")
        and step.get("error") == record.get("error")
    )


def _steps(steps: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for step in steps:
        extras = [
            duration(step.get("elapsed")) if num(step.get("elapsed")) is not None else "",
            money_per_run(step.get("cost")) if num(step.get("cost")) is not None else "",
            escape(step.get("error")) if step.get("error") else "",
        ]
        line = " · ".join([escape(text(step.get("label"), "step")), *filter(None, extras)])
        if step.get("message"):
            line += f": {_message(text(step.get('message')), STEP_MESSAGE_LIMIT)}"
        parts.append(f'<li class="{"ok" if step.get("passed") else "bad"}">{line}</li>')
    return f'<ol class="steps">{"".join(parts)}</ol>'


def _notes(record: Mapping[str, Any]) -> list[str]:
    """Small tags for what is unusual about a run (phase, error type, xfail, stopping)."""
    phase = record.get("phase")
    notes = [
        f"in {escape(phase)}" if phase and phase != "call" else None,
        escape(record.get("error")) if record.get("error") else None,
        "xfail" if record.get("xfail") else None,
        "partial stop" if record.get("stop_partial") else None,
    ]
    return [f'<span class="tag">{note}</span>' for note in notes if note]


def summary_counts(records: Sequence[Mapping[str, Any]]) -> str:
    """``10 runs: 7 pass, 2 fail, 1 error`` (and ``· $0.0040 each`` when every run cost the
    same)."""
    counts = Counter(text(record.get("outcome")) for record in records)
    shown = ", ".join(f"{counts[outcome]} {outcome}" for outcome in OUTCOMES if counts[outcome])
    costs = {num(record.get("cost")) for record in records}
    each = f" · {money_per_run(costs.pop())} each" if len(costs) == 1 and None not in costs else ""
    return plural(len(records), "run") + (f": {shown}" if shown else "") + each


def run_table(records: Sequence[Mapping[str, Any]], limit: int = MESSAGE_LIMIT) -> str:
    """The run table of one case (records in run order); messages cut at ``limit``."""
    steps_of = [objects(r.get("steps")) for r in records]
    show_steps = any(not _synthesized(r, s) for r, s in zip(records, steps_of, strict=True))
    costs = {r.get("cost") for r in records if num(r.get("cost")) is not None}
    # one cost for every run is said once, in the summary, not repeated on each row
    show_cost = len(costs) > 1 or (
        len(costs) == 1 and any(num(r.get("cost")) is None for r in records)
    )
    show_latency = any(r.get("latency_source") == "recorded" for r in records)
    show_message = any(
        r.get("message") or r.get("warnings") or r.get("explanation") or _notes(r) for r in records
    )
    head = ["Run", "Outcome", "Elapsed"]
    head += ["Latency"] * show_latency + ["Cost"] * show_cost + ["Steps"] * show_steps
    head += ["Message"] * show_message
    rows = []
    seen: dict[str, int] = {}
    for record, steps in zip(records, steps_of, strict=True):
        word, run = text(record.get("outcome"), "?"), integer(record.get("run"))
        cells = [duration(record.get("elapsed"))]
        if show_latency:
            cells.append(duration(record.get("latency")))
        if show_cost:
            cells.append(
                money_per_run(record.get("cost")) if record.get("cost") is not None else ""
            )
        if show_steps:
            cells.append("" if _synthesized(record, steps) else _steps(steps))
        if show_message:
            cells.append(_message_cell(record, seen, run, limit))
        rest = "".join(f"<td>{cell}</td>" for cell in cells)
        shown = (
            escape(word) if word == PASS else f'<b class="o-{css_token(word)}">{escape(word)}</b>'
        )
        rows.append(f"<tr><td>{'?' if run is None else run}</td><td>{shown}</td>{rest}</tr>")
    header = "".join(f"<th>{name}</th>" for name in head)
    return (
        f'<div class="scroll"><table class="runs"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _message_cell(
    record: Mapping[str, Any], seen: dict[str, int], run: int | None, limit: int
) -> str:
    parts = _notes(record)
    message = record.get("message")
    if message:
        message = text(message)
        earlier = seen.get(message)
        if earlier is not None:
            parts.append(f'<span class="same">same as run {earlier}</span>')
        else:
            if run is not None:
                seen[message] = run
            parts.append(f'<pre class="msg">{_message(message, limit)}</pre>')
    for warning in record.get("warnings") or ():
        parts.append(f'<div class="warn">{escape(warning)}</div>')
    if record.get("explanation"):
        parts.append(f'<p class="expl">{escape(record.get("explanation"))}</p>')
    return "".join(parts)


def case_details(
    row: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    explanations: Sequence[str],
    limit: int = MESSAGE_LIMIT,
) -> Markup:
    """The ``<details>`` under a case row: its node id, readings and run table."""
    body = [f'<p class="nodeid"><code>{escape(text(row.get("nodeid")))}</code></p>']
    body += [f'<p class="expl">{escape(reading)}</p>' for reading in explanations]
    body.append(failure_groups(row))  # the distinct failures (rows[].failures), if any
    body.append(run_table(records, limit) if records else '<p class="muted">No run record.</p>')
    return Markup(
        f'<details class="rundetails"><summary>{summary_counts(records)}</summary>'
        f"{''.join(body)}</details>"
    )


def failure_groups(row: Mapping[str, Any]) -> str:
    """``<ul class="fgroups">`` with one item per failure group, or ``""`` when the row has
    none (a report written without the ``failures`` extension has none either)."""
    items = []
    for group in objects(row.get("failures")):
        runs = [run for run in (integer(r) for r in group.get("runs") or ()) if run is not None]
        count = integer(group.get("count"))
        count = len(runs) if count is None else count
        where = f' <span class="same">({escape(runs_text(runs))})</span>' if runs else ""
        items.append(f"<li>{count} × <code>{escape(text(group.get('text')))}</code>{where}</li>")
    return (
        f'<ul class="fgroups" title="failing runs by kind">{"".join(items)}</ul>' if items else ""
    )
