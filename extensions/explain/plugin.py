"""The ``explain`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import option_value, parse_bool

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry, Reading, ReportBuilder, Results

# The readings and their glossary (``pytest_probability.readings``) are imported when a
# report is built: a session that builds none never imports them.

SECTION_ORDER = 9000
HINT_ORDER = 950


class ExplainWarning(pytest.PytestWarning):
    """An extension's ``pytest_prob_explain`` raised; its readings are missing."""


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-explain`` / ``prob_explain``. Called by the kernel's historic hook;
    returns nothing."""
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


def collect(report: ReportBuilder, results: Results, config: pytest.Config) -> list[Reading]:
    """Every extension's readings; one that raises is warned about and skipped."""
    from pytest_probability.api import Reading

    found: list[Reading] = []
    for impl in reversed(config.hook.pytest_prob_explain.get_hookimpls()):
        try:
            answer = impl.function(report=report, results=results, config=config)
        except Exception as exc:  # one extension's bug must not lose the others' readings
            message = f"{impl.plugin_name} failed to explain: {type(exc).__name__}: {exc}"
            warnings.warn(ExplainWarning(message), stacklevel=2)
            report.warn(message)
            continue
        found += [reading for reading in answer or () if isinstance(reading, Reading)]
    return found


def count(report: ReportBuilder, results: Results, config: pytest.Config) -> int:
    """How many notable readings the extensions would give, without building them: each
    extension's ``pytest_prob_explain_count``, and the readings of an extension that only
    implements ``pytest_prob_explain`` (a third party's), built to be counted."""
    from pytest_probability.api import Reading

    found = 0
    counted = set()
    for impl in config.hook.pytest_prob_explain_count.get_hookimpls():
        counted.add(impl.plugin_name)
        try:
            found += int(impl.function(report=report, results=results, config=config) or 0)
        except Exception as exc:  # a count is a hint: warn and go on
            message = f"{impl.plugin_name} failed to count: {type(exc).__name__}: {exc}"
            warnings.warn(ExplainWarning(message), stacklevel=2)
            report.warn(message)
    for impl in config.hook.pytest_prob_explain.get_hookimpls():
        if impl.plugin_name in counted:
            continue
        try:
            answer = impl.function(report=report, results=results, config=config)
        except Exception as exc:
            message = f"{impl.plugin_name} failed to explain: {type(exc).__name__}: {exc}"
            warnings.warn(ExplainWarning(message), stacklevel=2)
            report.warn(message)
            continue
        found += sum(1 for r in answer or () if isinstance(r, Reading) and r.notable)
    return found


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
    other extension; returns nothing."""
    if not option_value(config, "explain"):
        notable = count(report, results, config)
        if notable:
            report.add_block(
                [
                    f"  --prob-explain reads {notable} of these results in plain words"
                    if notable > 1
                    else "  --prob-explain reads this result in plain words"
                ],
                order=HINT_ORDER,
            )
        return
    readings = collect(report, results, config)
    if not readings:
        return
    from pytest_probability.api import glossary_for, render_readings

    for reading in readings:
        if reading.target is not None:  # two readings of one object are both kept
            before = reading.target.get("explanation")
            reading.target["explanation"] = (
                reading.text if not before else f"{before}\n\n{reading.text}"
            )
    report.add_section("explained", render_readings(readings, _width(config)), order=SECTION_ORDER)
    report.set_json("glossary", glossary_for(readings))


def explanation_field(target: dict[str, Any] | None) -> str | None:
    """The ``explanation`` a reading left on a JSON object (for other writers)."""
    return None if target is None else target.get("explanation")
