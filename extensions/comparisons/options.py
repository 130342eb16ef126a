"""The comparison settings: ``compare``, ``baseline``, ``margin``, ``equivalence``,
``compare_test`` and ``adjust``, their parsers, and (declared with them) the sequential and
the baseline settings.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_probability.api import parse_bool, parse_points

from .baseline.options import add_options as add_regression_options
from .sequential.options import add_options as add_sequential_options

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import OptionRegistry

#: the bundled comparison test's name (the default ``compare_test``)
PAIRED = "paired"
#: the per-function mark keys of a comparison (every case of a function must agree on them)
FUNCTION_KEYS = ("compare", "baseline", "margin", "equivalence", "compare_test")


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
    """``True`` or ``False`` (a mark argument)."""
    if isinstance(value, bool):
        return value
    return parse_bool(value)


def parse_test(value: Any, config: pytest.Config) -> str:
    """A registered comparison test's name."""
    from .registrations import registries_of

    return registries_of(config).tests().check(value)


def parse_adjust(value: Any, config: pytest.Config) -> str:
    """A registered p adjustment's name."""
    from .registrations import registries_of

    return registries_of(config).adjustments().check(value)


def add_options(options: OptionRegistry) -> None:
    """Declare the comparison settings (with the sequential and the baseline ones)."""
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
        parse=parse_test,
        with_config=True,
        default=PAIRED,
        ini="prob_compare_test",
        mark=True,
        help="comparison test (default paired: Newcombe/Fisher, sign-flip, paired bootstrap)",
        owner=owner,
    )
    options.add(
        "adjust",
        parse=parse_adjust,
        with_config=True,
        default="none",
        cli="--prob-adjust",
        ini="prob_adjust",
        metavar="M",
        help="adjust comparison p-values: none (exploratory), holm, bonferroni, bh",
        owner=owner,
    )
    add_sequential_options(options)
    add_regression_options(options, parse_margin)
