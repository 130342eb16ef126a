"""Reading report values defensively and printing them the way the terminal does.

A report may come from an earlier version, a third-party extension or a hand edit, so every
accessor accepts anything and returns a usable value (``None`` for a missing or malformed
number). Printing follows the terminal's rules by reusing the bundled extensions' pure
formatting modules. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pytest_probability.api import duration as _duration
from pytest_probability.api import fraction, integer, num, percent_of
from pytest_probability.api import limit as _limit
from pytest_probability.api import money as _money
from pytest_probability.api import percent as _percent
from pytest_probability.api import percent1 as _percent1
from pytest_probability.api import quantile_label as _quantile_label

MISSING = "\u2014"
MINUS = "\u2212"
#: Fewest significant digits an amount per run shows.
PER_RUN_DIGITS = 2


# -- reading ----------------------------------------------------------------------------------
# -- printing ---------------------------------------------------------------------------------
def percent(value: Any) -> str:
    """A fraction in whole percent (``35%``; ``100%`` only for exactly 1); ``—`` if absent."""
    number = fraction(value)
    return MISSING if number is None else _percent(number)


def percent1(value: Any) -> str:
    """A fraction with one decimal (``81.0%``); ``—`` if absent."""
    number = fraction(value)
    return MISSING if number is None else _percent1(number)


def rate(value: Any) -> str:
    """A pass rate given in percent (``pass_rate``) as a whole percent; ``—`` if absent."""
    number = num(value)
    return MISSING if number is None else _percent(min(1.0, max(0.0, number / 100)))


def interval(low: Any, high: Any, *, decimals: int = 0) -> str:
    """``[35%, 93%]`` (``—`` for a missing end); empty when both ends are missing."""
    if num(low) is None and num(high) is None:
        return ""
    show = percent if decimals == 0 else percent1
    return f"[{show(low)}, {show(high)}]"


def points(value: Any, *, signed: bool = True) -> str:
    """A difference of fractions in percentage points: ``+20 pp``, ``−11 pp``."""
    number = num(value)
    if number is None:
        return MISSING
    rounded = int(percent_of(number))  # half up on the decimal value, as the terminal
    if rounded == 0:
        return "0 pp"
    sign = ("+" if rounded > 0 else MINUS) if signed else ("" if rounded > 0 else MINUS)
    return f"{sign}{abs(rounded)} pp"


def point_interval(low: Any, high: Any) -> str:
    """``[−11, +51] pp``; empty when both ends are missing."""
    if num(low) is None and num(high) is None:
        return ""
    ends = [points(end).removesuffix(" pp") for end in (low, high)]
    return f"[{ends[0]}, {ends[1]}] pp"


def duration(value: Any) -> str:
    """Seconds as the terminal prints them (``769ms``, ``2.00s``); ``—`` if absent."""
    number = num(value)
    if number is None or number < 0:
        return MISSING
    return _duration(number)


def short_duration(value: Any) -> str:
    """Seconds as written, without padding zeros (``500ms``, ``1µs``): axis ticks, limits."""
    number = num(value)
    if number is None or number < 0:
        return MISSING
    return _limit(float(f"{number:.3g}"))


def quantile(value: Any) -> str:
    """``p95`` for 0.95; ``p?`` when the quantile is not a usable fraction."""
    number = num(value)
    try:
        return _quantile_label(number) if number is not None else "p?"
    except ValueError:
        return "p?"


def money(value: Any) -> str:
    """``$0.0400``; ``—`` if absent."""
    number = num(value)
    return MISSING if number is None else _money(number)


def money_per_run(value: Any) -> str:
    """An amount per run (a run's or a step's cost, a cost per run) as :func:`money` prints
    it, four decimals, unless that leaves fewer than two significant digits: then to two
    significant digits, half-up on the amount as written (``$0.000036`` for 0.0000364,
    ``$0.00042``, ``$0.0012``, ``$0.0000`` only for 0); ``—`` if absent."""
    number = num(value)
    if number is None:
        return MISSING
    exact = Decimal(repr(number))
    if exact == 0 or abs(exact) >= Decimal("0.001"):  # four decimals show two digits
        return _money(number)
    place = exact.adjusted() - PER_RUN_DIGITS + 1  # 3.64e-05 → quantum 1e-06
    shown = exact.quantize(Decimal(1).scaleb(place), rounding=ROUND_HALF_UP)
    if shown.adjusted() > exact.adjusted():  # carried into a new digit: 0.000995 → 0.0010
        shown = shown.quantize(Decimal(1).scaleb(place + 1), rounding=ROUND_HALF_UP)
    return f"${shown:f}"


def count(value: Any) -> str:
    """A whole number with thousands separators; ``—`` if absent."""
    number = integer(value)
    return MISSING if number is None else f"{number:,}"


def p_value(value: Any) -> str:
    """``p=0.47``, ``p<0.001``; empty if absent."""
    number = num(value)
    if number is None:
        return ""
    if number < 0.001:
        return "p<0.001"
    return f"p={number:.2g}" if number < 0.01 else f"p={number:.2f}"


def plural(number: int, word: str, many: str | None = None) -> str:
    """``1 run``, ``3 runs``."""
    return f"{number:,} {word if number == 1 else (many or word + 's')}"


def truncate(value: str, limit: int) -> tuple[str, int]:
    """``value`` cut to ``limit`` characters, and how many were cut."""
    if len(value) <= limit:
        return value, 0
    return value[:limit], len(value) - limit
