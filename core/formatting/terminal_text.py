"""Text that is safe to print on a terminal or to write into XML: control and escape
sequences made visible.

Strings from outside the plugin (a judge server's reply, a model name given to
``record_usage``, a third party's gate line) may hold ``ESC`` sequences that retitle the
terminal or move the cursor, bidirectional overrides that reorder what is shown, or
characters XML 1.0 cannot hold (pytest's JUnit writer then writes a file that is not XML, or
none at all): :func:`visible` and :func:`xml_text` replace each such character with its
Python escape (``\\x1b``, ``\\u202e``, ``\\ud800``). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, the Unicode bidirectional and invisible format marks, and
#: lone surrogates (which no terminal encoding can write)
_UNSAFE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
_UNSAFE_KEEP_LINES = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
#: What XML 1.0 cannot hold: C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control characters, escape sequences, bidirectional marks and lone
    surrogates replaced by their Python escapes; ``keep_newlines`` leaves ``\\n`` alone
    (multi-line messages)."""
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text)


def xml_text(text: str) -> str:
    """``text`` with what XML 1.0 cannot hold replaced by its Python escape (``\\x1b``,
    ``\\ud800``), the rest as it is (tab and newlines too): a JUnit XML property name or value
    from a third party then never breaks the file (a lone surrogate made pytest write 38
    bytes of it and ended the session before the other reports)."""
    return _NOT_XML.sub(_escape, text)


class ProbabilityWarning(UserWarning):
    """The base of the plugin's warnings: its message shows control characters, escape
    sequences and lone surrogates as their escapes (pytest prints ``str(warning)`` in the
    warnings summary, and a message may quote a user's value, a server's answer or an
    extension's exception)."""

    def __str__(self) -> str:
        return visible(super().__str__(), keep_newlines=True)
