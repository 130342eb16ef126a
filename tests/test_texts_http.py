"""The texts helpers end to end over the real chat-completions wire protocol (a loopback
server that plays the judge): request bodies and headers, scores, usage, faults, speed."""

from __future__ import annotations

import json
import math

import pytest
import texts_server
from helpers import load_json, section
from pytest_probability.extensions.texts.client import ChatClient
from texts_server import ok, status

chat_server = texts_server.chat_server

KEY = "sk-test-secret-0123456789"


def judge(request: texts_server.Request, delay: float = 0.0) -> texts_server.Reply:
    """Questions: one per known keyword of the text; answers: 1 when the answering text has
    the question's keyword, else 0."""
    prompt = request.prompt
    text = prompt.split("<<<")[1].split(">>>")[0]
    if "Questions:" in prompt:
        questions = [q for q in prompt.split("Questions:")[1].splitlines() if q.strip()]
        scores = [1 if q.rsplit(" ", 1)[-1].rstrip("?") in text else 0 for q in questions]
        answers = [{"question": i + 1, "score": s} for i, s in enumerate(scores)]
        return ok(json.dumps({"answers": answers}), usage=(300, 40, 100), delay=delay)
    words = [w for w in ("refund", "days", "call") if w in text] or ["nothing"]
    fenced = "```json\n" + json.dumps({"questions": [f"Does the text say {w}?" for w in words]})
    return ok(fenced + "\n```", usage=(200, 30, 0), delay=delay)


BENCH = """
from pytest_probability import current_run
from pytest_probability.texts import texts_expect_f1_range

def bench_answer():
    given = "your refund comes in 5 days" if current_run().run != 3 else "we will call you"
    texts_expect_f1_range("a refund in 5 days", given, 0.9, 1.0)
"""


def _ini(pytester: pytest.Pytester, server: texts_server.ChatServer, extra: str = "") -> None:
    pytester.makeini(
        f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {server.url}\n"
        f"texts_max_tokens = 500\n{extra}"
    )


def test_bench_end_to_end(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(judge)
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=5", "--prob-json=r.json")
    lines = section(result.outlines)
    assert lines[0] == "  answer  4/5  [28%, 99%]  FLAKY"
    # 5 runs × (2 question sets + 2 answer passes)
    assert "  Tokens:  judge-1  5,000 in / 700 out / 1,000 cached" in lines
    first = chat_server.requests[0]
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.headers["content-type"] == "application/json"
    assert first.body["model"] == "judge-1"
    assert first.body["temperature"] == 0.0
    assert first.body["max_tokens"] == 500
    # the reply's exact shape, strict: at least one question, at most 5 for a 5-word text
    assert first.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "questions",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "maxItems": 5,
                    }
                },
                "required": ["questions"],
                "additionalProperties": False,
            },
        },
    }
    answers = next(r for r in chat_server.requests if "Questions:" in r.prompt)
    schema = answers.body["response_format"]["json_schema"]["schema"]["properties"]["answers"]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)  # one answer per question
    assert schema["items"]["properties"]["score"] == {
        "type": "number",
        "enum": [0, 0.25, 0.5, 0.75, 1],
    }
    assert [m["role"] for m in first.body["messages"]] == ["system", "user"]
    report = load_json(pytester.path / "r.json")
    assert report["records"][2]["outcome"] == "fail"
    assert KEY not in (pytester.path / "r.json").read_text()
    assert KEY not in "\n".join(result.outlines)


def test_azure_mode(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chat_server.respond_with(judge)
    pytester.makeini(
        "[pytest]\n"
        f"texts_azure_endpoint = {chat_server.azure_endpoint}\n"
        "texts_azure_deployment = judge-deploy\n"
        "texts_api_version = 2024-10-21\n"
    )
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=1")
    assert section(result.outlines)[0] == "  answer  1/1"
    request = chat_server.requests[0]
    assert request.path == "/openai/deployments/judge-deploy/chat/completions"
    assert request.query == {"api-version": "2024-10-21"}
    assert request.headers["api-key"] == KEY
    assert "authorization" not in request.headers


def test_bad_credentials_are_an_error_without_retries(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(
        lambda request: status(401, {"error": {"message": "Incorrect API key provided"}})
    )
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=1", "--prob-json=r.json")
    assert load_json(pytester.path / "r.json")["records"][0]["outcome"] == "error"
    # the two question sets of an F1 go out together and neither 401 is retried; the second
    # is not sent at all when the first has already failed for good before it started (a
    # helper's unstarted calls are dropped), which depends on thread timing: one or two
    # requests, never the same one twice
    bodies = [json.dumps(request.body, sort_keys=True) for request in chat_server.requests]
    assert 1 <= len(bodies) <= 2
    assert len(set(bodies)) == len(bodies)
    assert any("AuthenticationError" in line and "401" in line for line in result.outlines)
    assert KEY not in "\n".join(result.outlines)


def test_rate_limits_are_waited_out(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.script(status(429, headers={"Retry-After": "1"}))
    chat_server.respond_with(judge)
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    sleeps: list[float] = []  # recorded, never slept
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    result = pytester.runpytest("--prob-runs=1")
    assert len(sleeps) == 1 and sleeps[0] >= 1.0  # Retry-After honoured
    assert section(result.outlines)[0] == "  answer  1/1"


def test_missing_usage_is_said_once(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def no_usage(request: texts_server.Request) -> texts_server.Reply:
        reply = judge(request)
        return ok(
            json.loads(json.dumps(reply.payload))["choices"][0]["message"]["content"], usage=None
        )

    chat_server.respond_with(no_usage)
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=2")
    assert section(result.outlines)[0] == "  answer  2/2  [16%, 100%]"
    assert "Tokens:" not in "\n".join(result.outlines)
    assert "\n".join(result.outlines).count("reported no token usage") == 1


@pytest.mark.parametrize(("junk", "shown"), [(-5, "-5"), (math.nan, "nan")])
def test_junk_usage_is_a_warning_and_its_tokens_unknown(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    junk: float,
    shown: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def junk_questions(request: texts_server.Request) -> texts_server.Reply:
        reply = judge(request)
        if "Questions:" not in request.prompt:
            reply.payload["usage"]["prompt_tokens"] = junk
        return reply

    chat_server.respond_with(junk_questions)
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=1")
    lines = section(result.outlines)
    assert lines[0] == "  answer  1/1"
    assert "  Tokens:  judge-1  600 in / 80 out / 200 cached" in lines  # the answer passes
    output = "\n".join(result.outlines)
    assert output.count("TextsUsageWarning") == 1
    assert (
        f"TextsUsageWarning: the judge (judge-1) reported unusable token usage, input_tokens="
        f"{shown} (not a whole number from 0 to 1,000,000,000): that reply's tokens are not "
        "counted (unknown)"
    ) in output


def test_aggregate_calls_run_eight_at_a_time(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(judge).hold_until_overlap(8)
    _ini(pytester, chat_server)
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_agg_f1_mean

def bench_t():
    texts_agg_f1_mean("a refund in 5 days", "a refund in 5 days", 1.0, full_runs=5)
"""
    )
    result = pytester.runpytest("--prob-runs=1")
    result.assert_outcomes(passed=1)
    # 10 question sets then 10 answer passes; the server saw 8 in flight at once, never more
    assert len(chat_server.requests) == 20
    assert chat_server.most_in_flight == 8


@pytest.mark.subprocess
def test_xdist(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(judge)
    _ini(pytester, chat_server)
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest_subprocess("--prob-runs=5", "-n", "2")
    lines = section(result.outlines)
    assert lines[0] == "  answer  4/5  [28%, 99%]  FLAKY"
    assert "  Tokens:  judge-1  5,000 in / 700 out / 1,000 cached" in lines


def test_a_reply_that_is_not_a_completion_is_asked_again(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.script(texts_server.garbage("<html>proxy error</html>"))
    chat_server.respond_with(judge)
    _ini(pytester, chat_server, "texts_max_concurrency = 1\n")
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=1", "--prob-json=r.json")
    assert section(result.outlines)[0] == "  answer  1/1"
    assert len(chat_server.requests) == 5  # 4 calls, the first asked twice
    report = load_json(pytester.path / "r.json")
    assert report["texts"] == {
        "judges": [{"prompt_version": "1", "backend": "openai", "model": "judge-1"}]
    }


def test_spend_of_a_failing_call_is_still_recorded(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(lambda request: ok("not json at all", usage=(50, 5, 0)))
    _ini(pytester, chat_server, "texts_max_concurrency = 1\n")
    pytester.makepyfile(bench_t=BENCH)
    result = pytester.runpytest("--prob-runs=1", "--prob-json=r.json")
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["outcome"] == "error"
    assert record["usage"]["judge-1"]["input_tokens"] == 150  # 3 attempts of 50
    assert any("JudgeReplyError" in line for line in result.outlines)


def test_runs_in_flight_share_the_judges_limit(
    pytester: pytest.Pytester,
    chat_server: texts_server.ChatServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Four runs in flight (``--prob-concurrency`` with threads), each asking for four judge
    calls at once: the judge's ``texts_max_concurrency = 2`` holds for the process, not per
    helper call."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    chat_server.respond_with(judge).hold_until_overlap(2)
    _ini(pytester, chat_server, "texts_max_concurrency = 2\n")
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_agg_f1_mean

def bench_t():
    texts_agg_f1_mean("a refund in 5 days", "a refund in 5 days", 1.0, full_runs=2)
"""
    )
    result = pytester.runpytest("--prob-runs=4", "--prob-concurrency=4", "--prob-threads")
    result.assert_outcomes(passed=4)
    assert len(chat_server.requests) == 4 * 8
    assert chat_server.most_in_flight == 2
