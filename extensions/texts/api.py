"""The public ``texts_expect_*`` and ``texts_agg_*`` helpers.

Call them inside a bench function (or any test): each asks the LLM judge, then asserts. A
score outside the accepted range raises :class:`AssertionError` (the run is a FAIL); bad
arguments raise :class:`TextsUsageError` and an unreachable or unusable judge raises a
:class:`~.client.BackendError` or :class:`~.judge.JudgeReplyError` (the run is an ERROR),
with a message that names the reason, the judge, the attempts and the setting to change,
and no frames of the plugin in its traceback.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from pytest_probability.api import ProbabilityWarning

from .errors import BackendError
from .evaluate import evaluate
from .judge import JudgeReplyError
from .plugin import caller_stacklevel
from .scoring import failure
from .session import judge_for, record_call
from .settings import TextsConfigError

#: errors whose message is the whole story: raised with no frames of the plugin
QUIET = (BackendError, JudgeReplyError, TextsConfigError)


class TextsUsageError(pytest.UsageError):
    """A ``texts_*`` helper was called with an invalid argument (the run is an ERROR)."""


class TextsWarning(ProbabilityWarning):
    """An assertion that cannot fail, is narrower than the judge's noise, or is costly."""


#: LLM judging rarely separates scores closer than this
NARROW = 0.05
#: evaluations above which a helper warns about cost and time
MANY = 50


def _unit(function: str, name: str, value: Any) -> float:
    __tracebackhide__ = True
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (math.isfinite(value) and 0.0 <= value <= 1.0)
    ):
        raise TextsUsageError(f"{function}(): {name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _texts(function: str, expected: Any, given: Any) -> None:
    __tracebackhide__ = True
    for name, value in (("expected", expected), ("given", given)):
        if not isinstance(value, str):
            raise TextsUsageError(f"{function}(): {name} must be a str, got {type(value).__name__}")


def _around(function: str, target: Any, max_delta: Any) -> tuple[float, float, str]:
    """``target ± max_delta`` clamped to [0, 1], and how a warning names it."""
    __tracebackhide__ = True
    centre = _unit(function, "target", target)
    delta = _unit(function, "max_delta", max_delta)
    what = f"target ± max_delta ({centre:g} ± {delta:g})"
    return max(0.0, centre - delta), min(1.0, centre + delta), what


def _warn(message: str) -> None:
    warnings.warn(TextsWarning(message), stacklevel=caller_stacklevel())


def _check_bounds(function: str, low: float, high: float, quiet: bool, what: str) -> None:
    if quiet:
        return
    if low <= 0.0 and high >= 1.0:
        _warn(f"{function}(): {what} accepts every score from 0 to 1: it cannot fail")
    elif high - low < NARROW:
        _warn(
            f"{function}(): {what} is narrower than {NARROW}: an LLM judge's scores vary "
            "more than that from call to call"
        )


def _counts(function: str, full_runs: Any, each_question_runs: Any) -> tuple[int, int]:
    __tracebackhide__ = True
    for name, value in (("full_runs", full_runs), ("each_question_runs", each_question_runs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TextsUsageError(
                f"{function}(): {name} must be a whole number of at least 1, got {value!r}"
            )
    if full_runs * each_question_runs > MANY:
        _warn(
            f"{function}(): full_runs × each_question_runs = {full_runs * each_question_runs} "
            f"evaluations (more than {MANY}): slow and costly"
        )
    return full_runs, each_question_runs


def _run(
    function: str,
    metric: str,
    how: str | None,
    expected: str,
    given: str,
    low: float,
    high: float,
    counts: tuple[int, int],
    retry_on_error: bool,
) -> None:
    """Ask the judge, then assert that the value (``how`` None: of the one evaluation; else
    the min, max, median or mean of ``counts`` = full runs × answer passes) is in
    ``[low, high]``."""
    __tracebackhide__ = True
    try:
        judge = judge_for(retry_on_error)
        on_call = partial(record_call, judge=judge)  # in this thread: the bench run's
        samples = evaluate(judge, expected, given, metric, *counts, on_call)
    except QUIET as exc:
        # the message says it all: show the bench line, not the plugin's frames (nor the
        # thread pool's, nor urllib's, whose locals hold the request's headers)
        raise exc.with_traceback(None) from None
    message = failure(samples, metric, how, low, high, function)
    if message is not None:
        raise AssertionError(message)


def _make_range(metric: str, name: str) -> Callable[..., None]:
    def helper(
        expected: str,
        given: str,
        min_score: float,
        max_score: float,
        skip_warnings: bool = False,
        retry_on_error: bool = True,
    ) -> None:
        __tracebackhide__ = True
        _texts(name, expected, given)
        low = _unit(name, "min_score", min_score)
        high = _unit(name, "max_score", max_score)
        if low > high:
            raise TextsUsageError(
                f"{name}(): min_score ({low:g}) must not be greater than max_score ({high:g})"
            )
        _check_bounds(name, low, high, skip_warnings, f"[{low:g}, {high:g}]")
        _run(name, metric, None, expected, given, low, high, (1, 1), retry_on_error)

    return _finish(
        helper,
        name,
        f"Assert that the {_WORDS[metric]} of ``given`` against "
        "``expected`` lies in ``[min_score, max_score]`` (one evaluation).",
    )


def _make_equal(metric: str, name: str) -> Callable[..., None]:
    def helper(
        expected: str,
        given: str,
        target: float = 1.0,
        max_delta: float = 0.2,
        skip_warnings: bool = False,
        retry_on_error: bool = True,
    ) -> None:
        __tracebackhide__ = True
        _texts(name, expected, given)
        low, high, what = _around(name, target, max_delta)
        _check_bounds(name, low, high, skip_warnings, what)
        _run(name, metric, None, expected, given, low, high, (1, 1), retry_on_error)

    return _finish(
        helper,
        name,
        f"Assert that the {_WORDS[metric]} is within ``target ± "
        "max_delta`` (clamped to [0, 1]; one evaluation).",
    )


def _make_bound(metric: str, how: str, name: str) -> Callable[..., None]:
    bound_name = "lower_bound" if how == "min" else "upper_bound"

    def check(
        expected: str, given: str, bound: Any, full_runs: Any, each: Any, retry: bool
    ) -> None:
        __tracebackhide__ = True
        _texts(name, expected, given)
        value = _unit(name, bound_name, bound)
        counts = _counts(name, full_runs, each)
        low, high = (value, 1.0) if how == "min" else (0.0, value)
        _check_bounds(name, low, high, False, f"{bound_name}={value:g}")
        _run(name, metric, how, expected, given, low, high, counts, retry)

    def helper_min(
        expected: str,
        given: str,
        lower_bound: float,
        full_runs: int = 5,
        each_question_runs: int = 1,
        retry_on_error: bool = True,
    ) -> None:
        __tracebackhide__ = True
        check(expected, given, lower_bound, full_runs, each_question_runs, retry_on_error)

    def helper_max(
        expected: str,
        given: str,
        upper_bound: float,
        full_runs: int = 5,
        each_question_runs: int = 1,
        retry_on_error: bool = True,
    ) -> None:
        __tracebackhide__ = True
        check(expected, given, upper_bound, full_runs, each_question_runs, retry_on_error)

    least = "minimum" if how == "min" else "maximum"
    limit = "at least ``lower_bound``" if how == "min" else "at most ``upper_bound``"
    return _finish(
        helper_min if how == "min" else helper_max,
        name,
        f"Assert that the {least} {_WORDS[metric]} over ``full_runs × each_question_runs`` "
        f"evaluations is {limit}.",
    )


def _make_target(metric: str, how: str, name: str) -> Callable[..., None]:
    def helper(
        expected: str,
        given: str,
        target: float,
        max_delta: float = 0.1,
        full_runs: int = 5,
        each_question_runs: int = 1,
        retry_on_error: bool = True,
    ) -> None:
        __tracebackhide__ = True
        _texts(name, expected, given)
        low, high, what = _around(name, target, max_delta)
        counts = _counts(name, full_runs, each_question_runs)
        _check_bounds(name, low, high, False, what)
        _run(name, metric, how, expected, given, low, high, counts, retry_on_error)

    return _finish(
        helper,
        name,
        f"Assert that the {how} {_WORDS[metric]} over ``full_runs × "
        "each_question_runs`` evaluations is within ``target ± max_delta``.",
    )


_WORDS = {"f1": "F1 score", "precision": "precision", "recall": "recall"}


def _finish(helper: Callable[..., None], name: str, doc: str) -> Callable[..., None]:
    helper.__name__ = helper.__qualname__ = name
    helper.__doc__ = doc
    helper.__module__ = "pytest_probability.texts"
    return helper


#: the metrics and their aliases: completeness is precision, correctness is recall
METRICS = {
    "f1": "f1",
    "precision": "precision",
    "recall": "recall",
    "completeness": "precision",
    "correctness": "recall",
}

HELPERS: dict[str, Callable[..., None]] = {}
for _alias, _metric in METRICS.items():
    HELPERS[f"texts_expect_{_alias}_range"] = _make_range(_metric, f"texts_expect_{_alias}_range")
    HELPERS[f"texts_expect_{_alias}_equal"] = _make_equal(_metric, f"texts_expect_{_alias}_equal")
    for _how in ("min", "max"):
        HELPERS[f"texts_agg_{_alias}_{_how}"] = _make_bound(
            _metric, _how, f"texts_agg_{_alias}_{_how}"
        )
    for _how, _stat in (("median", "median"), ("mean", "mean"), ("average", "mean")):
        HELPERS[f"texts_agg_{_alias}_{_how}"] = _make_target(
            _metric, _stat, f"texts_agg_{_alias}_{_how}"
        )
del _alias, _metric, _how, _stat
