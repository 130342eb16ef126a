"""The metric registry: fixed names and parametric families (``pass^`` + K).

A metric turns one case's runs into a number in ``[0, 1]`` (or leaves the case out); the
extension averages it per function and overall. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MetricCase:
    """What a metric sees of one case: its judged outcomes in run order (``"pass"``,
    ``"fail"``, ``"error"``; skipped runs are not samples), and their counts."""

    case_id: str
    outcomes: tuple[str, ...]

    @property
    def runs(self) -> int:
        return len(self.outcomes)

    @property
    def passes(self) -> int:
        return self.outcomes.count("pass")


#: ``compute(case, parameter)`` → the case's value in [0, 1]; ``parameter`` is the family's
#: K (``None`` for a fixed name)
Compute = Callable[[MetricCase, "int | None"], float]


class RegisterMetric(Protocol):
    def __call__(
        self,
        name: str,
        compute: Compute,
        *,
        family: bool = False,
        min_runs: Callable[[int | None], int] | None = None,
        description: str = "",
        min_parameter: int = 1,
    ) -> None: ...


@dataclass(frozen=True)
class Metric:
    """A registered metric, or family of metrics (``pass^`` spelled ``pass^3``): the
    arguments of ``register`` (``pytest_prob_register_metrics``)."""

    name: str
    compute: Compute
    family: bool = False
    min_runs: Callable[[int | None], int] | None = None
    description: str = ""
    min_parameter: int = 1

    def spelled(self) -> str:
        return f"{self.name}K" if self.family else self.name


@dataclass(frozen=True)
class ChosenMetric:
    """One requested metric: ``pass^3`` is the ``pass^`` family with K = 3."""

    label: str
    metric: Metric
    parameter: int | None

    def needs(self) -> int:
        """The runs a case needs to be counted."""
        if self.metric.min_runs is not None:
            return max(1, int(self.metric.min_runs(self.parameter)))
        return self.parameter if self.parameter is not None else 1

    def value(self, case: MetricCase) -> float | None:
        """The case's value, or ``None`` when it has too few runs."""
        if case.runs < self.needs():
            return None
        value = float(self.metric.compute(case, self.parameter))
        if not 0.0 <= value <= 1.0:
            raise ValueError(
                f"metric {self.label!r} returned {value!r} for {case.case_id}; "
                "expected a number in [0, 1]"
            )
        return value


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_^@.-]*")
#: a family's K as written: a whole number, leading zeros allowed (``pass^02`` is ``pass^2``,
#: as ``--prob-runs=010`` is 10)
_PARAMETER = re.compile(r"[0-9]+")


class Metrics(dict[str, Metric]):
    """Registered metrics by name, in registration order."""

    def register(
        self,
        name: str,
        compute: Compute,
        *,
        family: bool = False,
        min_runs: Callable[[int | None], int] | None = None,
        description: str = "",
        min_parameter: int = 1,
    ) -> None:
        """Add a metric (the ``register`` callback of the registration hook)."""
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(
                f"metric name {name!r} must start with a letter and use letters, digits "
                "and _ ^ @ . -"
            )
        if name in self:
            raise ValueError(f"metric {name!r} is registered twice")
        if not callable(compute):
            raise ValueError(f"metric {name!r}: expected a callable, got {compute!r}")
        if isinstance(min_parameter, bool) or not isinstance(min_parameter, int):
            raise ValueError(f"metric {name!r}: min_parameter must be a whole number")
        self[name] = Metric(name, compute, family, min_runs, description, max(1, min_parameter))

    def accepted(self) -> str:
        """The accepted spellings, for error messages: ``pass^K, pass@K (K a whole
        number >= 1)``, or ``…, agree@K (K a whole number >= 1; >= 2 for agree@K)``."""
        forms = [metric.spelled() for metric in self.values()]
        families = [metric for metric in self.values() if metric.family]
        if not families:
            return ", ".join(forms)
        higher = [
            f">= {m.min_parameter} for {m.spelled()}" for m in families if m.min_parameter > 1
        ]
        rule = "K a whole number >= 1" if len(higher) < len(families) else "K a whole number"
        return ", ".join(forms) + f" ({'; '.join([rule, *higher])})"

    def choose(self, text: str) -> ChosenMetric:
        """A requested spelling, or :class:`ValueError` listing the accepted forms. A family's
        K is read as a whole number (``pass^02`` is ``pass^2``, and is labelled so); K = 0
        is not a metric."""
        label = text.strip()
        found = self.get(label)
        if found is not None and not found.family:
            return ChosenMetric(label, found, None)
        for metric in self.values():
            if metric.family and label.startswith(metric.name):
                rest = label[len(metric.name) :]
                if _PARAMETER.fullmatch(rest) and int(rest) > 0:
                    parameter = int(rest)
                    if parameter < metric.min_parameter:
                        raise ValueError(
                            f"metric {label!r}: {metric.name}K needs K >= "
                            f"{metric.min_parameter}; accepted: {self.accepted()}"
                        )
                    return ChosenMetric(f"{metric.name}{parameter}", metric, parameter)
        raise ValueError(f"unknown metric {label!r}; accepted: {self.accepted()}")

    def parse(self, value: str | Sequence[str]) -> tuple[ChosenMetric, ...]:
        """Comma- or space-separated spellings (duplicates kept once, in order)."""
        text = value if isinstance(value, str) else ",".join(value)
        chosen: list[ChosenMetric] = []
        for part in text.replace(",", " ").split():
            metric = self.choose(part)
            if all(other.label != metric.label for other in chosen):
                chosen.append(metric)
        if not chosen:
            raise ValueError(f"expected one or more metrics such as {self.accepted()}")
        return tuple(chosen)
