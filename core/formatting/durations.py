"""Printing latencies (STATISTICS.md, "Printing"): durations, limits and quantile labels.

Durations are shown in s, ms or µs (micro sign U+00B5) to 3 significant figures, ``—``
(U+2014) for a missing interval end; a ``max_latency=`` limit is shown as written, without
padding zeros. The same conventions as the ``pytest-probability-slowest`` contrib plugin.
Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal

from .rounding import decimal_of, half_up

#: Shown for an interval end that does not exist (too few runs).
MISSING = "\u2014"

_UNITS = ((0, "s"), (3, "ms"), (6, "µs"))  # (power of ten to multiply by, unit)


def _exact(value: float, what: str) -> Decimal:
    """``value`` as written (its shortest ``repr``), refusing booleans, negatives, NaN, inf."""
    number = math.nan if isinstance(value, bool) else float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"not {what}: {value!r}")
    return decimal_of(number)


def _three_significant(value: Decimal) -> str:
    """``12.34`` → ``12.3``, ``2`` → ``2.00``, ``769.4`` → ``769``, ``1234.5`` → ``1235``.

    Half-up; from 100 up whole numbers (so never an exponent); a carry into a new leading
    digit keeps 3 figures (``9.996`` → ``10.0``, not ``10.00``).
    """
    if value >= 100:
        return f"{half_up(value, 0):f}"
    decimals = 2 - value.adjusted()  # adjusted() is the exponent of the leading digit
    rounded = half_up(value, decimals)
    if rounded.adjusted() > value.adjusted():  # carried into a new digit: 9.996 → 10.00
        rounded = rounded.quantize(Decimal(1).scaleb(-max(decimals - 1, 0)))
    return f"{rounded:f}"


def duration(seconds: float | None) -> str:
    """Seconds to 3 significant figures in s, ms or µs: ``769ms``, ``2.00s``, ``950µs``.

    Rounding is half-up on the decimal value as written (``0.01225`` → ``12.3ms``). The unit
    is the largest one in which the rounded value is at least 1, so ``0.99951`` is ``1.00s``
    and ``0.0009996`` is ``1.00ms`` (never ``1000ms``/``1000µs``). From 1000 s up whole
    seconds are shown (``1235s``); below 1 µs the value stays in µs (``0.500µs``); zero is
    ``0s``. ``None`` (a missing interval end) is ``—``. Raises :class:`ValueError` for a
    negative or non-finite value.
    """
    if seconds is None:
        return MISSING
    return _in_unit(_exact(seconds, "a duration"), _three_significant)


def limit(seconds: float) -> str:
    """A ``max_latency=`` limit as written, without padding zeros: ``2s``, ``1.5s``,
    ``500ms``, ``250ms``, ``500µs``.

    The unit is the largest in which the value is at least 1 (µs below 1 ms, also under
    1 µs: ``0.5µs``); the digits are the shortest ``repr`` of the float, never rounded, never
    in exponent form. Zero is ``0s``. Raises :class:`ValueError` for a negative or non-finite
    value.
    """
    return _in_unit(_exact(seconds, "a latency limit"), _plain)


def _in_unit(exact: Decimal, shown: Callable[[Decimal], str]) -> str:
    """``exact`` seconds written by ``shown`` in the largest unit in which that text is at
    least 1 (µs below that); zero is ``0s``."""
    if exact == 0:
        return "0s"
    for power, unit in _UNITS:
        text = shown(exact.scaleb(power))
        if Decimal(text) >= 1 or unit == "µs":
            return text + unit
    raise AssertionError("unreachable")


def _plain(value: Decimal) -> str:
    """``Decimal`` without trailing zeros or exponent: ``2.0`` → ``2``, ``5E+2`` → ``500``."""
    return f"{value.normalize():f}"


def quantile_label(q: float) -> str:
    """``p`` and the quantile in percent as written: 0.95 → ``p95``, 0.5 → ``p50``,
    0.999 → ``p99.9``. Raises :class:`ValueError` unless ``0 < q < 1``.
    """
    if isinstance(q, bool) or not 0.0 < float(q) < 1.0:
        raise ValueError(f"quantile must be strictly between 0 and 1, got {q!r}")
    return f"p{_plain(decimal_of(q) * 100)}"
