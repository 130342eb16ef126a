"""Reading values that come from user code without trusting them. Pure: never imports pytest.

A run record is built from user objects: an exception's message, a step's ``label``,
``passed`` and ``elapsed``. Each of ``str()``, ``bool()`` and ``float()`` runs user code
(``__str__``, ``__bool__``, ``__float__``) that may raise: a numpy array has no truth value,
``float(10**400)`` overflows. The readers here turn such a failure into
:class:`UnreadableValue`, whose message names what could not be read and why, so the run
becomes an error that says so instead of aborting the session.

Text is made safe to write as well: a lone surrogate (from a file name that is not valid
UTF-8) becomes its escape (``\\udcff``), and an integer too long for Python's decimal
conversion (``10**5000``, past the 4,300-digit limit) is shown in scientific notation.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
import reprlib
from decimal import Decimal
from typing import Any

__all__ = [
    "UnreadableValue",
    "describe",
    "escape_surrogates",
    "int_text",
    "is_huge_int",
    "read_seconds",
    "read_text",
    "read_truth",
    "safe_str",
    "short_repr",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
#: The longest :func:`short_repr`.
REPR_LIMIT = 200


class UnreadableValue(ValueError):
    """A user value that could not be read: ``"its label cannot be read: str() raised
    ValueError: boom"``."""

    def __init__(self, what: str, call: str, exc: BaseException) -> None:
        self.what = what
        super().__init__(f"{what} cannot be read: {call}() raised {describe(exc)}")


def describe(exc: BaseException) -> str:
    """``ValueError: boom`` (the type alone when the message is empty or unreadable)."""
    detail = safe_str(exc)
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def read_text(value: Any, what: str) -> str:
    """``str(value)``; raises :class:`UnreadableValue` naming ``what`` when ``__str__``
    raises or returns something that is not text."""
    if type(value) is str:
        return value
    try:
        text = str(value)
    except Exception as exc:
        raise UnreadableValue(what, "str", exc) from None
    if not isinstance(text, str):  # (str() itself refuses this; kept for str subclasses)
        raise UnreadableValue(what, "str", TypeError("not a string"))
    return text


def read_truth(value: Any, what: str) -> bool:
    """``bool(value)``; raises :class:`UnreadableValue` naming ``what`` when the value has no
    truth value (a numpy array of several elements)."""
    if value is True or value is False:
        return value
    try:
        return bool(value)
    except Exception as exc:
        raise UnreadableValue(what, "bool", exc) from None


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
        text = str(value)
    except Exception as exc:
        return f"<{type(value).__name__}: str() raised {type(exc).__name__}>"
    return text if isinstance(text, str) else f"<{type(value).__name__}>"


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
    if type(value) is not int and not (isinstance(value, int) and not isinstance(value, bool)):
        return False
    if value.bit_length() < 2_000:  # ~600 digits: below any limit Python allows (640)
        return False
    try:
        str(value)
    except ValueError:
        return True
    return False
