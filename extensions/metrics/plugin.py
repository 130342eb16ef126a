"""The ``metrics`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pytest_probability.api import (
    SKIP,
    CaseResult,
    OptionRegistry,
    ProbabilityWarning,
    Reading,
    ReportBuilder,
    Results,
    call_first,
    option_value,
    options_of,
    reading_percent,
)

from .registry import ChosenMetric, MetricCase
from .session import metrics_of
from .summary import OVERALL, Bootstrap, MetricLine, render, summarize

#: used when the intervals extension (which owns these settings) is disabled
DEFAULTS = {
    "confidence": 0.95,
    "min_inputs": 10,
    "bootstrap": 5000,
    "seed": 0,
    "bootstrap_method": "auto",
}
#: what the bundled families' values are, and their glossary terms
MEANINGS = {
    "pass^": ("the chance that {k} runs of the same input all pass", "pass^k"),
    "pass@": ("the chance that at least one of {k} runs of an input passes", "pass@k"),
}


class MetricWarning(ProbabilityWarning, pytest.PytestWarning):
    """A metric raised or returned a value outside [0, 1]; its lines are marked."""


#: how the kernel fills the registry when a plugin that is not bundled registers metrics
#: (a broken registration is a usage error before anything runs) without loading this module
FILL_REGISTRY = metrics_of


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-metric`` / ``prob_metric``. Called by the kernel's historic hook."""
    options.add(
        "metric",
        parse=lambda value, config: metrics_of(config).parse(value),
        with_config=True,
        cli="--prob-metric",
        ini="prob_metric",
        metavar="M",
        repeatable=True,
        help="also report pass^K (all K pass) and/or pass@K (one of K)",
        owner="metrics",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Fill the registry now (``--prob-metric`` and ``prob_metric`` have filled it already:
    the kernel's ``pytest_configure`` parses them), so that a broken registration is a usage
    error before anything runs, and a plugin registered later (a conftest in a subdirectory)
    adds its metrics after these. Called once per process."""
    metrics_of(config)


def metric_case(case: CaseResult) -> MetricCase:
    """A case as metrics see it: judged outcomes in run order (skipped runs left out)."""
    outcomes = (r["outcome"] for r in case.ordered_records())
    return MetricCase(case.case_id, tuple(o for o in outcomes if o != SKIP))


def _case_method(setting: str) -> str:
    """``--prob-bootstrap-method`` for the case bootstrap: ``auto`` is ``percentile``, as for
    the function-level lines (so ``pass^1`` keeps their interval)."""
    return "percentile" if setting == "auto" else setting


def _setting(config: pytest.Config, name: str) -> Any:
    options = options_of(config)
    return options.session_value(name) if name in options.specs else DEFAULTS[name]


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute ``rows[].metrics``, the ``probability: metrics`` section and the top-level
    ``metrics`` object when ``--prob-metric`` is given. Called once in the aggregating
    process."""
    chosen: tuple[ChosenMetric, ...] | None = option_value(config, "metric")
    if not chosen:
        return
    bootstrap = Bootstrap(
        min_inputs=_setting(config, "min_inputs"),
        resamples=_setting(config, "bootstrap"),
        seed=_setting(config, "seed"),
        level=_setting(config, "confidence"),
        method=_case_method(_setting(config, "bootstrap_method")),
    )
    labels = [metric.label for metric in chosen]
    cases = [case for case in results.cases() if case.total > 0]
    groups: dict[tuple[str, str], list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault((case.module, case.label), []).append(index)
    views = [metric_case(case) for case in cases]
    values: dict[str, list[float | None]] = {}
    failed: dict[str, str] = {}
    for metric in chosen:
        try:
            values[metric.label] = [metric.value(view) for view in views]
        except Exception as exc:  # a metric's bug must not lose the report
            failed[metric.label] = f"{type(exc).__name__}: {exc}"
            warnings.warn(
                MetricWarning(f"metric {metric.label!r} failed: {failed[metric.label]}"),
                stacklevel=2,
            )
    for index, case in enumerate(cases):
        row = {label: values[label][index] if label in values else None for label in labels}
        report.add_row_json(case.key, {"metrics": row})
    names = [label for _, label in groups]
    scopes = [
        (label if names.count(label) == 1 else f"{module}::{label}", members)
        for (module, label), members in groups.items()
    ]
    if len(groups) > 1:  # one function: its lines already are the whole session
        scopes.append((OVERALL, list(range(len(cases)))))
    lines: list[MetricLine] = []
    for scope, members in scopes:
        # (the stopping extension's note when some of the cases were stopped early)
        hidden = call_first(
            config,
            "pytest_prob_hide_interval",
            check=_not_a_note,
            cases=[cases[i] for i in members],
            config=config,
        )
        for metric in chosen:
            if metric.label in failed:
                lines.append(MetricLine(scope, metric.label, 0, None, error=failed[metric.label]))
                continue
            picked = [values[metric.label][i] for i in members]
            ids = [cases[i].case_id for i in members]
            lines.append(summarize(scope, metric, picked, bootstrap, hidden, case_ids=ids))
    report.add_section("metrics", render(lines), order=90)
    report.set_json("metrics", {"metrics": labels, "lines": [line.to_json() for line in lines]})


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


def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    """Read the metric lines, one reading each. Called once in the aggregating process by
    the explain extension; returns the readings."""
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


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give (every metric line
    with a value), counted without building them. Called once in the aggregating process,
    only without ``--prob-explain``."""
    return len(_read_lines(report))


def _not_a_note(answer: Any) -> str | None:
    return None if isinstance(answer, str) else f"answered {answer!r:.200}, not a note (text)"
