"""The texts extension's chat-completions client, through a loopback server speaking the real
wire protocol: request bodies and headers (OpenAI and Azure modes), reply parsing, error
classes, retries with backoff and ``Retry-After``, timeouts, dropped connections, thread
safety, and that the API key never leaks. Only ``sleep`` is replaced (by a recorder)."""

from __future__ import annotations

import dataclasses
import email.utils
import socket
import threading
import time
import traceback

import pytest
import texts_server
from pytest_probability.extensions.texts import client as client_module
from pytest_probability.extensions.texts.client import (
    AuthenticationError,
    BackendError,
    ChatClient,
    ChatReply,
    ProtocolError,
    RequestError,
    UnavailableError,
)
from pytest_probability.extensions.texts.session import resolve
from pytest_probability.extensions.texts.settings import TextsConfigError
from texts_server import SETTINGS, ChatServer, close, garbage, hang, ok, status

chat_server = texts_server.chat_server

KEY = "sk-test-0123456789abcdef-DO-NOT-LEAK"
MESSAGES = [
    {"role": "system", "content": "You are a strict judge. Answer in JSON."},
    {"role": "user", "content": "Does 'Paris' answer 'capital of France?'"},
]


def make(
    server: ChatServer, sleeps: list[float] | None = None, backoff: float = 0.5, **overrides: object
) -> ChatClient:
    """A client for ``server`` whose sleeps are recorded in ``sleeps`` (never slept)."""
    fields = {"base_url": server.url, "api_key": KEY, "timeout": 2.0, **overrides}
    record = sleeps if sleeps is not None else []
    settings = dataclasses.replace(SETTINGS, **fields)  # type: ignore[arg-type]
    return ChatClient(settings, sleep=record.append, backoff=backoff)


def assert_no_key(exc: BaseException) -> None:
    """Neither the message, the repr, the formatted traceback nor the client-side frame locals
    (what ``pytest --showlocals`` prints) contain the key."""
    assert KEY not in str(exc)
    assert KEY not in repr(exc)
    assert all(KEY not in str(arg) for arg in exc.args)
    assert KEY not in "".join(traceback.format_exception(exc))
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == client_module.__file__:
            for name, value in frame.f_locals.items():
                assert KEY not in repr(value), name
        tb = tb.tb_next


# -- requests -----------------------------------------------------------------------------


def test_openai_request_body_and_headers(chat_server):
    chat_server.script(ok('{"verdict": "yes"}'))
    client = make(chat_server)
    reply = client.complete(MESSAGES)
    assert reply.text == '{"verdict": "yes"}'
    [request] = chat_server.requests
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.query == {}
    assert request.body == {
        "model": "gpt-4o-mini",
        "messages": MESSAGES,
        "temperature": 0.0,
        "response_format": {"type": "json_object"},
    }
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"] == "pytest-probability-texts"
    assert "api-key" not in request.headers
    # the public helpers describe exactly what went over the wire
    assert client.url() == chat_server.url + "/chat/completions"
    assert client.body(MESSAGES) == request.body
    assert client.headers() == {
        "Content-Type": "application/json",
        "User-Agent": "pytest-probability-texts",
        "Authorization": f"Bearer {KEY}",
    }


def test_no_key_no_authorization_and_trailing_slash(chat_server):
    chat_server.script(ok("{}"))
    client = make(chat_server, api_key=None, base_url=chat_server.url + "/")
    client.complete(MESSAGES)
    [request] = chat_server.requests
    assert request.path == "/v1/chat/completions"
    assert "authorization" not in request.headers
    assert "api-key" not in request.headers


def test_azure_mode(chat_server):
    chat_server.script(ok('{"ok": true}', usage=(30, 4, None)))
    client = make(
        chat_server,
        base_url="http://unused.invalid/v1",
        azure_endpoint=chat_server.azure_endpoint + "/",
        azure_deployment="judge-deployment",
        api_version="2024-10-21",
    )
    reply = client.complete(MESSAGES)
    [request] = chat_server.requests
    assert request.path == "/openai/deployments/judge-deployment/chat/completions"
    assert request.query == {"api-version": "2024-10-21"}
    assert request.headers["api-key"] == KEY
    assert "authorization" not in request.headers
    assert "model" not in request.body  # the deployment names it
    assert request.body["messages"] == MESSAGES
    assert client.url() == (
        f"{chat_server.azure_endpoint}/openai/deployments/judge-deployment"
        "/chat/completions?api-version=2024-10-21"
    )
    # Azure replies without the request's model: the requested one is reported
    assert reply.model == "gpt-4o-mini"
    assert (reply.input_tokens, reply.output_tokens, reply.cached_input_tokens) == (30, 4, None)


def test_azure_deployment_defaults_to_model(chat_server):
    chat_server.script(ok("{}"))
    make(
        chat_server,
        model="gpt-4o",
        azure_endpoint=chat_server.azure_endpoint,
        api_version="2025-01-01-preview",
    ).complete(MESSAGES)
    [request] = chat_server.requests
    assert request.path == "/openai/deployments/gpt-4o/chat/completions"
    assert request.query == {"api-version": "2025-01-01-preview"}


def test_azure_requires_api_version():
    read = {"texts_model": "gpt-4o", "texts_azure_endpoint": "https://example.openai.azure.com"}
    with pytest.raises(TextsConfigError, match="texts_api_version"):
        resolve(read.get, {})


@pytest.mark.parametrize(
    "model,key",
    [
        ("o1", "max_completion_tokens"),
        ("o1-mini", "max_completion_tokens"),
        ("O3-mini", "max_completion_tokens"),
        ("o4-mini", "max_completion_tokens"),
        ("gpt-5", "max_completion_tokens"),
        ("GPT-5-nano", "max_completion_tokens"),
        ("openai/o3", "max_completion_tokens"),
        ("gpt-4o-mini", "max_tokens"),
        ("gpt-4.1", "max_tokens"),
        ("llama3.1:8b", "max_tokens"),
        ("qwen-o1-distill", "max_tokens"),
    ],
)
def test_max_tokens_key_by_model(chat_server, model, key):
    chat_server.script(ok("{}"))
    make(chat_server, model=model, max_tokens=256).complete(MESSAGES)
    [request] = chat_server.requests
    assert request.body[key] == 256
    other = {"max_tokens", "max_completion_tokens"} - {key}
    assert not other & request.body.keys()


def test_max_tokens_none_and_temperature_none_are_omitted(chat_server):
    chat_server.script(ok("{}"), ok("{}"))
    make(chat_server, temperature=None).complete(MESSAGES)
    make(chat_server, temperature=0.7, max_tokens=64).complete(MESSAGES)
    first, second = (r.body for r in chat_server.requests)
    assert "temperature" not in first
    assert not {"max_tokens", "max_completion_tokens"} & first.keys()
    assert second["temperature"] == 0.7
    assert second["max_tokens"] == 64


def test_json_mode_setting_and_override(chat_server):
    chat_server.script(ok("a"), ok("b"), ok("c"))
    plain = make(chat_server, json_mode=False, json_level="text")
    plain.complete(MESSAGES)
    plain.complete(MESSAGES, json_mode=True)
    make(chat_server).complete(MESSAGES, json_mode=False)
    bodies = [r.body for r in chat_server.requests]
    assert "response_format" not in bodies[0]
    assert bodies[1]["response_format"] == {"type": "json_object"}
    assert "response_format" not in bodies[2]


# -- replies ------------------------------------------------------------------------------


def test_reply_usage_with_cached_tokens(chat_server):
    chat_server.script(ok('{"score": 4}', usage=(1200, 17, 1024), model="gpt-4o-mini-2024-07-18"))
    reply = make(chat_server).complete(MESSAGES)
    assert reply == ChatReply(
        text='{"score": 4}',
        finish_reason="stop",
        model="gpt-4o-mini-2024-07-18",
        input_tokens=1200,
        output_tokens=17,
        cached_input_tokens=1024,
        attempts=1,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        reply.text = "changed"  # type: ignore[misc]


def test_reply_without_usage_and_truncated(chat_server):
    chat_server.script(ok('{"score": ', usage=None, finish_reason="length"))
    reply = make(chat_server).complete(MESSAGES)
    assert reply.text == '{"score": '
    assert reply.finish_reason == "length"
    assert reply.model == "gpt-4o-mini"  # echoed by the server
    assert (reply.input_tokens, reply.output_tokens, reply.cached_input_tokens) == (
        None,
        None,
        None,
    )


def test_null_content_and_content_parts(chat_server):
    parts = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                },
                "finish_reason": None,
            }
        ]
    }
    chat_server.script(ok(None, finish_reason="content_filter"), status(200, parts))
    client = make(chat_server)
    first = client.complete(MESSAGES)
    assert (first.text, first.finish_reason) == ("", "content_filter")
    second = client.complete(MESSAGES)
    assert (second.text, second.finish_reason, second.input_tokens) == ("ab", None, None)


@pytest.mark.parametrize(
    "reply,why",
    [
        (garbage("<html>502 Bad Gateway</html>"), "invalid JSON"),
        (garbage(""), "invalid JSON"),
        (status(200, [1, 2]), "not a JSON object"),
        (status(200, {"choices": []}), "no choices"),
        (status(200, {"choices": [{"text": "legacy completion"}]}), "no choices"),
        (status(200, {"error": {"message": "model overloaded"}}), "an error object"),
        (status(200, {"choices": [{"message": {"content": 42}}]}), "content is not text"),
    ],
)
def test_2xx_that_is_not_a_completion_is_a_protocol_error_and_not_retried(chat_server, reply, why):
    # the caller's small separate budget handles these (like invalid JSON content)
    sleeps: list[float] = []
    chat_server.script(reply, ok("never reached"))
    with pytest.raises(ProtocolError, match=why) as info:
        make(chat_server, sleeps).complete(MESSAGES)
    assert len(chat_server.requests) == 1
    assert sleeps == []
    assert info.value.attempts == 1
    assert chat_server.url in str(info.value)


# -- errors that are not retried ----------------------------------------------------------


@pytest.mark.parametrize("code", [401, 403])
def test_authentication_errors_are_not_retried_and_never_show_the_key(chat_server, code):
    sleeps: list[float] = []
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}.", "code": "invalid_api_key"}}
    chat_server.script(status(code, echo), ok("never reached"))
    with pytest.raises(AuthenticationError) as info:
        make(chat_server, sleeps).complete(MESSAGES)
    exc = info.value
    assert len(chat_server.requests) == 1
    assert sleeps == []
    assert exc.status == code
    assert exc.attempts == 1
    message = str(exc)
    assert chat_server.url + "/chat/completions" in message
    assert f"HTTP {code}" in message
    assert "Incorrect API key provided: ***." in message
    assert_no_key(exc)


@pytest.mark.parametrize("code", [400, 404, 405, 413, 422])
def test_request_errors_are_not_retried(chat_server, code):
    sleeps: list[float] = []
    chat_server.script(status(code, {"error": {"message": "Unsupported parameter: 'max_tokens'"}}))
    with pytest.raises(RequestError) as info:
        make(chat_server, sleeps).complete(MESSAGES)
    assert len(chat_server.requests) == 1
    assert sleeps == []
    assert info.value.status == code
    assert "Unsupported parameter: 'max_tokens'" in str(info.value)
    assert_no_key(info.value)


def test_long_error_bodies_are_excerpted(chat_server):
    chat_server.script(status(400, "x" * 5000 + "\n\n" + KEY))
    with pytest.raises(RequestError) as info:
        make(chat_server).complete(MESSAGES)
    assert len(str(info.value)) < 500
    assert str(info.value).endswith("…")
    assert_no_key(info.value)


def test_redirects_are_not_followed(chat_server):
    # following would forward the key to wherever the redirect points
    chat_server.script(status(307, "", headers={"Location": "http://127.0.0.1:9/steal"}))
    with pytest.raises(RequestError, match="redirect") as info:
        make(chat_server).complete(MESSAGES)
    assert len(chat_server.requests) == 1
    assert info.value.status == 307


# -- retries ------------------------------------------------------------------------------


def test_429_honours_retry_after_seconds(chat_server):
    sleeps: list[float] = []
    chat_server.script(status(429, headers={"Retry-After": "2"}), ok("{}"))
    reply = make(chat_server, sleeps, backoff=0.01).complete(MESSAGES)
    assert reply.attempts == 2
    assert len(chat_server.requests) == 2
    assert len(sleeps) == 1
    assert sleeps[0] >= 2


def test_retry_after_http_date(chat_server):
    sleeps: list[float] = []
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    chat_server.script(status(503, headers={"Retry-After": when}), ok("{}"))
    make(chat_server, sleeps, backoff=0.01).complete(MESSAGES)
    assert 3.5 <= sleeps[0] <= 5.5  # the date has one-second resolution


def test_retry_after_is_capped_and_unparsable_values_ignored(chat_server):
    sleeps: list[float] = []
    chat_server.script(
        status(429, headers={"Retry-After": "86400"}),
        status(429, headers={"Retry-After": "soon"}),
        ok("{}"),
    )
    make(chat_server, sleeps, backoff=0.01).complete(MESSAGES)
    assert sleeps[0] == 30
    assert sleeps[1] < 0.1


@pytest.mark.parametrize(
    ("retry_after", "sleeps", "tail"),
    [
        ("120", [30, 30], "; waiting 30 s more would pass 60 s for one call"),
        ("1e308", [30, 30], "; waiting 30 s more would pass 60 s for one call"),
        ("-5", [0.5, 1, 2, 4], ""),  # (asks for no wait: the backoff's)
        ("soon", [0.5, 1, 2, 4], ""),
    ],
)
def test_rate_limits_wait_at_most_30_s_each_and_60_s_per_call(
    chat_server, retry_after, sleeps, tail
):
    waited: list[float] = []
    chat_server.script(*[status(429, headers={"Retry-After": retry_after})] * 5)
    settings = dataclasses.replace(
        SETTINGS, model="m", base_url=chat_server.url, breaker_failures=0
    )
    client = ChatClient(settings, sleep=waited.append, random=lambda: 0.5, backoff=0.5)
    with pytest.raises(UnavailableError) as info:
        client.complete(MESSAGES)
    assert waited == sleeps
    assert len(chat_server.requests) == len(sleeps) + 1
    attempts = f"after {len(sleeps) + 1} attempts: HTTP 429 Too Many Requests: scripted status 429"
    assert str(info.value).endswith(attempts + tail)


def test_usage_is_passed_on_as_the_server_sent_it(chat_server):
    document = ok("{}", usage=(1, 2, 3)).payload
    document["usage"] = {"prompt_tokens": -5, "completion_tokens": 2.5, "total_tokens": "x"}
    document["usage"]["prompt_tokens_details"] = {"cached_tokens": True}
    chat_server.script(status(200, document))
    reply = make(chat_server).complete(MESSAGES)
    counts = (reply.input_tokens, reply.output_tokens, reply.cached_input_tokens)
    assert repr(counts) == "(-5, 2.5, True)"  # checked where they are counted


def test_5xx_then_success_backs_off_within_the_jitter_bounds(chat_server):
    sleeps: list[float] = []
    chat_server.script(status(500), status(500), ok('{"ok": 1}'))
    reply = make(chat_server, sleeps, backoff=0.5).complete(MESSAGES)
    assert reply.attempts == 3
    assert reply.text == '{"ok": 1}'
    assert len(chat_server.requests) == 3
    assert len(sleeps) == 2
    for retry, delay in enumerate(sleeps):
        base = 0.5 * 2**retry
        assert 0.5 * base <= delay < 1.5 * base


@pytest.mark.parametrize("jitter,expected", [(0.0, [0.5, 1.0, 2.0, 2.5]), (1.0, [1.5, 3, 6, 7.5])])
def test_backoff_is_exponential_capped_and_jittered(chat_server, jitter, expected):
    sleeps: list[float] = []
    chat_server.script(*[status(502)] * 4, ok("{}"))
    settings = dataclasses.replace(SETTINGS, model="m", base_url=chat_server.url)
    client = ChatClient(
        settings, sleep=sleeps.append, random=lambda: jitter, backoff=1.0, max_backoff=5.0
    )
    assert client.complete(MESSAGES).attempts == 5
    assert sleeps == pytest.approx(expected)


@pytest.mark.parametrize("code", [408, 409, 429, 500, 502, 503, 504, 599])
def test_transient_statuses_are_retried(chat_server, code):
    sleeps: list[float] = []
    chat_server.script(status(code), ok("{}"))
    assert make(chat_server, sleeps).complete(MESSAGES).attempts == 2
    assert len(sleeps) == 1


def test_retries_exhausted(chat_server):
    sleeps: list[float] = []
    chat_server.script(*[status(503, {"error": {"message": "overloaded"}})] * 3, ok("late"))
    with pytest.raises(UnavailableError) as info:
        make(chat_server, sleeps, transport_retries=2).complete(MESSAGES)
    exc = info.value
    assert len(chat_server.requests) == 3
    assert len(sleeps) == 2
    assert (exc.status, exc.attempts) == (503, 3)
    assert "after 3 attempts" in str(exc)
    assert "HTTP 503 Service Unavailable: overloaded" in str(exc)
    assert_no_key(exc)


def test_no_retries(chat_server):
    chat_server.script(status(500), ok("{}"))
    with pytest.raises(UnavailableError, match="after 1 attempt:"):
        make(chat_server, transport_retries=0).complete(MESSAGES)
    assert len(chat_server.requests) == 1


def test_timeouts_are_retried(chat_server):
    sleeps: list[float] = []
    chat_server.script(hang(30), ok("{}"))
    reply = make(chat_server, sleeps, timeout=0.3, transport_retries=1).complete(MESSAGES)
    assert reply.attempts == 2
    assert len(sleeps) == 1
    # the client hung up at its own 0.3 s timeout; it did not wait for the server to give up
    assert chat_server.wait_abandoned(1) == 1


def test_timeouts_exhaust_the_budget(chat_server):
    chat_server.script(hang(3), hang(3), ok("late"))
    with pytest.raises(UnavailableError, match=r"after 2 attempts: timed out after 0.3 s") as info:
        make(chat_server, timeout=0.3, transport_retries=1).complete(MESSAGES)
    assert info.value.status is None
    assert str(info.value) == (
        f"{chat_server.url}/chat/completions (model gpt-4o-mini) unavailable after 2 attempts: "
        "timed out after 0.3 s (texts_timeout bounds each whole request)"
    )
    assert len(chat_server.requests) == 2
    assert_no_key(info.value)


def test_slow_reply_within_the_timeout_is_fine(chat_server):
    chat_server.script(ok("{}", delay=0.1))
    assert make(chat_server, timeout=2.0).complete(MESSAGES).attempts == 1


def test_dropped_connection_is_retried(chat_server):
    sleeps: list[float] = []
    chat_server.script(close(), ok("{}"))
    assert make(chat_server, sleeps).complete(MESSAGES).attempts == 2
    assert len(chat_server.requests) == 2
    assert len(sleeps) == 1


def test_dropped_connections_exhaust_the_budget(chat_server):
    chat_server.script(close(), close())
    with pytest.raises(UnavailableError, match="connection failed") as info:
        make(chat_server, transport_retries=1).complete(MESSAGES)
    assert info.value.attempts == 2
    assert_no_key(info.value)


def test_connection_refused_is_retried_then_unavailable(chat_server):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    settings = dataclasses.replace(
        SETTINGS,
        base_url=f"http://127.0.0.1:{port}/v1",
        api_key=KEY,
        transport_retries=3,
        breaker_failures=0,  # off: the retry budget alone (tests/test_texts_breaker.py)
    )
    with pytest.raises(UnavailableError, match="connection failed") as info:
        ChatClient(settings, sleep=sleeps.append).complete(MESSAGES)
    exc = info.value
    assert exc.attempts == 4
    assert len(sleeps) == 3
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in str(exc)
    assert exc.__cause__ is None and exc.__context__ is None  # no urllib frames with headers
    assert_no_key(exc)


# -- threads, settings, secrecy -----------------------------------------------------------


def test_one_client_many_threads(chat_server):
    failed_once: set[str] = set()
    lock = threading.Lock()

    def respond(request):
        with lock:  # each prompt fails once with a 503, then succeeds
            first = request.prompt not in failed_once
            failed_once.add(request.prompt)
        return status(503) if first else ok(request.prompt.upper(), delay=0.02)

    chat_server.respond_with(respond)
    client = make(chat_server)
    replies: dict[int, ChatReply] = {}
    errors: list[BaseException] = []

    def work(i):
        try:
            replies[i] = client.complete([{"role": "user", "content": f"prompt {i}"}])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    assert {i: r.text for i, r in replies.items()} == {i: f"PROMPT {i}" for i in range(8)}
    assert all(r.attempts == 2 for r in replies.values())
    assert len(chat_server.requests) == 16
    assert chat_server.unexpected == []


def test_settings_are_redacted():
    settings = dataclasses.replace(SETTINGS, model="gpt-4o", api_key=KEY)
    assert KEY not in repr(settings)
    assert KEY not in repr(ChatClient(settings))
    redacted = settings.redacted()
    assert redacted["api_key"] == "***"
    assert redacted["model"] == "gpt-4o"
    assert redacted["base_url"] == "https://api.openai.com/v1"
    assert SETTINGS.redacted()["api_key"] is None
    assert settings.api_key == KEY  # still usable


@pytest.mark.parametrize(
    "overrides,match",
    [
        ({"texts_timeout": "0"}, "texts_timeout"),
        ({"texts_max_tokens": "0"}, "texts_max_tokens"),
        ({"texts_model": ""}, "texts_model"),
    ],
)
def test_invalid_settings(overrides, match):
    with pytest.raises(TextsConfigError, match=match):
        resolve({"texts_model": "gpt-4o", **overrides}.get, {})


@pytest.mark.parametrize("url", ["ftp://example.com/v1", "api.openai.com/v1", "http:///v1"])
def test_invalid_base_url(url):
    with pytest.raises(TextsConfigError, match="texts_base_url"):
        resolve({"texts_model": "gpt-4o", "texts_base_url": url}.get, {})


def test_error_hierarchy():
    for kind in (AuthenticationError, RequestError, UnavailableError, ProtocolError):
        assert issubclass(kind, BackendError)
    exc = UnavailableError("boom", url="http://x/chat/completions", status=503, attempts=5)
    assert (exc.url, exc.status, exc.attempts, str(exc)) == (
        "http://x/chat/completions",
        503,
        5,
        "boom",
    )


def test_key_whitespace_is_stripped(chat_server):
    chat_server.script(ok("{}"))
    make(chat_server, api_key=f"  {KEY}\n").complete(MESSAGES)
    assert chat_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert "Authorization" not in ChatClient(dataclasses.replace(SETTINGS, api_key=" \n")).headers()


@pytest.mark.parametrize("bad", [f"{KEY[:10]} {KEY[10:]}", f"{KEY}\r\nX-Evil: 1", f"{KEY}’"])
def test_keys_that_cannot_be_a_header_are_refused_without_showing_them(bad):
    with pytest.raises(ValueError, match="texts_api_key") as info:
        ChatClient(dataclasses.replace(SETTINGS, api_key=bad))
    assert KEY[10:] not in str(info.value)
