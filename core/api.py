"""The public API for extension authors: everything an extension may import from us.

Bundled extensions and third parties alike build on these names and on the hooks (the
``hookspecs`` modules): an extension imports this module, its own package, the standard
library, pytest and pluggy, and nothing else of ours. ``docs/api.rst`` documents every name
with the version it appeared in; ``tests/test_api.py`` keeps a snapshot of the names and
their signatures, so that a change to this surface is always deliberate.

Stability (semantic versioning): a name listed here keeps its meaning and signature within a
major version. A name is removed only after at least one minor release in which using it
raises :class:`ProbabilityDeprecationWarning` naming its replacement (:data:`DEPRECATED`).

Each name is imported the first time it is read (``from pytest_probability.api import X``
included), so importing this module costs nothing a session does not use.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import __version__ as plugin_version
    from .collection.cases import Case, FunctionCases
    from .collection.collector import BenchRun, VerdictItem
    from .collection.decided_runs import decide_runs
    from .collection.distribution import add_function_units
    from .collection.ordering import verdicts_after_runs
    from .collection.verdict_items import VerdictRequest, verdict_properties
    from .collection.warnings import (
        CaseWarning,
        first_collector,
        function_key,
        warn_at_selected,
        warn_by_cause,
    )
    from .contracts.latencies import LatencyQuantile, RegisterLatencyMethod
    from .contracts.outcomes import ERROR, FAIL, PASS, RUN_OUTCOMES, SKIP, UNDECIDED, VERDICTS
    from .contracts.registering import call_registrations, filled_registry
    from .contracts.stops import CaseStopping, StopContext, StopReader
    from .contracts.tokens import (
        BIG_COUNT,
        UNKNOWN_MODEL,
        CostWarning,
        TokenUsage,
        check_cost,
        check_model,
        check_tokens,
        usage_entry,
    )
    from .execution.context import RunContext, current_run, current_run_or_none
    from .execution.steps import Step, step_field
    from .execution.user_values import describe as describe_exception
    from .execution.user_values import escape_surrogates, int_text, is_huge_int
    from .extensions.comparisons.registry import (
        InputLine,
        Pair,
        RegisterAdjustment,
        RegisterComparisonTest,
        Side,
        TestOutcome,
        TestSettings,
    )
    from .extensions.comparisons.statistics.adjust import benjamini_hochberg
    from .extensions.gates.registry import GateResult, RegisterGate
    from .extensions.html.markup import HtmlPanel, Markup, element
    from .extensions.html.markup import escape as html_escape
    from .extensions.html.markup import table as html_table
    from .extensions.markdown.markup import Markdown, MarkdownSection
    from .extensions.markdown.markup import escape as markdown_escape
    from .extensions.markdown.markup import table as markdown_table
    from .extensions.metrics.registry import MetricCase, RegisterMetric
    from .extensions.texts.settings import RegisterLlmBackend, TextsConfigError, TextsSettings
    from .formatting.durations import MISSING, duration, limit, quantile_label
    from .formatting.fractions import fraction as fraction_text
    from .formatting.fractions import whole_percent
    from .formatting.money import OVERFLOW, OVERFLOW_REASON, is_overflow, money, overflow_note
    from .formatting.percentages import interval_cells, percent, percent1, signed_percent
    from .formatting.readings import Reading, glossary_for
    from .formatting.readings import percent as reading_percent
    from .formatting.readings import render as render_readings
    from .formatting.rounding import percent_of, ratio_percent
    from .formatting.run_numbers import runs_text
    from .formatting.terminal_text import ProbabilityWarning, visible
    from .hookspecs import hookspec
    from .loader import implemented_outside
    from .options import OptionError, OptionRegistry, OptionSpec
    from .parsers import (
        parse_bool,
        parse_fraction,
        parse_nonnegative_float,
        parse_nonnegative_int,
        parse_points,
        parse_positive_int,
        parse_probability,
        parse_text,
    )
    from .report.builder import ReportBuilder
    from .report.document import count_text, fraction, integer, items, num, obj, objects, text
    from .report.json_report import SCHEMA_VERSION
    from .report.json_report import dumps as dump_report
    from .report.output_claims import claim_output
    from .report.reading import INPUT_LIMIT, UnreadableInput, read_input
    from .report.results import CaseResult, Results, row_status
    from .report.writing import failure as write_failure
    from .report.writing import is_stream, write_atomic
    from .sessionviews import (
        call_first,
        call_hook,
        is_active,
        not_an_amount,
        note_written,
        option_value,
        options_of,
        recorded_runs,
        report_document,
        report_of,
        results_of,
        run_context_of,
        runs_in_flight,
        selected_cases,
        stopped_early,
    )
    from .stats.rate_intervals import Interval, RegisterIntervalMethod
    from .stats.rate_intervals import bayes as bayes_interval
    from .stats.rate_intervals import clopper_pearson as clopper_pearson_interval
    from .stats.rate_intervals import wilson as wilson_interval
    from .stats.resampling import (
        binomial_variate,
        bootstrap_mean_interval,
        bootstrap_means,
        case_bootstrap_interval,
        case_mean,
        quantile_type7,
    )
    from .stats.special_functions import (
        beta_ppf,
        betainc,
        betaincc,
        binom_cdf,
        binom_pmf,
        binom_sf,
        log_beta,
        norm_ppf,
    )
    from .stats.thresholds import Thresholds, worst_verdict
    from .stats.two_sample import fisher_two_sided as fisher_exact_p
    from .stats.two_sample import newcombe_difference as newcombe_interval

    hookimpl: Any


class ProbabilityDeprecationWarning(DeprecationWarning):
    """A name of the public API that will be removed; the message names its replacement."""


def _names(module: str, *names: str) -> dict[str, tuple[str, str]]:
    return {name: (module, name) for name in names}


#: Every public name: ``name -> (module relative to the package, attribute there)``. The
#: version each appeared in is in :data:`ADDED_IN`.
PUBLIC: dict[str, tuple[str, str]] = {
    # -- hooks ------------------------------------------------------------------------------
    "hookimpl": ("pytest", "hookimpl"),
    "hookspec": (".hookspecs", "hookspec"),
    # -- outcome and verdict words ------------------------------------------------------------
    **_names(
        ".contracts.outcomes",
        "PASS",
        "FAIL",
        "ERROR",
        "SKIP",
        "UNDECIDED",
        "RUN_OUTCOMES",
        "VERDICTS",
    ),
    # -- settings: declaring (pytest_prob_addoption) and reading ----------------------------
    **_names(".options", "OptionRegistry", "OptionSpec", "OptionError"),
    **_names(
        ".parsers",
        "parse_bool",
        "parse_fraction",
        "parse_nonnegative_float",
        "parse_nonnegative_int",
        "parse_points",
        "parse_positive_int",
        "parse_probability",
        "parse_text",
    ),
    # -- the session: settings, results, report ----------------------------------------------
    **_names(
        ".sessionviews",
        "is_active",
        "option_value",
        "options_of",
        "recorded_runs",
        "report_document",
        "report_of",
        "results_of",
        "runs_in_flight",
        "note_written",
        "selected_cases",
        "stopped_early",
        "call_hook",
        "call_first",
        "not_an_amount",
    ),
    **_names(".report.results", "Results", "CaseResult", "row_status"),
    **_names(".collection.cases", "Case", "FunctionCases"),
    **_names(".collection.collector", "BenchRun", "VerdictItem"),
    **_names(".execution.context", "RunContext", "current_run", "current_run_or_none"),
    "run_context_of": (".sessionviews", "run_context_of"),
    "runs_in_flight": (".sessionviews", "runs_in_flight"),
    **_names(".execution.steps", "Step", "step_field"),
    # -- collection: verdict items and the runs they decide ----------------------------------
    **_names(".collection.verdict_items", "VerdictRequest", "verdict_properties"),
    "decide_runs": (".collection.decided_runs", "decide_runs"),
    **_names(
        ".collection.warnings",
        "warn_at_selected",
        "warn_by_cause",
        "CaseWarning",
        "first_collector",
        "function_key",
    ),
    "verdicts_after_runs": (".collection.ordering", "verdicts_after_runs"),
    "add_function_units": (".collection.distribution", "add_function_units"),
    # -- the report: terminal, readings, JSON, files -----------------------------------------
    "ReportBuilder": (".report.builder", "ReportBuilder"),
    **_names(".formatting.readings", "Reading", "glossary_for"),
    "render_readings": (".formatting.readings", "render"),
    "reading_percent": (".formatting.readings", "percent"),
    "SCHEMA_VERSION": (".report.json_report", "SCHEMA_VERSION"),
    "dump_report": (".report.json_report", "dumps"),
    "plugin_version": (".", "__version__"),
    "claim_output": (".report.output_claims", "claim_output"),
    **_names(".report.writing", "write_atomic", "is_stream"),
    **_names(".report.reading", "read_input", "UnreadableInput", "INPUT_LIMIT"),
    "write_failure": (".report.writing", "failure"),
    **_names(".contracts.registering", "call_registrations", "filled_registry"),
    "implemented_outside": (".loader", "implemented_outside"),
    # -- reading a report document defensively (renderers) ----------------------------------
    **_names(
        ".report.document", "count_text", "fraction", "integer", "items", "num", "obj", "objects"
    ),
    "text": (".report.document", "text"),
    # -- formatting --------------------------------------------------------------------------
    **_names(".formatting.percentages", "percent", "percent1", "signed_percent", "interval_cells"),
    "fraction_text": (".formatting.fractions", "fraction"),
    "whole_percent": (".formatting.fractions", "whole_percent"),
    **_names(".formatting.durations", "duration", "limit", "quantile_label", "MISSING"),
    **_names(
        ".formatting.money", "money", "is_overflow", "overflow_note", "OVERFLOW", "OVERFLOW_REASON"
    ),
    **_names(".formatting.rounding", "percent_of", "ratio_percent"),
    "runs_text": (".formatting.run_numbers", "runs_text"),
    "visible": (".formatting.terminal_text", "visible"),
    "ProbabilityWarning": (".formatting.terminal_text", "ProbabilityWarning"),
    **_names(".execution.user_values", "escape_surrogates", "int_text", "is_huge_int"),
    "describe_exception": (".execution.user_values", "describe"),
    # -- distributions (pure Python, checked against scipy) ----------------------------------
    **_names(
        ".stats.special_functions",
        "norm_ppf",
        "beta_ppf",
        "betainc",
        "betaincc",
        "binom_cdf",
        "binom_pmf",
    ),
    **_names(".stats.special_functions", "binom_sf", "log_beta"),
    # -- verdicts as functions of the pass count (gates, stopping rules, plans) -------------
    **_names(".stats.thresholds", "Thresholds", "worst_verdict"),
    # -- early stopping: the stopping hooks' values ------------------------------------------
    **_names(".contracts.stops", "CaseStopping", "StopContext", "StopReader"),
    # -- intervals for a pass rate (the row methods' math) ------------------------------------
    **_names(".stats.rate_intervals", "Interval", "RegisterIntervalMethod"),
    "bayes_interval": (".stats.rate_intervals", "bayes"),
    "clopper_pearson_interval": (".stats.rate_intervals", "clopper_pearson"),
    "wilson_interval": (".stats.rate_intervals", "wilson"),
    # -- resampling: the case bootstrap of every interval over cases ---------------------------
    **_names(
        ".stats.resampling",
        "binomial_variate",
        "bootstrap_mean_interval",
        "bootstrap_means",
        "case_bootstrap_interval",
        "case_mean",
        "quantile_type7",
    ),
    # -- registries of the bundled extensions: value types and register callbacks -----------
    **_names(
        ".extensions.comparisons.registry",
        "InputLine",
        "Pair",
        "RegisterAdjustment",
        "RegisterComparisonTest",
        "Side",
        "TestOutcome",
        "TestSettings",
    ),
    "fisher_exact_p": (".stats.two_sample", "fisher_two_sided"),
    "newcombe_interval": (".stats.two_sample", "newcombe_difference"),
    "benjamini_hochberg": (".extensions.comparisons.statistics.adjust", "benjamini_hochberg"),
    **_names(".extensions.gates.registry", "GateResult", "RegisterGate"),
    **_names(".extensions.metrics.registry", "MetricCase", "RegisterMetric"),
    **_names(".contracts.latencies", "LatencyQuantile", "RegisterLatencyMethod"),
    **_names(
        ".extensions.texts.settings", "TextsSettings", "TextsConfigError", "RegisterLlmBackend"
    ),
    # -- token usage and cost (the cost hooks' values) ----------------------------------------
    **_names(
        ".contracts.tokens",
        "CostWarning",
        "TokenUsage",
        "UNKNOWN_MODEL",
        "BIG_COUNT",
        "check_cost",
        "check_model",
        "check_tokens",
        "usage_entry",
    ),
    # -- report sections of the bundled writers ----------------------------------------------
    **_names(".extensions.html.markup", "HtmlPanel", "Markup", "element"),
    "html_escape": (".extensions.html.markup", "escape"),
    "html_table": (".extensions.html.markup", "table"),
    **_names(".extensions.markdown.markup", "Markdown", "MarkdownSection"),
    "markdown_escape": (".extensions.markdown.markup", "escape"),
    "markdown_table": (".extensions.markdown.markup", "table"),
    # -- this module's own ---------------------------------------------------------------------
    "ProbabilityDeprecationWarning": (".api", "ProbabilityDeprecationWarning"),
}

#: The version each public name appeared in (names added later get their own version here).
ADDED_IN: dict[str, str] = dict.fromkeys(PUBLIC, "0.1.0")

#: Names on their way out: ``old name -> (new name, version deprecated in)``. Reading one
#: warns with :class:`ProbabilityDeprecationWarning` and returns the new name's value.
DEPRECATED: dict[str, tuple[str, str]] = {}

__all__ = [
    "BIG_COUNT",
    "ERROR",
    "FAIL",
    "INPUT_LIMIT",
    "MISSING",
    "OVERFLOW",
    "OVERFLOW_REASON",
    "PASS",
    "RUN_OUTCOMES",
    "SCHEMA_VERSION",
    "SKIP",
    "UNDECIDED",
    "UNKNOWN_MODEL",
    "VERDICTS",
    "BenchRun",
    "Case",
    "CaseResult",
    "CaseStopping",
    "CaseWarning",
    "CostWarning",
    "FunctionCases",
    "GateResult",
    "HtmlPanel",
    "InputLine",
    "Interval",
    "LatencyQuantile",
    "Markdown",
    "MarkdownSection",
    "Markup",
    "MetricCase",
    "OptionError",
    "OptionRegistry",
    "OptionSpec",
    "Pair",
    "ProbabilityDeprecationWarning",
    "ProbabilityWarning",
    "Reading",
    "RegisterAdjustment",
    "RegisterComparisonTest",
    "RegisterGate",
    "RegisterIntervalMethod",
    "RegisterLatencyMethod",
    "RegisterLlmBackend",
    "RegisterMetric",
    "ReportBuilder",
    "Results",
    "RunContext",
    "Side",
    "Step",
    "StopContext",
    "StopReader",
    "TestOutcome",
    "TestSettings",
    "TextsConfigError",
    "TextsSettings",
    "Thresholds",
    "TokenUsage",
    "UnreadableInput",
    "VerdictItem",
    "VerdictRequest",
    "add_function_units",
    "bayes_interval",
    "benjamini_hochberg",
    "beta_ppf",
    "betainc",
    "betaincc",
    "binom_cdf",
    "binom_pmf",
    "binom_sf",
    "binomial_variate",
    "bootstrap_mean_interval",
    "bootstrap_means",
    "call_first",
    "call_hook",
    "call_registrations",
    "case_bootstrap_interval",
    "case_mean",
    "check_cost",
    "check_model",
    "check_tokens",
    "claim_output",
    "clopper_pearson_interval",
    "count_text",
    "current_run",
    "current_run_or_none",
    "decide_runs",
    "describe_exception",
    "dump_report",
    "duration",
    "element",
    "escape_surrogates",
    "filled_registry",
    "first_collector",
    "fisher_exact_p",
    "fraction",
    "fraction_text",
    "function_key",
    "glossary_for",
    "hookimpl",
    "hookspec",
    "html_escape",
    "html_table",
    "implemented_outside",
    "int_text",
    "integer",
    "interval_cells",
    "is_active",
    "is_huge_int",
    "is_overflow",
    "is_stream",
    "items",
    "limit",
    "log_beta",
    "markdown_escape",
    "markdown_table",
    "money",
    "newcombe_interval",
    "norm_ppf",
    "not_an_amount",
    "note_written",
    "num",
    "obj",
    "objects",
    "option_value",
    "options_of",
    "overflow_note",
    "parse_bool",
    "parse_fraction",
    "parse_nonnegative_float",
    "parse_nonnegative_int",
    "parse_points",
    "parse_positive_int",
    "parse_probability",
    "parse_text",
    "percent",
    "percent1",
    "percent_of",
    "plugin_version",
    "quantile_label",
    "quantile_type7",
    "ratio_percent",
    "read_input",
    "reading_percent",
    "recorded_runs",
    "render_readings",
    "report_document",
    "report_of",
    "results_of",
    "row_status",
    "run_context_of",
    "runs_in_flight",
    "runs_text",
    "selected_cases",
    "signed_percent",
    "step_field",
    "stopped_early",
    "text",
    "usage_entry",
    "verdict_properties",
    "verdicts_after_runs",
    "visible",
    "warn_at_selected",
    "warn_by_cause",
    "whole_percent",
    "wilson_interval",
    "worst_verdict",
    "write_atomic",
    "write_failure",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first read (PEP 562); warn for a deprecated one."""
    if name in DEPRECATED:
        new, since = DEPRECATED[name]
        warnings.warn(
            f"pytest_probability.api.{name} is deprecated since {since} and will be removed; "
            f"use pytest_probability.api.{new}",
            ProbabilityDeprecationWarning,
            stacklevel=2,
        )
        return __getattr__(new)
    where = PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = where
    found = importlib.import_module(module, __package__) if module != ".api" else None
    # not kept in this module's namespace: pytester's in-process runs drop the modules a run
    # imported first, and a kept reference would be a second copy of their state
    return getattr(found, attribute) if found is not None else globals()[attribute]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
