"""The bundled backend's errors. Pure module.

Every message is built by the client from redacted, masked and printable parts: the URL
without userinfo or query string, server text with the key replaced by ``***`` and control
characters made visible. They are raised outside any ``except`` block (or ``from None``), so
no chained exception carries urllib's frames and their locals (which hold the request's
headers, and so the key) into ``pytest -l`` or a JUnit file.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations


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
        #: the endpoint, redacted (no userinfo, no query string)
        self.url = url
        self.status = status
        self.attempts = attempts


class AuthenticationError(BackendError):
    """HTTP 401/403: the key is missing, wrong or not allowed to use the model."""


class RequestError(BackendError):
    """HTTP 400/404, another status that retrying cannot fix, or a request that could not
    be built or sent (a configuration problem); never retried."""


class UnavailableError(BackendError):
    """Retries exhausted on connection errors, timeouts or HTTP 408/409/429/5xx."""


class CircuitOpenError(UnavailableError):
    """The judge has been unreachable for several attempts in a row: calls fail at once
    until a probe after the cool-down gets through (the circuit breaker)."""


class ProtocolError(BackendError):
    """A 2xx reply that is not a chat completion (not JSON, no choices, too large, ...);
    not retried by the transport (the caller's reply budget may ask again)."""
