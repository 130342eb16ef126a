"""The bundled backend (``openai``): an OpenAI-compatible chat-completions client, standard
library only.

POSTs to ``{base_url}/chat/completions`` (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...) or, in
Azure OpenAI mode, ``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=``
with an ``api-key`` header. Connection errors, timeouts and HTTP 408/409/429/5xx are retried
with exponential backoff and jitter (honouring ``Retry-After``); other statuses are not, nor is a
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
from dataclasses import dataclass, fields
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
from .settings import MAX_TIMEOUT, REASONING_PREFIXES, TextsSettings
from .structured import LEVELS, Shape, level_of
from .transport import MAX_RETRY_AFTER, Failure, post, retry_after
from .urls import check_url, mask, redact_url

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


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to ask the judge. ``repr`` and :meth:`redacted` mask the key and
    redact the URLs; invalid values raise :class:`ValueError` naming the setting."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api_key: str | None = None
    azure_endpoint: str | None = None
    azure_deployment: str | None = None
    api_version: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0
    #: the structured-output level: ``"schema"``, ``"object"``, ``"text"`` (or a bool)
    json_mode: bool | str = True
    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 20.0
    #: connection failures or timeouts in a row that open the circuit breaker (0: never)
    breaker_failures: int = 3
    #: seconds before an open breaker lets a probe through
    breaker_cooldown: float = 30.0

    def __post_init__(self) -> None:
        key = (self.api_key or "").strip()  # a trailing newline from a key file is forgiven
        if not all("!" <= char <= "~" for char in key):  # else http.client would quote it
            raise ValueError("texts_api_key: only printable ASCII characters are allowed")
        object.__setattr__(self, "api_key", key or None)
        if not (self.model or self.azure_deployment):
            raise ValueError("texts_model: a model name is required")
        if self.azure_endpoint and not self.api_version:
            raise ValueError(
                "texts_api_version is required in Azure OpenAI mode (texts_azure_endpoint is set)"
            )
        if self.azure_endpoint:
            check_url("texts_azure_endpoint", self.azure_endpoint)
        else:
            check_url("texts_base_url", self.base_url)
        if not (isinstance(self.timeout, (int, float)) and 0 < self.timeout <= MAX_TIMEOUT):
            raise ValueError(
                f"texts_timeout must be a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT:g} (a day), got {self.timeout!r}"
            )
        if self.retries < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must be >= 0")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"texts_max_tokens must be >= 1, got {self.max_tokens!r}")
        if level_of(self.json_mode) is None:
            raise ValueError(
                f"texts_json_mode: expected schema, object or text (or true/false), "
                f"got {self.json_mode!r}"
            )
        if self.breaker_failures < 0 or not (0 <= self.breaker_cooldown <= MAX_TIMEOUT):
            raise ValueError("texts_breaker_failures and texts_breaker_cooldown must be >= 0")

    @property
    def azure(self) -> bool:
        """Whether Azure OpenAI mode is on (``azure_endpoint`` is set)."""
        return bool(self.azure_endpoint)

    @property
    def level(self) -> str:
        """The structured-output level asked for first."""
        return level_of(self.json_mode) or "schema"

    def redacted(self) -> dict[str, Any]:
        """All settings, fit for reports and messages: the key is ``"***"`` (``None`` if
        unset), the URLs have no userinfo or query string."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["api_key"] = "***" if self.api_key else None
        for name in ("base_url", "azure_endpoint"):
            if out[name]:
                out[name] = redact_url(out[name])
        return out

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={value!r}" for name, value in self.redacted().items())
        return f"ClientSettings({items})"


def _reasoning(model: str) -> bool:
    """Whether ``model`` (``openai/o3`` too) is a reasoning model: it takes
    ``max_completion_tokens`` and no temperature."""
    return model.rsplit("/", 1)[-1].lower().startswith(REASONING_PREFIXES)


class _Shared:
    """What the clients of one session share: the breaker, and the structured-output level
    to ask at, which only goes down (for the session) when the server refused one."""

    def __init__(self, settings: ClientSettings, clock: Callable[[], float]) -> None:
        self.breaker = Breaker(settings.breaker_failures, settings.breaker_cooldown, clock=clock)
        self.level = settings.level
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


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


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
        return ChatClient(
            dataclasses.replace(self._settings, **changes),
            sleep=self._sleep,
            random=self._random,
            shared=self._shared,
        )

    def _build_url(self) -> str:
        s = self._settings
        if not s.azure:
            base, _, query = s.base_url.partition("?")
            return base.rstrip("/") + "/chat/completions" + (f"?{query}" if query else "")
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
            reasoning = _reasoning(s.model or s.azure_deployment or "")
            out["max_completion_tokens" if reasoning else "max_tokens"] = limit
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
        level = self._shared.level
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
        breaker = self._shared.breaker
        level = first_level = self._level(json_mode, schema)
        attempts = retries = 0
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
            if not outcome.unreachable:
                breaker.succeeded()
            elif breaker.failed(outcome.detail):
                opened = breaker.message()
                break
            if level != "text" and _refuses_format(outcome):
                refused = refused or outcome
                # the server may refuse response_format: ask one level down
                level = LEVELS[LEVELS.index(level) + 1]
                continue
            if not outcome.retryable or retries >= self._settings.retries:
                break
            retries += 1
            self._sleep(self.delay(retries - 1, retry_after(outcome.retry_after, time.time())))
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
            input_tokens=_whole(usage.get("prompt_tokens")),
            output_tokens=_whole(usage.get("completion_tokens")),
            cached_input_tokens=_whole(cached),
            attempts=attempts,
        )

    def _protocol_error(self, why: str, raw: bytes, attempts: int) -> ProtocolError:
        excerpt = self._excerpt(raw) or "<empty body>"
        message = f"{self._shown}: not a chat completion ({why}): {excerpt}"
        return ProtocolError(message, url=redact_url(self._url), status=200, attempts=attempts)


def openai_backend(settings: TextsSettings) -> ChatClient:
    """The bundled backend (``openai``): OpenAI-compatible chat completions over HTTP."""
    return ChatClient(
        ClientSettings(
            model=settings.model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            azure_endpoint=settings.azure_endpoint,
            azure_deployment=settings.azure_deployment,
            api_version=settings.api_version,
            # reasoning models accept no temperature
            temperature=None if _reasoning(settings.model) else settings.temperature,
            max_tokens=settings.max_tokens,
            timeout=settings.timeout,
            json_mode=settings.json_level,
            retries=settings.transport_retries,
            breaker_failures=settings.breaker_failures,
            breaker_cooldown=settings.breaker_cooldown,
        )
    )
