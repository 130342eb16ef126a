"""One HTTP attempt of the judge's client: the whole request bounded in time, the body in
size, and every failure turned into a :class:`Failure` that holds no secret.

``texts_timeout`` bounds the *whole* request — connecting, sending, the headers and the
body — not one socket read: a watchdog timer shuts the connection down when the time is up,
so a server that trickles a byte a second is cut at the timeout. A 2xx body larger than
:data:`MAX_BODY` is refused rather than read into memory; error bodies are read up to
:data:`MAX_ERROR_BODY` for their message. Any exception on the way — urllib's, http.client's,
the SSL layer's, or an ``OverflowError`` or ``UnicodeEncodeError`` from a value that cannot go
into a request — becomes a :class:`Failure` whose text is masked and printable; the caller
raises its error outside the ``except`` block. Redirects are not followed (they would forward
the key); their ``Location`` is shown redacted. Pure module (never imports pytest).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import http
import http.client
import math
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from .errors import AuthenticationError, BackendError, ProtocolError, RequestError, UnavailableError
from .urls import redact_url

#: the largest 2xx body read (a chat completion is a few KiB)
MAX_BODY = 8 * 1024 * 1024
#: the most of an error body read for its message
MAX_ERROR_BODY = 64 * 1024
_CHUNK = 64 * 1024
#: HTTP statuses retried besides 5xx
RETRY_STATUSES = frozenset({408, 409, 429})
#: The longest ``Retry-After`` honoured, in seconds (a call waits :data:`.client.MAX_WAIT` in
#: all).
MAX_RETRY_AFTER = 30.0
_PHRASES = {status.value: status.phrase for status in http.HTTPStatus}


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds asked for by a ``Retry-After`` value: delta-seconds or an HTTP-date."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class Failure:
    """One failed attempt: whether to retry, what to raise otherwise, and what to say.
    ``unreachable`` marks connection failures and timeouts (what the breaker counts)."""

    retryable: bool
    kind: type[BackendError]
    detail: str
    status: int | None = None
    retry_after: str | None = None
    unreachable: bool = False


class _Deadline:
    """Shuts the request's connection down when ``seconds`` have passed since it was
    entered (a timer thread, cancelled on exit)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False
        self._timer = threading.Timer(min(seconds, threading.TIMEOUT_MAX), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Shut the connection down under a blocked reader. The plain socket's ``shutdown`` is
    called even on an SSL socket (whose own would drop its SSL state from under the reader);
    a socket already closed has no descriptor left to shut."""
    with contextlib.suppress(OSError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watched:
    """A connection whose socket the request's deadline watches (mixed into http.client's
    connection classes)."""

    sock: socket.socket

    def __init__(self, *args: Any, deadline: _Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._deadline.watch(self.sock)


class _HTTP(_Watched, http.client.HTTPConnection):
    pass


class _HTTPS(_Watched, http.client.HTTPSConnection):
    pass


class _Handler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """Opens http and https connections whose sockets the request's deadline watches."""

    def __init__(self, deadline: _Deadline, context: ssl.SSLContext) -> None:
        super().__init__(context=context)
        self._deadline = deadline
        self._ssl = context

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_HTTP, req, deadline=self._deadline)

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_HTTPS, req, context=self._ssl, deadline=self._deadline)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: following one would send the key to wherever it points."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@functools.cache  # loading the trust store costs a few ms: once per process
def _context() -> ssl.SSLContext:
    return ssl.create_default_context()


def post(
    url: str,
    data: bytes,
    headers: dict[str, str],
    timeout: float,
    clean: Callable[[str], str],
    excerpt: Callable[[bytes], str],
) -> bytes | Failure:
    """POST ``data``; the 2xx body, or what went wrong. ``clean`` masks the key and makes a
    text printable; ``excerpt`` quotes an error body."""
    deadline = _Deadline(timeout)
    try:
        with deadline:
            # (the shared context also for http: given none, Python 3.12+'s HTTPSHandler
            # loads the trust store again, 30 ms a request)
            opener = urllib.request.build_opener(_NoRedirect(), _Handler(deadline, _context()))
            request = urllib.request.Request(url, data, headers, method="POST")
            try:
                with opener.open(request, timeout=timeout) as response:
                    body = _read(response, MAX_BODY + 1)
            except urllib.error.HTTPError as err:
                return _http_failure(err, clean, excerpt)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
                if deadline.expired:
                    return _timed_out(timeout)
                return _connection_failure(err, timeout, clean)
            if deadline.expired and len(body) <= MAX_BODY:
                return _timed_out(timeout)  # cut short: what was read is not the whole body
            if len(body) > MAX_BODY:
                return Failure(
                    False,
                    ProtocolError,
                    f"the reply is larger than {MAX_BODY // (1024 * 1024)} MiB: not read (a "
                    "chat completion is a few KiB; check that texts_base_url is the judge's "
                    "API)",
                    status=getattr(response, "status", None),
                )
            return body
    except Exception as err:  # never escapes: its frames hold the headers (and the key)
        if deadline.expired:
            return _timed_out(timeout)
        kind = type(err).__name__
        detail = f"the request failed unexpectedly ({kind}: {clean(str(err))})"
        return Failure(False, RequestError, detail)


def _timed_out(timeout: float) -> Failure:
    return Failure(
        True,
        UnavailableError,
        f"timed out after {timeout:g} s (texts_timeout bounds each whole request)",
        unreachable=True,
    )


def _read(response: Any, limit: int) -> bytes:
    """At most ``limit`` bytes of the body, read in chunks."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = response.read(min(_CHUNK, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _connection_failure(err: BaseException, timeout: float, clean: Callable[[str], str]) -> Failure:
    reason = err.reason if isinstance(err, urllib.error.URLError) else err
    if isinstance(reason, ssl.SSLCertVerificationError):
        return Failure(False, BackendError, f"TLS certificate not trusted: {clean(str(reason))}")
    if isinstance(reason, TimeoutError):
        return _timed_out(timeout)
    text = clean(str(reason))
    if not isinstance(err, urllib.error.URLError):
        text = f"{type(err).__name__}: {text}".rstrip(": ")
    return Failure(True, UnavailableError, f"connection failed: {text}", unreachable=True)


def _http_failure(
    err: urllib.error.HTTPError, clean: Callable[[str], str], excerpt: Callable[[bytes], str]
) -> Failure:
    code = err.code
    try:
        raw = _read(err, MAX_ERROR_BODY)
    except Exception:  # the body is only decoration for the message
        raw = b""
    finally:
        err.close()
    quoted = excerpt(raw)
    phrase = _PHRASES.get(code) or clean(" ".join(str(err.reason or "").split()))[:80]
    detail = f"HTTP {code} {phrase}".rstrip() + (f": {quoted}" if quoted else "")
    headers = err.headers
    if code in (401, 403):
        return Failure(False, AuthenticationError, detail, code)
    if code in RETRY_STATUSES or 500 <= code <= 599:
        retry_after = headers.get("Retry-After") if headers else None
        return Failure(True, UnavailableError, detail, code, retry_after)
    if 300 <= code <= 399:
        location = headers.get("Location") if headers else None
        shown = clean(redact_url(location)) if location else "nowhere"
        detail += (
            f" (a redirect to {shown}, not followed: it would forward the key; set the final URL)"
        )
    return Failure(False, RequestError, detail, code)
