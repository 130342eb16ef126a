"""The cost extension end to end: record_cost, record_usage, the $ column, Cost: and Tokens:."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from helpers import load_json, section
from pytest_probability import TokenUsage, record_cost, record_usage

#: The spec's first example with its recorded cost (003: classify pays a flat fee per run,
#: triage records usage per model).
SPEC_COST_BENCH = """
import pytest
from pytest_probability import current_run, record_cost, record_usage


@pytest.mark.parametrize("text,expected", [
    pytest.param("is this a question?", "question", id="is_question"),
    pytest.param("my ssn is 078-05-1120", "pii", id="identify_pii"),
    pytest.param("pay me $40", "amount", id="extract_amount"),
])
def bench_classify(text, expected):
    record_cost(0.0002)
    run = current_run().run
    if expected == "pii":
        assert run not in (2, 5, 9), "got 'other'"
    elif expected == "amount":
        assert "other" == "amount"


@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
@pytest.mark.parametrize("text", [pytest.param("my card was charged twice", id="refund")])
def bench_triage(text, style):
    run = current_run().run
    if style == "terse":
        record_usage(model="m-small", input_tokens=120, output_tokens=8,
                     cached_input_tokens=64, cost=0.0001)
        assert run not in (4, 7)
    else:
        record_usage({"model": "m-large", "input_tokens": 480, "output_tokens": 90,
                      "cost": 0.0004})
"""


def _run(pytester: pytest.Pytester, source: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(bench_cost=source)
    return pytester.runpytest("--prob-runs=10", *args)


def test_spec_first_example_digit_for_digit(pytester: pytest.Pytester) -> None:
    lines = section(_run(pytester, SPEC_COST_BENCH).outlines)
    assert lines == [
        "  classify::is_question            10/10  [69%, 100%]  $0.0020",
        "  classify::identify_pii            7/10  [35%,  93%]  $0.0020  FLAKY",
        "  classify::extract_amount          0/10  [ 0%,  31%]  $0.0020  FAIL",
        "  triage::refund-terse              8/10  [44%,  97%]  $0.0010  FLAKY",
        "  triage::refund-chain_of_thought  10/10  [69%, 100%]  $0.0040",
        "",
        "  Overall: 35/50 passed (70%)",
        "  Cost:    $0.0110",
        "  Tokens:  m-small  1,200 in / 80 out / 640 cached  $0.0010",
        "           m-large  4,800 in / 900 out              $0.0040",
    ]


def test_cost_section_example_of_the_cost_spec(pytester: pytest.Pytester) -> None:
    result = _run(pytester, SPEC_COST_BENCH, "-k", "triage", "--prob-no-intervals")
    assert section(result.outlines) == [
        "  triage::refund-terse              8/10  $0.0010  FLAKY",
        "  triage::refund-chain_of_thought  10/10  $0.0040",
        "",
        "  Overall: 18/20 passed (90%)",
        "  Cost:    $0.0050",
        "  Tokens:  m-small  1,200 in / 80 out / 640 cached  $0.0010",
        "           m-large  4,800 in / 900 out              $0.0040",
    ]


def test_json_fields_match_the_spec(pytester: pytest.Pytester) -> None:
    _run(pytester, SPEC_COST_BENCH, "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")
    assert report["totals"]["cost"] == 0.011
    assert report["totals"]["usage"] == {
        "m-small": {
            "input_tokens": 1200,
            "output_tokens": 80,
            "cached_input_tokens": 640,
            "cost": 0.001,
        },
        "m-large": {
            "input_tokens": 4800,
            "output_tokens": 900,
            "cached_input_tokens": 0,
            "cost": 0.004,
        },
    }
    rows = {row["case"]: row for row in report["rows"]}
    assert rows["classify::identify_pii"]["cost"] == 0.002
    assert rows["classify::identify_pii"]["usage"] == {}
    assert rows["triage::refund-terse"]["usage"]["m-small"]["input_tokens"] == 1200
    record = next(
        r for r in report["records"] if r["case"] == "classify::identify_pii" and r["run"] == 2
    )
    assert record["cost"] == 0.0002
    assert record["usage"] == {}
    assert record["steps"] == [
        {
            "label": "classify",
            "passed": False,
            "elapsed": record["elapsed"],
            "error": None,
            "message": "got 'other'\nassert 2 not in (2, 5, 9)",
            "cost": 0.0002,
            "usage": [],
        }
    ]
    triage = next(r for r in report["records"] if r["case"] == "triage::refund-terse")
    assert triage["steps"][0]["usage"] == [
        {
            "model": "m-small",
            "input_tokens": 120,
            "output_tokens": 8,
            "cached_input_tokens": 64,
            "cost": 0.0001,
        }
    ]


def test_usage_recorded_before_a_failing_assert_survives(pytester: pytest.Pytester) -> None:
    source = """
from pytest_probability import record_usage

def bench_wrong():
    record_usage(model="m", input_tokens=10, output_tokens=2, cost=0.03)
    assert False, "wrong answer"
"""
    result = _run(pytester, source, "--prob-runs=2", "--prob-no-intervals")
    assert section(result.outlines) == [
        "  wrong  0/2  $0.0600  FAIL",
        "",
        "  Overall: 0/2 passed (0%)",
        "  Cost:    $0.0600",
        "  Tokens:  m  20 in / 4 out  $0.0600",
    ]


def test_nothing_recorded_means_no_cost_anywhere(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "def bench_free():\n    pass\n", "--prob-json=r.json")
    assert section(result.outlines) == [
        "  free  10/10  [69%, 100%]",
        "",
        "  Overall: 10/10 passed (100%)",
    ]
    report = load_json(pytester.path / "r.json")
    assert report["totals"]["cost"] is None
    assert report["totals"]["usage"] == {}
    assert report["rows"][0]["cost"] is None
    assert report["records"][0]["cost"] is None
    assert report["records"][0]["steps"][0]["usage"] == []


def test_rows_without_cost_get_a_blank_cell(pytester: pytest.Pytester) -> None:
    source = """
import pytest
from pytest_probability import record_cost

@pytest.mark.parametrize("paid", [True, False], ids=["paid", "free"])
def bench_mixed(paid):
    if paid:
        record_cost(1234.56789)
"""
    result = _run(pytester, source, "--prob-runs=1", "--prob-no-intervals")
    assert section(result.outlines) == [
        "  mixed::paid  1/1  $1,234.5679",
        "  mixed::free  1/1",
        "",
        "  Overall: 2/2 passed (100%)",
        "  Cost:    $1,234.5679",
    ]


def test_usage_without_cost_shows_tokens_but_no_cost(pytester: pytest.Pytester) -> None:
    source = """
from pytest_probability import record_usage

def bench_unpriced():
    record_usage(model="m-x", input_tokens=1000, output_tokens=1)
"""
    result = _run(pytester, source, "--prob-runs=3", "--prob-no-intervals")
    assert section(result.outlines) == [
        "  unpriced  3/3",
        "",
        "  Overall: 3/3 passed (100%)",
        "  Tokens:  m-x  3,000 in / 3 out",
    ]


DUCK_BENCH = """
from types import SimpleNamespace
from pytest_probability import TokenUsage, record_usage

def bench_shapes():
    record_usage(TokenUsage(model="a", input_tokens=1, output_tokens=1, cost=0.5))
    record_usage({"model": "a", "input_tokens": 2, "output_tokens": 2, "cost": 0.25})
    record_usage(SimpleNamespace(model="b", input_tokens=3, output_tokens=3,
                                 cached_input_tokens=1, cost=0.125))
    # OpenAI chat completions: no model on the usage object, given as a keyword
    openai = SimpleNamespace(prompt_tokens=100, completion_tokens=10,
                             prompt_tokens_details=SimpleNamespace(cached_tokens=40))
    record_usage(openai, model="gpt", cost=0.0625)
    # OpenAI responses and Anthropic
    record_usage({"input_tokens": 5, "output_tokens": 1,
                  "input_tokens_details": {"cached_tokens": 2}}, model="gpt")
    record_usage({"model": "claude", "input_tokens": 7, "output_tokens": 3,
                  "cache_read_input_tokens": 11})
    record_usage(input_tokens=1, output_tokens=1)
"""


def test_duck_typed_usage(pytester: pytest.Pytester) -> None:
    _run(pytester, DUCK_BENCH, "--prob-runs=1", "--prob-json=r.json")
    usage = load_json(pytester.path / "r.json")["totals"]["usage"]
    assert usage == {
        "a": {"input_tokens": 3, "output_tokens": 3, "cached_input_tokens": 0, "cost": 0.75},
        "b": {"input_tokens": 3, "output_tokens": 3, "cached_input_tokens": 1, "cost": 0.125},
        "gpt": {
            "input_tokens": 105,
            "output_tokens": 11,
            "cached_input_tokens": 42,
            "cost": 0.0625,
        },
        "claude": {
            "input_tokens": 7,
            "output_tokens": 3,
            "cached_input_tokens": 11,
            "cost": None,
        },
        "unknown": {
            "input_tokens": 1,
            "output_tokens": 1,
            "cached_input_tokens": 0,
            "cost": None,
        },
    }


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            "record_cost(float('nan'))",
            "record_cost(): amount must be a finite number >= 0, got nan",
        ),
        ("record_cost(-0.01)", "record_cost(): amount must be a finite number >= 0, got -0.01"),
        (
            "record_cost(float('inf'))",
            "record_cost(): amount must be a finite number >= 0, got inf",
        ),
        (
            "record_cost('0.10')",
            "record_cost(): amount must be a finite number >= 0, got '0.10' (a str)",
        ),
        ("record_cost(True)", "record_cost(): amount must be a finite number >= 0, got True"),
        (
            "record_cost(10**5000)",
            "record_cost(): amount must be a finite number >= 0, got an int too large for a "
            "float (16610 bits)",
        ),
        (
            "record_usage(model='m', input_tokens=1.9)",
            "record_usage(): input_tokens must be a whole number >= 0, got 1.9",
        ),
        (
            "record_usage(model='m', output_tokens=-3)",
            "record_usage(): output_tokens must be a whole number >= 0, got -3",
        ),
        (
            "record_usage({'model': 'm', 'cached_input_tokens': 'many'})",
            "record_usage(): cached_input_tokens must be a whole number >= 0, got 'many' (a str)",
        ),
        (
            "record_usage(model='m', cost=float('nan'))",
            "record_usage(): cost must be a finite number >= 0, got nan",
        ),
        (
            "record_usage(42)",
            "cannot read usage from an int: pass keywords (model=, input_tokens=, "
            "output_tokens=, cached_input_tokens=, cost=), a TokenUsage, or a dict or object "
            "with those names (OpenAI- and Anthropic-style usage objects work too; a plugin "
            "can add other shapes through pytest_prob_normalize_usage)",
        ),
    ],
)
def test_bad_values_make_the_run_an_error_naming_them(
    pytester: pytest.Pytester, call: str, message: str
) -> None:
    source = f"""
from pytest_probability import record_cost, record_usage

def bench_bad():
    record_cost(0.5)
    {call}
"""
    _run(pytester, source, "--prob-runs=1", "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")  # strict: no NaN got through
    record = report["records"][0]
    assert record["outcome"] == "error"
    kind = "TypeError" if "cannot read" in message else "ValueError"
    assert record["message"] == f"{kind}: {message}"
    assert record["cost"] == 0.5  # what was validly recorded before still counts


def test_calling_outside_a_bench_run_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match=r"record_cost\(\) can only be called from inside"):
        record_cost(0.1)
    with pytest.raises(RuntimeError, match=r"record_usage\(\) can only be called from inside"):
        record_usage(model="m", input_tokens=1)


def test_a_test_function_in_a_bench_file_cannot_record(pytester: pytest.Pytester) -> None:
    source = """
from pytest_probability import record_cost

def test_plain():
    record_cost(0.1)
"""
    result = _run(pytester, source)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*RuntimeError: record_cost() can only be called from inside*"])


STEPS_BENCH = """
from pytest_probability import Step, record_cost

def bench_pipeline():
    record_cost(0.01)
    return [
        Step("route", True, cost=0.001,
             usage={"model": "router", "input_tokens": 10, "output_tokens": 1, "cost": 0.0005}),
        {"label": "answer", "passed": True,
         "usage": [{"model": "big", "input_tokens": 100, "output_tokens": 20, "cost": 0.02},
                   {"model": "big", "input_tokens": 50, "output_tokens": 5, "cost": 0.01}]},
    ]
"""


def test_steps_cost_and_usage_feed_the_totals(pytester: pytest.Pytester) -> None:
    _run(pytester, STEPS_BENCH, "--prob-runs=2", "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")
    record = report["records"][0]
    # run = record_cost 0.01 + step 'route' (its cost field, not its usage again) + 0.03
    assert record["cost"] == pytest.approx(0.041, abs=1e-15)
    assert [step["cost"] for step in record["steps"]] == [0.001, 0.03]
    assert record["steps"][1]["usage"][1]["input_tokens"] == 50
    assert record["usage"]["big"] == {
        "input_tokens": 150,
        "output_tokens": 25,
        "cached_input_tokens": 0,
        "cost": 0.03,
    }
    assert report["totals"]["cost"] == 0.082
    assert report["totals"]["usage"]["router"]["cost"] == 0.001


def test_a_step_with_an_invalid_cost_makes_the_run_an_error(pytester: pytest.Pytester) -> None:
    source = """
from pytest_probability import Step

def bench_pipeline():
    return [Step("route", True, cost=-1.0)]
"""
    _run(pytester, source, "--prob-runs=1", "--prob-json=r.json")
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["outcome"] == "error"
    assert record["message"] == (
        "ValueError: step 'route': cost must be a finite number >= 0, got -1.0"
    )


def test_fixture_setup_counts_and_teardown_warns(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest
from pytest_probability import record_cost

@pytest.fixture
def client():
    record_cost(0.25)
    yield
    record_cost(100.0)
"""
    )
    source = "def bench_client(client):\n    pass\n"
    result = _run(pytester, source, "--prob-runs=2", "--prob-no-intervals")
    assert "  Cost:    $0.5000" in section(result.outlines)
    result.stdout.fnmatch_lines(
        ["*CostWarning: record_cost() called after run 1 of client was reported*"]
    )


def test_skipped_runs_still_report_what_they_spent(pytester: pytest.Pytester) -> None:
    source = """
import pytest
from pytest_probability import current_run, record_cost

def bench_sometimes():
    record_cost(0.1)
    if current_run().run == 2:
        pytest.skip("upstream said no")
"""
    _run(pytester, source, "--prob-runs=3", "--prob-json=r.json")
    report = load_json(pytester.path / "r.json")
    assert report["rows"][0]["total"] == 2
    assert report["rows"][0]["cost"] == pytest.approx(0.3, abs=1e-15)
    assert report["totals"]["cost"] == pytest.approx(0.3, abs=1e-15)


def test_async_bench_records(pytester: pytest.Pytester) -> None:
    source = """
import asyncio
from pytest_probability import record_usage

async def bench_async():
    await asyncio.sleep(0)
    record_usage(model="m", input_tokens=2, output_tokens=1, cost=0.5)
"""
    result = _run(pytester, source, "--prob-runs=2", "--prob-no-intervals")
    assert "  Tokens:  m  4 in / 2 out  $1.0000" in section(result.outlines)


def test_pricing_hook_prices_usage_without_cost(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_price_usage(model, input_tokens, output_tokens, cached_input_tokens, config):
    if model == "m-small":
        return (input_tokens * 1.0 + output_tokens * 2.0) / 1_000_000
    return None
"""
    )
    source = """
from pytest_probability import record_usage

def bench_priced():
    record_usage(model="m-small", input_tokens=1000, output_tokens=500)
    record_usage(model="m-large", input_tokens=10, output_tokens=5)
    record_usage(model="m-small", input_tokens=1, output_tokens=1, cost=7.0)
"""
    result = _run(pytester, source, "--prob-runs=2", "--prob-no-intervals")
    assert section(result.outlines)[-3:] == [
        "  Cost:    $14.0040",
        "  Tokens:  m-small  2,002 in / 1,002 out  $14.0040",
        "           m-large  20 in / 10 out",
    ]


def test_a_pricing_plugin_that_raises_is_a_warning(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_price_usage(model):
    raise KeyError(model)
"""
    )
    source = """
from pytest_probability import record_usage

def bench_priced():
    record_usage(model="m", input_tokens=1, output_tokens=1)
"""
    result = _run(pytester, source, "--prob-runs=3", "--prob-no-intervals")
    assert "  Tokens:  m  3 in / 3 out" in section(result.outlines)
    assert result.stdout.str().count("failed in pytest_prob_price_usage: KeyError: 'm'") == 2
    result.stdout.fnmatch_lines(  # (once as a warning, once in the report)
        ["*ProbabilityExtensionWarning: extension '*conftest.py' failed in "
         "pytest_prob_price_usage: KeyError: 'm'"]
    )  # fmt: skip
    result.assert_outcomes(passed=3, warnings=1)


def test_a_plugin_can_read_another_sdks_usage(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
class Metered:
    def __init__(self, sent, received):
        self.sent, self.received = sent, received

def pytest_prob_normalize_usage(obj):
    if isinstance(obj, Metered):
        return {"model": "metered", "input_tokens": obj.sent, "output_tokens": obj.received}
    return None
"""
    )
    source = """
from conftest import Metered
from pytest_probability import record_usage

def bench_metered():
    record_usage(Metered(5, 6))
    record_usage({"model": "plain", "input_tokens": 1})
"""
    result = _run(pytester, source, "--prob-runs=2", "--prob-no-intervals")
    assert section(result.outlines)[-2:] == [
        "  Tokens:  metered  10 in / 12 out",
        "           plain    2 in / 0 out",
    ]


@pytest.mark.subprocess
def test_parallel_cost_equals_serial(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_cost=SPEC_COST_BENCH)
    serial = pytester.runpytest_subprocess("--prob-runs=10", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess("--prob-runs=10", "-n", "2", "--prob-json=p.json")
    assert section(serial.outlines) == section(parallel.outlines)
    assert "  Cost:    $0.0110" in section(parallel.outlines)
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert one["totals"] == two["totals"]
    assert [(r["cost"], r["usage"]) for r in one["rows"]] == [
        (r["cost"], r["usage"]) for r in two["rows"]
    ]
    strip = ("elapsed", "latency", "worker")

    def runs(report: dict) -> list:
        return sorted(
            (
                {k: v for k, v in r.items() if k not in strip and k != "steps"}
                | {"steps": [{k: v for k, v in s.items() if k != "elapsed"} for s in r["steps"]]}
                for r in report["records"]
            ),
            key=lambda r: r["nodeid"],
        )

    assert runs(one) == runs(two)


def test_token_usage_validates_at_construction() -> None:
    assert TokenUsage(model=" m ", input_tokens=3.0).input_tokens == 3
    assert TokenUsage().model == "unknown"
    with pytest.raises(ValueError, match=r"^input_tokens must be a whole number >= 0, got 1\.9$"):
        TokenUsage(model="m", input_tokens=1.9)
    with pytest.raises(ValueError, match=r"^cost must be a finite number >= 0, got -1$"):
        TokenUsage(model="m", cost=-1)


def test_each_usage_entry_is_priced_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
CALLS = []

def pytest_prob_price_usage(model):
    CALLS.append(model)
    return 1.0

def pytest_sessionfinish(session):
    print(f"priced {sorted(CALLS)}")
"""
    )
    source = """
from pytest_probability import Step, record_usage

def bench_once():
    record_usage(model="direct", input_tokens=1)
    return [Step("s", True, usage={"model": "step", "input_tokens": 1})]
"""
    result = _run(pytester, source, "--prob-runs=1", "-s", "--prob-no-intervals")
    assert "priced ['direct', 'step']" in result.stdout.str()
    assert "  Cost:    $2.0000" in section(result.outlines)


def test_a_wrong_price_names_the_pricing_extension(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("def pytest_prob_price_usage(model):\n    return float('nan')\n")
    source = """
from pytest_probability import record_usage

def bench_priced():
    record_usage(model="m", input_tokens=1)
"""
    result = _run(pytester, source, "--prob-runs=1")
    result.stdout.fnmatch_lines(
        [
            "*ProbabilityExtensionWarning: extension '*conftest.py' failed in "
            "pytest_prob_price_usage: TypeError: price must be a finite number >= 0, got nan"
        ]
    )


def test_one_pass_summary_equals_the_per_case_and_session_functions() -> None:
    """The report's single pass gives exactly what the service's four functions give."""
    from pytest_probability.extensions.cost import service

    class Case:
        def __init__(self, records: list[dict[str, Any]]) -> None:
            self.records = records

        def ordered_records(self) -> list[dict[str, Any]]:
            return self.records

    rng = random.Random(7)
    models = ["m-small", "m-large", "m-judge"]

    def record() -> dict[str, Any]:
        usage = {}
        for model in rng.sample(models, rng.randint(0, 3)):
            cost = rng.choice([None, round(rng.random() / 1000, 7), 0.0001])
            usage[model] = {
                "input_tokens": rng.randint(0, 5000),
                "output_tokens": rng.randint(0, 500),
                "cached_input_tokens": rng.randint(0, 100),
                "cost": cost,
            }
        return {"cost": rng.choice([None, 0.0002, round(rng.random() / 100, 6)]), "usage": usage}

    cases = [Case([record() for _ in range(rng.randint(0, 12))]) for _ in range(40)]
    per_case, total, usage = service.summarize(cases)
    assert per_case == [(service.case_cost(c), service.case_usage(c)) for c in cases]
    assert total == service.cases_cost(cases)
    assert usage == service.cases_usage(cases)
    assert list(usage) == list(service.cases_usage(cases))  # models in order of first use


@pytest.mark.parametrize("recorded", [True, False], ids=["body-records", "body-records-nothing"])
def test_late_calls_warn_at_the_line_that_made_them(
    pytester: pytest.Pytester, recorded: bool
) -> None:
    """After the run was reported, both helpers warn pointing at the caller's line, whether
    the call would otherwise take the fast path (a model seen before, plain numbers) or not,
    and whether the body recorded anything; neither amount is counted."""
    pytester.makeconftest(
        """
import pytest
from pytest_probability import record_cost, record_usage

@pytest.fixture
def client():
    yield
    record_cost(100.0)
    record_usage(model="m", input_tokens=1, output_tokens=1, cost=9.0)
    record_usage({"model": "m", "input_tokens": 1, "cost": 9.0})
"""
    )
    source = "from pytest_probability import record_usage\ndef bench_client(client):\n" + (
        "    record_usage(model='m', input_tokens=10, output_tokens=2, cost=0.5)\n"
        if recorded
        else "    pass\n"
    )
    result = _run(pytester, source, "--prob-runs=1", "--prob-no-intervals", "-W", "always")
    costs = [line for line in section(result.outlines) if "Cost:" in line]
    assert costs == (["  Cost:    $0.5000"] if recorded else [])
    result.stdout.fnmatch_lines(
        [
            "*conftest.py:7: CostWarning: record_cost() called after run 1 of client was*",
            "*conftest.py:8: CostWarning: record_usage() called after run 1 of client was*",
            "*conftest.py:9: CostWarning: record_usage() called after run 1 of client was*",
        ]
    )


def test_fast_and_checked_paths_keep_the_same_ledger() -> None:
    """Random sequences of calls (plain keywords that take the fast path, usage objects,
    unpriced usage, float and int amounts, the int ones on the checked path) leave the
    ledger a plain reference computes: every entry as the checked path builds it, the
    per-model totals, the amounts and the run cost, each a float sum in call order."""
    from pytest_probability.contracts.tokens import usage_entry
    from pytest_probability.execution.context import RunContext, enter_run, leave_run
    from pytest_probability.extensions.cost.recording import LEDGER

    rng = random.Random(7)
    for _ in range(300):
        entries: list[dict[str, Any]] = []
        amounts: list[float] = []
        context = RunContext(case_id="c", run=1)
        token = enter_run(context)
        try:
            for _ in range(rng.randint(1, 12)):
                model = rng.choice(["m-a", "m-b", f"m-{rng.randint(0, 999)}"])
                tokens = [rng.randint(0, 5000) for _ in range(3)]
                cost = rng.choice([None, rng.random() / 100, 0.0])
                shape = rng.choice(["keywords", "dict", "cost", "int cost"])
                if shape == "keywords":
                    record_usage(
                        model=model,
                        input_tokens=tokens[0],
                        output_tokens=tokens[1],
                        cached_input_tokens=tokens[2],
                        cost=cost,
                    )
                elif shape == "dict":
                    record_usage(
                        {
                            "model": model,
                            "input_tokens": tokens[0],
                            "output_tokens": tokens[1],
                            "cost": cost,
                        }
                    )
                    tokens[2] = 0
                if shape in ("keywords", "dict"):
                    entries.append(usage_entry(model, *tokens, cost))
                else:
                    amount = tokens[0] if shape == "int cost" else tokens[0] / 7
                    record_cost(amount)
                    amounts.append(float(amount))
        finally:
            leave_run(token)
        usage: dict[str, dict[str, Any]] = {}
        for entry in entries:
            totals = usage.setdefault(
                entry["model"],
                {"input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "cost": None},
            )
            for field in ("input_tokens", "output_tokens", "cached_input_tokens"):
                totals[field] += entry[field]
            if entry["cost"] is not None:
                totals["cost"] = entry["cost"] + (totals["cost"] or 0.0)
        total = None
        for amount in amounts:
            total = amount if total is None else total + amount
        found = context.data[LEDGER]
        assert found.entries == entries
        assert found.usage == usage
        assert list(found.usage) == list(usage)  # models in order of first appearance
        assert found.amounts == total
        for totals in usage.values():
            if totals["cost"] is not None:
                total = totals["cost"] if total is None else total + totals["cost"]
        assert found.cost() == total


SUMS_BENCH = """
from pytest_probability import record_cost, record_usage

def bench_sums():
    for call in range(3):
        record_usage(model="m", input_tokens=1200, output_tokens=80, cost=0.1)
        record_cost(0.1)
"""

SUMS_CONFTEST = """
import json

def pytest_prob_logrecord(record, config):
    with open("seen.jsonl", "a") as out:
        out.write(json.dumps([record["cost"], record["usage"], record["steps"][0]["cost"]]) + "\\n")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_reports_round_the_sums_that_runs_keep_plain(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    """A run keeps plain float sums (what ``pytest_prob_logrecord`` sees); the JSON report
    writes them rounded to 15 significant digits: the run, each model and the step."""
    amounts = 0.1 + 0.1 + 0.1  # the run's record_cost amounts, then its model's costs
    assert (amounts, amounts + amounts) == (0.30000000000000004, 0.6000000000000001)
    pytester.makeconftest(SUMS_CONFTEST)
    pytester.makepyfile(bench_sums=SUMS_BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=3", "--prob-json=r.json", *workers)
    assert result.ret == 0
    seen = [json.loads(line) for line in (pytester.path / "seen.jsonl").read_text().splitlines()]
    plain = {"input_tokens": 3600, "output_tokens": 240, "cached_input_tokens": 0}
    assert seen == [[amounts + amounts, {"m": {**plain, "cost": amounts}}, amounts + amounts]] * 3
    report = load_json(pytester.path / "r.json")
    assert len(report["records"]) == 3
    for record in report["records"]:
        assert record["cost"] == 0.6
        assert record["usage"] == {"m": {**plain, "cost": 0.3}}
        assert record["steps"][0]["cost"] == 0.6
        assert [entry["cost"] for entry in record["steps"][0]["usage"]] == [0.1] * 3
    assert (report["rows"][0]["cost"], report["totals"]["cost"]) == (1.8, 1.8)
    tripled = {"input_tokens": 10800, "output_tokens": 720, "cached_input_tokens": 0}
    assert report["totals"]["usage"] == {"m": {**tripled, "cost": 0.9}}
    assert "00000000" not in (pytester.path / "r.json").read_text()


def test_round_record_replaces_what_it_rounds() -> None:
    """The finisher rounds the copy's cost fields and leaves the session's record as it was
    (nested maps and steps are replaced, not changed); values that are not floats stay."""
    from pytest_probability.extensions.cost.usage import round_record

    usage = {"m": {"input_tokens": 1, "cost": 0.1 + 0.2}, "free": {"cost": None}}
    steps = [{"label": "s", "cost": 0.1 + 0.2, "usage": []}, {"label": "t", "cost": None}]
    record = {"cost": 0.1 + 0.2, "usage": usage, "steps": steps}
    shown = dict(record)
    round_record(shown)
    assert shown == {
        "cost": 0.3,
        "usage": {"m": {"input_tokens": 1, "cost": 0.3}, "free": {"cost": None}},
        "steps": [{"label": "s", "cost": 0.3, "usage": []}, {"label": "t", "cost": None}],
    }
    assert record["cost"] == usage["m"]["cost"] == steps[0]["cost"] == 0.30000000000000004
    assert shown["usage"]["free"] is usage["free"] and shown["steps"][1] is steps[1]
    negative_zero = {"cost": -0.0}
    round_record(negative_zero)
    assert math.copysign(1.0, negative_zero["cost"]) == 1.0
    untouched = {"cost": None, "usage": {}, "steps": []}
    round_record(untouched)
    assert untouched == {"cost": None, "usage": {}, "steps": []}
