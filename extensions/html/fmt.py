"""Printing report values the way the terminal does, and case ids as the page shows them.

A report may come from an earlier version, a third-party extension or a hand edit, so every
printer accepts anything: a missing or malformed number prints ``—``. Printing follows the
terminal's rules by reusing the public API's formatters.

An id of up to :data:`SHORT_ID` characters is one unbreakable unit (``white-space: nowrap``),
so a table column is never narrower than ``classify::identify_pii``: the table scrolls
sideways instead of cutting the id mid-word. A longer id may wrap, but only after ``::``,
``-``, ``_``, ``/``, ``.``, ``,``, ``=``, ``+``, ``)`` or ``]`` (a ``<wbr>`` there, besides
its spaces); a stretch of more than :data:`SHORT_ID` characters without any of them is
broken every :data:`SHORT_ID` characters, as a last resort. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pytest_probability.api import duration as _duration
from pytest_probability.api import fraction, integer, num, percent_of
from pytest_probability.api import limit as _limit
from pytest_probability.api import money as _money
from pytest_probability.api import percent as _percent
from pytest_probability.api import percent1 as _percent1
from pytest_probability.api import quantile_label as _quantile_label

from .markup import Markup, escape

MISSING = "\u2014"
MINUS = "\u2212"
#: Fewest significant digits an amount per run shows.
PER_RUN_DIGITS = 2
#: Longest id kept on one line whatever the width of the page.
SHORT_ID = 40
#: The points a long id may break at: after each of these.
_BREAK_AFTER = re.compile(r"(?<=::)|(?<=[-_/.,=+)\]])")


def _shown(number: float | None, show: Callable[[float], str], absent: str = MISSING) -> str:
    return absent if number is None else show(number)


def percent(value: Any) -> str:
    """A fraction in whole percent (``35%``; ``100%`` only for exactly 1)."""
    return _shown(fraction(value), _percent)


def percent1(value: Any) -> str:
    """A fraction with one decimal (``81.0%``)."""
    return _shown(fraction(value), _percent1)


def rate(value: Any) -> str:
    """A pass rate given in percent (``pass_rate``) as a whole percent."""
    return _shown(num(value), lambda number: _percent(min(1.0, max(0.0, number / 100))))


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


def _seconds(value: Any) -> float | None:
    number = num(value)
    return None if number is None or number < 0 else number


def duration(value: Any) -> str:
    """Seconds as the terminal prints them (``769ms``, ``2.00s``)."""
    return _shown(_seconds(value), _duration)


def short_duration(value: Any) -> str:
    """Seconds as written, without padding zeros (``500ms``, ``1µs``): axis ticks, limits."""
    return _shown(_seconds(value), lambda number: _limit(float(f"{number:.3g}")))


def quantile(value: Any) -> str:
    """``p95`` for 0.95; ``p?`` when the quantile is not a usable fraction."""
    try:
        return _shown(num(value), _quantile_label, "p?")
    except ValueError:
        return "p?"


def money(value: Any, absent: str = MISSING) -> str:
    """``$0.0400``; ``absent`` if absent."""
    return _shown(num(value), _money, absent)


def money_per_run(value: Any) -> str:
    """An amount per run (a run's or a step's cost, a cost per run) as :func:`money` prints
    it, four decimals, unless that leaves fewer than two significant digits: then to two
    significant digits, half-up on the amount as written (``$0.000036`` for 0.0000364,
    ``$0.00042``, ``$0.0012``, ``$0.0000`` only for 0)."""
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
    """A whole number with thousands separators."""
    return _shown(integer(value), lambda number: f"{number:,}")


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


def case_id(value: object) -> Markup:
    """A row label as HTML: a short one in ``<span class="id">`` (never wrapped), a long
    one with ``<wbr>`` at its natural break points; :class:`Markup` is kept as it is."""
    if isinstance(value, Markup):
        return value
    text = "" if value is None else str(value)
    if len(text) <= SHORT_ID:
        return Markup(f'<span class="id">{escape(text)}</span>')
    pieces = []
    for piece in _BREAK_AFTER.split(text):
        pieces += [piece[i : i + SHORT_ID] for i in range(0, len(piece), SHORT_ID)]
    return Markup("<wbr>".join(escape(piece) for piece in pieces if piece))
