"""The texts client keeps its secrets (issue 21 §3): every error path of a judge call, run
under ``pytest -l -vv --tb=long`` with a JUnit file, a JSON and an HTML report, never shows
the API key or a URL's password; configuration errors (userinfo, CRLF or non-ASCII in the
URL, an unusable timeout) are refused before any request and never retried; and control
sequences a server sends never reach the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import texts_server
from helpers import load_json
from pytest_probability.extensions.texts import transport
from pytest_probability.extensions.texts.client import ChatClient
from texts_server import close, garbage, ok, status, wire

chat_server = texts_server.chat_server

KEY = "sk-secret-0123456789abcdef-NEVER-PRINTED"
PASSWORD = "Pa55w0rd-NEVER-PRINTED"
ECHO = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
HOSTILE = "\x1b]0;owned\x07\x1b[2J"
TRICKLE = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n"

#: case → (the reply to every request of that case, the error the run ends with)
CASES: dict[str, tuple[texts_server.Reply, str]] = {
    "auth": (status(401, ECHO), "AuthenticationError"),
    "bad-request": (status(400, ECHO), "RequestError"),
    "overloaded": (status(503, ECHO), "UnavailableError"),
    "redirect": (
        status(307, "", headers={"Location": f"https://elsewhere.example/v1?key={KEY}"}),
        "RequestError",
    ),
    "not-a-completion": (garbage(f"<html>proxy says {KEY}</html>"), "JudgeReplyError"),
    "huge": (garbage("x" * (transport.MAX_BODY + 1)), "JudgeReplyError"),
    "trickle": (wire(TRICKLE + b" " * 300, interval=0.05), "UnavailableError"),
    "dropped": (close(), "UnavailableError"),
    "hostile": (status(404, {"error": {"message": f"no model {HOSTILE}"}}), "RequestError"),
}

BENCH = """
import pytest
from pytest_probability.texts import texts_expect_recall_range

@pytest.mark.parametrize("case", {cases!r})
def bench_path(case):
    texts_expect_recall_range(f"case {{case}}: a refund in 5 days", "a refund", 0.5, 1.0)
"""

FLAGS = ("-l", "-vv", "--tb=long", "--junitxml=j.xml", "--prob-json=r.json", "--prob-html=r.html")


def _everything(pytester: pytest.Pytester, result: pytest.RunResult) -> str:
    """All a session printed and wrote."""
    files = [pytester.path / name for name in ("j.xml", "r.json", "r.html")]
    written = [path.read_text(encoding="utf-8") for path in files if path.exists()]
    assert len(written) == 3
    return "\n".join([*result.outlines, *result.errlines, *written])


def respond(request: texts_server.Request) -> texts_server.Reply:
    case = request.prompt.split("case ", 1)[1].split(":", 1)[0]
    return CASES[case][0]


def test_no_error_path_shows_the_key(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    sleeps: list[float] = []
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    chat_server.respond_with(respond)
    pytester.makeini(
        f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {chat_server.url}\n"
        "texts_timeout = 0.5\ntexts_breaker_failures = 0\ntexts_max_concurrency = 1\n"
    )
    pytester.makepyfile(bench_t=BENCH.format(cases=list(CASES)))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    records = load_json(pytester.path / "r.json")["records"]
    assert {r["case"].split("::")[1]: r["error"] for r in records} == {
        case: error for case, (_, error) in CASES.items()
    }
    everything = _everything(pytester, result)
    assert KEY not in everything
    assert "\x1b" not in everything  # shown as \\x1b
    assert "no model \\x1b]0;owned\\x07\\x1b[2J" in "\n".join(result.outlines)
    assert "https://elsewhere.example/v1?***" in "\n".join(result.outlines)
    assert "Incorrect API key provided: ***" in "\n".join(result.outlines)
    # every failure is the bench line and one message: no frame of the plugin or urllib
    assert not [line for line in result.outlines if "extensions/texts/" in line]
    assert not [line for line in result.outlines if "urllib" in line or "http/client" in line]
    # the transient paths were retried (4 backoffs each), the others not
    assert len(sleeps) == 4 * 3


def test_an_open_breaker_shows_no_key(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", lambda s: None)
    pytester.makeini("[pytest]\ntexts_model = judge-1\ntexts_base_url = http://127.0.0.1:9/v1\n")
    pytester.makepyfile(bench_t=BENCH.format(cases=["a", "b"]))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["error"] for r in records] == ["CircuitOpenError", "CircuitOpenError"]
    assert KEY not in _everything(pytester, result)


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        (
            "texts_base_url",
            f"http://alice:{PASSWORD}@127.0.0.1:9/v1",
            "texts_base_url='http://***@127.0.0.1:9/v1': the URL holds a user name or password",
        ),
        (
            "OPENAI_BASE_URL",
            f"http://127.0.0.1:9/v1\r\nX-Password: {PASSWORD}",
            "texts_base_url='http://127.0.0.1:9/v1\\x0d\\x0aX-Password: ",
        ),
        (
            "texts_base_url",
            "http://127.0.0.1:9/vé1",
            "texts_base_url='http://127.0.0.1:9/vé1': a non-ASCII character at position 20",
        ),
        (
            "texts_timeout",
            "1e308",
            "texts_timeout='1e308': expected seconds, a number from 0.001 to 86400 (a day)",
        ),
        (
            "texts_azure_endpoint",
            f"https://alice:{PASSWORD}@r.openai.azure.com",
            "texts_azure_endpoint='https://***@r.openai.azure.com': the URL holds a user name",
        ),
    ],
)
def test_configuration_errors_are_refused_before_any_request(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    setting: str,
    value: str,
    message: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    sleeps: list[float] = []
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    ini = "[pytest]\ntexts_model = judge-1\ntexts_api_version = 2024-10-21\n"
    if setting.isupper():
        monkeypatch.setenv(setting, value)
    else:
        ini += f"{setting} = {value}\n"
    pytester.makeini(ini)
    pytester.makepyfile(bench_t=BENCH.format(cases=["a"]))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    [record] = load_json(pytester.path / "r.json")["records"]
    assert record["error"] == "TextsConfigError"
    assert record["message"].startswith(f"TextsConfigError: {message}")
    assert sleeps == []  # not retried
    everything = _everything(pytester, result)
    assert PASSWORD not in everything.replace(f"X-Password: {PASSWORD}", "")  # a header line
    assert KEY not in everything


#: forces a value the configuration refuses into the request itself (as before the checks
#: existed), so the request path's own catch-all is what keeps the key out
FORCED = """
import pytest
from pytest_probability.extensions.texts import client


@pytest.fixture(autouse=True)
def forced(monkeypatch):
    real = client.post

    def post(url, data, headers, timeout, clean, excerpt):
        if {force!r} == "timeout":
            timeout = 1e308
        else:
            url = url.replace("/v1/", "/v\\u00e91/")
        return real(url, data, headers, timeout, clean, excerpt)

    monkeypatch.setattr(client, "post", post)
"""


@pytest.mark.parametrize(
    ("force", "error"),
    [("timeout", "OverflowError"), ("path", "UnicodeEncodeError")],
)
def test_an_exception_while_building_the_request_shows_no_key(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    force: str,
    error: str,
) -> None:
    """``texts_timeout=1e308`` (``OverflowError``) and a non-ASCII URL path
    (``UnicodeEncodeError``) escaped with urllib's frames, whose locals hold
    ``headers={'Authorization': 'Bearer …'}``, into ``-l`` output and the JUnit file."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    sleeps: list[float] = []
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    pytester.makeconftest(FORCED.format(force=force))
    pytester.makeini(f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {chat_server.url}\n")
    pytester.makepyfile(bench_t=BENCH.format(cases=["a"]))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    [record] = load_json(pytester.path / "r.json")["records"]
    assert record["error"] == "RequestError"
    assert f": the request failed unexpectedly ({error}: " in record["message"]
    assert (sleeps, chat_server.requests) == ([], [])  # not retried; nothing was sent
    everything = _everything(pytester, result)
    assert KEY not in everything and "Bearer" not in everything
    assert not [line for line in result.outlines if "urllib" in line or "http/client" in line]
    assert not [line for line in result.outlines if "extensions/texts/" in line]


def test_the_json_report_names_the_judge_without_secrets(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(
        lambda request: ok(
            json.dumps({"questions": ["Does the text mention a refund?"]})
            if "Questions:" not in request.prompt
            else json.dumps({"answers": [{"question": 1, "score": 1}]}),
            model=f"judge{HOSTILE}",
        )
    )
    pytester.makeini(
        f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {chat_server.url}?tenant={KEY}\n"
    )
    pytester.makepyfile(bench_t=BENCH.format(cases=["a"]))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    assert chat_server.requests[0].query == {"tenant": KEY}
    everything = _everything(pytester, result)
    assert KEY not in everything and "\x1b" not in everything
    # the model name a server gave, printable in the Tokens: block
    assert any(line.startswith("  Tokens:  judge\\x1b]0;owned\\x07") for line in result.outlines)
    assert Path(pytester.path / "r.json").exists()


def test_model_names_a_user_records_are_printed_with_escapes_visible(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        bench_t="""
from pytest_probability import record_usage

def bench_t():
    record_usage(model="m\\x1b]0;owned\\x07\\u202e", input_tokens=3, output_tokens=1)
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    assert "  Tokens:  m\\x1b]0;owned\\x07\\u202e  3 in / 1 out" in result.outlines
    assert not any("\x1b" in line or "\u202e" in line for line in result.outlines)


def test_a_custom_backends_frames_show_the_settings_without_the_key(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a custom backend's own frames stay in the traceback (they are the user's); the settings
    # they hold print with the key masked and the URL redacted
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    pytester.makeconftest(
        """
class SDKJudge:
    def __init__(self, settings):
        self.settings = settings

    def complete(self, messages, *, json_mode=None):
        s = self.settings
        raise ConnectionError("the SDK gave up")

def pytest_prob_register_llm_backends(register, config):
    register("sdk", SDKJudge)
"""
    )
    pytester.makeini(
        "[pytest]\ntexts_backend = sdk\ntexts_model = judge-1\n"
        f"texts_base_url = https://gateway.example/v1?token={KEY}\n"
    )
    pytester.makepyfile(bench_t=BENCH.format(cases=["a"]))
    result = pytester.runpytest(*FLAGS, "-p", "no:randomly")
    output = "\n".join(result.outlines)
    assert "ConnectionError: the SDK gave up" in output
    assert "api_key='***'" in output and "base_url='https://gateway.example/v1?***'" in output
    assert KEY not in _everything(pytester, result)
    # the user's frame is shown, the plugin's and the thread pool's are not
    assert "conftest.py:7: ConnectionError" in output
    assert "extensions/texts/" not in output and "concurrent/futures" not in output
