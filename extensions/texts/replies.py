"""A chat completion's reply (:class:`ChatReply`) and reading its JSON body into one. Pure
module.

Every string that came from the server and may be printed (the reply's ``model``) has its
control characters made visible; the reply text itself is kept as sent (the tolerant reader
parses it, and messages quote it with ``repr``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import visible

__all__ = ["ChatReply", "parse_completion"]


@dataclass(frozen=True)
class ChatReply:
    """One chat completion: the first choice's text, why it stopped, and token usage."""

    text: str
    finish_reason: str | None
    model: str
    input_tokens: int | None
    output_tokens: int | None
    cached_input_tokens: int | None
    attempts: int


#: ``error(why, raw, attempts)`` builds the ProtocolError to raise
ErrorFactory = Callable[[str, bytes, int], Exception]


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_completion(
    raw: bytes,
    attempts: int,
    default_model: str,
    excerpt: Callable[[bytes], str],
    error: ErrorFactory,
) -> ChatReply:
    """The :class:`ChatReply` in a 2xx body, or the error ``error`` builds (raised outside
    any ``except`` block)."""
    problem, document = _load(raw)
    if problem:
        raise error(problem, raw, attempts)
    choices = document.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise error("no choices[0].message", raw, attempts)
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep the text ones
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        content = "".join(p for p in parts if isinstance(p, str))
    if content is not None and not isinstance(content, str):
        raise error("content is not text", raw, attempts)
    finish = choice.get("finish_reason")
    usage = document.get("usage") if isinstance(document.get("usage"), dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    model = document.get("model")
    return ChatReply(
        text=content or "",
        finish_reason=visible(finish) if isinstance(finish, str) else None,
        model=visible(model) if isinstance(model, str) and model else default_model,
        input_tokens=_int_or_none(usage.get("prompt_tokens")),
        output_tokens=_int_or_none(usage.get("completion_tokens")),
        cached_input_tokens=_int_or_none(cached),
        attempts=attempts,
    )


def _load(raw: bytes) -> tuple[str, dict[str, Any]]:
    """``("", document)``, or ``(what is wrong, {})``."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return "invalid JSON", {}
    if not isinstance(document, dict):
        return "not a JSON object", {}
    if document.get("error") and not document.get("choices"):
        return "an error object", {}
    return "", document
