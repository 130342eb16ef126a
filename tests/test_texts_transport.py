"""The judge client against hostile or broken servers and configurations (issue 21 §3), over
the loopback server's real wire protocol: the whole request bounded by ``texts_timeout``
(counted in bytes, never timed), bodies capped at 8 MiB, redirects' ``Location`` redacted,
unexpected exceptions turned into key-free errors that are not retried, URLs refused at
configuration, and server text made printable."""

from __future__ import annotations

import dataclasses
import traceback

import pytest
import texts_server
from pytest_probability.extensions.texts import client as client_module
from pytest_probability.extensions.texts import transport
from pytest_probability.extensions.texts.client import (
    ChatClient,
    ProtocolError,
    RequestError,
    UnavailableError,
)
from pytest_probability.extensions.texts.session import resolve
from pytest_probability.extensions.texts.settings import TextsConfigError
from pytest_probability.extensions.texts.urls import check_url, redact_url
from texts_server import SETTINGS, garbage, ok, status, wire

chat_server = texts_server.chat_server

KEY = "sk-transport-0123456789abcdef-DO-NOT-LEAK"
MESSAGES = [{"role": "user", "content": "Does 'Paris' answer 'capital of France?'"}]


def make(server: texts_server.ChatServer, sleeps: list[float], **overrides: object) -> ChatClient:
    fields = {"model": "m", "base_url": server.url, "api_key": KEY, "timeout": 2.0, **overrides}
    settings = dataclasses.replace(SETTINGS, **fields)  # type: ignore[arg-type]
    return ChatClient(settings, sleep=sleeps.append)


def assert_no_key(exc: BaseException) -> None:
    """Not in the message, the formatted traceback, nor any frame's locals on the way."""
    assert KEY not in str(exc)
    assert KEY not in "".join(traceback.format_exception(exc))
    assert exc.__cause__ is None and exc.__context__ is None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename != __file__:  # the test's own locals may hold it
            for name, value in tb.tb_frame.f_locals.items():
                assert KEY not in repr(value), (tb.tb_frame.f_code.co_name, name)
        tb = tb.tb_next


HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"


def test_a_trickling_body_is_cut_at_the_timeout(chat_server):
    # 400 bytes at one per 50 ms would take 20 s; every read returns within the 0.5 s
    # timeout, so only a bound on the whole request stops it
    sleeps: list[float] = []
    chat_server.script(wire(HEADERS + b" " * 400, interval=0.05))
    with pytest.raises(UnavailableError) as info:
        make(chat_server, sleeps, timeout=0.5, transport_retries=0).complete(MESSAGES)
    message = str(info.value)
    assert "timed out after 0.5 s (texts_timeout bounds each whole request)" in message
    assert chat_server.wire_sent < len(HEADERS) + 400  # the client hung up first
    assert len(chat_server.requests) == 1
    assert_no_key(info.value)


def test_trickling_headers_are_cut_at_the_timeout_and_retried(chat_server):
    sleeps: list[float] = []
    chat_server.script(wire(HEADERS, interval=0.05), ok('{"ok": 1}'))
    reply = make(chat_server, sleeps, timeout=0.5, transport_retries=1).complete(MESSAGES)
    assert (reply.text, reply.attempts) == ('{"ok": 1}', 2)
    assert len(sleeps) == 1  # a timeout is transient: retried after one backoff
    assert chat_server.wire_sent < len(HEADERS)


def test_a_body_over_8_mib_is_refused_and_not_retried(chat_server):
    sleeps: list[float] = []
    chat_server.script(garbage("x" * (transport.MAX_BODY + 1024)), ok("{}"))
    with pytest.raises(ProtocolError) as info:
        make(chat_server, sleeps).complete(MESSAGES)
    assert "the reply is larger than 8 MiB: not read" in str(info.value)
    assert "texts_base_url" in str(info.value)
    assert (len(chat_server.requests), sleeps) == (1, [])


def test_a_body_of_exactly_8_mib_is_read(chat_server):
    padding = transport.MAX_BODY - len(b'{"choices": [{"message": {"content": "a"}}], "x": ""}')
    body = '{"choices": [{"message": {"content": "a"}}], "x": "' + " " * padding + '"}'
    assert len(body.encode()) == transport.MAX_BODY
    chat_server.script(status(200, body))
    assert make(chat_server, []).complete(MESSAGES).text == "a"


def test_a_redirects_location_is_redacted(chat_server):
    location = f"http://collector.example/steal?api_key={KEY}&x=1"
    chat_server.script(status(302, "", headers={"Location": location}))
    with pytest.raises(RequestError) as info:
        make(chat_server, []).complete(MESSAGES)
    message = str(info.value)
    assert "HTTP 302 Found" in message
    assert "a redirect to http://collector.example/steal?***, not followed" in message
    assert len(chat_server.requests) == 1
    assert_no_key(info.value)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        # what the configuration refuses, forced past it: the exceptions these raise in
        # http.client and socket are neither HTTPException nor OSError, and used to escape
        # with urllib's frames, whose locals hold the request's headers (the key)
        ("timeout", 1e308, "OverflowError"),
        ("base_url", "{url}/vé", "UnicodeEncodeError"),
    ],
)
def test_an_unexpected_exception_becomes_a_clean_error_that_is_not_retried(
    chat_server, field, value, error
):
    changed = {field: value.format(url=chat_server.url) if field == "base_url" else value}
    fields = {"model": "m", "base_url": chat_server.url, "api_key": KEY, "timeout": 2.0, **changed}
    settings = dataclasses.replace(SETTINGS, **fields)  # type: ignore[arg-type]
    sleeps: list[float] = []
    with pytest.raises(RequestError) as info:
        ChatClient(settings, sleep=sleeps.append).complete(MESSAGES)
    assert f"the request failed unexpectedly ({error}: " in str(info.value)
    assert (info.value.attempts, sleeps) == (1, [])
    assert_no_key(info.value)


def test_control_sequences_from_the_server_are_made_visible(chat_server):
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    chat_server.script(
        status(400, {"error": {"message": f"bad {hostile} request"}}),
        ok("{}", model=f"judge{hostile}"),
    )
    client = make(chat_server, [])
    with pytest.raises(RequestError) as info:
        client.complete(MESSAGES, json_mode=False)
    assert "bad \\x1b]0;pwned\\x07\\x1b[2J request" in str(info.value)
    assert "\x1b" not in str(info.value)
    assert client.complete(MESSAGES).model == "judge\\x1b]0;pwned\\x07\\x1b[2J"


def test_a_query_string_in_the_base_url_is_sent_but_never_printed(chat_server):
    chat_server.script(status(404, {"error": {"message": "no such tenant"}}))
    client = make(chat_server, [], base_url=f"{chat_server.url}?tenant={KEY}")
    with pytest.raises(RequestError) as info:
        client.complete(MESSAGES)
    [request] = chat_server.requests
    assert (request.path, request.query) == ("/v1/chat/completions", {"tenant": KEY})
    assert f"{chat_server.url}/chat/completions?*** (model m): HTTP 404" in str(info.value)
    assert info.value.url == f"{chat_server.url}/chat/completions?***"
    assert KEY not in repr(client) and KEY not in repr(client.settings.redacted())


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "http://alice:Pa55w0rd@127.0.0.1:9/v1",
            "texts_base_url='http://***@127.0.0.1:9/v1': the URL holds a user name or "
            "password, which would be printed in messages and reports; give the URL without "
            "it and the key in OPENAI_API_KEY (or AZURE_OPENAI_API_KEY)",
        ),
        (
            "http://127.0.0.1:9/v1\r\nX-Injected: Pa55w0rd",
            "texts_base_url='http://127.0.0.1:9/v1\\x0d\\x0aX-Injected: Pa55w0rd': the "
            "control character '\\r' at position 21; a URL has none (percent-encode it, e.g. "
            "%20 for a space)",
        ),
        (
            "http://127.0.0.1:9/vé1",
            "texts_base_url='http://127.0.0.1:9/vé1': a non-ASCII character at position 20; "
            "percent-encode it (its UTF-8 bytes as %XX) or use the host's punycode (xn--) name",
        ),
        (
            "http://127.0.0.1:99999/v1",
            "texts_base_url='http://127.0.0.1:99999/v1': not a valid URL (Port out of range "
            "0-65535)",
        ),
        (
            "ftp://127.0.0.1/v1",
            "texts_base_url='ftp://127.0.0.1/v1': not an http(s) URL; expected e.g. "
            "https://api.openai.com/v1",
        ),
    ],
)
def test_unusable_urls_are_refused_when_configured(url, message):
    with pytest.raises(TextsConfigError) as info:
        check_url("texts_base_url", url)
    assert str(info.value) == message
    assert "Pa55w0rd" not in str(info.value) or "X-Injected" in url  # a header, not a password
    with pytest.raises(TextsConfigError, match="texts_base_url"):
        resolve({"texts_model": "m", "texts_base_url": url}.get, {})


def test_a_password_in_an_azure_endpoint_is_refused():
    read = {
        "texts_model": "m",
        "texts_azure_endpoint": "https://u:Pa55w0rd@r.openai.azure.com",
        "texts_api_version": "v",
    }
    with pytest.raises(TextsConfigError) as info:
        resolve(read.get, {})
    assert str(info.value).startswith("texts_azure_endpoint='https://***@r.openai.azure.com'")
    assert "Pa55w0rd" not in str(info.value)


@pytest.mark.parametrize("timeout", [1e308, float("inf"), float("nan"), 0, -1, 86400.5])
def test_timeouts_outside_a_day_are_refused(timeout):
    with pytest.raises(TextsConfigError) as info:
        resolve({"texts_model": "m", "texts_timeout": str(timeout)}.get, {})
    assert str(info.value) == (
        f"texts_timeout={str(timeout)!r}: expected seconds, a number from 0.001 to 86400 (a day)"
    )


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://alice:Pa55w0rd@host:8080/v1", "http://***@host:8080/v1"),
        ("https://host/v1/chat/completions?api-version=2024&key=k", "https://host/v1/chat/completions?***"),
        ("https://host/v1#frag", "https://host/v1"),
        ("http://host/\x1b[2J", "http://host/\\x1b[2J"),
        ("https://host/v1", "https://host/v1"),
    ],
)  # fmt: skip
def test_redact_url(url, shown):
    assert redact_url(url) == shown


def test_the_client_module_names_no_secret_in_its_frames():
    # the request path keeps the headers out of the client's own frames: only transport's
    # post() holds them, and it never lets an exception out
    source = client_module.ChatClient.complete.__code__.co_varnames
    assert "headers" not in source


@pytest.fixture
def tls_server(tmp_path, monkeypatch):
    """The loopback server behind TLS, with a self-signed certificate for 127.0.0.1."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is needed to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    server = texts_server.ChatServer()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server._httpd.socket = context.wrap_socket(server._httpd.socket, server_side=True)
    server.start()
    yield server, cert
    server.stop()


def test_over_tls_the_certificate_is_checked_and_the_whole_request_bounded(tls_server, monkeypatch):
    import ssl

    server, cert = tls_server
    url = server.url.replace("http://", "https://")
    sleeps: list[float] = []
    client = make(server, sleeps, base_url=url, timeout=0.5)
    with pytest.raises(client_module.BackendError) as info:  # self-signed: not trusted
        client.complete(MESSAGES)
    assert "TLS certificate not trusted: [SSL: CERTIFICATE_VERIFY_FAILED]" in str(info.value)
    assert (info.value.attempts, sleeps) == (1, [])
    assert_no_key(info.value)
    trusted = ssl.create_default_context(cafile=cert)
    monkeypatch.setattr(transport, "_context", lambda: trusted)
    server.script(ok('{"over": "tls"}'), wire(HEADERS + b" " * 400, interval=0.05))
    assert client.complete(MESSAGES).text == '{"over": "tls"}'
    with pytest.raises(UnavailableError, match=r"timed out after 0.5 s \(texts_timeout"):
        client.variant(retries=0).complete(MESSAGES)
    assert server.wire_sent < len(HEADERS) + 400


def test_the_trust_store_is_loaded_once_per_process(chat_server, monkeypatch):
    """Every request shares one TLS context: given none, Python 3.12+'s ``HTTPSHandler``
    made its own for each request, also for ``http://``, and loaded the system's
    certificates again (30 ms a judge call)."""
    import ssl

    loads: list[object] = []
    original = ssl.SSLContext.load_default_certs

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loads.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_default_certs", counted)
    transport._context.cache_clear()
    chat_server.script(ok("{}"), ok("{}"), ok("{}"))
    client = make(chat_server, [])
    for _ in range(3):
        assert client.complete(MESSAGES).text == "{}"
    assert len(chat_server.requests) == 3
    assert len(loads) == 1
    transport._context.cache_clear()  # (the next test's context loads the real method)
