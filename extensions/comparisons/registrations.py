"""The session's registries of comparison tests and p adjustments, per config: filled
through the registration hooks (:mod:`.hookspecs`) on first use, or at
``pytest_configure`` when that can matter, or when a plugin registered later implements a
registration hook (:class:`Registries`). The settings that name an entry
(``compare_test``, ``adjust``) are checked against them.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import pytest

from .registry import Named

#: the hooks that fill the registries
TESTS_HOOK = "pytest_prob_register_comparison_tests"
ADJUSTMENTS_HOOK = "pytest_prob_register_p_adjustments"

REGISTRIES_KEY = pytest.StashKey["Registries"]()


class Registries:
    """A config's two registries, each filled the first time it is asked for."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._tests: Named | None = None
        self._adjustments: Named | None = None

    def tests(self) -> Named:
        if self._tests is None:
            self._tests = Named("comparison test")
            self._register(TESTS_HOOK, self._tests)
        return self._tests

    def adjustments(self) -> Named:
        if self._adjustments is None:
            self._adjustments = Named("p adjustment")
            self._register(ADJUSTMENTS_HOOK, self._adjustments)
        return self._adjustments

    def registered_late(self, plugin: object) -> None:
        """Fill the registries not filled yet because ``plugin``, registered after
        ``pytest_configure`` left them to their first use, implements a registration hook:
        as if they had been filled at ``pytest_configure`` and ``plugin`` registered
        afterwards. The other implementations are called first, then ``plugin``'s, as pluggy
        applies a historic call to an implementation registered after it, so the names
        keep that order and ``plugin``'s errors propagate from its registration as they
        are."""
        if self._tests is None:
            self._tests = Named("comparison test")
            self._register(TESTS_HOOK, self._tests, late=plugin)
        if self._adjustments is None:
            self._adjustments = Named("p adjustment")
            self._register(ADJUSTMENTS_HOOK, self._adjustments, late=plugin)

    def _register(self, hook_name: str, registry: Named, late: object = None) -> None:
        hook = getattr(self.config.hook, hook_name)
        kwargs = {"register": registry.register, "config": self.config}
        first = hook
        if late is not None:  # the call recorded for later plugins, without ``late``'s part
            first = self.config.pluginmanager.subset_hook_caller(hook_name, [late])
        from pytest_probability.api import call_registrations

        call_registrations(first, kwargs, f"a {registry.what}")
        if first is not hook:  # then ``late``'s part, as on its registration
            for impl in hook.get_hookimpls():
                if impl.plugin is late:
                    impl.function(*(kwargs[name] for name in impl.argnames))


def registries_of(config: pytest.Config) -> Registries:
    found = config.stash.get(REGISTRIES_KEY, None)
    if found is None:
        found = config.stash[REGISTRIES_KEY] = Registries(config)
    return found
