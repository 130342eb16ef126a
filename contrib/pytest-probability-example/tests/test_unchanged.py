"""A session that does not ask for the example extension looks exactly as without it."""

from __future__ import annotations

import re

import pytest
from conftest import load_json

WITHOUT = ("-p", "no:probability.example")

#: prints which of the extension's plugins the session registered
REGISTERED = """
def pytest_collection_finish(session):
    names = sorted(
        name
        for name, _ in session.config.pluginmanager.list_name_plugin()
        if name and name.startswith("probability.example")
    )
    print("registered:", " ".join(names))
"""


def without_timing(outlines: list[str]) -> list[str]:
    """The output without the closing ``N failed, M passed in 0.12s`` line."""
    return [line for line in outlines if not re.search(r" in [0-9.]+s( \(.*\))? =*$", line)]


def test_same_report(suite: pytest.Pytester) -> None:
    # (one report path for both: the line naming the file written shows it)
    ours = suite.runpytest("--prob-runs=6", "--prob-json=r.json")
    ours_doc = load_json(suite.path / "r.json")
    plain = suite.runpytest("--prob-runs=6", "--prob-json=r.json", *WITHOUT)
    plain_doc = load_json(suite.path / "r.json")
    assert ours.ret == plain.ret == pytest.ExitCode.TESTS_FAILED
    assert without_timing(ours.outlines) == without_timing(plain.outlines)
    assert ours_doc.keys() == plain_doc.keys()
    assert [row.keys() for row in ours_doc["rows"]] == [row.keys() for row in plain_doc["rows"]]


@pytest.mark.parametrize(
    "args",
    [["--prob-method=nope"], ["--prob-metric=nope"], ["-o", "prob_method=nope"]],
    ids=["method", "metric", "ini"],
)
def test_same_listings(suite: pytest.Pytester, args: list[str]) -> None:
    """Unknown names list the registered ones: the extension adds none unless asked."""
    ours = suite.runpytest(*args)
    plain = suite.runpytest(*args, *WITHOUT)
    assert ours.ret == plain.ret == pytest.ExitCode.USAGE_ERROR
    assert ours.errlines == plain.errlines


def test_same_mark_keys(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_m="""
        import pytest

        @pytest.mark.probability(max_errors=1)
        def bench_a():
            pass
        """
    )
    ours = pytester.runpytest()
    plain = pytester.runpytest(*WITHOUT)
    message = [line for line in ours.outlines if "unknown probability mark argument" in line]
    assert message
    assert message == [line for line in plain.outlines if "unknown probability" in line]


@pytest.mark.parametrize(
    ("args", "registered"),
    [
        ([], ""),
        (["--example-summary"], ""),
        (["--example-names"], "probability.example.names"),
        (["--example-max-errors=2"], "probability.example.gate"),
        (
            ["--example-names", "--example-max-errors=2"],
            "probability.example.gate probability.example.names",
        ),
    ],
)
def test_plugins_registered_only_when_asked(
    suite: pytest.Pytester, args: list[str], registered: str
) -> None:
    suite.makeconftest(REGISTERED)
    result = suite.runpytest("-s", "--prob-runs=2", *args)
    assert f"registered: probability.example {registered}".rstrip() in result.outlines


# pytest 7.4's own old-style helpconfig wrapper re-raises argparse's error for the blocked
# extension's flag, and pluggy >= 1.4 warns about that (pytest 8 has no such wrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
def test_disabled_with_p_no(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_summary = true\n")
    result = suite.runpytest("--prob-runs=2", *WITHOUT)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not any("probability: example" in line for line in result.outlines)
    for flag in ("--example-summary", "--example-names", "--example-max-errors=1"):
        result = suite.runpytest(flag, *WITHOUT)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert f"unrecognized arguments: {flag}" in result.stderr.str()


def test_not_loaded_without_the_kernel(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    pytester.makeini("[pytest]\nexample_summary = true\n")
    result = pytester.runpytest("-p", "no:probability")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1)


def test_bad_switch_value_is_a_usage_error(suite: pytest.Pytester) -> None:
    suite.makeini("[pytest]\nexample_names = maybe\n")
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: ini option example_names=maybe: expected true or false, got 'maybe'"
    )


def test_help_lists_the_options(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*--example-names*add the interval method jeffreys*",
            "*--example-summary*add the probability: example section*",
            "*--example-max-errors=N",
            "*gate every case on its errored runs*",
        ]
    )
