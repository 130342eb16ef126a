"""Parsers for option, ini and mark values: pure functions that never import pytest.

Each parser takes the raw value (a string from the command line or an ini file, or any
Python value from a mark) and returns the typed value, or raises :class:`ValueError` whose
message says what would be valid. The option registry adds where the value came from.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}

#: Most runs of one case (``--prob-runs``, ``prob_runs``, ``runs=``): every run is a pytest
#: item held in memory (about 2 KB each), so 10^8 runs would take hundreds of gigabytes.
MAX_RUNS = 100_000
#: Longest ``--prob-delay`` between two runs, in seconds (an hour); ``time.sleep`` raises
#: ``OverflowError`` for numbers such as 1e308.
MAX_DELAY = 3600.0
#: the most runs in flight at once ``--prob-concurrency`` accepts
MAX_CONCURRENCY = 1024


def _parsed(value: Any, convert: Callable[[Any], Any], expected: str, valid: Any) -> Any:
    """``convert(value)`` (text stripped first) when ``valid`` of it, else
    ``ValueError("expected EXPECTED, got VALUE")``; booleans are refused."""
    if not isinstance(value, bool):
        try:
            number = convert(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            pass
        else:
            if valid(number):
                return number
    raise ValueError(f"expected {expected}, got {value!r}")


def _whole(value: Any) -> int:
    if isinstance(value, (int, str)) or (isinstance(value, float) and value.is_integer()):
        return int(value)
    raise TypeError(value)


def parse_positive_int(value: Any) -> int:
    """A whole number ≥ 1 (``10``, ``"10"``); booleans and fractions are refused."""
    return _parsed(value, _whole, "a whole number of at least 1", lambda n: n >= 1)


def parse_runs(value: Any) -> int:
    """A run count: a whole number from 1 to :data:`MAX_RUNS`."""
    number = parse_positive_int(value)
    if number > MAX_RUNS:
        raise ValueError(f"expected a whole number from 1 to {MAX_RUNS:,}, got {value!r}")
    return number


def parse_concurrency(value: Any) -> int:
    """Runs in flight at once: a whole number from 1 to :data:`MAX_CONCURRENCY`."""
    number = parse_positive_int(value)
    if number > MAX_CONCURRENCY:
        raise ValueError(f"expected a whole number from 1 to {MAX_CONCURRENCY:,}, got {value!r}")
    return number


def parse_delay(value: Any) -> float:
    """A delay in seconds: a number from 0 to :data:`MAX_DELAY`."""
    number = parse_nonnegative_float(value)
    if number > MAX_DELAY:
        raise ValueError(
            f"expected a number of seconds from 0 to {MAX_DELAY:g} (an hour), got {value!r}"
        )
    return number


def parse_nonnegative_int(value: Any) -> int:
    """A whole number ≥ 0 (seeds)."""
    whole = not isinstance(value, float) or value.is_integer()
    return _parsed(value, int, "a whole number of at least 0", lambda n: n >= 0 and whole)


def parse_probability(value: Any) -> float:
    """A number strictly between 0 and 1 (confidence levels, rates)."""
    expected = "a number between 0 and 1 (exclusive)"
    return _parsed(value, float, expected, lambda n: 0.0 < n < 1.0)


def parse_nonnegative_float(value: Any) -> float:
    """A finite number ≥ 0 (seconds, amounts)."""
    number: float = _parsed(value, float, "a number of at least 0", lambda n: True)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"expected a finite number of at least 0, got {value!r}")
    return number


def parse_bool(value: Any) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ValueError(f"expected true or false, got {value!r}")


def parse_text(value: Any) -> str:
    """Any non-empty text."""
    text = str(value).strip()
    if not text:
        raise ValueError("expected a non-empty value")
    return text


def parse_patterns(value: Any) -> tuple[str, ...]:
    """One or more glob patterns separated by spaces or commas (``bench_*.py``)."""
    parts = tuple(p for p in str(value).replace(",", " ").split() if p)
    if not parts:
        raise ValueError("expected one or more file globs such as 'bench_*.py'")
    return parts


def parse_fraction(
    value: Any, *, expected: str, percent_hint: Callable[[float], str], hint_from: float = 1.0
) -> float:
    """A number strictly between 0 and 1 written as a fraction, for settings people tend to
    write in percent: a value in ``(hint_from, 100)`` (``90``, ``95``, ``2``) gets a
    did-you-mean with its hundredth.

    :param expected: what is expected, for the message (``a rate between 0 and 1
        (exclusive)``).
    :param percent_hint: how to show the percent reading (``90`` → ``90%``, ``p95``,
        ``2 points``).
    """
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not 0.0 < number < 1.0:
        hint = ""
        if hint_from <= number < 100.0:
            hint = f"; did you mean {number / 100:g} ({percent_hint(number)})?"
        raise ValueError(f"expected {expected}, got {value!r}{hint}")
    return number


def parse_points(value: Any, *, expected: str) -> float:
    """A difference in points written as a fraction, at least 0 and below 1 (a margin, a
    resolution): :func:`parse_fraction` that also takes ``0``, and gives ``2`` a did-you-mean
    for ``0.02`` (2 points)."""
    with contextlib.suppress(ValueError):
        return abs(_parsed(value, float, expected, lambda n: n == 0.0))  # (0.0 for -0.0)
    return parse_fraction(value, expected=expected, percent_hint=lambda n: f"{n:g} points")
