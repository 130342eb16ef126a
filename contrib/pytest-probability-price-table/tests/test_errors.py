"""Bad price tables: every one is a usage error naming the file, the model and what is valid."""

from __future__ import annotations

import pytest
from test_price_table import BENCH, PRICES


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """The pricing suite's bench file and a valid table (tests overwrite the table)."""
    pytester.makepyfile(bench_triage=BENCH)
    pytester.makefile(".toml", prices=PRICES)
    return pytester


MODEL_ERRORS = [
    pytest.param(
        '[models."m-small"]\noutput = 1.5\n',
        "model 'm-small' has no 'input' price (required: input, output; optional: cached_input)",
        id="no-input",
    ),
    pytest.param(
        '[models."m-small"]\ninput = 0.5\ncached_input = 0.25\n',
        "model 'm-small' has no 'output' price (required: input, output; optional: cached_input)",
        id="no-output",
    ),
    pytest.param(
        '[models."m-small"]\ninput = -0.5\noutput = 1.5\n',
        "model 'm-small': input must be a finite number >= 0, got -0.5",
        id="negative",
    ),
    pytest.param(
        '[models."m-small"]\ninput = 0.5\noutput = "1.50"\n',
        "model 'm-small': output must be a finite number >= 0, got '1.50' (a string)",
        id="string",
    ),
    pytest.param(
        '[models."m-small"]\ninput = 0.5\noutput = 1.5\ncached_input = nan\n',
        "model 'm-small': cached_input must be a finite number >= 0, got nan",
        id="nan",
    ),
    pytest.param(
        '[models."m-small"]\ninput = inf\noutput = 1.5\n',
        "model 'm-small': input must be a finite number >= 0, got inf",
        id="inf",
    ),
    pytest.param(
        '[models."m-small"]\ninput = true\noutput = 1.5\n',
        "model 'm-small': input must be a finite number >= 0, got true (a boolean)",
        id="boolean",
    ),
    pytest.param(
        '[models."m-small"]\ninput = 0.5\noutput = 1.5\ncache_input = 0.25\n',
        "model 'm-small': unknown key 'cache_input' (did you mean 'cached_input'?); valid:"
        " input, output, cached_input",
        id="unknown-key",
    ),
    pytest.param(
        '[models]\n"m-small" = 0.5\n',
        "model 'm-small' must be a table with input and output prices, got 0.5",
        id="model-not-a-table",
    ),
    pytest.param(
        '[models." m-small"]\ninput = 0.5\noutput = 1.5\n',
        "model ' m-small': a model name must be non-empty text without leading or trailing"
        " spaces (recorded model names never have them)",
        id="spaces-in-name",
    ),
    pytest.param(
        'model = "m-small"\n',
        "unknown top-level key 'model' (did you mean 'models'?); valid: per, models",
        id="unknown-top-level-key",
    ),
    pytest.param(
        'per = 0\n[models."m-small"]\ninput = 0.5\noutput = 1.5\n',
        "per must be a positive number of tokens, got 0",
        id="per-zero",
    ),
    pytest.param(
        "per = 1000\n",
        """models must be tables such as [models."NAME"] with input and output prices, got"""
        " nothing",
        id="no-models",
    ),
    pytest.param(
        "[models]\n",
        """no models; add a table such as [models."NAME"] with input and output prices""",
        id="empty-models",
    ),
    pytest.param(
        '[models."m-small"]\ninput = 0.5\noutput = 1.5\n[models."m-small"]\ninput = 1\n',
        "not valid TOML: Cannot declare ('models', 'm-small') twice (at line 4, column 18)",
        id="duplicate-model",
    ),
    pytest.param(
        '[models."m-small"\ninput = 0.5\n',
        "not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 18)",
        id="invalid-toml",
    ),
]


@pytest.mark.parametrize(("content", "problem"), MODEL_ERRORS)
def test_bad_table_is_a_usage_error(suite: pytest.Pytester, content: str, problem: str) -> None:
    (suite.path / "prices.toml").write_text(content, encoding="utf-8")
    result = suite.runpytest("--prob-price-table=prices.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    table = suite.path / "prices.toml"
    assert (
        f"ERROR: --prob-price-table=prices.toml: price table {table}: {problem}"
        in result.stderr.lines
    )
    assert "Traceback" not in result.stderr.str()
    assert not any("bench_triage" in line for line in result.outlines)  # nothing ran


def test_missing_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=BENCH)
    result = pytester.runpytest("--prob-price-table=nope.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: --prob-price-table=nope.toml: price table {pytester.path / 'nope.toml'}: no"
        " such file"
    ) in result.stderr.lines
    assert "Traceback" not in result.stderr.str()


def test_directory_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.mkdir("prices")
    result = pytester.runpytest("--prob-price-table=prices")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: --prob-price-table=prices: price table {pytester.path / 'prices'}: is a directory"
    ) in result.stderr.lines


def test_empty_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--prob-price-table=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: --prob-price-table=: expected the path of a TOML price table, got ''"
        in result.stderr.lines
    )


def test_bad_table_from_ini_names_the_ini_key(suite: pytest.Pytester) -> None:
    (suite.path / "prices.toml").write_text(
        '[models."m-small"]\ninput = 0.5\noutput = -1\n', encoding="utf-8"
    )
    suite.makeini("[pytest]\nprob_price_table = prices.toml\n")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: ini option prob_price_table=prices.toml: price table {suite.path / 'prices.toml'}:"
        " model 'm-small': output must be a finite number >= 0, got -1"
    ) in result.stderr.lines
    assert "Traceback" not in result.stderr.str()


# -- xdist -----------------------------------------------------------------------------------
