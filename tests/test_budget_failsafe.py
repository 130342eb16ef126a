"""Budgets fail closed (issue 21 §5): a tally file that disappears under pytest-xdist, and a
``pytest_prob_run_spend`` that answers junk, never switch the budget off."""

from __future__ import annotations

import pytest
from helpers import load_json, section

#: eight cases of five runs, $1 a run ($40 in all); each run first does something to the
#: controller's tally directory, whose path a worker finds in its workerinput
TALLY_BENCH = """
import shutil
from pathlib import Path

import pytest
from pytest_probability import record_cost


@pytest.mark.parametrize("item", range(8))
def bench_b(item, request):
    path = request.config.workerinput.get("prob_budget_tally")
    if path:
        directory = Path(path).parent
        shutil.rmtree(directory, ignore_errors=True)
        if "{how}" == "replaced" and not directory.exists():
            directory.write_text("a file where the directory was")
    record_cost(1.0)
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_the_budget_holds_when_the_tally_file_disappears(
    pytester: pytest.Pytester, how: str
) -> None:
    """The controller's write raised before it told the workers: $40 of a $5 budget spent,
    "no run skipped", exit 0. Now the file's directory is made again when it can be, and a
    file that cannot be written is a warning: the controller then hands out no more runs
    once the budget is reached, and counts those it kept as skipped."""
    pytester.makepyfile(bench_b=TALLY_BENCH.replace("{how}", how))
    result = pytester.runpytest_subprocess(
        "--prob-runs=5", "--prob-budget=5", "-n", "2", "--prob-json=r.json", "-p", "no:randomly"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    budget = load_json(pytester.path / "r.json")["budget"]
    assert budget["reached"] and budget["skipped"] > 0
    assert budget["spent"] == budget["runs"] == 40 - budget["skipped"]
    assert "failed in pytest_prob_logrecord" not in result.stdout.str() + result.stderr.str()
    lines = section(result.outlines)
    assert any(line.startswith("  Budget:  $5.00 reached after ") for line in lines)
    if how == "replaced":
        note = [line for line in lines if "could not be written" in line]
        assert len(note) == 1
        assert note[0].endswith(
            "): the controller hands the workers no more runs once the budget is reached"
        )


SPEND_BENCH = """
import pytest
from pytest_probability import record_cost


@pytest.mark.parametrize("item", range(4))
def bench_b(item):
    record_cost(0.5)
"""
JUNK_SPEND = """
import math


def pytest_prob_run_spend(record, config):
    return {answer}
"""


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("'lots'", "gave 'lots', not a number"),
        ("math.nan", "gave nan, not an amount of at least 0"),
        ("-1.0", "gave -1.0, not an amount of at least 0"),
        ("True", "gave True, not a number"),
        ("object.__new__(object)", "gave <object object at "),
        ("1 / 0", "raised ZeroDivisionError: division by zero"),
        # an exception whose str() raises: describing it used to raise inside the budget's
        # pytest_prob_logrecord, so the run was never counted
        (
            '(_ for _ in ()).throw(type("Mute", (Exception,), {"__str__": lambda e: 1 / 0})())',
            "raised Mute: <Mute: str() raised ZeroDivisionError>",
        ),
    ],
    ids=["text", "nan", "negative", "bool", "object", "raises", "unprintable"],
)
def test_a_junk_spend_is_counted_as_the_rest_of_the_budget(
    pytester: pytest.Pytester, answer: str, shown: str
) -> None:
    """NaN switched the budget off in silence (``nan >= 5`` is false for ever); text raised
    inside the budget's logrecord, so no run was counted. Now the run counts as all that was
    left: every remaining run is skipped, with one warning naming the hook's answer."""
    pytester.makeconftest(JUNK_SPEND.format(answer=answer))
    pytester.makepyfile(bench_b=SPEND_BENCH)
    result = pytester.runpytest("--prob-runs=5", "--prob-budget=100", "--prob-json=r.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lines = section(result.outlines)
    assert "  Budget:  $100.00 reached after 1 of 20 runs; 19 skipped" in lines
    note = next(line for line in lines if "pytest_prob_run_spend (implemented by " in line)
    assert shown in note and "conftest.py) " in note
    assert note.endswith("for run 1 of b::0: counted as all that was left of the budget of $100.00")
    warnings = [line for line in result.outlines if "BudgetWarning: pytest_prob_run_spend" in line]
    assert len(warnings) == 1
    budget = load_json(pytester.path / "r.json")["budget"]
    assert (budget["spent"], budget["runs"], budget["skipped"]) == (100.0, 1, 19)
    assert budget["uncounted"] == 1


def test_valid_answers_are_counted(pytester: pytest.Pytester) -> None:
    """None is "nothing countable"; Decimal, Fraction and an int too large for a float
    (infinity: the budget is reached) are amounts."""
    pytester.makeconftest(
        """
from decimal import Decimal
from fractions import Fraction

def pytest_prob_run_spend(record, config):
    return {1: None, 2: Decimal("0.25"), 3: Fraction(1, 4), 4: 10**400}.get(record["run"])
"""
    )
    pytester.makepyfile(bench_b=SPEND_BENCH.replace("range(4)", "range(1)"))
    result = pytester.runpytest("--prob-runs=5", "--prob-budget=100", "--prob-json=r.json")
    budget = load_json(pytester.path / "r.json")["budget"]
    assert (budget["runs"], budget["skipped"], budget["uncounted"]) == (4, 1, 0)
    assert "BudgetWarning" not in result.stdout.str()
    # the last run's answer is infinity: written as null (JSON has no infinity)
    assert budget["spent"] is None and budget["reached"] is True
