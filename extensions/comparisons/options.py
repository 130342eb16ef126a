"""The comparison settings — ``compare``, ``baseline``, ``margin``, ``equivalence``,
``compare_test``, ``adjust``, the sequential comparisons' resolution and the baseline
regression's options — and the session's registries of comparison tests and p adjustments
that ``compare_test`` and ``adjust`` name.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_probability.api import (
    OptionRegistry,
    call_registrations,
    options_of,
    parse_bool,
    parse_points,
)

from .registry import Named

#: the bundled comparison test's name (the default ``compare_test``)
PAIRED = "paired"
#: the per-function mark keys of a comparison (every case of a function must agree on them)
FUNCTION_KEYS = ("compare", "baseline", "margin", "equivalence", "compare_test")
#: the baseline regression's plugin name (registered only when one of its options is given)
REGRESSION = "probability.comparisons.baseline"
#: the hooks that fill the registries
TESTS_HOOK = "pytest_prob_register_comparison_tests"
ADJUSTMENTS_HOOK = "pytest_prob_register_p_adjustments"
REGISTRIES_KEY = pytest.StashKey["Registries"]()


def sequential_mode(config: Any) -> bool:
    """Whether ``--prob-stop=sequential`` is on (and the stopping extension loaded)."""
    options = options_of(config)
    return "stop" in options.specs and options.session_value("stop") == "sequential"


def parse_axis(value: Any) -> str:
    """A parametrize argument name."""
    text = str(value).strip() if isinstance(value, str) else ""
    if not text.isidentifier():
        raise ValueError(
            f"expected the name of a parametrize argument such as 'style', got {value!r}"
        )
    return text


def parse_margin(value: Any) -> float:
    """A margin of at least 0 and below 1; ``2`` gets a did-you-mean for ``0.02``. ``0``
    means "must show no drop": the difference's lower end must be above zero."""
    return parse_points(
        value, expected="a margin of at least 0 and below 1 such as 0.02 for 2 points"
    )


def parse_flag(value: Any) -> bool:
    return value if isinstance(value, bool) else parse_bool(value)


def parse_resolution(value: Any) -> float:
    """A width of at least 0 and below 1 (``5`` gets a did-you-mean for ``0.05``)."""
    return parse_points(
        value, expected="a width of at least 0 and below 1 such as 0.05 for 5 points"
    )


def add_options(options: OptionRegistry) -> None:
    owner = "comparisons"
    options.add(
        "compare",
        parse=parse_axis,
        cli="--prob-compare",
        ini="prob_compare",
        mark=True,
        metavar="AXIS",
        help="compare the values of parametrize argument AXIS, each against the first",
        owner=owner,
    )
    options.add(
        "compare_baseline",
        parse=lambda value: value,
        mark="baseline",
        help="the axis value the others are compared with (default: the first)",
        owner=owner,
    )
    options.add(
        "margin",
        parse=parse_margin,
        mark=True,
        help="make the comparison a gate: an arm may be at most MARGIN worse",
        owner=owner,
    )
    options.add(
        "equivalence",
        parse=parse_flag,
        default=False,
        mark=True,
        help="with margin=: the arm must be within ±MARGIN of the baseline",
        owner=owner,
    )
    options.add(
        "compare_test",
        parse=lambda value, config: registries_of(config).tests().check(value),
        with_config=True,
        default=PAIRED,
        ini="prob_compare_test",
        mark=True,
        help="comparison test (default paired: Newcombe/Fisher, sign-flip, paired bootstrap)",
        owner=owner,
    )
    options.add(
        "adjust",
        parse=lambda value, config: registries_of(config).adjustments().check(value),
        with_config=True,
        default="none",
        cli="--prob-adjust",
        ini="prob_adjust",
        metavar="M",
        help="adjust comparison p-values: none (exploratory), holm, bonferroni, bh",
        owner=owner,
    )
    options.add(
        "compare_resolution",
        parse=parse_resolution,
        default=0.05,
        cli="--prob-compare-resolution",
        ini="prob_compare_resolution",
        metavar="WIDTH",
        help="under --prob-stop=sequential: an exploratory comparison is settled once its "
        "interval is narrower than WIDTH (default 0.05, 5 points; 0: only once it leaves out "
        "zero)",
        owner=owner,
    )
    options.add(
        "baseline_report",
        parse=str,
        cli="--prob-baseline",
        metavar="PATH",
        help="compare every function with an earlier --prob-json report (or a saved "
        "baseline), pairing cases by id",
        owner=owner,
    )
    options.add(
        "baseline_margin",
        parse=parse_margin,
        cli="--prob-margin",
        metavar="MARGIN",
        help="with --prob-baseline: fail a function whose pass rate may have dropped by more "
        "than MARGIN",
        owner=owner,
    )
    options.add(
        "save_baseline",
        parse=str,
        cli="--prob-save-baseline",
        metavar="PATH",
        help="write a compact TOML baseline of this session (to commit and compare with)",
        owner=owner,
    )


class Registries:
    """A config's registries of comparison tests and p adjustments, each filled through its
    registration hook the first time it is asked for (or at ``pytest_configure`` when that
    can matter, or by :meth:`registered_late`)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._tests: Named | None = None
        self._adjustments: Named | None = None

    def tests(self) -> Named:
        if self._tests is None:
            self._tests = self._register(TESTS_HOOK, Named("comparison test"))
        return self._tests

    def adjustments(self) -> Named:
        if self._adjustments is None:
            self._adjustments = self._register(ADJUSTMENTS_HOOK, Named("p adjustment"))
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
            self._tests = self._register(TESTS_HOOK, Named("comparison test"), late=plugin)
        if self._adjustments is None:
            self._adjustments = self._register(ADJUSTMENTS_HOOK, Named("p adjustment"), late=plugin)

    def _register(self, hook_name: str, registry: Named, late: object = None) -> Named:
        hook = getattr(self.config.hook, hook_name)
        kwargs = {"register": registry.register, "config": self.config}
        first = hook
        if late is not None:  # the call recorded for later plugins, without ``late``'s part
            first = self.config.pluginmanager.subset_hook_caller(hook_name, [late])
        call_registrations(first, kwargs, f"a {registry.what}")
        if first is not hook:  # then ``late``'s part, as on its registration
            for impl in hook.get_hookimpls():
                if impl.plugin is late:
                    impl.function(*(kwargs[name] for name in impl.argnames))
        return registry


def registries_of(config: pytest.Config) -> Registries:
    found = config.stash.get(REGISTRIES_KEY, None)
    if found is None:
        found = config.stash[REGISTRIES_KEY] = Registries(config)
    return found
