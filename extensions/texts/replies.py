"""Reading a chat completion's JSON body into a reply. Pure module.

Every string that came from the server and may be printed (the reply's ``model``) has its
control characters made visible; the reply text itself is kept as sent (the tolerant reader
parses it, and messages quote it with ``repr``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_probability.api import visible

__all__ = ["parse_completion"]

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
) -> Any:
    """The :class:`~.client.ChatReply` in a 2xx body, or the error ``error`` builds (raised
    outside any ``except`` block)."""
    from .client import ChatReply

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
