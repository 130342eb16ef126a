"""What a new user meets on the first day (issue 39): misuse errors that name the function
and show the user's line, not the plugin's frames."""

from __future__ import annotations

import pytest

PLAIN = ("-p", "no:randomly", "-p", "no:asyncio", "-p", "no:cacheprovider")

MISUSE = """
from pytest_probability import current_run, record_cost, record_latency, record_usage

def test_current_run():
    current_run()

def test_record_usage():
    record_usage(model="m", input_tokens=1)

def test_record_cost():
    record_cost(1.0)

def test_record_latency():
    record_latency(1.0)
"""


@pytest.mark.parametrize("style", ["auto", "long"])
def test_a_helper_called_outside_a_bench_is_one_line_naming_it(
    pytester: pytest.Pytester, style: str
) -> None:
    pytester.makepyfile(test_misuse=MISUSE)
    result = pytester.runpytest(*PLAIN, f"--tb={style}")
    result.assert_outcomes(failed=4)
    errors = [line for line in result.outlines if line.startswith("E  ")]
    rest = "can only be called from inside a bench_* function while it runs (there is no "
    assert errors == [
        f"E       RuntimeError: {name}() {rest}bench run to attribute it to)"
        for name in ("current_run", "record_usage", "record_cost", "record_latency")
    ]
    shown = "\n".join(result.outlines)
    for internal in ("execution/context.py", "cost/recording.py", "latency/__init__.py"):
        assert internal not in shown
    # each failure shows the user's own line and nothing between it and the error
    for call in ("current_run()", 'record_usage(model="m", input_tokens=1)'):
        at = result.outlines.index(f">       {call}")
        assert result.outlines[at + 1].startswith("E       RuntimeError: ")
