"""Structured output and the reply budget (issue 23), over the loopback server: the reply's
JSON schema (strict), the fall-back to ``json_object`` and plain text when a server refuses
one (remembered for the session), duplicate questions removed before scoring, a default
token budget raised once after a cut-off reply, retries that change the request, and
errors that show no frames of the plugin."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import urllib.request
from http import HTTPStatus
from pathlib import Path

import pytest
import pytest_probability
import pytest_probability.extensions
import texts_server
from helpers import load_json
from pytest_probability.extensions.texts.client import ChatClient, RequestError
from pytest_probability.extensions.texts.prompts import ReplyError, read_answers, read_questions
from pytest_probability.extensions.texts.session import resolve
from pytest_probability.extensions.texts.settings import TextsConfigError
from pytest_probability.extensions.texts.structured import answers_shape, questions_shape
from texts_server import SETTINGS, ok, status

chat_server = texts_server.chat_server

MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "Text."}]
REFUSED = {"error": {"message": "response_format 'json_schema' is not supported by this model"}}


def client(server: texts_server.ChatServer, **overrides: object) -> ChatClient:
    fields = {"model": "m", "base_url": server.url, "timeout": 5.0, **overrides}
    settings = dataclasses.replace(SETTINGS, **fields)  # type: ignore[arg-type]
    return ChatClient(settings, sleep=lambda s: None)


def formats(server: texts_server.ChatServer) -> list[str | None]:
    """Each request's ``response_format`` type (``None``: not sent)."""
    return [(r.body.get("response_format") or {}).get("type") for r in server.requests]


def test_a_refused_schema_falls_back_to_json_object_for_the_session(chat_server):
    chat_server.script(status(400, REFUSED), ok('{"questions": ["q?"]}'), *[ok("{}")] * 3)
    judge = client(chat_server)
    shape = questions_shape("a refund in five days")
    reply = judge.complete(MESSAGES, schema=shape)
    assert (reply.text, reply.attempts) == ('{"questions": ["q?"]}', 2)
    judge.complete(MESSAGES, schema=shape)
    judge.variant(retries=0).complete(MESSAGES, schema=shape)  # a variant remembers it too
    assert formats(chat_server) == ["json_schema", "json_object", "json_object", "json_object"]
    # a session's other client starts again from the configured level
    client(chat_server).complete(MESSAGES, schema=shape)
    assert formats(chat_server)[-1] == "json_schema"


def test_a_server_refusing_every_format_is_asked_in_plain_text(chat_server):
    refused = {"error": {"message": "Unrecognized request argument supplied: response_format"}}
    chat_server.script(status(400, REFUSED), status(400, refused), ok("{}"), ok("{}"))
    judge = client(chat_server)
    judge.complete(MESSAGES, schema=answers_shape(2))
    judge.complete(MESSAGES, schema=answers_shape(2))
    assert formats(chat_server) == ["json_schema", "json_object", None, None]


def test_a_refusal_that_is_not_about_the_format_is_not_retried(chat_server):
    chat_server.script(status(400, {"error": {"message": "maximum context length exceeded"}}))
    with pytest.raises(RequestError, match="maximum context length exceeded"):
        client(chat_server).complete(MESSAGES, schema=answers_shape(1))
    assert formats(chat_server) == ["json_schema"]


def test_when_plain_text_is_refused_too_the_error_says_what_was_tried(chat_server):
    chat_server.script(status(422, REFUSED), status(422, REFUSED), status(422, "bad json body"))
    with pytest.raises(RequestError) as info:
        client(chat_server).complete(MESSAGES, schema=answers_shape(1))
    assert formats(chat_server) == ["json_schema", "json_object", None]
    phrase = HTTPStatus(422).phrase  # "Unprocessable Content" from Python 3.13 on
    assert str(info.value).endswith(
        f"HTTP 422 {phrase}: bad json body (asked with response_format before: "
        f"HTTP 422 {phrase}: response_format 'json_schema' is not supported by "
        "this model)"
    )
    assert info.value.attempts == 3


@pytest.mark.parametrize(
    ("json_mode", "expected"),
    [("schema", "json_schema"), (True, "json_schema"), ("object", "json_object"),
     ("text", None), (False, None)],
)  # fmt: skip
def test_the_configured_level(chat_server, json_mode, expected):
    chat_server.script(ok("{}"), ok("{}"))
    read = {
        "texts_model": "m",
        "texts_base_url": chat_server.url,
        "texts_json_mode": str(json_mode),
    }
    judge = ChatClient(resolve(read.get, {}))
    judge.complete(MESSAGES, schema=answers_shape(1))
    judge.complete(MESSAGES)  # no shape given: json_object at most
    assert formats(chat_server) == [expected, None if expected is None else "json_object"]


def test_a_bad_json_mode_is_refused():
    with pytest.raises(TextsConfigError, match="texts_json_mode='yaml': expected schema "):
        resolve({"texts_model": "m", "texts_json_mode": "yaml"}.get, {})


def test_duplicate_questions_are_asked_once():
    reply = json.dumps(
        {
            "questions": [
                "Does the text say X?",
                "does the text  say x?",
                "Does the text say X.",
                "Does the text, say X",
                "Is Y stated?",
                "Is Y stated?",
            ]
        }
    )
    assert read_questions(reply) == ["Does the text say X?", "Is Y stated?"]


def test_a_question_set_holds_at_most_200_questions():
    assert len(read_questions(json.dumps([f"Is {i} stated?" for i in range(200)]))) == 200
    for count, said in ((201, "201"), (200_000, "200,000")):
        with pytest.raises(ReplyError) as info:
            read_questions(json.dumps([f"Is {i} stated?" for i in range(count)]))
        assert str(info.value) == f"{said} questions, more than the limit of 200"


ASKED = "an answer's question must be the number of a question asked, 1 to {}, got {}"


@pytest.mark.parametrize(
    ("answers", "problem"),
    [
        ([{"question": 999, "score": 1}], ASKED.format(1, 999)),
        ([{"question": 0, "score": 1}], ASKED.format(1, 0)),
        ([{"question": "1", "score": 1}], ASKED.format(1, "'1'")),
        ([{"question": True, "score": 1}], ASKED.format(1, True)),
        ([{"score": 1}], ASKED.format(1, None)),
        ([0.5, {"question": 2, "score": 1}], ASKED.format(2, None)),
        ([{"question": 1, "score": 1}, {"question": 1, "score": 0}], "question 1 is answered twice"),
        ([{"question": 1, "score": 10**400}], f"an answer's score must be one of 0, 0.25, 0.5, "
         f"0.75, 1, got {10**400!r}"),
    ],
)  # fmt: skip
def test_answers_must_number_the_questions_asked_each_once(answers, problem):
    with pytest.raises(ReplyError) as info:
        read_answers(json.dumps({"answers": answers}), len(answers))
    assert str(info.value) == problem


def test_answers_are_placed_by_their_question_number():
    answers = [
        {"question": 2, "score": 0},
        {"question": 3, "score": 0.5},
        {"question": 1, "score": 1},
    ]
    assert read_answers(json.dumps({"answers": answers}), 3) == [1.0, 0.0, 0.5]
    assert read_answers("[0.25, 1]", 2) == [0.25, 1.0]  # bare grades: in order


# -- through the helpers ------------------------------------------------------------------


def judge_replies(request: texts_server.Request) -> texts_server.Reply:
    """Repeats its questions (a small model does); answers 1 to every question asked."""
    if "Questions:" in request.prompt:
        asked = [q for q in request.prompt.split("Questions:")[1].splitlines() if q.strip()]
        answers = [{"question": i + 1, "score": 1} for i in range(len(asked))]
        return ok(json.dumps({"answers": answers}), usage=(100, 10, 0))
    refund = "Does the text mention a refund?"
    questions = [refund, "does the text mention  a refund", "Does the text mention a refund ?"]
    questions.append("Does the text mention days?")
    return ok(json.dumps({"questions": questions}), usage=(100, 10, 0))


def _session(pytester: pytest.Pytester, server: texts_server.ChatServer, ini: str = "") -> None:
    pytester.makeini(
        f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {server.url}\n"
        f"texts_max_concurrency = 1\n{ini}"
    )
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_expect_recall_range

def bench_t():
    texts_expect_recall_range("a refund in 5 days", "a refund in 5 days", 0.9, 1.0)
"""
    )


def test_repeated_questions_are_answered_and_scored_once(pytester, chat_server):
    chat_server.respond_with(judge_replies)
    _session(pytester, chat_server)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    _, answers = chat_server.requests
    assert answers.prompt.split("Questions:")[1].strip().splitlines() == [
        "1. Does the text mention a refund?",
        "2. Does the text mention days?",
    ]
    schema = answers.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["answers"]["minItems"] == 2
    # the default reply budget went out with both calls
    assert [r.body["max_tokens"] for r in chat_server.requests] == [1024, 1024]


def test_an_unusable_reply_is_asked_again_differently(pytester, chat_server):
    chat_server.script(ok("I think the text is about a refund."))
    chat_server.respond_with(judge_replies)
    _session(pytester, chat_server)
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    first, second = chat_server.requests[:2]
    assert first.messages[1] == second.messages[1]  # the user message is the same
    note = second.messages[0]["content"].removeprefix(first.messages[0]["content"])
    assert note == (
        "\n\n(Attempt 2 of 3. Your last reply could not be used: the judge's reply is not "
        "JSON: 'I think the text is about a refund.'. Reply with only this JSON and nothing "
        'else: {"questions": ["Does the text ...?", ...]}.)'
    )


def test_a_cut_off_reply_is_asked_again_once_with_twice_the_budget(pytester, chat_server):
    runaway = '{"questions": ["yes/no", "yes/no", "yes/no", "yes/no", "yes/no", "yes/no"'
    chat_server.respond_with(lambda r: ok(runaway, finish_reason="length", usage=(50, 300, 0)))
    _session(pytester, chat_server, "texts_max_tokens = 300\n")
    result = pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    assert [r.body["max_tokens"] for r in chat_server.requests] == [300, 600]
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["outcome"] == "error"
    assert record["message"] == (
        "JudgeReplyError: the judge (openai, judge-1) was cut off by its reply budget "
        "(finish_reason: length) at 300 tokens, then at 600: set texts_max_tokens higher "
        "(now 300) if its replies are that long, or the model does not stop by itself (a "
        f"runaway reply); the reply began: {runaway!r}"
    )
    assert record["usage"]["judge-1"]["output_tokens"] == 600  # both attempts are counted
    assert any(
        line.startswith("E       pytest_probability.extensions.texts.judge.JudgeReplyError: ")
        for line in result.outlines
    )


def test_a_runaway_reply_ends_after_the_default_budget_and_once_more(pytester, chat_server):
    """With no texts_max_tokens, a judge that never stops is cut off at the default 1,024
    tokens, asked once more with 2,048, and the run ends: two requests, 3,072 tokens, no
    timeout and no transport retry."""
    runaway = '{"questions": [' + ", ".join(['"Does the text say yes?"'] * 200)

    def endless(request: texts_server.Request) -> texts_server.Reply:
        spent = request.body["max_tokens"]  # a model that writes until it is cut off
        return ok(runaway, finish_reason="length", usage=(50, spent, 0))

    chat_server.respond_with(endless)
    _session(pytester, chat_server)
    pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    assert [r.body["max_tokens"] for r in chat_server.requests] == [1024, 2048]
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["message"] == (
        "JudgeReplyError: the judge (openai, judge-1) was cut off by its reply budget "
        "(finish_reason: length) at 1024 tokens, then at 2048: set texts_max_tokens higher "
        "(now 1024, the default) if its replies are that long, or the model does not stop by "
        f"itself (a runaway reply); the reply began: {runaway[:160] + '…'!r}"
    )
    assert record["usage"]["judge-1"]["output_tokens"] == 3072


@pytest.mark.parametrize(
    ("ini", "advice"),
    [
        ("", "texts_json_mode is schema already: a small judge may need a server that enforces "
         "the JSON schema it is sent (llama.cpp, vLLM, Ollama and OpenAI do), or a larger "
         "texts_model"),
        ("texts_json_mode = object\n", "A small judge may need texts_json_mode = schema (now "
         "object) on a server that supports it, or a larger texts_model"),
    ],
)  # fmt: skip
def test_unusable_replies_name_the_setting_to_change(pytester, chat_server, ini, advice):
    chat_server.respond_with(lambda request: ok("Sure! The text is about a refund."))
    _session(pytester, chat_server, ini)
    pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    assert len(chat_server.requests) == 3  # the first call and its two varied retries
    record = load_json(pytester.path / "r.json")["records"][0]
    assert record["message"] == (
        "JudgeReplyError: the judge (openai, judge-1) gave no usable reply in 3 attempts: the "
        "judge's reply is not JSON: 'Sure! The text is about a refund.' (×3). " + advice
    )


def test_reasoning_models_get_a_larger_default_budget(pytester, chat_server):
    chat_server.respond_with(judge_replies)
    _session(pytester, chat_server)
    pytester.runpytest("-p", "no:randomly", "--texts-model=o4-mini").assert_outcomes(passed=1)
    assert [r.body["max_completion_tokens"] for r in chat_server.requests] == [8192, 8192]
    assert "temperature" not in chat_server.requests[0].body


ERROR_BENCHES = """
from pytest_probability.texts import texts_expect_recall_range

def bench_prose():
    texts_expect_recall_range("a refund in 5 days", "a refund", 0.5, 1.0)
"""


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (ok("Sure! The text is about a refund."), "JudgeReplyError"),
        (status(503, {"error": {"message": "overloaded"}}), "UnavailableError"),
        (status(401, {"error": {"message": "bad key"}}), "AuthenticationError"),
    ],
)
def test_errors_show_no_frames_of_the_plugin(pytester, chat_server, monkeypatch, reply, error):
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", lambda s: None)
    chat_server.respond_with(lambda request: reply)
    _session(pytester, chat_server)
    pytester.makepyfile(bench_t=ERROR_BENCHES)
    result = pytester.runpytest("-p", "no:randomly", "-l", "--tb=long")
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == "bench_prose")
    failure = lines[start : next(i for i, line in enumerate(lines) if "probability ===" in line)]
    # the whole failure: the bench line and the message, no frame of the plugin, the thread
    # pool or urllib (it was about 95 lines per ERROR run)
    assert failure[1:4] == [
        "",
        "    def bench_prose():",
        '>       texts_expect_recall_range("a refund in 5 days", "a refund", 0.5, 1.0)',
    ]
    assert failure[4].startswith("E       pytest_probability.extensions.texts.")
    assert f".{error}: " in failure[4]
    assert [line for line in failure[5:] if line.strip()] == [f"bench_t.py:4: {error}"]
    assert frames_of_the_plugin(failure) == []


#: where the plugin's, the thread pool's and urllib's source files are
FOREIGN = (
    str(Path(pytest_probability.__file__).parent),
    str(Path(pytest_probability.extensions.__file__).parent),
    str(Path(concurrent.futures.__file__).parent),
    str(Path(urllib.request.__file__).parent),
    "site-packages/pytest_probability",
)


def frames_of_the_plugin(lines: list[str]) -> list[str]:
    """The lines that name a source file of the plugin, the thread pool or urllib."""
    return [line for line in lines if any(place in line for place in FOREIGN)]


POOL_BENCH = """
from pytest_probability.texts import texts_agg_f1_mean

def bench_pool():
    texts_agg_f1_mean("a refund in 5 days", "a refund", 1.0, full_runs=3)
"""


@pytest.mark.parametrize("tb", ["long", "short", "auto"])
def test_an_error_in_the_thread_pool_shows_no_frames_of_the_plugin(
    pytester, chat_server, monkeypatch, tb
):
    """Six question sets, two at a time in threads: the judge refuses the key. The failure
    is the bench line and the message, in every traceback style; once a call has failed, no
    other call starts (the helper errors anyway)."""
    chat_server.hold_until_overlap(2)  # both first calls are in flight before either fails
    chat_server.respond_with(lambda request: status(401, {"error": {"message": "bad key"}}))
    pytester.makeini(
        f"[pytest]\ntexts_model = judge-1\ntexts_base_url = {chat_server.url}\n"
        "texts_max_concurrency = 2\n"
    )
    pytester.makepyfile(bench_t=POOL_BENCH)
    result = pytester.runpytest("-p", "no:randomly", "-l", f"--tb={tb}", "--prob-json=r.json")
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == "bench_pool")
    failure = lines[
        start + 1 : next(i for i, line in enumerate(lines) if "probability ===" in line)
    ]
    message = (
        f"pytest_probability.extensions.texts.errors.AuthenticationError: {chat_server.url}"
        "/chat/completions (model judge-1): HTTP 401 Unauthorized: bad key"
    )
    call = 'texts_agg_f1_mean("a refund in 5 days", "a refund", 1.0, full_runs=3)'
    if tb == "short":
        assert failure == ["bench_t.py:4: in bench_pool", f"    {call}", f"E   {message}"]
    else:
        assert [line for line in failure if line.strip()] == [
            "    def bench_pool():",
            f">       {call}",
            f"E       {message}",
            "bench_t.py:4: AuthenticationError",
        ]
    assert frames_of_the_plugin(lines) == []
    # a 401 is not retried, and the four calls not started when it came were never made
    assert len(chat_server.requests) == 2
    record = load_json(pytester.path / "r.json")["records"][0]
    assert (record["outcome"], record["error"]) == ("error", "AuthenticationError")


#: every helper form, as tests/test_texts_llama.py calls them; ``GIVEN`` maps each helper to
#: the given text, ``FORMS_BENCH.format(given=...)``
FORMS_BENCH = """
import pytest
from pytest_probability import texts

E = "a refund in 5 days"
FORMS = [
    ("texts_expect_f1_range", {{"min_score": 0.9, "max_score": 1.0}}),
    ("texts_expect_completeness_equal", {{"target": 1.0, "max_delta": 0.2}}),
    ("texts_agg_correctness_min", {{"lower_bound": 0.9, "full_runs": 2}}),
    ("texts_agg_precision_max", {{"upper_bound": 0.5, "full_runs": 2}}),
    ("texts_agg_recall_median", {{"target": 1.0, "max_delta": 0.1, "full_runs": 2}}),
    ("texts_agg_completeness_mean", {{"target": 1.0, "max_delta": 0.1, "full_runs": 2}}),
    ("texts_agg_f1_average", {{"target": 1.0, "max_delta": 0.1, "full_runs": 2}}),
]
GIVEN = {given}


@pytest.mark.parametrize("helper,kwargs", [pytest.param(h, k, id=h) for h, k in FORMS])
def bench_form(helper, kwargs):
    getattr(texts, helper)(E, GIVEN[helper], **kwargs)
"""


def failures_show_only_the_bench_line(lines: list[str]) -> None:
    """Each of the seven failures points at the bench line only, and no line of the output
    names a source file of the plugin, the thread pool or urllib."""
    assert [line for line in lines if line.startswith(">")] == [
        ">       getattr(texts, helper)(E, GIVEN[helper], **kwargs)"
    ] * 7
    assert frames_of_the_plugin(lines) == []


def test_every_helper_form_errors_without_frames_of_the_plugin(pytester, chat_server):
    chat_server.respond_with(lambda request: status(401, {"error": {"message": "bad key"}}))
    _session(pytester, chat_server)
    pytester.makepyfile(bench_t=FORMS_BENCH.format(given="{h: E for h, _ in FORMS}"))
    result = pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["error"] for r in records] == ["AuthenticationError"] * 7
    failures_show_only_the_bench_line(result.outlines)
