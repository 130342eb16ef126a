"""Tests of the ``price-table`` extension: end to end with pytester, plus the pure table module.

Every expected amount is computed by hand from the table below; :func:`priced` repeats the
formula with exact fractions so the JSON floats are compared exactly, not approximately.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pytest_probability_price_table.table import (
    PriceTableError,
    load_table,
    table_from_document,
)

PRICES = """
[models."m-small"]
input = 0.50
output = 1.50
cached_input = 0.25

[models."m-large"]
input = 5
output = 15
"""

# Per run: m-small (600*0.50 + 40*1.50 + 560*0.25) / 1e6 = 500 / 1e6 = $0.0005;
#          m-large (100*5 + 100*15) / 1e6 = 2000 / 1e6 = $0.002 (chain_of_thought only).
BENCH = """
import pytest
from pytest_probability import record_usage


@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
def bench_triage(style):
    record_usage(model="m-small", input_tokens=600, output_tokens=40, cached_input_tokens=560)
    if style == "chain_of_thought":
        record_usage(model="m-large", input_tokens=100, output_tokens=100)
"""

#: The interval column is the intervals extension's business, not ours.
NO_INTERVALS = ("-p", "no:probability.intervals")

EXPECTED_MAIN = [
    "  triage::terse             2/2  $0.0010",
    "  triage::chain_of_thought  2/2  $0.0050",
    "",
    "  Overall: 4/4 passed (100%)",
    "  Cost:    $0.0060",
    "  Tokens:  m-small  2,400 in / 160 out / 2,240 cached  $0.0020",
    "           m-large  200 in / 200 out                   $0.0040",
]


def priced(
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int,
    prices: tuple[str, str, str],
    per: int = 1_000_000,
) -> float:
    """The documented formula with exact fractions, rounded once (as the plugin does)."""
    p_in, p_out, p_cached = (Fraction(p) for p in prices)
    total = input_tokens * p_in + output_tokens * p_out + cached_input_tokens * p_cached
    return float(total / per)


SMALL = ("0.50", "1.50", "0.25")
LARGE = ("5", "15", "5")  # no cached_input: the input price
SMALL_RUN = priced(600, 40, 560, SMALL)
LARGE_RUN = priced(100, 100, 0, LARGE)


def main_section(outlines: list[str]) -> list[str] | None:
    """The lines of ``=== probability ===``, or ``None`` when it is absent."""
    for index, line in enumerate(outlines):
        if re.match(r"^=+ probability =+$", line):
            body = []
            for rest in outlines[index + 1 :]:
                if re.match(r"^(=+|-+) .* (=+|-+)$", rest):  # (a section, or a file written)
                    break
                body.append(rest)
            return body
    return None


def load_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bench_triage=BENCH)
    pytester.makefile(".toml", prices=PRICES)
    return pytester


# -- end to end ------------------------------------------------------------------------------


def test_terminal_cost_column_cost_line_and_tokens(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=2", "--prob-price-table=prices.toml", *NO_INTERVALS)
    assert result.ret == 0
    assert main_section(result.outlines) == EXPECTED_MAIN
    result.assert_outcomes(passed=4)  # and no warnings: every model has a price


def test_json_rows_totals_and_records(suite: pytest.Pytester) -> None:
    result = suite.runpytest(
        "--prob-runs=2", "--prob-price-table=prices.toml", "--prob-json=r.json"
    )
    assert result.ret == 0
    document = load_json(suite.path / "r.json")
    assert SMALL_RUN == 0.0005
    assert LARGE_RUN == 0.002

    terse, cot = document["rows"]
    assert terse["case"] == "triage::terse"
    assert terse["cost"] == 0.001
    assert terse["usage"] == {
        "m-small": {
            "input_tokens": 1200,
            "output_tokens": 80,
            "cached_input_tokens": 1120,
            "cost": 0.001,
        }
    }
    assert cot["case"] == "triage::chain_of_thought"
    assert cot["cost"] == 0.005
    assert cot["usage"]["m-small"]["cost"] == 0.001
    assert cot["usage"]["m-large"] == {
        "input_tokens": 200,
        "output_tokens": 200,
        "cached_input_tokens": 0,
        "cost": 0.004,
    }

    totals = document["totals"]
    assert totals["cost"] == 0.006
    assert totals["usage"] == {
        "m-small": {
            "input_tokens": 2400,
            "output_tokens": 160,
            "cached_input_tokens": 2240,
            "cost": 0.002,
        },
        "m-large": {
            "input_tokens": 200,
            "output_tokens": 200,
            "cached_input_tokens": 0,
            "cost": 0.004,
        },
    }

    records = document["records"]
    assert len(records) == 4
    for record in records:
        expected = 0.0005 if record["case"] == "triage::terse" else 0.0025
        assert record["cost"] == expected
        assert record["usage"]["m-small"]["cost"] == SMALL_RUN
        # the kernel's step for the body carries the priced entries too
        assert [entry["cost"] for entry in record["steps"][0]["usage"]] == (
            [SMALL_RUN] if record["case"] == "triage::terse" else [SMALL_RUN, LARGE_RUN]
        )


def test_without_a_table_usage_stays_unpriced(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--prob-runs=2", *NO_INTERVALS, "--prob-json=r.json")
    assert result.ret == 0
    result.assert_outcomes(passed=4)  # no warning either
    assert main_section(result.outlines) == [
        "  triage::terse             2/2",
        "  triage::chain_of_thought  2/2",
        "",
        "  Overall: 4/4 passed (100%)",
        "  Tokens:  m-small  2,400 in / 160 out / 2,240 cached",
        "           m-large  200 in / 200 out",
    ]
    document = load_json(suite.path / "r.json")
    assert document["totals"]["cost"] is None
    assert [row["cost"] for row in document["rows"]] == [None, None]


def test_ini_key_is_relative_to_the_config_file(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    (suite.path / "prices").mkdir()
    (suite.path / "prices.toml").rename(suite.path / "prices" / "table.toml")
    suite.makeini("[pytest]\nprob_price_table = prices/table.toml\n")
    elsewhere = suite.mkdir("elsewhere")
    monkeypatch.chdir(elsewhere)
    # invoked from another directory: the ini path still resolves next to pytest.ini
    result = suite.runpytest(str(suite.path), "--prob-runs=2", *NO_INTERVALS)
    assert result.ret == 0
    assert main_section(result.outlines) == EXPECTED_MAIN
    # a command-line path is relative to the invocation directory, and wins over the ini key
    result = suite.runpytest(str(suite.path), "--prob-price-table=prices/table.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    missing = elsewhere / "prices" / "table.toml"
    assert (
        f"ERROR: --prob-price-table=prices/table.toml: price table {missing}: no such file"
    ) in result.stderr.lines


def test_absolute_path(suite: pytest.Pytester, tmp_path: Path) -> None:
    table = tmp_path / "elsewhere.toml"
    table.write_text(PRICES, encoding="utf-8")
    (suite.path / "prices.toml").unlink()
    result = suite.runpytest("--prob-runs=2", f"--prob-price-table={table}", *NO_INTERVALS)
    assert result.ret == 0
    assert main_section(result.outlines) == EXPECTED_MAIN


PATTERNS = """
per = 1000

[models."gpt-4o*"]
input = 2
output = 8

[models."gpt-*"]
input = 1
output = 4
cached_input = 0.5

[models."*-mini"]
input = 0.1
output = 0.4

[models."gpt-4o-mini"]
input = 0.15
output = 0.6
cached_input = 0.075
"""

PATTERN_BENCH = """
import pytest
from pytest_probability import record_usage


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o-2024-08-06", "gpt-4.1-mini", "o4-mini", "gpt-3.5-turbo"])
def bench_model(model):
    record_usage(model=model, input_tokens=1234, output_tokens=567, cached_input_tokens=89)
"""


def test_glob_patterns_exact_name_wins_then_first_pattern(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_models=PATTERN_BENCH)
    pytester.makefile(".toml", prices=PATTERNS)
    result = pytester.runpytest("--prob-price-table=prices.toml", "--prob-json=r.json")
    assert result.ret == 0
    result.assert_outcomes(passed=5)
    usage = load_json(pytester.path / "r.json")["totals"]["usage"]
    costs = {model: totals["cost"] for model, totals in usage.items()}
    assert costs == {
        # the exact entry, although it is the last one and three patterns come first
        "gpt-4o-mini": priced(1234, 567, 89, ("0.15", "0.6", "0.075"), per=1000),
        # gpt-4o* and gpt-* both match: the first in the file wins
        "gpt-4o-2024-08-06": priced(1234, 567, 89, ("2", "8", "2"), per=1000),
        # gpt-* and *-mini both match: gpt-* comes first
        "gpt-4.1-mini": priced(1234, 567, 89, ("1", "4", "0.5"), per=1000),
        "o4-mini": priced(1234, 567, 89, ("0.1", "0.4", "0.1"), per=1000),
        "gpt-3.5-turbo": priced(1234, 567, 89, ("1", "4", "0.5"), per=1000),
    }
    # written out: (1234*0.15 + 567*0.6 + 89*0.075) / 1000 = (185.1 + 340.2 + 6.675) / 1000
    assert costs["gpt-4o-mini"] == 0.531975
    assert costs["gpt-4o-2024-08-06"] == 7.182  # (2468 + 4536 + 178) / 1000
    assert costs["gpt-4.1-mini"] == 3.5465  # (1234 + 2268 + 44.5) / 1000
    assert costs["o4-mini"] == 0.3591  # (123.4 + 226.8 + 8.9) / 1000


def test_recorded_cost_is_never_repriced(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", prices=PRICES)
    pytester.makepyfile(
        bench_given="""
        from pytest_probability import Step, TokenUsage, record_usage


        def bench_keywords():
            record_usage(model="m-small", input_tokens=1000, output_tokens=1000, cost=0.25)


        def bench_object():
            record_usage({"model": "m-small", "prompt_tokens": 1000, "completion_tokens": 1000, "cost": 0.125})
            record_usage(TokenUsage(model="m-large", input_tokens=1000, cost=0))


        def bench_step():
            return Step(label="call", passed=True, usage={"model": "m-large", "input_tokens": 1000, "cost": 0.5})


        def bench_mixed():
            record_usage(model="m-small", input_tokens=1000, output_tokens=1000, cost=0.25)
            record_usage(model="m-small", input_tokens=1000, output_tokens=1000)
        """
    )
    # a conftest logs every call of the pricing hook (first, answering nothing: the table
    # still answers; hook wrappers are not called through the plugin's boundary)
    pytester.makeconftest(
        """
        import pytest


        @pytest.hookimpl(tryfirst=True)
        def pytest_prob_price_usage(model, input_tokens, output_tokens, cached_input_tokens):
            with open("calls.txt", "a") as log:
                print(model, input_tokens, output_tokens, cached_input_tokens, file=log)
        """
    )
    result = pytester.runpytest(
        "--prob-runs=2", "--prob-price-table=prices.toml", "--prob-json=r.json"
    )
    assert result.ret == 0
    # only the one entry recorded without a cost reaches the hook, once per run
    calls = (pytester.path / "calls.txt").read_text(encoding="utf-8").splitlines()
    assert calls == ["m-small 1000 1000 0", "m-small 1000 1000 0"]
    rows = {row["case"]: row for row in load_json(pytester.path / "r.json")["rows"]}
    # priced from the table, m-small 1000 in / 1000 out would be (500 + 1500) / 1e6 = 0.002
    assert rows["keywords"]["cost"] == 0.5
    assert rows["keywords"]["usage"]["m-small"]["cost"] == 0.5
    assert rows["object"]["usage"]["m-small"]["cost"] == 0.25
    assert rows["object"]["usage"]["m-large"]["cost"] == 0.0  # a given 0 is a cost too
    assert rows["object"]["cost"] == 0.25
    assert rows["step"]["cost"] == 1.0
    assert rows["step"]["usage"]["m-large"]["cost"] == 1.0
    # one entry with a cost (kept) and one without (priced): 2 * (0.25 + 0.002)
    assert rows["mixed"]["usage"]["m-small"]["cost"] == 0.504


def test_step_usage_without_cost_is_priced(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", prices=PRICES)
    pytester.makepyfile(
        bench_steps="""
        from pytest_probability import Step


        def bench_chain():
            yield Step(label="route", passed=True, usage={"model": "m-small", "input_tokens": 2000, "output_tokens": 100})
            yield Step(label="answer", passed=True, usage=[{"model": "m-large", "input_tokens": 300, "output_tokens": 20}])
        """
    )
    result = pytester.runpytest("--prob-price-table=prices.toml", "--prob-json=r.json")
    assert result.ret == 0
    (record,) = load_json(pytester.path / "r.json")["records"]
    route, answer = record["steps"]
    assert route["cost"] == 0.00115  # (2000*0.50 + 100*1.50) / 1e6
    assert route["usage"][0]["cost"] == 0.00115
    assert answer["cost"] == 0.0018  # (300*5 + 20*15) / 1e6
    assert record["cost"] == 0.00295


MYSTERY_BENCH = """
from pytest_probability import record_usage


def bench_mystery():
    record_usage(model="m-mystery", input_tokens=100, output_tokens=10)
    record_usage(model="m-mystery", input_tokens=100, output_tokens=10)
    record_usage(model="m-small", input_tokens=1000, output_tokens=0)
"""


def test_unknown_model_warns_once_and_stays_unpriced(suite: pytest.Pytester) -> None:
    suite.makepyfile(bench_mystery=MYSTERY_BENCH)
    result = suite.runpytest(
        "bench_mystery.py", "--prob-runs=3", "--prob-price-table=prices.toml", *NO_INTERVALS
    )
    assert result.ret == 0
    result.assert_outcomes(passed=3, warnings=1)  # six unpriced entries, one warning
    table = suite.path / "prices.toml"
    assert (
        f"  {suite.path / 'bench_mystery.py'}:5: PriceTableWarning: model 'm-mystery' is not in"
        f' the price table {table}: its usage stays unpriced (add a [models."m-mystery"] table'
        " or a pattern that matches it)"
    ) in result.outlines
    # m-small still priced: 3 runs * 1000 * 0.50 / 1e6
    assert main_section(result.outlines) == [
        "  mystery  3/3  $0.0015",
        "",
        "  Overall: 3/3 passed (100%)",
        "  Cost:    $0.0015",
        "  Tokens:  m-mystery  600 in / 60 out",
        "           m-small    3,000 in / 0 out  $0.0015",
    ]


def test_usage_without_model_name_warns(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        bench_nameless="""
        from pytest_probability import record_usage


        def bench_nameless():
            record_usage(input_tokens=100, output_tokens=10)
        """
    )
    result = suite.runpytest(
        "bench_nameless.py", "--prob-price-table=prices.toml", "--prob-json=r.json"
    )
    assert result.ret == 0
    result.assert_outcomes(passed=1, warnings=1)
    table = suite.path / "prices.toml"
    assert any(
        line.endswith(
            "PriceTableWarning: usage recorded without a model name (model 'unknown') is not in"
            f' the price table {table}: its usage stays unpriced (add a [models."unknown"]'
            " table or a pattern that matches it)"
        )
        for line in result.outlines
    )
    assert load_json(suite.path / "r.json")["totals"]["usage"]["unknown"]["cost"] is None


# pytest 7.4 with pluggy >= 1.4 reports pytest's own usage error (an unknown flag, the point of
# the test) as a warning about its old-style hookwrapper as well
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
def test_disabled_with_p_no(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nprob_price_table = prices.toml\n")
    result = suite.runpytest("--prob-runs=2", "-p", "no:probability.price-table", *NO_INTERVALS)
    assert result.ret == 0
    assert main_section(result.outlines) == [
        "  triage::terse             2/2",
        "  triage::chain_of_thought  2/2",
        "",
        "  Overall: 4/4 passed (100%)",
        "  Tokens:  m-small  2,400 in / 160 out / 2,240 cached",
        "           m-large  200 in / 200 out",
    ]
    # its flag is gone with it
    result = suite.runpytest("-p", "no:probability.price-table", "--prob-price-table=prices.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --prob-price-table=prices.toml" in result.stderr.str()


def test_help_lists_the_option(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*--prob-price-table=PATH*",
            "*price usage recorded without a cost from a TOML table*",
            "*prob_price_table (string):*",
        ]
    )


# -- errors: exit 4, one line, no traceback --------------------------------------------------


@pytest.mark.subprocess
def test_same_under_xdist(suite: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    args = ("--prob-runs=3", "--prob-price-table=prices.toml", *NO_INTERVALS)
    serial = suite.runpytest_subprocess(*args, "--prob-json=serial.json")
    parallel = suite.runpytest_subprocess(*args, "--prob-json=parallel.json", "-n", "2")
    assert parallel.ret == serial.ret == 0
    expected = [
        "  triage::terse             3/3  $0.0015",
        "  triage::chain_of_thought  3/3  $0.0075",
        "",
        "  Overall: 6/6 passed (100%)",
        "  Cost:    $0.0090",
        "  Tokens:  m-small  3,600 in / 240 out / 3,360 cached  $0.0030",
        "           m-large  300 in / 300 out                   $0.0060",
    ]
    assert main_section(parallel.outlines) == main_section(serial.outlines) == expected
    serial_totals = load_json(suite.path / "serial.json")["totals"]
    parallel_totals = load_json(suite.path / "parallel.json")["totals"]
    assert parallel_totals == serial_totals
    assert serial_totals["cost"] == 0.009
    assert serial_totals["usage"]["m-small"]["cost"] == 0.003
    assert serial_totals["usage"]["m-large"]["cost"] == 0.006
    # the workers priced the runs: records say which worker ran them
    workers = {r["worker"] for r in load_json(suite.path / "parallel.json")["records"]}
    assert workers <= {"gw0", "gw1"}
    assert workers


# -- the table module ------------------------------------------------------------------------


def table_of(text: str) -> Any:
    import tomllib
    from decimal import Decimal

    return table_from_document(tomllib.loads(text, parse_float=Decimal), Path("t.toml"))


def test_prices_are_exact_decimals() -> None:
    table = table_of("per = 1000\n[models.m]\ninput = 0.15\noutput = 0.6\ncached_input = 0.075\n")
    # (185.1 + 340.2 + 6.675) / 1000 is 0.531975; binary floats would give 0.5319749999999999
    assert (1234 * 0.15 + 567 * 0.6 + 89 * 0.075) / 1000 == 0.5319749999999999
    assert table.price("m", 1234, 567, 89) == 0.531975
    assert table.price("m", 1234, 0, 0) == 0.1851
    assert table.price("m", 0, 1, 0) == 0.0006
    assert table.price("m", 0, 0, 3) == 0.000225
    assert table.price("m", 0, 0, 0) == 0.0
    assert table.price("other", 1, 1, 1) is None


def test_cached_input_defaults_to_input_price_and_per_is_honoured() -> None:
    table = table_of("per = 1000\n[models.m]\ninput = 2\noutput = 3\n")
    entry = table.lookup("m")
    assert entry is not None
    assert entry.cached_input == entry.input == 2
    assert table.price("m", 10, 20, 30) == (10 * 2 + 20 * 3 + 30 * 2) / 1000 == 0.14


def test_lookup_order() -> None:
    table = table_of(PATTERNS)
    assert table.lookup("gpt-4o-mini").name == "gpt-4o-mini"  # type: ignore[union-attr]
    assert table.lookup("gpt-4o").name == "gpt-4o*"  # type: ignore[union-attr]
    assert table.lookup("gpt-4.1-mini").name == "gpt-*"  # type: ignore[union-attr]
    assert table.lookup("o4-mini").name == "*-mini"  # type: ignore[union-attr]
    assert table.lookup("GPT-4o") is None  # case-sensitive
    assert table.lookup("claude-sonnet") is None


def test_load_table_reports_the_path(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(PriceTableError, match=r"t\.toml: not valid TOML: not UTF-8 text$"):
        load_table(path)
    path.write_text("[models.m]\ninput = 1\noutput = 2\n", encoding="utf-8")
    assert load_table(path).path == path
