"""The ``explain`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import Reading, glossary_for, option_value, parse_bool, render_readings

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry, ReportBuilder, Results

SECTION_ORDER = 9000
HINT_ORDER = 950


class ExplainWarning(pytest.PytestWarning):
    """An extension's ``pytest_prob_explain`` raised; its readings are missing."""


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-explain`` / ``prob_explain``. Called by the kernel's historic hook."""
    options.add(
        "explain",
        parse=parse_bool,
        default=False,
        cli="--prob-explain",
        ini="prob_explain",
        flag_value=True,
        help="add a plain-language reading of the results (terminal and JSON)",
        ini_help="add a plain-language reading of the results (default false)",
        owner="explain",
    )


def _answers(
    impls: Iterable[Any],
    verb: str,
    report: ReportBuilder,
    results: Results,
    config: pytest.Config,
    read: Callable[[Any], Any] = lambda answer: answer,
) -> list[Any]:
    """Each implementation's answer (``read`` from it); one that raises is warned about
    (at the caller of our caller) and left out: one extension's bug must not lose the
    others' readings, and a count is only a hint."""
    found = []
    for impl in impls:
        try:
            found.append(read(impl.function(report=report, results=results, config=config)))
        except Exception as exc:
            message = f"{impl.plugin_name} failed to {verb}: {type(exc).__name__}: {exc}"
            warnings.warn(ExplainWarning(message), stacklevel=3)
            report.warn(message)
    return found


def _readings(
    impls: Iterable[Any], report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    answers = _answers(impls, "explain", report, results, config)
    return [
        reading for answer in answers for reading in answer or () if isinstance(reading, Reading)
    ]


def count(report: ReportBuilder, results: Results, config: pytest.Config) -> int:
    """How many notable readings the extensions would give, without building them: each
    extension's ``pytest_prob_explain_count``, and the readings of an extension that only
    implements ``pytest_prob_explain`` (a third party's), built to be counted."""
    counters = config.hook.pytest_prob_explain_count.get_hookimpls()
    found = sum(_answers(counters, "count", report, results, config, lambda n: int(n or 0)))
    counted = {impl.plugin_name for impl in counters}
    impls = config.hook.pytest_prob_explain.get_hookimpls()
    others = [impl for impl in impls if impl.plugin_name not in counted]
    return found + sum(1 for r in _readings(others, report, results, config) if r.notable)


def _width(config: pytest.Config) -> int:
    try:
        return int(config.get_terminal_writer().fullwidth) - 1
    except Exception:  # no terminal (a plugin without one): a fixed width
        return 88


@pytest.hookimpl(trylast=True)
def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Add the ``probability: explained`` section and ``explanation`` fields (with
    ``--prob-explain``), else a one-line hint when something is worth explaining (counted
    without building the readings). Called once in the aggregating process, after every
    other extension."""
    if not option_value(config, "explain"):
        notable = count(report, results, config)
        what = f"{notable} of these results" if notable > 1 else "this result"
        if notable:
            report.add_block([f"  --prob-explain reads {what} in plain words"], order=HINT_ORDER)
        return
    impls = reversed(config.hook.pytest_prob_explain.get_hookimpls())
    readings = _readings(impls, report, results, config)
    if not readings:
        return
    for reading in readings:
        if reading.target is not None:  # two readings of one object are both kept
            before = reading.target.get("explanation")
            reading.target["explanation"] = (
                f"{before}\n\n{reading.text}" if before else reading.text
            )
    report.add_section("explained", render_readings(readings, _width(config)), order=SECTION_ORDER)
    report.set_json("glossary", glossary_for(readings))
