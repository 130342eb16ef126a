"""Extensions register when the session needs them (issue 34 §3), as pytest registers
``stepwise`` or ``junitxml`` only when their option is set: a bundled extension's plugin is
registered when one of its settings is given (command line or ini file), or, with every
other bundled extension, when the first bench file is collected (before its items are made:
any extension may read their marks). Its hookspecs are added then, or as soon as a plugin
implementing one of its hooks registers; a plugin that is not bundled (a conftest, an
installed extension) implementing its hooks registers it too. The flags and ini keys come
from the catalog (``pytest_probability/bundled.json``; ``tests/test_catalog.py``).
"""

from __future__ import annotations

import pytest
from helpers import third_party_blocks
from pytest_probability import loader

BUNDLED = [name for name, _ in loader.BUNDLED]

#: a plugin that writes down, when the session ends, which bundled extensions registered
RECORDER = """
import json

def pytest_unconfigure(config):
    names = [n for n, p in config.pluginmanager.list_name_plugin() if p is not None]
    bundled = [n[len("probability."):] for n in names if n.startswith("probability.")]
    with open("registered.json", "w") as out:
        json.dump(bundled, out)
"""


def _registered(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, list[str]]:
    import json

    pytester.makepyfile(recorder=RECORDER)
    pytester.syspathinsert()
    result = pytester.runpytest("-p", "recorder", "-p", "no:randomly", *third_party_blocks(), *args)
    found = json.loads((pytester.path / "registered.json").read_text())
    return result, [name for name in found if name in BUNDLED]


def test_an_unrelated_session_registers_no_extension(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result, registered = _registered(pytester)
    result.assert_outcomes(passed=1)
    assert registered == []


@pytest.mark.parametrize(
    ("args", "ini", "extension"),
    [
        (("--prob-explain",), "", "explain"),
        (("--prob-failures=all",), "", "failures"),
        ((), "prob_html = page.html", "html"),
        (("--prob-budget=1",), "", "budget"),
    ],
    ids=["cli-flag", "cli-value", "ini", "budget"],
)
def test_a_setting_given_registers_exactly_its_extension(
    pytester: pytest.Pytester, args: tuple[str, ...], ini: str, extension: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result, registered = _registered(pytester, *args)
    result.assert_outcomes(passed=1)
    assert registered == [extension]


def test_a_setting_naming_a_registry_entry_brings_the_extensions_adding_to_it(
    pytester: pytest.Pytester,
) -> None:
    """``--prob-method=seq`` names the interval method the stopping extension registers:
    an extension turned on by a setting comes with those registering into its registries."""
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result, registered = _registered(pytester, "--prob-method=seq")
    result.assert_outcomes(passed=1)
    assert registered == ["intervals", "stopping"]


def test_a_bad_value_is_still_a_usage_error_naming_the_setting(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result = pytester.runpytest("--prob-confidence=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --prob-confidence=2: *"])
    result = pytester.runpytest("--prob-method=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --prob-method=nope: *unknown*"])


def test_the_first_bench_file_registers_every_extension_in_order(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_a="def test_a():\n    pass\n",
        bench_b="def bench_b():\n    pass\n",
    )
    result, registered = _registered(pytester, "--prob-runs=2")
    result.assert_outcomes(passed=3)  # (two runs and test_a)
    assert registered == BUNDLED


# pytest 7.4's own old-style helpconfig wrapper re-raises argparse's error for the blocked
# extension's flag, and pluggy >= 1.4 warns about that (pytest 8 has no such wrapper)
@pytest.mark.filterwarnings("ignore:A plugin raised an exception during an old-style hookwrapper")
def test_a_blocked_extension_stays_out_and_so_do_its_settings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_b="def bench_b():\n    pass\n")
    result, registered = _registered(pytester, "-p", "no:probability.explain")
    result.assert_outcomes(passed=1)
    assert registered == [name for name in BUNDLED if name != "explain"]
    result = pytester.runpytest("-p", "no:probability.explain", "--prob-explain")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --prob-explain*"])


CONFTEST_OF_A_BLOCKED_EXTENSION = """
def pytest_prob_row_status(case, config):
    return None

def pytest_prob_html_panels(report, config):
    return []
"""


def test_a_conftest_implementing_hooks_of_unregistered_extensions(
    pytester: pytest.Pytester,
) -> None:
    """The conftest's hooks get their specs (pytest would abort after collection on a hook
    without one), also for a blocked extension; a hook that fills no registry (a report
    panel) registers nothing: the extension registers when the session needs it."""
    pytester.makeconftest(CONFTEST_OF_A_BLOCKED_EXTENSION)
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result, registered = _registered(pytester, "-p", "no:probability.fractions")
    result.assert_outcomes(passed=1)
    assert registered == []
    result, registered = _registered(
        pytester, "-p", "no:probability.fractions", "-p", "no:probability.html"
    )
    result.assert_outcomes(passed=1)
    assert registered == []


@pytest.mark.parametrize(
    ("hook", "registration", "expected"),
    [
        ("pytest_prob_register_metrics", '"mine", lambda case, k: 0.5', []),
        ("pytest_prob_register_interval_methods", '"mine", lambda x, n, level, p: (0, 1)', []),
        ("pytest_prob_register_gates", '"mine", configure=None, judge=None', ["gates"]),
    ],
    ids=["metrics", "intervals", "gates"],
)
def test_a_conftest_filling_a_registry_fills_it_at_start(
    pytester: pytest.Pytester, hook: str, registration: str, expected: list[str]
) -> None:
    """A registration hook fills its registry at start (a broken registration must stop
    even an unrelated session): through the extension's registry filler without loading
    its plugin (metrics, intervals), else by registering the extension (gates); the
    conftest's panel hook beside it registers nothing."""
    pytester.makeconftest(
        f"""
        import pathlib

        def {hook}(register, config):
            pathlib.Path("filled").write_text("yes")
            register({registration})

        def pytest_prob_html_panels(report, config):
            return []
        """
    )
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result, registered = _registered(pytester)
    result.assert_outcomes(passed=1)
    assert registered == expected
    assert (pytester.path / "filled").read_text() == "yes"


def test_help_lists_every_setting_of_every_extension(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    for entry in loader.catalog():
        for option in entry["options"]:
            for key in (option["cli"], option["ini"]):
                assert key is None or key in text, key


def test_an_extension_registered_early_still_brings_the_extensions_adding_to_it(
    pytester: pytest.Pytester,
) -> None:
    """A rootdir conftest implementing the interval methods' registration registers the
    ``intervals`` extension before the command line is read; ``--prob-method`` then still
    registers ``stopping``, whose ``seq`` method the value may name."""
    pytester.makeconftest(
        """
        def pytest_prob_register_interval_methods(register, config):
            register("mine", lambda passes, total, level, prior: (0.0, 1.0))
        """
    )
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("-p", "no:randomly", *third_party_blocks(), "--prob-method=nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-method=nope: unknown interval method 'nope'; "
        "registered: exact, wilson, bayes, mine, seq"
    )
