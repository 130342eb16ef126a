"""The baseline regression's output: the ``probability: baseline`` section and JSON
object, and ``--prob-save-baseline``'s file.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from pytest_probability.api import (
    ReportBuilder,
    Results,
    options_of,
    plugin_version,
    write_failure,
)

from ..report import render
from ..session import cost_reader, setting
from .files import BaselineCase, write_baseline_toml

if TYPE_CHECKING:
    from .regression import Regression

#: the section's place among the report's sections
SECTION_ORDER = 130


def save_baseline(regression: Regression, results: Results) -> None:
    """Write ``--prob-save-baseline``'s compact TOML baseline of this session; a failure
    is an error line naming the file (``save_error``)."""
    cost_of = cost_reader(regression.config)
    cases = [
        BaselineCase(
            key=case.key,
            case=case.display or case.case_id,
            label=case.label,
            passes=case.passes,
            fails=case.fails,
            errors=case.errors,
            total=case.total,
            cost=cost_of(case),
        )
        for case in results.cases()
    ]
    options = options_of(regression.config)
    settings = {
        "runs": options.session_value("runs"),
        "confidence": setting(regression.config, "confidence"),
        "seed": setting(regression.config, "seed"),
        "plugin_version": plugin_version,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    if "method" in options.specs:
        settings["method"] = options.session_value("method")
    assert regression.save_file is not None
    try:
        write_baseline_toml(regression.save_file, cases, settings)
        regression.saved = regression.save_path
    except OSError as exc:  # (its message names the file)
        regression.save_error = f"--prob-save-baseline={regression.save_path}: {exc}"
    except Exception as exc:  # any failure is one error line naming the file
        reason = write_failure("the baseline", regression.save_file, exc)
        regression.save_error = f"--prob-save-baseline={regression.save_path}: {reason}"


def contribute(regression: Regression, report: ReportBuilder) -> None:
    """Contribute the ``probability: baseline`` section and the ``baseline`` JSON object."""
    lines: list[str] = []
    if regression.baseline is not None:
        rows = [
            render.comparison_cells(f.comparison, f.comparison.label, "now − baseline")
            for f in regression.functions
        ]
        for line, function in zip(render.align(rows), regression.functions, strict=True):
            lines.append(line)
            lines.extend(render.detail_lines(function.comparison))
            if function.new:
                lines.append(f"      new (not compared): {', '.join(function.new)}")
            if function.removed:
                lines.append(f"      removed (not compared): {', '.join(function.removed)}")
        if regression.not_run:
            lines.append(
                f"  {len(regression.not_run)} baseline case(s) of functions that did not run: "
                f"{', '.join(regression.not_run)}"
            )
        deferred = sum(1 for ended in regression.item_outcomes.values() if ended == "deferred")
        if deferred:
            lines.append(
                f"  {deferred} baseline item(s) skipped and judged at session end: their "
                "runs ran in several processes (keep each function on one worker)"
            )
        report.set_json(
            "baseline",
            {
                "path": regression.baseline.path,
                "format": regression.baseline.format,
                "margin": regression.margin,
                "settings": regression.baseline.settings,
                "functions": [f.to_json() for f in regression.functions],
                "not_run": regression.not_run,
            },
        )
    if regression.saved is not None:
        lines.append(f"  saved this session's baseline to {regression.saved}")
    if regression.save_error is not None:
        lines.append(f"  ERROR: {regression.save_error}")
        report.warn(regression.save_error)
    if lines:
        report.add_section("baseline", lines, order=SECTION_ORDER)
