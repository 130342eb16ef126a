"""A registration hook that fails is one usage error before anything runs, whatever it
raises (``core/registering.py``).

Every registry an extension fills through a historic ``pytest_prob_register_*`` hook turns
a ``ValueError`` into ``registering WHAT failed: MESSAGE`` (tested with each registry);
any other exception, a bug in the plugin, was an INTERNALERROR, a collection error with
our traceback (gate kinds) or a failed report section after every run had been made
(interval methods). Now it is ``registering WHAT failed: TYPE: MESSAGE (raised by
PLUGIN's HOOK)``, before the first run.
"""

from __future__ import annotations

import pytest

#: hook → what the message calls its registry
REGISTRIES = {
    "pytest_prob_register_metrics": "metrics",
    "pytest_prob_register_comparison_tests": "a comparison test",
    "pytest_prob_register_p_adjustments": "a p adjustment",
    "pytest_prob_register_gates": "gate kinds",
    "pytest_prob_register_stopping_rules": "stopping rules",
    "pytest_prob_register_interval_methods": "interval methods",
    "pytest_prob_register_latency_methods": "latency methods",
}

BENCH = """
import pytest


@pytest.mark.parametrize("q", ["a", "b"])
def bench_x(q):
    assert q
"""

#: (the hook's body, the message after the registry's name)
BODIES = {
    "raises": ('raise TypeError("boom")', "TypeError: boom"),
    "bad-call": ("register()", "TypeError: "),
    "key-error": ('{}["missing"]', "KeyError: 'missing'"),
}


@pytest.mark.parametrize("body", sorted(BODIES))
@pytest.mark.parametrize("hook", sorted(REGISTRIES))
def test_any_exception_in_a_registration_is_one_usage_error(
    pytester: pytest.Pytester, hook: str, body: str
) -> None:
    code, message = BODIES[body]
    pytester.makeconftest(f"def {hook}(register, config):\n    {code}\n")
    pytester.makepyfile(bench_x=BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=2", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    (line,) = [line for line in result.errlines if line.startswith("ERROR:")]
    conftest = pytester.path / "conftest.py"
    head = f"ERROR: registering {REGISTRIES[hook]} failed: {message}"
    assert line.startswith(head), line
    assert line.endswith(f" (raised by {conftest}'s {hook})"), line
    everything = result.outlines + result.errlines
    assert not any("Traceback" in text or "INTERNALERROR" in text for text in everything)
    assert not any("passed" in text for text in result.outlines)  # nothing ran


@pytest.mark.parametrize("hook", ["pytest_prob_register_metrics", "pytest_prob_register_gates"])
def test_a_plugins_own_usage_error_passes_through(pytester: pytest.Pytester, hook: str) -> None:
    pytester.makeconftest(
        "import pytest\n\n"
        f"def {hook}(register, config):\n"
        '    raise pytest.UsageError("set MY_KEY before registering")\n'
    )
    pytester.makepyfile(bench_x=BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=2", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: set MY_KEY before registering" in result.errlines


def test_the_plugin_is_found_in_the_traceback_of_a_deeper_failure() -> None:
    from pytest_probability.contracts.registering import describe

    class Impl:
        def __init__(self, function: object) -> None:
            self.function, self.plugin_name = function, "my-plugin"

    def helper() -> None:
        raise RuntimeError("deep")

    def hookimpl(register: object, config: object) -> None:
        helper()

    class Hook:
        name = "pytest_prob_register_x"

        def get_hookimpls(self) -> list[Impl]:
            return [Impl(hookimpl)]

    try:
        hookimpl(None, None)
    except RuntimeError as exc:
        found = describe(exc, Hook())
    assert found == "RuntimeError: deep (raised by my-plugin's pytest_prob_register_x)"
    assert describe(RuntimeError("x"), object()) == "RuntimeError: x"
