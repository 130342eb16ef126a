"""The comparison settings — ``compare``, ``baseline``, ``margin``, ``equivalence``,
``compare_test``, ``adjust``, the sequential comparisons' resolution and the baseline
regression's options — and the session's registries of comparison tests and p adjustments
that ``compare_test`` and ``adjust`` name.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pytest_probability.api import (
    OptionRegistry,
    filled_registry,
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
TESTS_KEY = pytest.StashKey[Named]()
ADJUSTMENTS_KEY = pytest.StashKey[Named]()


def sequential_mode(config: Any) -> bool:
    """``--prob-stop=sequential`` (with the stopping extension loaded)."""
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
    """A margin of at least 0 and below 1 (``2`` gets a did-you-mean for ``0.02``); ``0``
    means "must show no drop"."""
    return parse_points(
        value, expected="a margin of at least 0 and below 1 such as 0.02 for 2 points"
    )


#: the designs of a monitored comparison (``compare_sequential``)
DESIGNS = ("horizon", "anytime")


def parse_design(value: Any) -> str:
    """``horizon`` or ``anytime``."""
    text = str(value).strip().lower() if isinstance(value, str) else ""
    if text not in DESIGNS:
        raise ValueError(f"expected one of {', '.join(DESIGNS)}, got {value!r}")
    return text


def add_options(options: OptionRegistry) -> None:
    add = functools.partial(options.add, owner="comparisons")
    add(
        "compare",
        parse=parse_axis,
        cli="--prob-compare",
        ini="prob_compare",
        mark=True,
        metavar="AXIS",
        help="compare values of parametrize argument AXIS to the first",
    )
    add(
        "compare_baseline",
        parse=lambda value: value,
        mark="baseline",
        help="the axis value the others are compared with (default: the first)",
    )
    add(
        "margin",
        parse=parse_margin,
        mark=True,
        help="make the comparison a gate: an arm may be at most MARGIN worse",
    )
    add(
        "equivalence",
        parse=parse_bool,
        default=False,
        mark=True,
        help="with margin=: the arm must be within ±MARGIN of the baseline",
    )
    add(
        "compare_test",
        parse=lambda value, config: tests_of(config).check(value),
        with_config=True,
        default=PAIRED,
        ini="prob_compare_test",
        mark=True,
        help="comparison test (default paired)",
    )
    add(
        "adjust",
        parse=lambda value, config: adjustments_of(config).check(value),
        with_config=True,
        default="none",
        cli="--prob-adjust",
        ini="prob_adjust",
        metavar="M",
        help="p-value adjustment: none (default), holm, bonferroni, bh",
    )
    add(
        "compare_resolution",
        parse=functools.partial(
            parse_points, expected="a width of at least 0 and below 1 such as 0.05 for 5 points"
        ),
        default=0.05,
        cli="--prob-compare-resolution",
        ini="prob_compare_resolution",
        metavar="WIDTH",
        help="settle sequential comparisons below WIDTH (default 0.05)",
    )
    add(
        "compare_sequential",
        parse=parse_design,
        default="horizon",
        cli="--prob-compare-sequential",
        ini="prob_compare_sequential",
        metavar="DESIGN",
        help="sequential comparisons: horizon (default) or anytime",
    )
    add(
        "baseline_report",
        parse=str,
        cli="--prob-baseline",
        metavar="PATH",
        help="compare with an earlier JSON report or saved baseline",
    )
    add(
        "baseline_margin",
        parse=parse_margin,
        cli="--prob-margin",
        metavar="MARGIN",
        help="with --prob-baseline: fail pass-rate drops over MARGIN",
    )
    add(
        "save_baseline",
        parse=str,
        cli="--prob-save-baseline",
        metavar="PATH",
        help="write a compact TOML baseline of this session to PATH",
    )


def tests_of(config: pytest.Config) -> Named:
    """The session's comparison tests, filled through their historic hook on first use."""
    hook = config.hook.pytest_prob_register_comparison_tests
    return filled_registry(
        config, TESTS_KEY, lambda: Named("comparison test"), hook, "a comparison test"
    )


def adjustments_of(config: pytest.Config) -> Named:
    """The session's p adjustments, filled through their historic hook on first use."""
    hook = config.hook.pytest_prob_register_p_adjustments
    return filled_registry(
        config, ADJUSTMENTS_KEY, lambda: Named("p adjustment"), hook, "a p adjustment"
    )
