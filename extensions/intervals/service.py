"""Services of the ``intervals`` extension for other extensions (no hook call per number).

``IntervalMethods`` is the registry of row interval methods (one per config: the bundled
methods, then those registered through the historic hook, by ``interval_methods``);
``interval(config, passes, total, ...)`` resolves a case's method, level and prior with the
kernel's precedence (mark > CLI > ini > default) and computes through the registry. The
statistics functions are re-exported (the special functions and the resampling tools from
the public API, where other extensions take them).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pytest_probability.api import (
    Interval,
    beta_ppf,
    betainc,
    betaincc,
    binom_cdf,
    binom_pmf,
    binom_sf,
    binomial_variate,
    bootstrap_mean_interval,
    bootstrap_means,
    case_bootstrap_interval,
    case_mean,
    filled_registry,
    norm_ppf,
    options_of,
    quantile_type7,
)
from pytest_probability.api import bayes_interval as bayes
from pytest_probability.api import clopper_pearson_interval as clopper_pearson
from pytest_probability.api import wilson_interval as wilson

__all__ = [
    "BOOTSTRAP_METHOD_CHOICES",
    "Interval",
    "IntervalMethods",
    "Settings",
    "bayes",
    "beta_ppf",
    "betainc",
    "betaincc",
    "binom_cdf",
    "binom_pmf",
    "binom_sf",
    "binomial_variate",
    "bootstrap_mean_interval",
    "bootstrap_means",
    "case_bootstrap_interval",
    "case_mean",
    "case_method",
    "clopper_pearson",
    "interval",
    "interval_methods",
    "norm_ppf",
    "quantile_type7",
    "settings",
    "wilson",
]

Compute = Callable[[int, int, float, tuple[float, float]], tuple[float, float]]
#: ``--prob-bootstrap-method``: ``auto``, then the methods of ``bootstrap_mean_interval``.
BOOTSTRAP_METHOD_CHOICES = ("auto", "expanded", "bca", "percentile")


def case_method(setting: str) -> str:
    """The case bootstrap's method for a ``--prob-bootstrap-method`` setting: ``auto`` is
    ``percentile`` (the method of the spec's function-level and metric examples)."""
    return "percentile" if setting == "auto" else setting


NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class IntervalMethod:
    """A registered method: ``compute(passes, total, level, prior) -> (low, high)``."""

    name: str
    compute: Compute
    description: str = ""
    uses_prior: bool = False
    #: a short word printed after the method's row intervals (``seq``), or ``""``
    tag: str = ""


class IntervalMethods:
    """Interval methods by name, in registration order."""

    def __init__(self) -> None:
        self._methods: dict[str, IntervalMethod] = {}

    def register(
        self,
        name: str,
        compute: Compute,
        *,
        description: str = "",
        uses_prior: bool = False,
        tag: str = "",
    ) -> None:
        """Add a method (the ``register`` callback of the registration hook)."""
        if not name or not set(name) <= NAME_CHARS:
            raise ValueError(
                f"interval method name {name!r} must be lowercase letters, digits, '-' or '_'"
            )
        if name in self._methods:
            raise ValueError(f"interval method {name!r} is registered twice")
        self._methods[name] = IntervalMethod(name, compute, description, uses_prior, tag)

    def check(self, name: object) -> str:
        """``name`` when registered, else :class:`ValueError` listing the registered names."""
        text = str(name).strip()
        if text not in self._methods:
            raise ValueError(
                f"unknown interval method {text!r}; registered: {', '.join(self._methods)}"
            )
        return text

    def get(self, name: str) -> IntervalMethod:
        return self._methods[self.check(name)]

    def compute(
        self, name: str, passes: int, total: int, level: float, prior: Sequence[float]
    ) -> Interval:
        """The method's interval, checked: finite, ordered, inside [0, 1]."""
        method = self.get(name)
        low, high = method.compute(passes, total, level, (float(prior[0]), float(prior[1])))
        low, high = float(low), float(high)
        if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low <= high <= 1.0):
            raise ValueError(
                f"interval method {name!r} returned ({low!r}, {high!r}) for {passes}/{total}; "
                "expected 0 ≤ low ≤ high ≤ 1"
            )
        return Interval(low, high)


METHODS_KEY = pytest.StashKey[IntervalMethods]()


def bundled_methods() -> IntervalMethods:
    """A registry holding the bundled ``exact``, ``wilson`` and ``bayes``, which lead it."""
    methods = IntervalMethods()
    methods.register(
        "exact",
        lambda x, n, level, prior: bounds(clopper_pearson(x, n, level)),
        description="Clopper-Pearson exact binomial interval",
    )
    methods.register(
        "wilson",
        lambda x, n, level, prior: bounds(wilson(x, n, level)),
        description="Wilson score interval",
    )
    methods.register(
        "bayes",
        lambda x, n, level, prior: bounds(bayes(x, n, level, prior)),
        description="equal-tailed Beta credible interval (prior prob_prior or prior=)",
        uses_prior=True,
    )
    return methods


def bounds(found: Interval) -> tuple[float, float]:
    """An interval as the ``(low, high)`` a method returns."""
    return found.low, found.high


def interval_methods(config: pytest.Config) -> IntervalMethods:
    """The session's method registry: the bundled methods, then those registered through the
    historic hook, filled on first use (the kernel fills it at ``pytest_configure`` when a
    plugin that is not bundled registers methods, without loading this extension's plugin)."""
    return filled_registry(
        config,
        METHODS_KEY,
        bundled_methods,
        config.hook.pytest_prob_register_interval_methods,
        "interval methods",
    )


@dataclass(frozen=True)
class Settings:
    """How one case's interval is computed."""

    method: str
    level: float
    prior: tuple[float, float]


def settings(config: pytest.Config, mark: Mapping[str, Any] | None = None) -> Settings:
    """A case's settings: its mark's ``method``/``confidence``/``prior``, else the session's."""
    options = options_of(config)
    mark = mark or {}
    prior = options.case_value("prior", mark)
    return Settings(
        method=options.case_value("method", mark),
        level=options.case_value("confidence", mark),
        prior=(float(prior[0]), float(prior[1])),
    )


def interval(
    config: pytest.Config,
    passes: int,
    total: int,
    *,
    method: str | None = None,
    level: float | None = None,
    prior: Sequence[float] | None = None,
    mark: Mapping[str, Any] | None = None,
) -> Interval:
    """The interval for ``passes`` of ``total`` with a case's settings, overridden by any
    argument given."""
    base = settings(config, mark)
    return interval_methods(config).compute(
        method or base.method,
        passes,
        total,
        base.level if level is None else level,
        base.prior if prior is None else prior,
    )
