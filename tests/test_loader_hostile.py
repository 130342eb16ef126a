"""Hostile or careless third-party extensions are contained (issue 21 §4): an unknown
``pytest_prob_*`` hook, ``sys.exit()`` or ``KeyboardInterrupt`` at import, and a bundled
extension's name each end the session with one usage error naming the extension and its
``-p no:`` flag, never an INTERNALERROR or a traceback."""

from __future__ import annotations

import pytest
from helpers import SPEC_BENCH, section
from test_loader import install_fake_extension

UNKNOWN_HOOK = """
def pytest_prob_no_such_hook(config):
    return None

def pytest_prob_build_report(report, results, config):
    pass
"""
#: the same hook marked optional: pluggy accepts it without a specification
OPTIONAL_HOOK = """
import pytest

@pytest.hookimpl(optionalhook=True)
def pytest_prob_hook_of_an_absent_extension(config):
    return None
"""
#: a hook declared by another third-party extension is known once both are loaded
DECLARES = """
import pluggy

hookspec = pluggy.HookspecMarker("pytest")

class Specs:
    @hookspec
    def pytest_prob_declared_elsewhere(self, config):
        '''A hook another extension declares.'''

def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(Specs)
"""
IMPLEMENTS = """
def pytest_prob_declared_elsewhere(config):
    return None
"""


def _usage_error(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "Traceback" not in output
    return " ".join(result.errlines)


def test_an_unknown_hook_is_a_usage_error_naming_the_extension(pytester: pytest.Pytester) -> None:
    install_fake_extension(pytester.path, "typo", "typo_ext", UNKNOWN_HOOK)
    pytester.makepyfile(test_plain="def test_unrelated():\n    pass\n")
    message = _usage_error(pytester.runpytest_subprocess())
    assert (
        "pytest-probability extension 'typo' (entry point 'typo_ext' from fake-typo) implements "
        "pytest_prob_no_such_hook, which no installed extension declares"
    ) in message
    assert "-p no:probability.typo to disable it." in message
    escaped = pytester.runpytest_subprocess("-p", "no:probability.typo")
    escaped.assert_outcomes(passed=1)


def test_optional_and_declared_hooks_are_fine(pytester: pytest.Pytester) -> None:
    install_fake_extension(pytester.path, "optional", "optional_ext", OPTIONAL_HOOK)
    install_fake_extension(pytester.path, "user", "user_ext", IMPLEMENTS)
    install_fake_extension(pytester.path, "declarer", "declarer_ext", DECLARES)
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    result = pytester.runpytest_subprocess()
    assert section(result.outlines)[-1] == "  Overall: 4/5 passed (80%)"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("import sys\nsys.exit(3)\n", "it called sys.exit(3) while loading"),
        ("raise SystemExit\n", "it called sys.exit(None) while loading"),
        ("raise KeyboardInterrupt\n", "KeyboardInterrupt raised while loading"),
    ],
)
def test_exit_or_interrupt_at_import_is_a_usage_error(
    pytester: pytest.Pytester, source: str, reason: str
) -> None:
    install_fake_extension(pytester.path, "quitter", "quitter_ext", source)
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    message = _usage_error(pytester.runpytest_subprocess())
    assert (
        f"pytest-probability extension 'quitter' (entry point 'quitter_ext' from fake-quitter) "
        f"failed to load: {reason}. Fix or uninstall it, or run pytest with "
        "-p no:probability.quitter to disable it."
    ) in message
    result = pytester.runpytest_subprocess("-p", "no:probability.quitter")
    assert section(result.outlines)[-1] == "  Overall: 4/5 passed (80%)"


@pytest.mark.parametrize("name", ["cost", "kernel", "budget.session"])
def test_a_bundled_name_is_a_usage_error(pytester: pytest.Pytester, name: str) -> None:
    install_fake_extension(pytester.path, name, "impostor_ext", "def pytest_prob_foo(): pass\n")
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    message = _usage_error(pytester.runpytest_subprocess())
    assert (
        f"pytest-probability extension {name!r} (entry point 'impostor_ext' from fake-{name}) "
        f"has the name of a pytest-probability bundled extension (probability.{name}). "
        f"Rename its entry point or uninstall it; -p no:probability.{name} disables both."
    ) in message
