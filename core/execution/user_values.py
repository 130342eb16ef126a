"""Reading values that come from user code without trusting them. Pure: never imports pytest.

``str()``, ``bool()`` and ``float()`` of a user object (an exception, a step's fields) run
user code that may raise: a numpy array has no truth value, ``float(10**400)`` overflows.
The readers here turn such a failure into :class:`UnreadableValue` naming what could not
be read, so the run becomes an error that says so instead of aborting the session. Text is
made safe to write too: lone surrogates escaped, integers too long for decimal text in
scientific notation.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
import reprlib
from decimal import Decimal
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
#: The longest :func:`short_repr`.
REPR_LIMIT = 200


class UnreadableValue(ValueError):
    """A user value that could not be read: ``"its label cannot be read: str() raised
    ValueError: boom"``."""

    def __init__(self, what: str, call: str, exc: BaseException) -> None:
        super().__init__(f"{what} cannot be read: {call}() raised {describe(exc)}")


def describe(exc: BaseException) -> str:
    """``ValueError: boom`` (the type alone when the message is empty or unreadable)."""
    detail = safe_str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def read_text(value: Any, what: str) -> str:
    """``str(value)``; raises :class:`UnreadableValue` naming ``what`` when ``__str__``
    raises or returns something that is not text."""
    return value if type(value) is str else _read(str, value, what)


def read_truth(value: Any, what: str) -> bool:
    """``bool(value)``; raises :class:`UnreadableValue` naming ``what`` when the value has no
    truth value (a numpy array of several elements)."""
    return value if value is True or value is False else _read(bool, value, what)


def _read(convert: type, value: Any, what: str) -> Any:
    try:
        return convert(value)
    except Exception as exc:
        raise UnreadableValue(what, convert.__name__, exc) from None


def read_seconds(value: Any, what: str) -> float | None:
    """``float(value)`` for a duration; ``None`` for ``None`` and for a value that is not a
    number (left out, as before); raises :class:`UnreadableValue` naming ``what`` for a
    number that does not fit a float (``10**400``) or whose conversion itself fails."""
    if value is None:
        return None
    if type(value) is float:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
    except Exception as exc:  # OverflowError, or a __float__ that raises
        raise UnreadableValue(what, "float", exc) from None


def safe_str(value: Any) -> str:
    """``str(value)``, or a short description of the value when that raises."""
    try:
        return str(value)
    except Exception as exc:
        return f"<{type(value).__name__}: str() raised {type(exc).__name__}>"


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 80
_REPR.maxother = 80


def short_repr(value: Any, limit: int = REPR_LIMIT) -> str:
    """A short ``repr`` of ``value`` (nested containers cut at three levels, long strings
    shortened, cycles shown as ``...``); never raises."""
    try:
        text = _REPR.repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape_surrogates(text: str, prefix: str = "\\u") -> str:
    """``text`` with each lone surrogate replaced by its escape (``\\udcff``), as Python's
    ``backslashreplace`` writes it (``prefix`` and four hex digits: JSON text passes two
    backslashes, so that the value read back is that escape); text without one is returned
    as it is."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda found: f"{prefix}{ord(found.group()):04x}", text)


def int_text(number: int, grouped: bool = False) -> str:
    """``number`` in decimal (``1,200`` when ``grouped``); one too long for Python's
    decimal conversion (``sys.get_int_max_str_digits``) in scientific notation,
    ``1.000000e+5000``."""
    try:
        return f"{number:,}" if grouped else str(int(number))
    except ValueError:
        return f"{Decimal(int(number)):.6e}"


def is_huge_int(value: Any) -> bool:
    """Whether ``value`` is an ``int`` (not a ``bool``) too long for decimal text."""
    if not isinstance(value, int) or isinstance(value, bool) or value.bit_length() < 2_000:
        return False  # (2,000 bits is ~600 digits: below any limit Python allows, 640)
    try:
        str(value)
    except ValueError:
        return True
    return False
