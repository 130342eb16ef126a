"""The ``intervals`` extension's pytest hooks.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from pytest_probability.api import (
    CaseResult,
    OptionRegistry,
    Reading,
    ReportBuilder,
    Results,
    call_first,
    interval_cells,
    not_an_amount,
    options_of,
    parse_bool,
    parse_nonnegative_int,
    parse_positive_int,
    parse_probability,
    reading_percent,
)

from .aggregate import Aggregate, aggregate, render
from .service import BOOTSTRAP_METHOD_CHOICES, bounds, case_method, interval_methods, settings

#: ρ below which runs vary enough that more runs help most, and above which inputs do
LOW_RHO, HIGH_RHO = 0.3, 0.6
#: Most bootstrap resamples (``--prob-bootstrap``): each function-level, Overall, metric and
#: comparison interval draws this many, and a million already leaves a Monte Carlo error far
#: below the printed precision; 10^9 would hang the report phase after every run was made.
MAX_RESAMPLES = 1_000_000


def parse_prior(value: Any) -> tuple[float, float]:
    """``"a,b"`` (or a pair) of positive finite numbers: the Beta prior of ``bayes``."""
    parts = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    try:
        a, b = (float(part) for part in parts)
    except (TypeError, ValueError):
        a = b = 0.0
    if not (0 < a < float("inf") and 0 < b < float("inf")):
        raise ValueError(f"expected two positive numbers 'a,b' such as '1,1', got {value!r}")
    return a, b


def parse_resamples(value: Any) -> int:
    """A resample count: a whole number from 1 to :data:`MAX_RESAMPLES`."""
    number = parse_positive_int(value)
    if number > MAX_RESAMPLES:
        raise ValueError(f"expected a whole number from 1 to {MAX_RESAMPLES:,}, got {value!r}")
    return number


def parse_min_inputs(value: Any) -> int:
    """A whole number ≥ 2 (a bootstrap over one case says nothing)."""
    try:
        number = parse_positive_int(value)
    except ValueError:
        number = 0
    if number < 2:
        raise ValueError(f"expected a whole number of at least 2, got {value!r}")
    return number


def parse_bootstrap_method(value: Any) -> str:
    """``auto`` or one of the bootstrap interval methods."""
    text = str(value).strip().lower()
    if text not in BOOTSTRAP_METHOD_CHOICES:
        raise ValueError(f"expected one of {', '.join(BOOTSTRAP_METHOD_CHOICES)}, got {value!r}")
    return text


def parse_method(value: Any, config: pytest.Config) -> str:
    """A registered interval method name."""
    return interval_methods(config).check(value)


def pytest_prob_addoption(options: OptionRegistry) -> None:
    """Declare the interval settings. Called by the kernel's historic hook."""
    add = functools.partial(options.add, owner="intervals")
    add(
        "method",
        parse=parse_method,
        with_config=True,
        default="exact",
        cli="--prob-method",
        ini="prob_method",
        mark=True,
        metavar="M",
        help="row interval method: exact (default), wilson, bayes, ...",
    )
    add(
        "confidence",
        parse=parse_probability,
        default=0.95,
        cli="--prob-confidence",
        ini="prob_confidence",
        mark=True,
        metavar="LEVEL",
        help="two-sided level for intervals (default 0.95)",
    )
    add(
        "prior",
        parse=parse_prior,
        default=(1.0, 1.0),
        ini="prob_prior",
        mark=True,
        help="Beta prior a,b for the bayes method (default 1,1)",
    )
    add(
        "intervals",
        parse=parse_bool,
        default=True,
        cli="--prob-no-intervals",
        ini="prob_intervals",
        flag_value=False,
        help="hide the interval column (the JSON report keeps them)",
        ini_help="show the interval column (default true)",
    )
    add(
        "bootstrap",
        parse=parse_resamples,
        default=5000,
        cli="--prob-bootstrap",
        ini="prob_bootstrap",
        metavar="N",
        help="resamples per bootstrap interval (default 5000)",
    )
    add(
        "bootstrap_method",
        parse=parse_bootstrap_method,
        default="auto",
        cli="--prob-bootstrap-method",
        ini="prob_bootstrap_method",
        choices=BOOTSTRAP_METHOD_CHOICES,
        help="default auto: expanded for comparisons, else percentile",
    )
    add(
        "seed",
        parse=parse_nonnegative_int,
        default=0,
        cli="--prob-seed",
        ini="prob_seed",
        metavar="SEED",
        help="seed for every resampling procedure (default 0)",
    )
    add(
        "min_inputs",
        parse=parse_min_inputs,
        default=10,
        ini="prob_min_inputs",
        help="fewest cases for a function-level line (default 10)",
    )


#: how the kernel fills the registry when a plugin that is not bundled registers methods
#: (a broken registration is a usage error before anything runs) without loading this module
FILL_REGISTRY = interval_methods


@pytest.hookimpl(trylast=True)
def pytest_prob_interval_method(
    name: str, config: pytest.Config
) -> Callable[[int, int, float, tuple[float, float]], tuple[float, float]]:
    """The registered method ``name`` as ``compute(passes, total, level, prior) -> (low,
    high)``, its results checked by the registry. Called once per method and session by the
    gates extension (its rate and count gates), in every process that judges gates; raises
    :class:`ValueError` for a name nothing registered."""
    methods = interval_methods(config)
    methods.check(name)
    return lambda passes, total, level, prior: bounds(
        methods.compute(name, passes, total, level, prior)
    )


def pytest_prob_build_report(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> None:
    """Contribute the interval column, ``ci`` row fields, the function-level and Overall
    lines and the JSON ``aggregates``. Called once in the aggregating process."""
    bounds: dict[str, tuple[float, float]] = {}
    tags: dict[str, str] = {}
    methods = interval_methods(config)
    # cases mostly share their counts (10/10, 0/10): each distinct question is asked once
    compute = functools.cache(methods.compute)
    for case in results.rows():
        chosen = settings(config, case.mark)
        try:
            found = compute(chosen.method, case.passes, case.total, chosen.level, chosen.prior)
        except Exception as exc:  # a third-party method's bug marks its cells, nothing more
            report.warn(f"interval for {case.display} failed: {type(exc).__name__}: {exc}")
            continue
        bounds[case.key] = (found.low, found.high)
        tags[case.key] = methods.get(chosen.method).tag
        ci = {"method": chosen.method, "level": chosen.level, "low": found.low, "high": found.high}
        report.add_row_json(case.key, {"ci": ci})
    if options_of(config).session_value("intervals"):
        several = [case for case in results.rows() if case.total > 1]
        cells = interval_cells({c.key: bounds[c.key] for c in several if c.key in bounds})
        for case in several:  # a method's tag (``seq``) follows its interval
            if case.key not in bounds:
                cells[case.key] = "[error]"
            elif tags[case.key]:
                cells[case.key] += f" {tags[case.key]}"
        report.add_column("interval", cells, order=200, align="left")
    lines = _aggregates(results, config)
    if lines:
        report.add_block(render(lines), order=500)
    report.set_json("aggregates", [line.to_json() for line in lines])


def _aggregates(results: Results, config: pytest.Config) -> list[Aggregate]:
    options = options_of(config)
    min_inputs = options.session_value("min_inputs")
    functions: dict[tuple[str, str], list[CaseResult]] = {}
    for case in results.rows():
        functions.setdefault((case.module, case.label), []).append(case)
    labels = [label for _, label in functions]
    groups = [
        (label if labels.count(label) == 1 else f"{module}::{label}", "function", cases)
        for (module, label), cases in functions.items()
        if len(cases) >= min_inputs
    ]
    every = [case for cases in functions.values() for case in cases]
    if len(functions) > 1 and len(every) >= min_inputs:
        groups.append(("Overall", "overall", every))
    lines = []
    for label, scope, cases in groups:
        ordered = sorted(cases, key=lambda c: c.case_id)
        lines.append(
            aggregate(
                label,
                scope,
                [(c.passes, c.total) for c in ordered],
                level=options.session_value("confidence"),
                resamples=options.session_value("bootstrap"),
                seed=options.session_value("seed"),
                method=case_method(options.session_value("bootstrap_method")),
                case_ids=[c.case_id for c in ordered],
                cost=_cost(config, ordered),
                hidden=hide_interval(config, ordered),
            )
        )
    return lines


def hide_interval(config: pytest.Config, cases: list[CaseResult]) -> str | None:
    """Why the interval over ``cases`` must not be shown (``pytest_prob_hide_interval``,
    through the extension boundary), or ``None``."""
    return call_first(
        config, "pytest_prob_hide_interval", check=_not_a_note, cases=cases, config=config
    )


def _not_a_note(answer: Any) -> str | None:
    return None if isinstance(answer, str) else f"answered {answer!r:.200}, not a note (text)"


def _cost(config: pytest.Config, cases: list[CaseResult]) -> float | None:
    """The cases' recorded cost, from the cost extension (``pytest_prob_case_cost``:
    ``None`` without it, or when no case recorded a cost)."""
    if not config.hook.pytest_prob_case_cost.get_hookimpls():  # (no cost: no call per case)
        return None
    hook = "pytest_prob_case_cost"
    known = [
        c
        for case in cases
        if (c := call_first(config, hook, check=not_an_amount, case=case, config=config))
        is not None
    ]
    return sum(known) if known else None


def pytest_prob_explain(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> list[Reading]:
    """Read the function-level and Overall lines, one reading each. Called once in the
    aggregating process by the explain extension; returns the readings."""
    found = []
    for line in report.json.get("aggregates", []):
        ci = line["ci"]
        text = (
            f"The mean pass fraction over its {line['inputs']} inputs is "
            f"{reading_percent(line['estimate'], 1)}"
        )
        if line.get("hidden"):
            text += f"; its interval is hidden because {line['hidden']}."
        elif ci["low"] == ci["high"]:
            text += (
                ": every input passed (or failed) every run, so the bootstrap has nothing to vary."
            )
        else:
            text += (
                f", with a {reading_percent(ci['level'])} interval of "
                f"{reading_percent(ci['low'], 1)} to {reading_percent(ci['high'], 1)} "
                "from a bootstrap over inputs (it treats these "
                "inputs as a sample of the ones you care about)."
            )
        rho = line.get("icc")
        runs_x2 = line["width_factor"]["runs_x2"]
        if rho is not None and runs_x2 is not None and not line.get("hidden"):
            runs = reading_percent(-runs_x2)
            inputs = reading_percent(-line["width_factor"]["inputs_x2"])
            if rho >= HIGH_RHO:
                advice = (
                    "each input is mostly right or mostly wrong every time, so add inputs, not "
                    f"runs (doubling the runs would narrow the interval by {runs}, doubling "
                    f"the inputs by {inputs})"
                )
            elif rho <= LOW_RHO:
                advice = (
                    "outputs vary from run to run, so more runs help (doubling them narrows "
                    f"the interval by {runs}; doubling the inputs by {inputs})"
                )
            else:
                advice = (
                    f"both help (doubling the runs narrows the interval by {runs}, doubling "
                    f"the inputs by {inputs})"
                )
            text += f" ρ = {rho:.2f}: {advice}."
        terms = ("interval", "bootstrap") + (("ρ (rho)",) if rho is not None else ())
        found.append(
            Reading(line["label"], text, terms, line, order=200, notable=line["estimate"] < 1.0)
        )
    return found


def pytest_prob_explain_count(
    report: ReportBuilder, results: Results, config: pytest.Config
) -> int:
    """How many notable readings (lines below 100%) :func:`pytest_prob_explain` would give,
    counted without building them. Called once in the aggregating process, only without
    ``--prob-explain``."""
    return sum(1 for line in report.json.get("aggregates", []) if line["estimate"] < 1.0)
