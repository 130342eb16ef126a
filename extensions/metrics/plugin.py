"""The ``metrics`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_probability.api import CaseResult, OptionRegistry, ReportBuilder, Results

    from .registry import ChosenMetric, MetricCase, Metrics
    from .summary import MetricLine

STATE_KEY = pytest.StashKey["Metrics"]()
PENDING_KEY = pytest.StashKey["PendingMetrics"]()
SECTION_ORDER = 90
#: used when the intervals extension (which owns these settings) is disabled
DEFAULTS = {"confidence": 0.95, "min_inputs": 10, "bootstrap": 5000, "seed": 0}


class MetricWarning(pytest.PytestWarning):
    """A metric raised or returned a value outside [0, 1]; its lines are marked."""


class PendingMetrics:
    """The registry before its first use: the ``register`` callback given to the historic
    hook when ``pytest_configure`` leaves the registry to first use (only this extension
    implements the hook then). The bundled registrations are kept as they come; the
    registry is built from them by :func:`metrics_of`, or as soon as a plugin registered
    later (a conftest in a subdirectory) calls ``register``, so its metrics land after the
    bundled ones and a broken one raises at its registration, as with a registry filled at
    ``pytest_configure``."""

    def __init__(self, stash: pytest.Stash) -> None:
        self.stash = stash
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        #: set once the ``pytest_configure`` call of the hook returned
        self.recording = True

    def register(self, *args: Any, **kwargs: Any) -> None:
        if self.recording:
            self.calls.append((args, kwargs))
        else:
            self.build().register(*args, **kwargs)

    def build(self) -> Metrics:
        """The registry with the kept registrations (built once, then stashed)."""
        found = self.stash.get(STATE_KEY, None)
        if found is None:
            from .registry import Metrics

            found = self.stash[STATE_KEY] = Metrics()
            for args, kwargs in self.calls:
                found.register(*args, **kwargs)
        return found


def metrics_of(config: pytest.Config) -> Metrics:
    """The registered metrics (filled through the historic hook on first use)."""
    found = config.stash.get(STATE_KEY, None)
    if found is None:
        pending = config.stash.get(PENDING_KEY, None)
        if pending is not None:
            return pending.build()
        from .registry import Metrics

        found = config.stash[STATE_KEY] = Metrics()
        from pytest_probability.api import call_registrations

        call_registrations(
            config.hook.pytest_prob_register_metrics,
            {"register": found.register, "config": config},
            "metrics",
        )
    return found


def parse_metrics(value: Any, config: pytest.Config) -> tuple[ChosenMetric, ...]:
    return metrics_of(config).parse(value)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare ``--prob-metric`` / ``prob_metric``. Called by the kernel's historic hook;
    returns nothing."""
    options.add(
        "metric",
        parse=parse_metrics,
        with_config=True,
        cli="--prob-metric",
        ini="prob_metric",
        metavar="M",
        repeatable=True,
        help="also report pass^K (all K runs of an input pass: reliability) and/or pass@K "
        "(at least one of K passes: best-of-K); comma-separated, repeatable",
        owner="metrics",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Fill the registry now when another plugin implements the registration hook, so a
    broken registration is a usage error before anything runs; ``--prob-metric`` and
    ``prob_metric`` have filled it already (the kernel's ``pytest_configure`` parses them).
    Otherwise only the bundled families would be registered: they are kept, and the registry
    (``registry``, the estimators) is built on first use. Called once per process; returns
    nothing."""
    if STATE_KEY in config.stash:
        return
    import sys

    hook = config.hook.pytest_prob_register_metrics
    bundled = sys.modules[__name__]
    if any(impl.plugin is not bundled for impl in hook.get_hookimpls()):
        metrics_of(config)
        return
    pending = config.stash[PENDING_KEY] = PendingMetrics(config.stash)
    hook.call_historic(kwargs={"register": pending.register, "config": config})
    pending.recording = False


# tryfirst: its own entries lead its registry, however late it registers (on use)
@pytest.hookimpl(tryfirst=True)
def pytest_prob_register_metrics(register: Any, config: pytest.Config) -> None:
    """Register the bundled families ``pass^`` and ``pass@``. Called once per session;
    returns nothing."""
    register(
        "pass^",
        _pass_hat,
        family=True,
        description="all K runs of an input pass (reliability)",
    )
    register(
        "pass@",
        _pass_at,
        family=True,
        description="at least one of K runs passes (best-of-K)",
    )


def _pass_hat(case: MetricCase, k: int) -> float:
    from .estimators import pass_hat_k

    return pass_hat_k(case.passes, case.runs, k)


def _pass_at(case: MetricCase, k: int) -> float:
    from .estimators import pass_at_k

    return pass_at_k(case.passes, case.runs, k)


def metric_case(case: CaseResult) -> MetricCase:
    """A case as metrics see it: judged outcomes in run order (skipped runs left out)."""
    from pytest_probability.api import SKIP

    from .registry import MetricCase

    return MetricCase(
        case.case_id,
        tuple(r["outcome"] for r in case.ordered_records() if r["outcome"] != SKIP),
    )


def _setting(config: pytest.Config, name: str) -> Any:
    from pytest_probability.api import options_of

    options = options_of(config)
    return options.session_value(name) if name in options.specs else DEFAULTS[name]


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute ``rows[].metrics``, the ``probability: metrics`` section and the top-level
    ``metrics`` object when ``--prob-metric`` is given. Called once in the aggregating
    process; returns nothing."""
    from pytest_probability.api import option_value

    chosen: tuple[ChosenMetric, ...] | None = option_value(config, "metric")
    if not chosen:
        return
    import warnings

    from .summary import OVERALL, Bootstrap, MetricLine, render, summarize

    bootstrap = Bootstrap(
        min_inputs=_setting(config, "min_inputs"),
        resamples=_setting(config, "bootstrap"),
        seed=_setting(config, "seed"),
        level=_setting(config, "confidence"),
    )
    cases = [case for case in results.cases() if case.total > 0]
    groups: dict[tuple[str, str], list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault((case.module, case.label), []).append(index)
    labels = [label for _, label in groups]
    views = [metric_case(case) for case in cases]
    values: dict[str, list[float | None]] = {}
    failed: dict[str, str] = {}
    for metric in chosen:
        try:
            values[metric.label] = [metric.value(view) for view in views]
        except Exception as exc:  # a metric's bug must not lose the report
            failed[metric.label] = f"{type(exc).__name__}: {exc}"
            warnings.warn(
                MetricWarning(f"metric {metric.label!r} failed: {failed[metric.label]}"),
                stacklevel=2,
            )
    for index, case in enumerate(cases):
        report.add_row_json(
            case.key,
            {"metrics": {m: values[m][index] if m in values else None for m in _labels(chosen)}},
        )
    lines: list[MetricLine] = []
    scopes = [
        *(
            (label if labels.count(label) == 1 else f"{module}::{label}", members)
            for (module, label), members in groups.items()
        ),
    ]
    if len(groups) > 1:  # one function: its lines already are the whole session
        scopes.append((OVERALL, list(range(len(cases)))))
    for scope, members in scopes:
        # (the stopping extension's note when some of the cases were stopped early)
        hidden = config.hook.pytest_prob_hide_interval(
            cases=[cases[i] for i in members], config=config
        )
        for metric in chosen:
            if metric.label in failed:
                lines.append(MetricLine(scope, metric.label, 0, None, error=failed[metric.label]))
                continue
            picked = [values[metric.label][i] for i in members]
            ids = [cases[i].case_id for i in members]
            lines.append(summarize(scope, metric, picked, bootstrap, hidden, case_ids=ids))
    report.add_section("metrics", render(lines), order=SECTION_ORDER)
    report.set_json(
        "metrics",
        {"metrics": _labels(chosen), "lines": [line.to_json() for line in lines]},
    )


def _labels(chosen: tuple[ChosenMetric, ...]) -> list[str]:
    return [metric.label for metric in chosen]


def pytest_prob_explain(report: ReportBuilder, results: Results, config: pytest.Config) -> list:
    """Read the metric lines. Called once in the aggregating process by the explain
    extension; returns the readings."""
    from .explain import readings

    return readings(report)


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings :func:`pytest_prob_explain` would give, counted without
    building them. Called once in the aggregating process, only without
    ``--prob-explain``; returns the count."""
    from .explain import count

    return count(report)
