"""The ``slowest`` extension's pytest hooks (stateless: every value comes from ``config``).

Registered by pytest-probability as ``probability.slowest`` from the
``pytest_probability.extensions`` entry point; ``-p no:probability.slowest`` disables it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_probability.api import option_value

from .timing import case_timing, parse_count, render, slowest

if TYPE_CHECKING:
    from pytest_probability.api import OptionRegistry, ReportBuilder, Results

SETTING = "slowest"
SECTION_TITLE = "slowest"
#: After the bundled sections; the kernel puts sections of failed extensions at 10 000.
SECTION_ORDER = 5_000


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-slowest=N`` and ini ``prob_slowest`` (default 0: off).

    Called historically while pytest registers options, in every process. Returns nothing.
    """
    options.add(
        SETTING,
        parse=parse_count,
        default=0,
        cli="--prob-slowest",
        ini="prob_slowest",
        metavar="N",
        help="list the N cases with the largest median run time",
        owner="slowest",
    )


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the ``probability: slowest`` section and the JSON ``slowest`` key.

    Called once in the aggregating process (the only process, or the xdist controller), from
    the records' ``elapsed`` seconds, which travel with each record. Returns nothing.
    """
    count = option_value(config, SETTING)
    if not count:
        return
    timings = [
        timing
        for case in results.rows()
        if (timing := case_timing(case.display, case.ordered_records())) is not None
    ]
    top = slowest(timings, count)
    report.set_json("slowest", [t.to_json() for t in top])
    report.add_section(SECTION_TITLE, render(top) or ["  no timed runs"], order=SECTION_ORDER)


def pytest_prob_html_panels(report: dict[str, Any], config: pytest.Config) -> list[Any] | None:
    """Add a ``Slowest cases`` panel to the ``--prob-html`` page (from the JSON ``slowest``
    key this extension wrote). Called once in the aggregating process when the page is
    written; returns the panel, or ``None`` when ``--prob-slowest`` is off."""
    found = report.get("slowest")
    if not found:
        return None
    from pytest_probability.api import HtmlPanel, html_table

    from .timing import format_duration

    rows = [
        (item["case"], format_duration(item["median"]), format_duration(item["max"]), item["runs"])
        for item in found
    ]
    body = html_table(("case", "median", "max", "runs"), rows, caption="by median run time")
    return [HtmlPanel("Slowest cases", body)]
