"""The case table: one ``<tbody>`` per case (its row and its runs), sortable and filterable.

Each ``<tbody>`` carries its sort keys as ``data-*`` attributes, read by the page script;
without the script the table is still complete, in report order. Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_probability.api import fraction, integer, num, obj, objects, text
from pytest_probability.api import items as json_array

from . import fmt
from .fmt import MISSING
from .ids import case_id
from .markup import Markup, css_token, escape
from .records import case_details, message_limit
from .svg import interval_bar

#: Status keys in order of severity, with the words shown.
STATUS_WORDS = {
    "fail": "FAIL",
    "error": "ERROR",
    "errored": "ERRORED",
    "flaky": "FLAKY",
    "pass": "PASS",
    "skipped": "SKIPPED",
}
VERDICT_WORDS = {"fail": "FAIL", "undecided": "UNDECIDED", "pass": "PASS"}


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
    for check in objects(obj(row.get("gate")).get("checks")):
        if check.get("kind") == "rate" and num(check.get("min_rate")) is not None:
            return fraction(check.get("min_rate"))
    return None


class Columns:
    """Which optional columns the table has (a column shows when any row fills it)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> None:
        self.gate = any(obj(row.get("gate")) for row in rows)
        self.latency = any(num(obj(row.get("latency")).get("estimate")) is not None for row in rows)
        self.cost = any(num(row.get("cost")) is not None for row in rows)
        self.metrics = list(metrics)

    def headers(self) -> list[tuple[str, str, str]]:
        """``(sort key, label, CSS class)`` of every column."""
        heads = [
            ("case", "Case", "case"),
            ("runs", "Runs", "num"),
            ("fraction", "Pass rate", "num"),
            ("low", "Interval (0–100%)", "plot"),
            ("status", "Status", ""),
        ]
        if self.gate:
            heads.append(("gate", "Gate", ""))
        if self.latency:
            heads.append(("latency", "Latency", "num"))
        if self.cost:
            heads.append(("cost", "Cost", "num"))
        heads += [(f"m{i + 1}", name, "num") for i, name in enumerate(self.metrics)]
        return heads


def _status_cell(row: Mapping[str, Any], status: str) -> str:
    word = STATUS_WORDS.get(status, status.upper())
    parts = [f'<span class="badge s-{css_token(status)}">{escape(word)}</span>']
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
    word = VERDICT_WORDS.get(verdict, verdict.upper() or MISSING)
    bars = ", ".join(gate_text(check) for check in objects(gate.get("checks")))
    badge = f'<span class="badge v-{css_token(verdict)}">{escape(word)}</span>'
    return verdict, f"{badge} {escape(bars)}"


def _row(
    index: int,
    row: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    columns: Columns,
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
    case = text(row.get("case"))
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
    metric_values = obj(row.get("metrics"))
    metrics = [fraction(metric_values.get(name)) for name in columns.metrics]
    for i, value in enumerate(metrics):
        data[f"m{i + 1}"] = _number(value)
    attributes = "".join(f' data-{key}="{escape(value)}"' for key, value in data.items() if value)
    runs = MISSING if passes is None or total is None else f"{passes}/{total}"
    planned = integer(row.get("planned"))
    if planned is not None and total is not None and planned != total:
        runs += f" <small>of {planned}</small>"
    cells = [
        f'<th scope="row" class="case">{case_id(case)}</th>',
        f"<td>{runs}</td>",
        f"<td>{fmt.rate(row.get('pass_rate'))}</td>",
        f'<td class="plot">{interval_bar(low, high, estimate, gate=rate_gate(row), status=status)}'
        f" <span>{fmt.interval(low, high)}</span></td>",
        f'<td class="l">{_status_cell(row, status)}</td>',
    ]
    if columns.gate:
        cells.append(f'<td class="l">{gate_cell}</td>')
    if columns.latency:
        shown = ""
        if num(latency.get("estimate")) is not None:
            label = fmt.quantile(latency.get("quantile"))
            shown = f"{fmt.duration(latency.get('estimate'))} <small>{label}</small>"
        cells.append(f"<td>{shown}</td>")
    if columns.cost:
        cost = row.get("cost")
        cells.append(f"<td>{fmt.money(cost) if num(cost) is not None else ''}</td>")
    cells += [f"<td>{'' if value is None else fmt.percent1(value)}</td>" for value in metrics]
    readings = [text(row.get("explanation"))] if row.get("explanation") else []
    if latency.get("explanation"):
        readings.append(text(latency.get("explanation")))
    width = len(cells)
    details = case_details(row, records, readings, limit)
    return (
        f'<tbody id="c{index}" data-i="{index}"{attributes}><tr>{"".join(cells)}</tr>'
        f'<tr class="runs-row"><td colspan="{width}">{details}</td></tr></tbody>'
    )


def _filters(rows: Sequence[Mapping[str, Any]], columns: Columns) -> str:
    statuses: dict[str, int] = {}
    functions: dict[str, int] = {}
    verdicts: dict[str, int] = {}
    for row in rows:
        statuses[status_of(row)] = statuses.get(status_of(row), 0) + 1
        label = text(row.get("label"))
        functions[label] = functions.get(label, 0) + 1
        verdict = text(obj(row.get("gate")).get("verdict"))
        if verdict:
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
    ordered = sorted(
        statuses, key=lambda s: list(STATUS_WORDS).index(s) if s in STATUS_WORDS else 99
    )

    def select(name: str, label: str, options: list[tuple[str, str]]) -> str:
        shown = "".join(
            f'<option value="{escape(value)}">{escape(caption)}</option>'
            for value, caption in options
        )
        return (
            f'<label>{label} <select id="f-{name}" data-param="{name}">'
            f'<option value="">all</option>{shown}</select></label>'
        )

    parts = [
        select(
            "filter",
            "Status",
            [(s, f"{STATUS_WORDS.get(s, s.upper())} ({statuses[s]})") for s in ordered],
        ),
        select("fn", "Function", [(f, f"{f} ({n})") for f, n in functions.items()]),
    ]
    if columns.gate:
        parts.append(
            select(
                "gate",
                "Gate",
                [(v, f"{VERDICT_WORDS.get(v, v.upper())} ({n})") for v, n in verdicts.items()],
            )
        )
    parts.append(
        '<label>Search <input id="f-q" data-param="q" type="search" '
        'placeholder="case id contains…" autocomplete="off"></label>'
    )
    parts.append('<output id="f-count" aria-live="polite"></output>')
    return f'<form class="filters" id="case-filters" role="search" hidden>{"".join(parts)}</form>'


def render_cases(document: Mapping[str, Any]) -> Markup | None:
    """The case table section body, or ``None`` when the report has no row."""
    rows = objects(document.get("rows"))
    if not rows:
        return None
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    lengths = []
    for record in objects(document.get("records")):
        by_case.setdefault(text(record.get("case")), []).append(record)
        if isinstance(record.get("message"), str):
            lengths.append(len(record["message"]))
    limit = message_limit(lengths)
    metrics = [text(name) for name in json_array(obj(document.get("metrics")).get("metrics"))]
    columns = Columns(rows, metrics)
    head = []
    for key, label, css in columns.headers():
        head.append(
            f'<th scope="col" class="{css}" aria-sort="none">'
            f'<button type="button" data-sort="{escape(key)}">{escape(label)}</button></th>'
        )
    bodies = [
        _row(index, row, by_case.get(text(row.get("case")), []), columns, limit)
        for index, row in enumerate(rows)
    ]
    hint = (
        '<p class="muted hint">Click a column to sort (again to reverse); each case\'s runs '
        "are under its row. Links keep the view: <code>#filter=fail&amp;sort=-fraction</code>."
        "</p>"
    )
    return Markup(
        f"{hint}{_filters(rows, columns)}"
        f'<div class="scroll"><table id="cases" class="cases"><thead><tr>{"".join(head)}</tr>'
        f"</thead>{''.join(bodies)}</table></div>"
    )
