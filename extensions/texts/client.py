"""The bundled backend (``openai``): an OpenAI-compatible chat-completions client, standard
library only.

POSTs to ``{base_url}/chat/completions`` (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...) or, in
Azure OpenAI mode, ``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=``
with an ``api-key`` header. Connection errors, timeouts and HTTP 408/409/429/5xx are retried
with exponential backoff and jitter (honouring ``Retry-After`` up to :data:`MAX_RETRY_AFTER`),
waiting at most :data:`MAX_WAIT` in all per call; other statuses are not, nor is a
2xx that is not a chat completion (``ProtocolError``: the caller owns that budget), nor a
request that cannot be built (a configuration error). The reply's shape is asked for at the
session's structured-output level (:mod:`.structured`), one level lower after the server
refuses one; the circuit breaker (:mod:`.breaker`) makes calls fail at once while the judge is
unreachable; one attempt is :func:`.transport.post`. The key never appears in a message or
``repr`` (:mod:`.errors`); the reply text is kept as sent. Pure; thread-safe.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import dataclasses
import json
import random as _random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
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
from .settings import TextsSettings, is_reasoning
from .structured import LEVELS, Shape
from .transport import MAX_RETRY_AFTER, Failure, post, retry_after
from .urls import mask, redact_url

__all__ = [
    "AuthenticationError",
    "BackendError",
    "ChatClient",
    "ChatReply",
    "CircuitOpenError",
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
#: the most seconds one call waits between its attempts, in all
MAX_WAIT = 60.0


@dataclass(frozen=True)
class ChatReply:
    """One chat completion: the first choice's text, why it stopped, and token usage (the
    counts as the server sent them: :func:`.judge.junk_usage` checks them where they count)."""

    text: str
    finish_reason: str | None
    model: str
    input_tokens: Any
    output_tokens: Any
    cached_input_tokens: Any
    attempts: int


class _Shared:
    """What the clients of one session share: the breaker, and the structured-output level
    to ask at, which only goes down (for the session) when the server refused one."""

    def __init__(self, settings: TextsSettings, clock: Callable[[], float]) -> None:
        self.breaker = Breaker(settings.breaker_failures, settings.breaker_cooldown, clock=clock)
        self.level = settings.json_level
        self._lock = threading.Lock()

    def settle(self, level: str) -> None:
        """A request at ``level`` worked after a refusal: ask at it from now on."""
        with self._lock:
            if LEVELS.index(level) > LEVELS.index(self.level):
                self.level = level


def _refuses_format(outcome: Failure) -> bool:
    """Whether a failure may be the server refusing the ``response_format`` asked for."""
    if outcome.status not in REFUSED_FORMAT:
        return False
    said = outcome.detail.partition(": ")[2].lower()
    return not said or any(word in said for word in FORMAT_WORDS)


class ChatClient:
    """A chat-completions client for the resolved settings (the ``openai`` backend's
    factory); thread-safe. :meth:`variant` makes a client with other retries that shares this
    one's breaker and structured-output level."""

    def __init__(
        self,
        settings: TextsSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
        clock: Callable[[], float] = time.monotonic,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        shared: _Shared | None = None,
    ) -> None:
        key = (settings.api_key or "").strip()  # a trailing newline from a key file is forgiven
        if not all("!" <= char <= "~" for char in key):  # else http.client would quote it
            raise ValueError("texts_api_key: only printable ASCII characters are allowed")
        self._key = key or None
        self._settings = settings
        self._sleep = sleep
        self._random = random
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._shared = shared or _Shared(settings, clock)
        self._url = self._build_url()
        self._setting = "texts_azure_endpoint" if settings.azure_endpoint else "texts_base_url"
        self._shown = f"{redact_url(self._url)} (model {visible(settings.model)})"

    def __repr__(self) -> str:
        return f"ChatClient({self._settings!r})"

    @property
    def settings(self) -> TextsSettings:
        return self._settings

    @property
    def breaker(self) -> Breaker:
        """The circuit breaker this client (and its variants) use."""
        return self._shared.breaker

    def variant(self, *, retries: int) -> ChatClient:
        """A client with ``retries`` transport retries, sharing the breaker and the
        structured-output level with this one."""
        return ChatClient(
            dataclasses.replace(self._settings, transport_retries=retries),
            sleep=self._sleep,
            random=self._random,
            backoff=self._backoff,
            max_backoff=self._max_backoff,
            shared=self._shared,
        )

    def _build_url(self) -> str:
        s = self._settings
        if not s.azure_endpoint:
            base, _, query = s.base_url.partition("?")
            return base.rstrip("/") + "/chat/completions" + (f"?{query}" if query else "")
        endpoint = s.azure_endpoint.rstrip("/")
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
        if self._key:
            if self._settings.azure_endpoint:
                out["api-key"] = self._key
            else:
                out["Authorization"] = f"Bearer {self._key}"
        return out

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
        out: dict[str, Any] = {} if s.azure_endpoint else {"model": s.model}
        out["messages"] = [dict(message) for message in messages]
        reasoning = is_reasoning(s.model)  # no temperature, max_completion_tokens
        if s.temperature is not None and not reasoning:
            out["temperature"] = s.temperature
        limit = max_tokens if max_tokens is not None else s.max_tokens
        if limit is not None:
            out["max_completion_tokens" if reasoning else "max_tokens"] = limit
        level = level or self._level(json_mode, schema)
        if level == "schema" and schema is not None:
            out["response_format"] = schema.response_format("schema")
        elif level in ("schema", "object"):
            out["response_format"] = {"type": "json_object"}
        return out

    def _level(self, json_mode: bool | None, schema: Shape | None) -> str:
        first = self._settings.json_level
        if not (first != "text" if json_mode is None else json_mode):
            return "text"
        level = self._shared.level
        if level == "text" and json_mode and first == "text":
            level = "object"  # asked for JSON explicitly by a client configured without it
        return "object" if level == "schema" and schema is None else level

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based): capped exponential backoff
        with jitter in [0.5, 1.5), or ``Retry-After`` (at most :data:`MAX_RETRY_AFTER`) when
        that asks for more."""
        computed = min(self._max_backoff, self._backoff * 2**retry) * (0.5 + self._random())
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
        breaker = self._shared.breaker
        level = first_level = self._level(json_mode, schema)
        attempts = retries = 0
        waited = 0.0
        refused: Failure | None = None
        opened: str | None = None
        while True:
            try:
                breaker.allow()
            except BreakerOpen as exc:
                opened = str(exc)
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
                breaker.succeeded()
                if level != first_level:
                    self._shared.settle(level)
                return self._parse(outcome, attempts)
            if not (outcome.unreachable or outcome.status == 429):  # rate limits count too
                breaker.succeeded()
            elif breaker.failed(outcome.detail):
                opened = breaker.message()
                break
            if level != "text" and _refuses_format(outcome):
                refused = refused or outcome
                # the server may refuse response_format: ask one level down
                level = LEVELS[LEVELS.index(level) + 1]
                continue
            if not outcome.retryable or retries >= self._settings.transport_retries:
                break
            wait = self.delay(retries, retry_after(outcome.retry_after, time.time()))
            if waited + wait > MAX_WAIT:
                more = f"; waiting {wait:g} s more would pass {MAX_WAIT:g} s for one call"
                outcome = dataclasses.replace(outcome, detail=outcome.detail + more)
                break
            retries += 1
            waited += wait
            self._sleep(wait)
        # raised here, outside any except block: no chained urllib frames (they hold the key)
        raise self._error(outcome if attempts else None, attempts, opened, refused)

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
        return visible(mask(text, self._key))

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
        """The reply in a 2xx body; else :class:`ProtocolError` (raised outside any
        ``except`` block)."""
        document: Any = None
        problem = ""
        try:
            document = json.loads(raw)
        except (ValueError, RecursionError):
            problem = "invalid JSON"
        if not problem and not isinstance(document, dict):
            problem = "not a JSON object"
        elif not problem and document.get("error") and not document.get("choices"):
            problem = "an error object"
        if problem:
            raise self._protocol_error(problem, raw, attempts)
        choices = document.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise self._protocol_error("no choices[0].message", raw, attempts)
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            parts = [p.get("text") for p in content if isinstance(p, dict)]
            content = "".join(p for p in parts if isinstance(p, str))
        if content is not None and not isinstance(content, str):
            raise self._protocol_error("content is not text", raw, attempts)
        finish = choice.get("finish_reason")
        usage = document.get("usage") if isinstance(document.get("usage"), dict) else {}
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        model = document.get("model")
        return ChatReply(
            text=content or "",
            finish_reason=visible(finish) if isinstance(finish, str) else None,
            model=visible(model) if isinstance(model, str) and model else self._settings.model,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            cached_input_tokens=cached,
            attempts=attempts,
        )

    def _protocol_error(self, why: str, raw: bytes, attempts: int) -> ProtocolError:
        excerpt = self._excerpt(raw) or "<empty body>"
        message = f"{self._shown}: not a chat completion ({why}): {excerpt}"
        return ProtocolError(message, url=redact_url(self._url), status=200, attempts=attempts)
