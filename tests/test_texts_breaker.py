"""The judge's circuit breaker: after N connection failures or timeouts in a row, calls fail
at once ("judge unreachable since …") instead of each paying the backoff; one probe after the
cool-down may close it again. Counted (connections accepted, sleeps recorded) and driven by a
recorded clock, never timed."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
import texts_server
from helpers import load_json
from pytest_probability.extensions.texts.breaker import Breaker, BreakerOpen
from pytest_probability.extensions.texts.client import (
    ChatClient,
    CircuitOpenError,
    UnavailableError,
)
from texts_server import SETTINGS, ok, status

chat_server = texts_server.chat_server

KEY = "sk-breaker-0123456789abcdef-DO-NOT-LEAK"
MESSAGES = [{"role": "user", "content": "Is this a question?"}]


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Dropper:
    """A TCP server on 127.0.0.1 that accepts each connection and closes it at once (a dead
    upstream behind a live port), counting the connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.accepted = 0
        self._lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def dropper() -> Iterator[Dropper]:
    server = Dropper()
    yield server
    server.close()


def test_the_breaker_opens_after_n_failures_and_probes_after_the_cooldown() -> None:
    clock = Clock()
    breaker = Breaker(3, 30.0, clock=clock, wall=lambda: 0.0)
    for _ in range(2):
        breaker.allow()
        assert breaker.failed("connection failed: refused") is False
    breaker.allow()
    assert breaker.failed("connection failed: refused") is True
    with pytest.raises(BreakerOpen) as info:
        breaker.allow()
    assert "3 connection failures, timeouts or rate limits in a row" in str(info.value)
    assert "(the last: connection failed: refused)" in str(info.value)
    assert "the next in 30 s (texts_breaker_failures, texts_breaker_cooldown)" in str(info.value)
    clock.now += 29.9
    with pytest.raises(BreakerOpen):
        breaker.allow()
    clock.now += 0.1
    breaker.allow()  # the probe
    with pytest.raises(BreakerOpen):
        breaker.allow()  # only one probe at a time
    assert breaker.failed("timed out") is True  # the probe failed: open for another 30 s
    clock.now += 29
    with pytest.raises(BreakerOpen):
        breaker.allow()
    clock.now += 1
    breaker.allow()
    breaker.succeeded()  # the probe got through: closed
    breaker.allow()
    breaker.allow()
    assert breaker.message() == ""  # closed


def test_any_response_resets_the_count_and_zero_turns_it_off() -> None:
    breaker = Breaker(2, 30.0, clock=Clock())
    breaker.failed("refused")
    breaker.succeeded()  # a 503 is a response: the judge is reachable
    assert breaker.failed("refused") is False
    off = Breaker(0, 30.0, clock=Clock())
    assert not any(off.failed("refused") for _ in range(100))
    off.allow()


def test_a_dead_judge_costs_n_attempts_once_then_nothing(dropper: Dropper) -> None:
    clock, sleeps = Clock(), []
    settings = replace(SETTINGS, model="m", base_url=dropper.url, api_key=KEY, breaker_failures=3)
    client = ChatClient(settings, sleep=sleeps.append, clock=clock)
    with pytest.raises(CircuitOpenError) as first:
        client.complete(MESSAGES)
    assert (dropper.accepted, len(sleeps), first.value.attempts) == (3, 2, 3)
    message = str(first.value)
    assert message.startswith(f"{dropper.url}/chat/completions (model m): judge unreachable since ")
    assert message.endswith("(is the server at texts_base_url up?)")
    assert KEY not in message
    # every later call fails at once: no connection, no backoff
    for _ in range(5):
        with pytest.raises(CircuitOpenError, match="judge unreachable since") as later:
            client.complete(MESSAGES)
        assert later.value.attempts == 0
    # a variant (retry_on_error=False) shares the breaker
    with pytest.raises(CircuitOpenError):
        client.variant(retries=0).complete(MESSAGES)
    assert (dropper.accepted, len(sleeps)) == (3, 2)
    assert isinstance(first.value, UnavailableError)  # caught like any unavailable judge
    # after the cool-down one probe goes out; it fails, and the breaker opens again
    clock.now += 30
    with pytest.raises(CircuitOpenError):
        client.complete(MESSAGES)
    with pytest.raises(CircuitOpenError):
        client.complete(MESSAGES)
    assert dropper.accepted == 4


def test_a_probe_that_gets_through_closes_the_breaker(chat_server) -> None:
    clock = Clock()
    chat_server.script(texts_server.close(), texts_server.close(), ok('{"back": true}'))
    settings = replace(SETTINGS, model="m", base_url=chat_server.url, breaker_failures=2)
    client = ChatClient(settings, sleep=lambda s: None, clock=clock)
    with pytest.raises(CircuitOpenError):
        client.complete(MESSAGES)
    with pytest.raises(CircuitOpenError):
        client.complete(MESSAGES)
    assert len(chat_server.requests) == 2
    clock.now += 30
    assert client.complete(MESSAGES).text == '{"back": true}'
    assert client.breaker.message() == ""  # closed
    chat_server.script(status(503), ok("{}"))  # server errors are responses: never trip it
    assert client.complete(MESSAGES).attempts == 2


def test_timeouts_trip_the_breaker(chat_server) -> None:
    chat_server.script(texts_server.hang(5), texts_server.hang(5))
    settings = replace(
        SETTINGS, model="m", base_url=chat_server.url, timeout=0.2, breaker_failures=2
    )
    client = ChatClient(settings, sleep=lambda s: None, clock=Clock())
    with pytest.raises(CircuitOpenError) as info:
        client.complete(MESSAGES)
    assert "(the last: timed out after 0.2 s (texts_timeout bounds each whole request))" in str(
        info.value
    )
    assert len(chat_server.requests) == 2


def test_rate_limits_open_the_breaker_and_their_waits_are_capped(chat_server) -> None:
    sleeps: list[float] = []
    chat_server.script(*[status(429, headers={"Retry-After": "1e308"})] * 3)
    settings = replace(SETTINGS, model="m", base_url=chat_server.url, breaker_failures=3)
    client = ChatClient(settings, sleep=sleeps.append, clock=Clock())
    with pytest.raises(CircuitOpenError) as info:
        client.complete(MESSAGES)
    assert (len(chat_server.requests), sleeps) == (3, [30.0, 30.0])
    assert (
        ": 3 connection failures, timeouts or rate limits in a row (the last: HTTP 429 Too Many "
        "Requests: scripted status 429); calls fail at once"
    ) in str(info.value)
    with pytest.raises(CircuitOpenError):
        client.complete(MESSAGES)  # at once: no request, no wait
    assert (len(chat_server.requests), len(sleeps)) == (3, 2)


BENCH = """
from pytest_probability.texts import texts_expect_recall_range

def bench_a():
    texts_expect_recall_range("a refund in 5 days", "a refund", 0.5, 1.0)

def bench_b():
    texts_expect_recall_range("a refund in 5 days", "a refund", 0.5, 1.0)
"""


def test_in_a_session_later_runs_fail_at_once(
    pytester: pytest.Pytester, dropper: Dropper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    sleeps: list[float] = []
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    pytester.makeini(f"[pytest]\ntexts_model = m\ntexts_base_url = {dropper.url}\n")
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=3", "--prob-json=r.json", "-p", "no:randomly")
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["outcome"] for r in records] == ["error"] * 6
    assert [r["error"] for r in records] == ["CircuitOpenError"] * 6
    # the first run paid 3 attempts and 2 backoffs; the 5 runs after it, nothing
    assert (dropper.accepted, len(sleeps)) == (3, 2)
    assert "judge unreachable since" in records[5]["message"]
    assert KEY not in "\n".join(result.outlines)


NO_BACKOFF = """
from pytest_probability.extensions.texts.client import ChatClient

ChatClient.__init__.__kwdefaults__["sleep"] = lambda seconds: None  # counted, not waited
"""


@pytest.mark.subprocess
def test_under_xdist_each_worker_has_its_own_breaker(
    pytester: pytest.Pytester, dropper: Dropper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each worker trips its own breaker after three attempts of its own: the dead judge
    sees three connections per worker, whatever the number of runs."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    pytester.makeini(f"[pytest]\ntexts_model = m\ntexts_base_url = {dropper.url}\n")
    pytester.makeconftest(NO_BACKOFF)
    pytester.makepyfile(bench_t=BENCH, bench_u=BENCH.replace("bench_", "bench_u_"))
    result = pytester.runpytest_subprocess(
        "--prob-runs=4", "-n", "2", "-p", "no:randomly", "--prob-json=r.json"
    )
    records = load_json(pytester.path / "r.json")["records"]
    assert len(records) == 16
    assert [r["error"] for r in records] == ["CircuitOpenError"] * 16
    workers = {r["worker"] for r in records}
    assert workers == {"gw0", "gw1"}
    assert dropper.accepted == 3 * len(workers)
    assert all("judge unreachable since" in r["message"] for r in records)
    assert KEY not in "\n".join(result.outlines)
