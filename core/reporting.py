"""Calling the ``pytest_prob_build_report`` implementations, each on its own.

One contributor that raises must not cost the user the rest of a report that may have paid
for real model calls: its failure becomes a warning, a marked section and a JSON entry.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from .report import ReportBuilder
from .results import Results


class ProbabilityReportWarning(pytest.PytestWarning):
    """An extension failed while contributing to the report."""


def _plugin_name(config: pytest.Config, impl: Any) -> str:
    return config.pluginmanager.get_name(impl.plugin) or getattr(impl, "plugin_name", "?")


def build_report(config: pytest.Config, results: Results) -> ReportBuilder:
    """Ask every extension for its contribution, in hook order, isolating failures."""
    builder = ReportBuilder(rows=[(case.key, case.display) for case in results.rows()])
    hook = config.hook.pytest_prob_build_report
    kwargs = {"report": builder, "results": results, "config": config}
    for impl in reversed(hook.get_hookimpls()):
        if getattr(impl, "hookwrapper", False) or getattr(impl, "wrapper", False):
            continue
        try:
            impl.function(*[kwargs[name] for name in impl.argnames])
        except Exception as exc:  # an extension's bug must not lose the report
            name = _plugin_name(config, impl)
            message = (
                f"extension {name!r} failed while building the report: {type(exc).__name__}: {exc}"
            )
            builder.warn(message)
            builder.add_section(
                f"{name} (failed)",
                [f"  {type(exc).__name__}: {exc}", "  the rest of the report is unaffected"],
                order=10_000,
            )
            warnings.warn(ProbabilityReportWarning(message), stacklevel=1)
    return builder
