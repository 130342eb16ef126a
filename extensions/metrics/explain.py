"""Plain-language readings of pass^k and pass@k lines (for ``--prob-explain``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from pytest_probability.api import Reading, ReportBuilder, reading_percent

#: what the bundled families' values are, and their glossary terms
MEANINGS = {
    "pass^": ("the chance that {k} runs of the same input all pass", "pass^k"),
    "pass@": ("the chance that at least one of {k} runs of an input passes", "pass@k"),
}


def _inputs(count: int) -> str:
    """``1 input``, ``12 inputs``."""
    return f"{count} input{'' if count == 1 else 's'}"


def _read_lines(report: ReportBuilder) -> list[dict]:
    """The metric lines that get a reading (those with a value)."""
    return [
        line
        for line in (report.json.get("metrics") or {}).get("lines", [])
        if not line.get("error") and line.get("value") is not None
    ]


def count(report: ReportBuilder) -> int:
    """How many notable readings :func:`readings` gives, without building them."""
    return len(_read_lines(report))


def readings(report: ReportBuilder) -> list[Reading]:
    """A reading per metric line."""
    found = []
    for line in _read_lines(report):
        name = line["metric"]
        template, term = MEANINGS.get(name[:5], ("the metric {name}", None))
        meaning = template.format(k=name[5:], name=name)
        value = reading_percent(line["value"], 1)
        text = f"{value} is {meaning}, averaged over {_inputs(line['n'])}"
        if line.get("low") is not None:
            low, high = reading_percent(line["low"], 1), reading_percent(line["high"], 1)
            text += f" (interval {low} to {high})"
        text += "."
        left_out = line.get("left_out")
        if left_out:
            text += (
                f" {_inputs(left_out)} had fewer than {line['min_runs']} runs and "
                f"{'is' if left_out == 1 else 'are'} left out."
            )
        found.append(
            Reading(f"{line['scope']} {name}", text, (term,) if term else (), line, order=300)
        )
    return found
