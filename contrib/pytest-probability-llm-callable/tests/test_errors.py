"""Every misconfigured ``texts_callable`` and every unusable reply is an ERROR run whose
message names the setting, the function and what is valid; the function's own exceptions
reach the report unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_llm_callable import STUB, ini, section

BENCH = """
from pytest_probability.texts import texts_expect_f1_range

def bench_t():
    texts_expect_f1_range("a refund in 5 days", "your refund comes in 5 days", 0.9, 1.0)
"""

EXPECTED = 'expected a str, a dict with "text", or an object with .text'


def error_run(pytester: pytest.Pytester) -> tuple[pytest.RunResult, dict[str, Any]]:
    """Run the one-case bench once; check it is an ERROR row; return its JSON record."""
    result = pytester.runpytest("--prob-json=r.json")
    result.assert_outcomes(failed=1)
    assert section(result.outlines)[0] == "  t  0/1  ERROR"
    records = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["records"]
    assert [record["outcome"] for record in records] == ["error"]
    return result, records[0]


CONFIG_ERRORS = [
    pytest.param(
        None,
        "texts_backend = callable needs the ini option texts_callable = package.module:function"
        " (the function that answers the judge's calls); it is not set",
        id="not-set",
    ),
    pytest.param(
        "judge_stub.ask",
        "texts_callable='judge_stub.ask': expected package.module:function (a module to"
        " import, a colon, then the name of a callable in it)",
        id="no-colon",
    ),
    pytest.param(
        "judge_stub:",
        "texts_callable='judge_stub:': expected package.module:function (a module to import,"
        " a colon, then the name of a callable in it)",
        id="no-function",
    ),
    pytest.param(
        "no_such_judge:ask",
        "texts_callable=no_such_judge:ask: cannot import 'no_such_judge': no module named"
        " 'no_such_judge' (install it, or put its directory on sys.path, e.g. with pytest's"
        " ini option pythonpath)",
        id="module-missing",
    ),
    pytest.param(
        "judges.no_such_judge:ask",
        "texts_callable=judges.no_such_judge:ask: cannot import 'judges.no_such_judge': no"
        " module named 'judges' (install it, or put its directory on sys.path, e.g. with"
        " pytest's ini option pythonpath)",
        id="package-missing",
    ),
    pytest.param(
        "broken_judge:ask",
        "texts_callable=broken_judge:ask: importing 'broken_judge' failed:"
        " ModuleNotFoundError: No module named 'no_such_sdk'",
        id="import-fails",
    ),
    pytest.param(
        "judge_stub:nope",
        "texts_callable=judge_stub:nope: module 'judge_stub' has no attribute 'nope'",
        id="attribute-missing",
    ),
    pytest.param(
        "judge_stub:client.nope",
        "texts_callable=judge_stub:client.nope: judge_stub:client has no attribute 'nope'",
        id="dotted-attribute-missing",
    ),
    pytest.param(
        "judge_stub:CALLS",
        "texts_callable=judge_stub:CALLS: judge_stub:CALLS is not callable (it is a list: [])",
        id="not-callable",
    ),
    pytest.param(
        "judge_stub:DELAY",
        "texts_callable=judge_stub:DELAY: judge_stub:DELAY is not callable (it is a float: 0.0)",
        id="not-callable-number",
    ),
]


@pytest.mark.parametrize(("spec", "message"), CONFIG_ERRORS)
def test_configuration_errors(pytester: pytest.Pytester, spec: str | None, message: str) -> None:
    pytester.makepyfile(
        judge_stub=STUB,
        broken_judge="import no_such_sdk\n\n\ndef ask(messages, json_mode):\n    return ''\n",
        bench_t=BENCH,
    )
    pytester.makeini(ini(spec))
    result, record = error_run(pytester)
    assert record["message"] == f"CallableConfigError: {message}"
    assert record["error"] == "CallableConfigError"
    assert any(
        line.startswith("E ") and line.endswith(f"CallableConfigError: {message}")
        for line in result.outlines
    )


def test_a_configuration_error_is_a_texts_config_error() -> None:
    from pytest_probability.texts import TextsConfigError
    from pytest_probability_llm_callable.backend import CallableConfigError

    assert issubclass(CallableConfigError, TextsConfigError)


BAD_RETURNS = [
    ("42", f"returned 42; {EXPECTED}"),
    ("None", f"returned None; {EXPECTED}"),
    ('b"{}"', f"returned b'{{}}'; {EXPECTED}"),
    ('["a reply"]', f"returned ['a reply']; {EXPECTED}"),
    ('{"answer": "yes"}', f"returned {{'answer': 'yes'}}; {EXPECTED}"),
    ('{"text": 42}', 'returned a dict whose "text" is 42 (an int); expected a str'),
    ('{"text": b"{}"}', "returned a dict whose \"text\" is b'{}' (a bytes); expected a str"),
    ("SimpleNamespace(text=None)", "returned a SimpleNamespace whose .text is None; expected a str"),
    ('{"text": "{}", "usage": {"total_tokens": 3}}',
     "returned a dict with unknown key(s) 'usage'; valid keys: text, model, input_tokens,"
     " output_tokens, cached_input_tokens, finish_reason"),
    ('{"text": "{}", "model": 4}', 'returned a dict whose "model" is 4 (an int); expected a str or None'),
    ('SimpleNamespace(text="{}", finish_reason=1)',
     "returned a SimpleNamespace whose .finish_reason is 1 (an int); expected a str or None"),
    ('{"text": "{}", "input_tokens": -1, "output_tokens": 2}',
     'returned a dict whose "input_tokens" is -1 (an int); expected a whole number >= 0 or None'),
    ('{"text": "{}", "input_tokens": 10, "output_tokens": 2.5}',
     'returned a dict whose "output_tokens" is 2.5 (a float); expected a whole number >= 0 or None'),
    ('{"text": "{}", "input_tokens": True, "output_tokens": 2}',
     'returned a dict whose "input_tokens" is True (a bool); expected a whole number >= 0 or None'),
    ('{"text": "{}", "output_tokens": 5}',
     "returned token usage with only output_tokens; give input_tokens and output_tokens"
     " together (cached_input_tokens is optional), or none of them"),
    ('{"text": "{}", "cached_input_tokens": 5}',
     "returned token usage with only cached_input_tokens; give input_tokens and output_tokens"
     " together (cached_input_tokens is optional), or none of them"),
    ('{"text": "{}", "input_tokens": 5, "output_tokens": 1, "cached_input_tokens": 9}',
     "returned cached_input_tokens=9 > input_tokens=5; cached input tokens are part of the"
     " input tokens"),
]  # fmt: skip


@pytest.mark.parametrize(("value", "message"), BAD_RETURNS)
def test_a_bad_return_value_names_the_function(
    pytester: pytest.Pytester, value: str, message: str
) -> None:
    pytester.makepyfile(
        bad_judge=f"from types import SimpleNamespace\n\n\ndef ask(messages, json_mode):\n    return {value}\n",
        bench_t=BENCH,
    )
    pytester.makeini(ini("bad_judge:ask"))
    result, record = error_run(pytester)
    full = f"CallableReplyError: texts_callable=bad_judge:ask {message}"
    assert record["message"] == full
    assert any(line.startswith("E ") and line.endswith(full) for line in result.outlines)


def test_the_functions_own_exception_is_the_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        gateway_judge="""
def ask(messages, json_mode):
    raise ConnectionError("gateway down: 503")
""",
        bench_t=BENCH,
    )
    pytester.makeini(ini("gateway_judge:ask"))
    result, record = error_run(pytester)
    assert record["message"] == "ConnectionError: gateway down: 503"
    assert record["error"] == "ConnectionError"
    # the traceback ends in the function, not in this package
    result.stdout.fnmatch_lines(["gateway_judge.py:2: ConnectionError"])
    assert "pytest_probability_llm_callable" not in result.stdout.str()
