"""Each case's run records, one click away: a ``<details>`` holding a compact run table.

To keep a 20,000-run report small, columns appear only when some run of the case has
something to show in them, a message repeated by a later run says "same as run N", long
messages are cut (the JSON report keeps them whole), and a step the kernel synthesized
from the run itself is not repeated. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_probability.api import ERROR, FAIL, PASS, SKIP, integer, num, objects, text

from .failures import failure_groups
from .fmt import duration, money_per_run, plural, truncate
from .markup import Markup, css_token, escape

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
    shown, cut = truncate(value, limit)
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
        ok = bool(step.get("passed"))
        bits = [escape(text(step.get("label"), "step"))]
        if num(step.get("elapsed")) is not None:
            bits.append(duration(step.get("elapsed")))
        if num(step.get("cost")) is not None:
            bits.append(money_per_run(step.get("cost")))
        if step.get("error"):
            bits.append(escape(step.get("error")))
        line = " · ".join(bits)
        if step.get("message"):
            line += f": {_message(text(step.get('message')), STEP_MESSAGE_LIMIT)}"
        parts.append(f'<li class="{"ok" if ok else "bad"}">{line}</li>')
    return f'<ol class="steps">{"".join(parts)}</ol>'


def _notes(record: Mapping[str, Any]) -> list[str]:
    """Small tags for what is unusual about a run (phase, error type, xfail, stopping)."""
    notes = []
    phase = record.get("phase")
    if phase and phase != "call":
        notes.append(f"in {escape(phase)}")
    if record.get("error"):
        notes.append(escape(record.get("error")))
    if record.get("xfail"):
        notes.append("xfail")
    if record.get("stop_partial"):
        notes.append("partial stop")
    return [f'<span class="tag">{note}</span>' for note in notes]


def summary_counts(records: Sequence[Mapping[str, Any]]) -> str:
    """``10 runs: 7 pass, 2 fail, 1 error`` (and ``· $0.0040 each`` when every run cost the
    same)."""
    counts = {outcome: 0 for outcome in OUTCOMES}
    for record in records:
        outcome = text(record.get("outcome"))
        if outcome in counts:
            counts[outcome] += 1
    shown = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    costs = {num(record.get("cost")) for record in records}
    each = ""
    if len(costs) == 1 and records:
        cost = costs.pop()
        each = "" if cost is None else f" · {money_per_run(cost)} each"
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
        word = text(record.get("outcome"), "?")
        outcome = escape(word)
        run = integer(record.get("run"))
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
        shown = outcome if word == PASS else f'<b class="o-{css_token(word)}">{outcome}</b>'
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
    if records:
        body.append(run_table(records, limit))
    else:
        body.append('<p class="muted">No run record.</p>')
    return Markup(
        f'<details class="rundetails"><summary>{summary_counts(records)}</summary>'
        f"{''.join(body)}</details>"
    )
