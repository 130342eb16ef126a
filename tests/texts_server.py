"""A loopback chat-completions server for the ``texts`` extension's tests (not a test module).

It speaks the real wire protocol on 127.0.0.1 (ephemeral port, background thread): ``POST``
to any path ending in ``/chat/completions`` (``/v1/chat/completions``, or Azure's
``/openai/deployments/<dep>/chat/completions?api-version=...``). Every request is recorded
(:class:`Request`); replies come from a script (a queue of reply specs) or from a callable
``(request) -> reply spec`` for content-dependent replies. Reply specs::

    ok("...", usage=(prompt, completion, cached) or None, finish_reason="stop", model=None)
    status(429, body=..., headers={"Retry-After": "1"})
    hang(seconds)     # answer nothing for longer than the client's timeout
    garbage("text")   # 200 with a body that is not JSON
    close()           # drop the connection without a response
    wire(b"HTTP/1.1 200 OK\r\n...", interval=0.05)   # raw bytes, one at a time if interval

Use ``with serve() as server: ...`` or the ``chat_server`` fixture; since importing a fixture
trips linters, a test module binds it with ``chat_server = texts_server.chat_server``.
An unscripted request gets a 500 and is listed in ``server.unexpected``.
"""

from __future__ import annotations

import json
import os
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pytest_probability.extensions.texts.settings import TextsSettings

__all__ = [
    "SETTINGS",
    "ChatServer",
    "Reply",
    "Request",
    "chat_server",
    "close",
    "garbage",
    "hang",
    "ok",
    "serve",
    "status",
    "wire",
]


#: settings for a client under test: each test replaces what it needs (``dataclasses.replace``)
SETTINGS = TextsSettings(
    backend="openai",
    model="gpt-4o-mini",
    base_url="https://api.openai.com/v1",
    api_key=None,
    azure_endpoint=None,
    azure_deployment=None,
    api_version=None,
    temperature=0.0,
    max_tokens=None,
    timeout=60.0,
    json_mode=True,
    max_concurrency=8,
    cache=False,
)


@dataclass(frozen=True)
class Request:
    """One request as the server saw it (header names lower-cased)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any  # the parsed JSON body, None if it was not JSON
    raw: bytes

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's chat messages ([] if none)."""
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def prompt(self) -> str:
        """The last message's content ("" if none)."""
        return str(self.messages[-1].get("content", "")) if self.messages else ""


@dataclass(frozen=True)
class Reply:
    """A scripted reply; build one with :func:`ok`, :func:`status`, :func:`hang`, ...."""

    kind: str  # "json", "raw", "hang", "close" or "wire"
    code: int = 200
    payload: Any = None  # a JSON-able document for "json", bytes for "raw"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    echo_model: bool = False  # "ok" with model=None: echo the request's model (if any)


def ok(
    content: str | None,
    *,
    usage: tuple[int, int, int | None] | None = (10, 2, 0),
    finish_reason: str | None = "stop",
    model: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """A 200 chat completion whose first choice says ``content``; ``model=None`` echoes the
    request's model (none in Azure mode); ``usage=(prompt, completion, cached)``, cached
    ``None`` leaves ``prompt_tokens_details`` out, ``usage=None`` leaves ``usage`` out."""
    document: dict[str, Any] = {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
    }
    if model is not None:
        document["model"] = model
    if usage is not None:
        prompt, completion, cached = usage
        document["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if cached is not None:
            document["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
    return Reply("json", 200, document, delay=delay, echo_model=model is None)


def status(
    code: int, body: Any = None, *, headers: dict[str, str] | None = None, delay: float = 0.0
) -> Reply:
    """An HTTP ``code`` reply: ``body`` a JSON-able document or a str (sent as is); by default
    an OpenAI-style ``{"error": {...}}``."""
    if body is None:
        body = {"error": {"message": f"scripted status {code}", "type": "test", "code": code}}
    if isinstance(body, str):
        return Reply("raw", code, body.encode("utf-8"), dict(headers or {}), delay)
    return Reply("json", code, body, dict(headers or {}), delay)


def hang(seconds: float) -> Reply:
    """Say nothing for ``seconds`` (longer than the client's timeout), then hang up."""
    return Reply("hang", delay=seconds)


def garbage(text: str = "<html>502 Bad Gateway</html>") -> Reply:
    """A 200 whose body is not JSON."""
    return Reply("raw", 200, text.encode("utf-8"), {"Content-Type": "text/html"})


def close() -> Reply:
    """Close the connection without a response."""
    return Reply("close")


def wire(data: bytes, *, interval: float = 0.0) -> Reply:
    """Write ``data`` to the socket as it is (status line, headers and body: anything, even
    malformed), one byte every ``interval`` seconds when it is positive (a trickle), then
    hang up. :attr:`ChatServer.wire_sent` counts the bytes the client took."""
    return Reply("wire", payload=data, delay=interval)


Responder = Callable[[Request], Reply]


class ChatServer:
    """The running server: ``url`` (ends in /v1), ``azure_endpoint``, ``requests``, scripts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._responder: Responder | None = None
        self._requests: list[Request] = []
        self.unexpected: list[Request] = []
        self.stopping = threading.Event()
        #: requests being answered now, and the most ever answered at once
        self.in_flight = 0
        self.most_in_flight = 0
        self._overlap = 0
        self._flight = threading.Condition(self._lock)
        #: hanging requests whose client hung up first (gave up at its own timeout)
        self.abandoned = 0
        #: bytes of ``wire`` replies written before the client hung up (or all of them)
        self.wire_sent = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        host, port = self._httpd.server_address[:2]
        self.azure_endpoint = f"http://{host}:{port}"
        self.url = f"{self.azure_endpoint}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def requests(self) -> list[Request]:
        """A snapshot of the requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def script(self, *replies: Reply) -> ChatServer:
        """Queue ``replies``, one per request, in order (after any already queued)."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def respond_with(self, responder: Responder | None) -> ChatServer:
        """Answer every request the queue does not from ``responder(request)``."""
        with self._lock:
            self._responder = responder
        return self

    def hold_until_overlap(self, count: int) -> ChatServer:
        """Hold every reply until ``count`` requests have been in flight at once (then hold
        nothing more): concurrency proven by counting, not by timing. A client that never
        overlaps ``count`` requests is answered after a 10 s liveness bound per request, and
        :attr:`most_in_flight` tells."""
        with self._lock:
            self._overlap = count
        return self

    def _arrive(self) -> None:
        with self._flight:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._flight.notify_all()
            self._flight.wait_for(
                lambda: self.most_in_flight >= self._overlap or self.stopping.is_set(), 10
            )

    def wait_abandoned(self, count: int) -> int:
        """Wait (10 s liveness bound) until ``count`` hanging requests were abandoned by their
        client; returns how many were."""
        with self._flight:
            self._flight.wait_for(lambda: self.abandoned >= count, 10)
            return self.abandoned

    def _note_abandoned(self) -> None:
        with self._flight:
            self.abandoned += 1
            self._flight.notify_all()

    def _leave(self) -> None:
        with self._flight:
            self.in_flight -= 1

    def _record(self, request: Request) -> Reply | None:
        with self._lock:
            self._requests.append(request)
            if self._queue:
                return self._queue.popleft()
            responder = self._responder
        if responder is not None:
            return responder(request)
        with self._lock:
            self.unexpected.append(request)
        return None

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # wakes hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            parts = urlsplit(self.path)
            request = Request(
                method="POST",
                path=parts.path,
                query={k: v[0] for k, v in parse_qs(parts.query).items()},
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                raw=raw,
            )
            if not parts.path.endswith("/chat/completions"):
                self._send(404, {"error": {"message": f"no route {parts.path}"}}, {})
                return
            reply = server._record(request)
            server._arrive()
            try:
                self._answer(reply, body)
            finally:
                server._leave()

        def _answer(self, reply: Reply | None, body: Any) -> None:
            if reply is None:
                self._send(500, {"error": {"message": "loopback server: no scripted reply"}}, {})
            elif reply.kind == "close":
                self.close_connection = True
            elif reply.kind == "wire":
                self._wire(reply.payload, reply.delay)
                self.close_connection = True
            elif reply.kind == "hang":
                if self._client_hangs_up(reply.delay):
                    server._note_abandoned()
                self.close_connection = True
            else:
                if reply.delay:
                    server.stopping.wait(reply.delay)
                payload = reply.payload
                if reply.echo_model and isinstance(body, dict) and "model" in body:
                    payload = {**payload, "model": body["model"]}
                self._send(reply.code, payload, reply.headers)

        def _wire(self, data: bytes, interval: float) -> None:
            step = 1 if interval > 0 else len(data)
            try:
                for start in range(0, len(data), step):
                    if interval > 0 and start and server.stopping.wait(interval):
                        return
                    self.wfile.write(data[start : start + step])
                    self.wfile.flush()
                    with server._lock:
                        server.wire_sent += len(data[start : start + step])
            except OSError:  # the client hung up
                pass

        def _client_hangs_up(self, seconds: float) -> bool:
            """Say nothing for up to ``seconds`` (polled every 20 ms); true when the client
            closed its end first. (``poll``, not ``select``: a long test process may hold
            descriptors beyond select's limit of 1024.)"""
            poller = select.poll()
            poller.register(self.connection, select.POLLIN)
            for _ in range(max(1, round(seconds / 0.02))):
                if server.stopping.is_set():
                    return False
                if poller.poll(20):
                    try:
                        if self.connection.recv(1, socket.MSG_PEEK) == b"":
                            return True
                    except OSError:
                        return True
            return False

        def do_GET(self) -> None:
            self._send(405, {"error": {"message": "POST only"}}, {})

        def _send(self, code: int, payload: Any, headers: dict[str, str]) -> None:
            if isinstance(payload, bytes):
                data, kind = payload, "text/plain"
            else:
                data, kind = json.dumps(payload).encode("utf-8"), "application/json"
            try:
                self.send_response(code)
                if not any(k.lower() == "content-type" for k in headers):
                    self.send_header("Content-Type", kind)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout) and closed the socket
                self.close_connection = True

    return Handler


@contextmanager
def serve() -> Iterator[ChatServer]:
    """Run a loopback chat-completions server for the duration of the block."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def chat_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A running :class:`ChatServer`; proxies from the environment are bypassed for it."""
    for name in ("no_proxy", "NO_PROXY"):
        current = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(filter(None, [current, "127.0.0.1", "localhost"])))
    with serve() as server:
        yield server
