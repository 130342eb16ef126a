"""The setting of sequential comparisons (``--prob-compare-resolution``), declared with the
extension's other settings; the statistics are imported only when a comparison is
monitored. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

from pytest_probability.api import parse_points

#: the default ``prob_compare_resolution``: 5 points
RESOLUTION = 0.05
SEQUENTIAL = "sequential"


def sequential_mode(config: Any) -> bool:
    """Whether ``--prob-stop=sequential`` is on (and the stopping extension loaded)."""
    from pytest_probability.api import options_of

    options = options_of(config)
    return "stop" in options.specs and options.session_value("stop") == SEQUENTIAL


def parse_resolution(value: Any) -> float:
    """A width of at least 0 and below 1 (``5`` gets a did-you-mean for ``0.05``)."""
    return parse_points(
        value, expected="a width of at least 0 and below 1 such as 0.05 for 5 points"
    )


def add_options(options: Any) -> None:
    """Declare ``--prob-compare-resolution`` / ``prob_compare_resolution``."""
    options.add(
        "compare_resolution",
        parse=parse_resolution,
        default=RESOLUTION,
        cli="--prob-compare-resolution",
        ini="prob_compare_resolution",
        metavar="WIDTH",
        help="under --prob-stop=sequential: an exploratory comparison is settled once its "
        "interval is narrower than WIDTH (default 0.05, 5 points; 0: only once it leaves out "
        "zero)",
        owner="comparisons",
    )
