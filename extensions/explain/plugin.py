"""The ``explain`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import (
    Reading,
    call_hook,
    glossary_for,
    option_value,
    parse_bool,
    render_readings,
)

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry, ReportBuilder, Results

SECTION_ORDER = 9000
HINT_ORDER = 950


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-explain`` / ``prob_explain``. Called by the kernel's historic hook."""
    options.add(
        "explain",
        parse=parse_bool,
        default=False,
        cli="--prob-explain",
        ini="prob_explain",
        flag_value=True,
        help="explain the results in plain words (terminal and JSON)",
        ini_help="explain the results in plain words (default false)",
        owner="explain",
    )


def _not_readings(answer: Any) -> str | None:
    if isinstance(answer, (list, tuple)) and all(isinstance(r, Reading) for r in answer):
        return None
    return f"answered {answer!r:.200}, not a list of Reading"


def _not_a_count(answer: Any) -> str | None:
    if isinstance(answer, int) and not isinstance(answer, bool) and answer >= 0:
        return None
    return f"answered {answer!r:.200}, not a count"


def _readings(
    report: ReportBuilder, results: Results, config: pytest.Config, skip: Collection[str] = ()
) -> list[Reading]:
    """Every implementation's readings, in hook order (those of the plugins named in
    ``skip`` left out); one that fails is named in a warning and left out: one extension's
    bug must not lose the others' readings."""
    answers = call_hook(
        config,
        "pytest_prob_explain",
        check=_not_readings,
        skip=skip,
        report=report,
        results=results,
        config=config,
    )
    return [reading for answer in answers for reading in answer]


def count(report: ReportBuilder, results: Results, config: pytest.Config) -> int:
    """How many notable readings the extensions would give, without building them: each
    extension's ``pytest_prob_explain_count``, and the readings of an extension that only
    implements ``pytest_prob_explain`` (a third party's), built to be counted. One that
    fails is named in a warning and counts 0 (a count is only a hint)."""
    counts = call_hook(
        config,
        "pytest_prob_explain_count",
        check=_not_a_count,
        report=report,
        results=results,
        config=config,
    )
    counted = {impl.plugin_name for impl in config.hook.pytest_prob_explain_count.get_hookimpls()}
    explainers = {impl.plugin_name for impl in config.hook.pytest_prob_explain.get_hookimpls()}
    if explainers <= counted:
        return sum(counts)
    others = _readings(report, results, config, skip=counted)
    return sum(counts) + sum(1 for reading in others if reading.notable)


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
    readings = _readings(report, results, config)
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
