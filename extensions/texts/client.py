"""The judge's transport: an OpenAI-compatible chat-completions client, standard library only.

POSTs to ``{base_url}/chat/completions`` (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...) or, in
Azure OpenAI mode, ``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=``
with an ``api-key`` header. Connection errors, timeouts and HTTP 408/409/429/5xx are retried
with exponential backoff and jitter (honouring ``Retry-After``); other statuses are not, nor is a
2xx that is not a chat completion (``ProtocolError``: the caller owns that budget), nor a
request that cannot be built (a configuration error). The reply's shape is asked for with
``response_format`` at the session's structured-output level (:mod:`.structured`), one level
lower after the server refuses one. A circuit breaker (:mod:`.breaker`) makes calls fail at
once while the judge is unreachable. One attempt is :func:`.transport.post`: the whole request
bounded by ``timeout``, the body by 8 MiB. The key never appears in a message or ``repr``:
errors are raised outside ``except`` blocks, URLs are printed redacted, echoes of the key are
masked, and server text has its control characters made visible. Pure (never imports pytest);
thread-safe.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import json
import random as _random
import time
from collections.abc import Callable
from typing import Any

from pytest_probability.api import visible

from .breaker import Breaker, BreakerOpen
from .errors import (
    AuthenticationError,
    BackendError,
    CircuitOpenError,
    ProtocolError,
    RequestError,
    UnavailableError,
)
from .replies import ChatReply, parse_completion
from .settings_client import COMPLETION_TOKENS_PREFIXES, ClientSettings
from .structured import Levels, Shape
from .transport import MAX_RETRY_AFTER, Failure, post, retry_after
from .urls import mask, redact_url

__all__ = [
    "AuthenticationError",
    "BackendError",
    "ChatClient",
    "ChatReply",
    "CircuitOpenError",
    "ClientSettings",
    "ProtocolError",
    "RequestError",
    "UnavailableError",
]

#: Sent as ``User-Agent``.
USER_AGENT = "pytest-probability-texts"
#: Statuses that, with a ``response_format`` in the request, may mean "ask at a lower level"
REFUSED_FORMAT = frozenset({400, 422})
#: ...when the error body says nothing, or mentions one of these (OpenAI, Azure, vLLM and
#: proxies name ``response_format``; others the schema, the grammar or JSON)
FORMAT_WORDS = ("format", "schema", "json", "grammar")
_EXCERPT = 300  # characters of an error body quoted in a message


class _Shared:
    """What the clients of one session share: the breaker and the structured-output level."""

    def __init__(self, settings: ClientSettings, clock: Callable[[], float]) -> None:
        self.breaker = Breaker(settings.breaker_failures, settings.breaker_cooldown, clock=clock)
        self.levels = Levels(settings.level)


def _refuses_format(outcome: Failure) -> bool:
    """Whether a failure may be the server refusing the ``response_format`` asked for."""
    if outcome.status not in REFUSED_FORMAT:
        return False
    said = outcome.detail.partition(": ")[2].lower()
    return not said or any(word in said for word in FORMAT_WORDS)


class ChatClient:
    """A chat-completions client; thread-safe. :meth:`variant` makes a client with other
    settings that shares this one's breaker and structured-output level."""

    def __init__(
        self,
        settings: ClientSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
        clock: Callable[[], float] = time.monotonic,
        shared: _Shared | None = None,
    ) -> None:
        self._settings = settings
        self._sleep = sleep
        self._random = random
        self._clock = clock
        self._shared = shared or _Shared(settings, clock)
        self._url = self._build_url()
        self._setting = "texts_azure_endpoint" if settings.azure else "texts_base_url"
        self._shown = f"{redact_url(self._url)} (model {visible(settings.model)})"

    def __repr__(self) -> str:
        return f"ChatClient({self._settings!r})"

    @property
    def settings(self) -> ClientSettings:
        return self._settings

    @property
    def breaker(self) -> Breaker:
        """The circuit breaker this client (and its variants) use."""
        return self._shared.breaker

    def variant(self, **changes: Any) -> ChatClient:
        """A client with some settings changed (e.g. ``retries=0``), sharing the breaker and
        the structured-output level with this one."""
        import dataclasses

        return ChatClient(
            dataclasses.replace(self._settings, **changes),
            sleep=self._sleep,
            random=self._random,
            clock=self._clock,
            shared=self._shared,
        )

    def _build_url(self) -> str:
        s = self._settings
        if not s.azure:
            base, _, query = s.base_url.partition("?")
            return base.rstrip("/") + "/chat/completions" + (f"?{query}" if query else "")
        import urllib.parse

        endpoint = (s.azure_endpoint or "").rstrip("/")
        deployment = urllib.parse.quote(s.azure_deployment or s.model, safe="")
        query = urllib.parse.urlencode({"api-version": s.api_version})
        return f"{endpoint}/openai/deployments/{deployment}/chat/completions?{query}"

    def url(self) -> str:
        """The endpoint every request is POSTed to (may hold a query string: never print it
        as it is)."""
        return self._url

    def headers(self) -> dict[str, str]:
        """The request headers; they hold the key, so never print them."""
        out = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
        key = self._settings.api_key
        if key:
            if self._settings.azure:
                out["api-key"] = key
            else:
                out["Authorization"] = f"Bearer {key}"
        return out

    def max_tokens_key(self) -> str:
        """``max_completion_tokens`` for o1/o3/o4/gpt-5* (``openai/o3`` too), else max_tokens."""
        s = self._settings
        name = (s.model or s.azure_deployment or "").rsplit("/", 1)[-1].lower()
        if name.startswith(COMPLETION_TOKENS_PREFIXES):
            return "max_completion_tokens"
        return "max_tokens"

    def body(
        self,
        messages: list[dict[str, str]],
        *,
        json_mode: bool | None = None,
        schema: Shape | None = None,
        max_tokens: int | None = None,
        level: str | None = None,
    ) -> dict[str, Any]:
        """The JSON request body; Azure mode leaves ``model`` out (the deployment names it).
        ``level`` overrides the structured-output level the client would use now."""
        s = self._settings
        out: dict[str, Any] = {} if s.azure else {"model": s.model}
        out["messages"] = [dict(message) for message in messages]
        if s.temperature is not None:
            out["temperature"] = s.temperature
        limit = max_tokens if max_tokens is not None else s.max_tokens
        if limit is not None:
            out[self.max_tokens_key()] = limit
        level = level or self._level(json_mode, schema)
        if level == "schema" and schema is not None:
            out["response_format"] = schema.response_format("schema")
        elif level in ("schema", "object"):
            out["response_format"] = {"type": "json_object"}
        return out

    def _level(self, json_mode: bool | None, schema: Shape | None) -> str:
        wanted = self._settings.level != "text" if json_mode is None else bool(json_mode)
        if not wanted:
            return "text"
        level = self._shared.levels.current
        if level == "text" and json_mode and self._settings.level == "text":
            level = "object"  # asked for JSON explicitly by a client configured without it
        return "object" if level == "schema" and schema is None else level

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based): capped exponential backoff
        with jitter in [0.5, 1.5), or ``Retry-After`` (at most 120 s) when that asks for more."""
        s = self._settings
        computed = min(s.max_backoff, s.backoff * 2**retry) * (0.5 + self._random())
        if retry_after is None:
            return computed
        return max(computed, min(retry_after, MAX_RETRY_AFTER))

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        json_mode: bool | None = None,
        schema: Shape | None = None,
        max_tokens: int | None = None,
    ) -> ChatReply:
        """Ask for one chat completion, retrying transient failures; raises a BackendError.
        ``schema`` is the reply's shape (asked for strictly where the server allows),
        ``max_tokens`` this call's reply budget (else the settings')."""
        level = self._level(json_mode, schema)
        first_level = level
        attempts = retries = 0
        refused: Failure | None = None
        while True:
            opened = self._allow()
            if opened is not None:
                break
            attempts += 1
            body = self.body(messages, schema=schema, max_tokens=max_tokens, level=level)
            outcome = post(
                self._url,
                json.dumps(body).encode("utf-8"),
                self.headers(),
                self._settings.timeout,
                self._clean,
                self._excerpt,
            )
            if isinstance(outcome, bytes):
                self._shared.breaker.succeeded()
                if level != first_level:
                    self._shared.levels.settle(level)
                return self._parse(outcome, attempts)
            if not outcome.unreachable:
                self._shared.breaker.succeeded()
            elif self._shared.breaker.failed(outcome.detail):
                opened = self._shared.breaker.message()
                break
            lower = Levels.below(level) if _refuses_format(outcome) else None
            if lower is not None and level != "text":
                refused = refused or outcome
                level = lower  # the server may refuse response_format: ask one level down
                continue
            if not outcome.retryable or retries >= self._settings.retries:
                break
            retries += 1
            self._sleep(self.delay(retries - 1, retry_after(outcome.retry_after, time.time())))
        # raised here, outside any except block: no chained urllib frames (they hold the key)
        raise self._error(outcome if attempts else None, attempts, opened, refused)

    def _allow(self) -> str | None:
        """``None`` when an attempt may go out, else the open breaker's message."""
        try:
            self._shared.breaker.allow()
        except BreakerOpen as exc:
            return str(exc)
        return None

    def _error(
        self,
        outcome: Failure | None,
        attempts: int,
        opened: str | None,
        refused: Failure | None,
    ) -> BackendError:
        """The error for a call that gave up (the breaker refused it when ``outcome`` is None)."""
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        url = redact_url(self._url)
        hint = ""
        if outcome is None or (outcome.unreachable and "timed out" not in outcome.detail):
            hint = f" (is the server at {self._setting} up?)"
        if outcome is None or opened is not None:  # the breaker is open (now)
            status = outcome.status if outcome is not None else None
            message = f"{self._shown}: {opened}{hint}"
            return CircuitOpenError(message, url=url, status=status, attempts=attempts)
        detail = outcome.detail
        if refused is not None and refused is not outcome:
            detail += f" (asked with response_format before: {refused.detail})"
        if outcome.retryable:
            message = f"{self._shown} unavailable after {tries}: {detail}{hint}"
        else:
            message = f"{self._shown}: {detail}"
        return outcome.kind(message, url=url, status=outcome.status, attempts=attempts)

    def _clean(self, text: str) -> str:
        """``text`` with the key masked and control characters made visible."""
        return visible(mask(text, self._settings.api_key))

    def _excerpt(self, raw: bytes) -> str:
        """A short, single-line, key-free quote of an error body (its ``error.message`` if any)."""
        text = raw.decode("utf-8", errors="replace")
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            document = None
        if isinstance(document, dict):
            error = document.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                text = error["message"]
            elif isinstance(error, str):
                text = error
        text = self._clean(" ".join(text.split()))
        return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"

    def _parse(self, raw: bytes, attempts: int) -> ChatReply:
        """The reply from a 2xx body, or ProtocolError."""
        return parse_completion(
            raw, attempts, self._settings.model, self._excerpt, self._protocol_error
        )

    def _protocol_error(self, why: str, raw: bytes, attempts: int) -> ProtocolError:
        excerpt = self._excerpt(raw) or "<empty body>"
        message = f"{self._shown}: not a chat completion ({why}): {excerpt}"
        return ProtocolError(message, url=redact_url(self._url), status=200, attempts=attempts)
