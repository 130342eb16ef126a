"""The judge's transport: an OpenAI-compatible chat-completions client, standard library only.

POSTs to ``{base_url}/chat/completions`` (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM, ...) or, in
Azure OpenAI mode, ``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=``
with an ``api-key`` header. Connection errors, timeouts and HTTP 408/409/429/5xx are retried
with exponential backoff and jitter (honouring ``Retry-After``); other statuses are not, nor is a
2xx that is not a chat completion (``ProtocolError``: the caller owns that budget). The key never
appears in a message or ``repr``: errors are raised outside ``except`` blocks (no chained urllib
frames holding the headers), echoes of it in error bodies are masked, and redirects are not
followed (they would forward it). Pure (never imports pytest), no global state, thread-safe.
"""

from __future__ import annotations

import email.utils
import http
import http.client
import json
import random as _random
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC
from typing import Any

__all__ = [
    "AuthenticationError",
    "BackendError",
    "ChatClient",
    "ChatReply",
    "ClientSettings",
    "ProtocolError",
    "RequestError",
    "UnavailableError",
]

#: Sent as ``User-Agent``.
USER_AGENT = "pytest-probability-texts"
#: Model-name prefixes (case-insensitive) that want ``max_completion_tokens``.
COMPLETION_TOKENS_PREFIXES = ("o1", "o3", "o4", "gpt-5")
#: HTTP statuses retried besides 5xx.
RETRY_STATUSES = frozenset({408, 409, 429})
#: The longest ``Retry-After`` honoured, in seconds.
MAX_RETRY_AFTER = 120.0
_EXCERPT = 300  # characters of an error body quoted in a message
_PHRASES = {status.value: status.phrase for status in http.HTTPStatus}


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to ask the judge. ``repr`` and :meth:`redacted` mask the key."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api_key: str | None = None
    azure_endpoint: str | None = None
    azure_deployment: str | None = None
    api_version: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0
    json_mode: bool = True
    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 20.0

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
        if not self.timeout > 0:
            raise ValueError(f"texts_timeout must be positive, got {self.timeout!r}")
        if self.retries < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must be >= 0")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"texts_max_tokens must be >= 1, got {self.max_tokens!r}")

    @property
    def azure(self) -> bool:
        """Whether Azure OpenAI mode is on (``azure_endpoint`` is set)."""
        return bool(self.azure_endpoint)

    def redacted(self) -> dict[str, Any]:
        """All settings, fit for reports and messages: the key is ``"***"`` (``None`` if unset)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["api_key"] = "***" if self.api_key else None
        return out

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={value!r}" for name, value in self.redacted().items())
        return f"ClientSettings({items})"


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


class BackendError(Exception):
    """The judge could not be reached, or refused. The message names the URL, never the key."""

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
        attempts: int | None = None,
    ) -> None:
        super().__init__(message)
        self.url = url
        self.status = status
        self.attempts = attempts


class AuthenticationError(BackendError):
    """HTTP 401/403: the key is missing, wrong or not allowed to use the model."""


class RequestError(BackendError):
    """HTTP 400/404 or another status that retrying cannot fix (not retried)."""


class UnavailableError(BackendError):
    """Retries exhausted on connection errors, timeouts or HTTP 408/409/429/5xx."""


class ProtocolError(BackendError):
    """A 2xx reply that is not a chat completion (not JSON, no choices, ...); not retried."""


@dataclass(frozen=True)
class _Failure:
    """One failed attempt: whether to retry, what to raise otherwise, and what to say."""

    retryable: bool
    kind: type[BackendError]
    detail: str
    status: int | None = None
    retry_after: float | None = None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: following one would send the key to wherever it points."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _retry_after(value: str | None, now: float) -> float | None:
    """Seconds asked for by a ``Retry-After`` value: delta-seconds or an HTTP-date."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


class ChatClient:
    """A chat-completions client; thread-safe (no mutable state besides the injected helpers)."""

    def __init__(
        self,
        settings: ClientSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self._settings = settings
        self._sleep = sleep
        self._random = random
        self._url = self._build_url()
        parsed = urllib.parse.urlsplit(self._url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            option = "texts_azure_endpoint" if settings.azure else "texts_base_url"
            raise ValueError(f"{option}: not an http(s) URL: {self._url!r}")
        handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
        if parsed.scheme == "https":
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context()))
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        return f"ChatClient({self._settings!r})"

    def _build_url(self) -> str:
        s = self._settings
        if not s.azure:
            return s.base_url.rstrip("/") + "/chat/completions"
        endpoint = (s.azure_endpoint or "").rstrip("/")
        deployment = urllib.parse.quote(s.azure_deployment or s.model, safe="")
        query = urllib.parse.urlencode({"api-version": s.api_version})
        return f"{endpoint}/openai/deployments/{deployment}/chat/completions?{query}"

    def url(self) -> str:
        """The endpoint every request is POSTed to."""
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
        self, messages: list[dict[str, str]], *, json_mode: bool | None = None
    ) -> dict[str, Any]:
        """The JSON request body; Azure mode leaves ``model`` out (the deployment names it)."""
        s = self._settings
        out: dict[str, Any] = {} if s.azure else {"model": s.model}
        out["messages"] = [dict(message) for message in messages]
        if s.temperature is not None:
            out["temperature"] = s.temperature
        if s.max_tokens is not None:
            out[self.max_tokens_key()] = s.max_tokens
        if s.json_mode if json_mode is None else json_mode:
            out["response_format"] = {"type": "json_object"}
        return out

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based): capped exponential backoff
        with jitter in [0.5, 1.5), or ``Retry-After`` (at most 120 s) when that asks for more."""
        s = self._settings
        computed = min(s.max_backoff, s.backoff * 2**retry) * (0.5 + self._random())
        if retry_after is None:
            return computed
        return max(computed, min(retry_after, MAX_RETRY_AFTER))

    def complete(
        self, messages: list[dict[str, str]], *, json_mode: bool | None = None
    ) -> ChatReply:
        """Ask for one chat completion, retrying transient failures; raises a BackendError."""
        data = json.dumps(self.body(messages, json_mode=json_mode)).encode("utf-8")
        budget = self._settings.retries
        attempts = 0
        while True:
            attempts += 1
            outcome = self._attempt(data)
            if isinstance(outcome, bytes):
                return self._parse(outcome, attempts)
            if not outcome.retryable or attempts > budget:
                break
            self._sleep(self.delay(attempts - 1, outcome.retry_after))
        # raised here, outside any except block: no chained urllib frames (they hold the key)
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        where = f"{self._url} unavailable after {tries}" if outcome.retryable else self._url
        message = f"{where}: {outcome.detail}"
        raise outcome.kind(message, url=self._url, status=outcome.status, attempts=attempts)

    def _attempt(self, data: bytes) -> bytes | _Failure:
        """One POST: the 2xx body, or what went wrong."""
        timeout = self._settings.timeout
        request = urllib.request.Request(self._url, data, self.headers(), method="POST")
        try:
            with self._opener.open(request, timeout=timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            return self._http_failure(err)
        except urllib.error.URLError as err:
            reason = err.reason
            if isinstance(reason, ssl.SSLCertVerificationError):
                return _Failure(False, BackendError, f"TLS certificate not trusted: {reason}")
            if isinstance(reason, TimeoutError):
                return _Failure(True, UnavailableError, f"timed out after {timeout:g} s")
            return _Failure(True, UnavailableError, f"connection failed: {self._scrub(reason)}")
        except TimeoutError:
            return _Failure(True, UnavailableError, f"timed out after {timeout:g} s")
        except (http.client.HTTPException, OSError) as err:
            detail = f"connection failed: {type(err).__name__}: {self._scrub(err)}".rstrip(": ")
            return _Failure(True, UnavailableError, detail)

    def _http_failure(self, err: urllib.error.HTTPError) -> _Failure:
        code = err.code
        phrase = _PHRASES.get(code) or str(err.reason or "")
        try:
            raw = err.read()
        except Exception:  # the body is only decoration for the message
            raw = b""
        finally:
            err.close()
        excerpt = self._excerpt(raw)
        detail = f"HTTP {code} {phrase}".rstrip() + (f": {excerpt}" if excerpt else "")
        if code in (401, 403):
            return _Failure(False, AuthenticationError, detail, code)
        if code in RETRY_STATUSES or 500 <= code <= 599:
            retry_after = _retry_after(err.headers.get("Retry-After"), time.time())
            return _Failure(True, UnavailableError, detail, code, retry_after)
        if 300 <= code <= 399:
            location = err.headers.get("Location") if err.headers else None
            detail += f" (redirect to {location!r} not followed: set the final URL)"
        return _Failure(False, RequestError, detail, code)

    def _excerpt(self, raw: bytes) -> str:
        """A short, single-line, key-free quote of an error body (its ``error.message`` if any)."""
        text = raw.decode("utf-8", errors="replace")
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        if isinstance(document, dict):
            error = document.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                text = error["message"]
            elif isinstance(error, str):
                text = error
        text = " ".join(self._scrub(text).split())
        return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"

    def _scrub(self, value: object) -> str:
        """``str(value)`` with the key masked, should a server or OS message echo it."""
        text = str(value)
        key = self._settings.api_key
        return text.replace(key, "***") if key else text

    def _parse(self, raw: bytes, attempts: int) -> ChatReply:
        """The reply from a 2xx body, or ProtocolError."""

        def fail(why: str) -> ProtocolError:
            excerpt = self._excerpt(raw)
            message = f"{self._url}: not a chat completion ({why}): {excerpt or '<empty body>'}"
            return ProtocolError(message, url=self._url, status=200, attempts=attempts)

        try:
            document = json.loads(raw)
        except ValueError:
            raise fail("invalid JSON") from None
        if not isinstance(document, dict):
            raise fail("not a JSON object")
        if document.get("error") and not document.get("choices"):
            raise fail("an error object")
        choices = document.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise fail("no choices[0].message")
        content = message.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            parts = [p.get("text") for p in content if isinstance(p, dict)]
            content = "".join(p for p in parts if isinstance(p, str))
        if content is not None and not isinstance(content, str):
            raise fail("content is not text")
        finish = choice.get("finish_reason")
        usage = document.get("usage") if isinstance(document.get("usage"), dict) else {}
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        model = document.get("model")
        return ChatReply(
            text=content or "",
            finish_reason=finish if isinstance(finish, str) else None,
            model=model if isinstance(model, str) and model else self._settings.model,
            input_tokens=_int_or_none(usage.get("prompt_tokens")),
            output_tokens=_int_or_none(usage.get("completion_tokens")),
            cached_input_tokens=_int_or_none(cached),
            attempts=attempts,
        )
