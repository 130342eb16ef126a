"""``[compare:ARM]`` items: judging an arm where its function's runs ran, and remembering
how each item ended (in the aggregating process).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pytest_probability.api import options_of, results_of

if TYPE_CHECKING:
    from pytest_probability.api import VerdictItem

    from ..statistics.engine import Comparison

KIND_PREFIX = "compare:"
DEFERRED = "judged at session end"


def judge_item(item: VerdictItem) -> None:
    """A ``[compare:ARM]`` item's body: judge the arm from the runs this process ran; skip
    (judged at session end) when some of the function's runs ran elsewhere."""
    from ..session import build

    config = item.config
    results = results_of(config)
    # the runs the session selected (all, unless --deselect/-k kept only some of them)
    here, total = item.selected_runs_here(results)
    if here < total:
        pytest.skip(
            f"{DEFERRED}: this process ran {here} of the function's {total} selected runs "
            "(under pytest-xdist, the default -n scheduling keeps a function on one worker)"
        )
    arm = item.request.kind[len(KIND_PREFIX) :]
    selected = item.selected_run_numbers()
    cases = [c for key in selected if (c := results.get(key)) is not None]
    found = [c for c in build(config, cases, item.case.key) if c.arm == arm]
    if found and "hidden" in found[0].extra:
        pytest.skip(f"not judged: the interval is hidden ({found[0].extra['hidden']})")
    if (
        not found
        or found[0].outcome is None
        or (found[0].verdict is None and found[0].margin is not None)
    ):
        pytest.skip("no paired inputs ran: there is nothing to judge")
    comparison = found[0]
    from ..report import render

    cells = render.comparison_cells(
        comparison,
        f"{comparison.label}[{comparison.axis}]",
        f"{comparison.arm} − {comparison.baseline}",
    )
    line = "  ".join(cell for cell in cells if cell)
    item.user_properties.extend(render.comparison_properties(comparison, line))
    if failing(comparison, config):
        raise AssertionError(line)


def failing(comparison: Comparison, config: pytest.Config) -> bool:
    """Whether a margin verdict fails the session (UNDECIDED per ``--prob-undecided``)."""
    if comparison.verdict == "fail":
        return True
    if comparison.verdict != "undecided":
        return False
    options = options_of(config)
    return "undecided" not in options.specs or options.session_value("undecided") == "fail"


class CompareItemOutcomes:
    """Remembers how each ``[compare:ARM]`` item ended (``probability.comparisons.items``).
    Registered in every aggregating process (the xdist controller learns of compare items
    only from their reports); the comparisons' state loads with the first such report."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a compare item's outcome. Called for every report in the aggregating
        process; returns nothing."""
        if "[compare:" not in report.nodeid:
            return
        if report.when == "call" or not report.passed:
            from ..session import state_of

            deferred = report.skipped and DEFERRED in str(report.longrepr)
            outcome = "deferred" if deferred else report.outcome
            state_of(self.config).item_outcomes[report.nodeid] = outcome
