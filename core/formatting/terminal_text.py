"""Text that is safe to print on a terminal: control and escape sequences made visible.

Strings from outside the plugin (a judge server's reply, a model name given to
``record_usage``) may hold ``ESC`` sequences that retitle the terminal or move the cursor,
or bidirectional overrides that reorder what is shown: :func:`visible` replaces each such
character with its Python escape (``\\x1b``, ``\\u202e``). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, and the Unicode bidirectional and invisible format marks
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSAFE_KEEP_LINES = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control characters, escape sequences and bidirectional marks replaced
    by their Python escapes; ``keep_newlines`` leaves ``\\n`` alone (multi-line messages)."""
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text)
