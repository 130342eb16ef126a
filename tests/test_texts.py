"""The texts extension: the helpers' API, scoring, messages, errors, usage, cache.

A backend registered from the test's conftest plays the judge here (deterministic, no
network); tests/test_texts_http.py drives the same helpers over the real wire protocol.
"""

from __future__ import annotations

import inspect
import json
import math

import pytest
from helpers import load_json, section
from pytest_probability.extensions.texts.client import ChatReply, RequestError
from pytest_probability.extensions.texts.evaluate import evaluate
from pytest_probability.extensions.texts.judge import MAX_REQUEST_BYTES, Judge
from pytest_probability.extensions.texts.prompts import read_answers
from texts_server import SETTINGS

#: A judge that writes two questions per text and grades an answer 1 when the answering text
#: contains the question's keyword (else SCORE_MISSING); it counts its calls.
FAKE_JUDGE = """
import json, threading
from dataclasses import dataclass

CALLS = []
LOCK = threading.Condition()
SCORE_MISSING = {missing}
OVERLAP = {overlap}  # hold each call until this many were in flight at once (0: never hold)
FLIGHT = {{"now": 0, "most": 0}}
REPLIES = {replies}  # scripted raw replies, used first (then the rules below)

@dataclass
class Reply:
    text: str
    finish_reason: str = "stop"
    model: str = "judge-1"
    input_tokens: int | None = 100
    output_tokens: int | None = 20
    cached_input_tokens: int | None = 0

def keywords(text):
    return [w for w in ("refund", "days", "call") if w in text] or ["nothing"]

class Judge:
    def complete(self, messages, *, json_mode=None):
        user = messages[-1]["content"]
        with LOCK:
            CALLS.append(user)
            scripted = REPLIES.pop(0) if REPLIES else None
            FLIGHT["now"] += 1
            FLIGHT["most"] = max(FLIGHT["most"], FLIGHT["now"])
            LOCK.notify_all()
            # a liveness bound, not a measurement: a client that never overlaps its calls
            # waits it out once per call and the test reads FLIGHT["most"] == 1
            LOCK.wait_for(lambda: FLIGHT["most"] >= OVERLAP, timeout=10)
            FLIGHT["now"] -= 1
        if scripted is not None:
            if isinstance(scripted, tuple):
                return Reply(scripted[0], finish_reason=scripted[1])
            return Reply(scripted)
        text = user.split("<<<")[1].split(">>>")[0]
        if "Questions:" in user:
            questions = [q for q in user.split("Questions:")[1].splitlines() if q.strip()]
            scores = [1 if q.rsplit(" ", 1)[-1].rstrip("?") in text else SCORE_MISSING
                      for q in questions]
            return Reply(json.dumps({{"answers": [{{"question": i + 1, "score": s}}
                                                  for i, s in enumerate(scores)]}}))
        questions = [f"Does the text mention {{k}}?" for k in keywords(text)]
        return Reply(json.dumps({{"questions": questions}}))

def pytest_prob_register_llm_backends(register, config):
    register("fake", lambda settings: Judge())
"""

INI = "[pytest]\ntexts_backend = fake\ntexts_model = judge-1\n"


def _judge(
    pytester: pytest.Pytester, missing: float = 0.0, overlap: int = 0, replies: str = "[]"
) -> None:
    pytester.makeconftest(FAKE_JUDGE.format(missing=missing, overlap=overlap, replies=replies))
    pytester.makeini(INI)


def _has(result: pytest.RunResult, *texts: str) -> None:
    """Each text appears in a line of the output (brackets are literal, unlike fnmatch)."""
    for text in texts:
        assert any(text in line for line in result.outlines), text


def _bench(pytester: pytest.Pytester, body: str) -> None:
    pytester.makepyfile(
        bench_t="from pytest_probability.texts import *\n\n\ndef bench_t():\n    " + body + "\n"
    )


# -- the API ------------------------------------------------------------------------------------
EXPECT_RANGE = (
    "(expected: str, given: str, min_score: float, max_score: float, "
    "skip_warnings: bool = False, retry_on_error: bool = True) -> None"
)
EXPECT_EQUAL = (
    "(expected: str, given: str, target: float = 1.0, max_delta: float = 0.2, "
    "skip_warnings: bool = False, retry_on_error: bool = True) -> None"
)
AGG_MIN = (
    "(expected: str, given: str, lower_bound: float, full_runs: int = 5, "
    "each_question_runs: int = 1, retry_on_error: bool = True) -> None"
)
AGG_MAX = AGG_MIN.replace("lower_bound", "upper_bound")
AGG_TARGET = (
    "(expected: str, given: str, target: float, max_delta: float = 0.1, full_runs: int = 5, "
    "each_question_runs: int = 1, retry_on_error: bool = True) -> None"
)


@pytest.mark.parametrize("metric", ["f1", "precision", "recall", "completeness", "correctness"])
def test_every_helper_has_the_documented_signature(metric: str) -> None:
    import pytest_probability.texts as texts

    expected = {
        f"texts_expect_{metric}_range": EXPECT_RANGE,
        f"texts_expect_{metric}_equal": EXPECT_EQUAL,
        f"texts_agg_{metric}_min": AGG_MIN,
        f"texts_agg_{metric}_max": AGG_MAX,
        f"texts_agg_{metric}_median": AGG_TARGET,
        f"texts_agg_{metric}_mean": AGG_TARGET,
        f"texts_agg_{metric}_average": AGG_TARGET,
    }
    for name, signature in expected.items():
        helper = getattr(texts, name)
        assert helper.__name__ == name
        assert str(inspect.signature(helper)).replace("'", "") == signature, name
        assert helper.__doc__


def test_a_passing_and_a_failing_assertion(pytester: pytest.Pytester) -> None:
    _judge(pytester, missing=0.25)
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_expect_f1_range

def bench_same():
    texts_expect_f1_range("a refund in 5 days", "your refund comes in 5 days", 0.9, 1.0)

def bench_other():
    texts_expect_f1_range("a refund in 5 days", "we will call you", 0.9, 1.0)
"""
    )
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json")
    assert section(result.outlines)[:2] == [
        "  same   2/2  [16%, 100%]",
        "  other  0/2  [ 0%,  84%]  FAIL",
    ]
    assert "  Tokens:  judge-1  1,600 in / 320 out" in section(result.outlines)
    # recall: refund? days? answered from "we will call you" → 0.25 each; precision: call? → 0.25
    _has(
        result,
        "E       AssertionError: texts_expect_f1_range: the F1 score (the harmonic mean of "
        "precision and recall) is 0.25, below the minimum 0.90 (accepted: [0.90, 1.00])",
        "E         recall (correctness: how much of the expected text the given text "
        "contains): 0.25",
        "E         precision (completeness: how much of the given text the expected text "
        "supports): 0.25",
        "E         questions the texts did not fully answer (lowest first):",
        "E           0.25 Does the text mention refund?  [asked of the given text]",
        "E           0.25 Does the text mention call?  [asked of the expected text]",
    )
    records = load_json(pytester.path / "r.json")["records"]
    assert [r["outcome"] for r in records] == ["pass", "pass", "fail", "fail"]
    assert records[0]["usage"] == {
        "judge-1": {
            "input_tokens": 400,
            "output_tokens": 80,
            "cached_input_tokens": 0,
            "cost": None,
        }
    }
    assert "ScoreType" not in "\n".join(result.outlines)


@pytest.mark.parametrize(
    ("call", "score_words"),
    [
        ('texts_expect_completeness_equal("refund days", "refund call", 1.0, 0.2)', "precision"),
        ('texts_expect_correctness_equal("refund days", "refund call", 1.0, 0.2)', "recall"),
        ('texts_expect_precision_range("refund days", "refund call", 0.9, 1.0)', "precision"),
        ('texts_expect_recall_range("refund days", "refund call", 0.9, 1.0)', "recall"),
    ],
)
def test_aliases_map_completeness_to_precision_and_correctness_to_recall(
    pytester: pytest.Pytester, call: str, score_words: str
) -> None:
    _judge(pytester)
    _bench(pytester, call)
    result = pytester.runpytest()
    # expected "refund days" → given "refund call": recall 1/2; precision (refund? call?) 1/2
    _has(result, f": the {score_words} (", ") is 0.50, ")


@pytest.mark.parametrize(
    ("how", "call", "message"),
    [
        ("min", "texts_agg_f1_min(E, G, lower_bound=0.9, full_runs=3)", "the min F1 over 3"),
        ("max", "texts_agg_f1_max(E, G, upper_bound=0.1, full_runs=2)", "the max F1 over 2"),
        ("mean", "texts_agg_recall_mean(E, G, target=1.0, full_runs=2, each_question_runs=2)",
         "the mean recall over 4"),
        ("median", "texts_agg_precision_median(E, G, 0.2, 0.1, 3)", "the median precision over 3"),
    ],
)  # fmt: skip
def test_aggregates(pytester: pytest.Pytester, how: str, call: str, message: str) -> None:
    _judge(pytester, missing=0.5)
    _bench(pytester, f'E, G = "a refund in 5 days", "your refund, call us"\n    {call}')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    _has(result, "AssertionError: texts_agg_", f": {message} evaluations is ")


def test_no_sample_is_counted_twice_when_a_reply_is_retried(pytester: pytest.Pytester) -> None:
    # the first question set comes back as prose, then truncated: both are asked again
    _judge(pytester, replies='["no JSON here", ("{\\"questions\\": [", "length")]')
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_agg_recall_mean
import conftest

def bench_t():
    texts_agg_recall_mean("a refund in 5 days", "a refund in 5 days", 1.0, 0.1, full_runs=3)
    # 3 question sets (+2 asked again) and 3 answer passes: 8 calls, 3 samples
    assert len(conftest.CALLS) == 8
"""
    )
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1)


def test_invalid_scores_exhaust_the_reply_budget_and_error(pytester: pytest.Pytester) -> None:
    bad = '{\\"answers\\": [{\\"question\\": 1, \\"score\\": 3.0}, {\\"question\\": 2, \\"score\\": 1}]}'
    _judge(
        pytester,
        replies=f'[None, "{bad}", "{bad}", "{bad}"]'.replace(
            "None",
            '"{\\"questions\\": [\\"Does the text mention refund?\\", \\"Does the text mention days?\\"]}"',
        ),
    )
    _bench(pytester, 'texts_expect_recall_range("a refund in 5 days", "x", 0.0, 0.9)')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    _has(
        result,
        "JudgeReplyError: the judge (fake, judge-1) gave no usable reply in 3 attempts: an "
        "answer's score must be one of 0, 0.25, 0.5, 0.75, 1, got 3.0 (×3). The fake backend's "
        "complete() takes no schema keyword (the reply's JSON schema): a small judge may need "
        "a backend that sends it, or a larger texts_model",
    )
    assert load_json_outcome(pytester) == "error"


def load_json_outcome(pytester: pytest.Pytester) -> str:
    pytester.runpytest("--prob-json=r.json")
    return load_json(pytester.path / "r.json")["records"][0]["outcome"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('texts_expect_f1_range("a", "b", 1.5, 1.0)',
         "texts_expect_f1_range(): min_score must be a number in [0, 1], got 1.5"),
        ('texts_expect_f1_range("a", "b", 0.9, 0.5)',
         "texts_expect_f1_range(): min_score (0.9) must not be greater than max_score (0.5)"),
        ('texts_expect_f1_range("a", 3, 0.5, 0.9)',
         "texts_expect_f1_range(): given must be a str, got int"),
        ('texts_agg_f1_mean("a", "b", 0.9, full_runs=0)',
         "texts_agg_f1_mean(): full_runs must be a whole number of at least 1, got 0"),
        ('texts_agg_recall_min("a", "b", 0.5, each_question_runs=1.5)',
         "texts_agg_recall_min(): each_question_runs must be a whole number of at least 1, got 1.5"),
        ('texts_expect_recall_equal("a", "b", max_delta=-0.1)',
         "texts_expect_recall_equal(): max_delta must be a number in [0, 1], got -0.1"),
    ],
)  # fmt: skip
def test_invalid_arguments_name_the_argument(
    pytester: pytest.Pytester, call: str, message: str
) -> None:
    _judge(pytester)
    _bench(pytester, call)
    result = pytester.runpytest("--prob-json=r.json")
    _has(result, f"TextsUsageError: {message}")
    assert load_json(pytester.path / "r.json")["records"][0]["outcome"] == "error"


@pytest.mark.parametrize(
    ("call", "warning"),
    [
        ('texts_expect_f1_range("refund", "refund", 0.0, 1.0)',
         "texts_expect_f1_range(): [0, 1] accepts every score from 0 to 1: it cannot fail"),
        ('texts_expect_f1_equal("refund", "refund", 1.0, 0.02)',
         "texts_expect_f1_equal(): target ± max_delta (1 ± 0.02) is narrower than 0.05*"),
        ('texts_agg_f1_mean("refund", "refund", 1.0, full_runs=11, each_question_runs=5)',
         "texts_agg_f1_mean(): full_runs × each_question_runs = 55 evaluations (more than 50)*"),
    ],
)  # fmt: skip
def test_warnings(pytester: pytest.Pytester, call: str, warning: str) -> None:
    _judge(pytester)
    _bench(pytester, call)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=1)
    _has(result, f"TextsWarning: {warning.rstrip('*')}")
    _has(result, "bench_t.py:5: TextsWarning")  # the warning points at the bench line
    if "skip" not in call and "expect" in call:
        _bench(pytester, call[:-1] + ", skip_warnings=True)")
        quiet = pytester.runpytest()
        quiet.assert_outcomes(passed=1)


def test_settings_are_read_lazily(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntexts_timeout = soon\n")
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    assert pytester.runpytest().ret == 0  # a session not using the helpers is not affected
    _bench(pytester, 'texts_expect_f1_range("a", "b", 0.5, 1.0)')
    result = pytester.runpytest("-k", "bench_t", "--prob-json=r.json")
    _has(result, "TextsConfigError: no judge model is configured for the texts_* helpers: set ")
    pytester.makeini("[pytest]\ntexts_model = m\ntexts_timeout = soon\n")
    result = pytester.runpytest("-k", "bench_t")
    _has(
        result,
        "TextsConfigError: texts_timeout='soon': expected seconds, a number from 0.001 to "
        "86400 (a day)",
    )


def test_unknown_backend_is_named(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntexts_model = m\ntexts_backend = nope\n")
    _bench(pytester, 'texts_expect_f1_range("a", "b", 0.5, 1.0)')
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "E   *TextsConfigError: texts_backend='nope' is not a registered backend; registered: openai*"
        ]
    )


def test_prices_file_costs_the_judge(pytester: pytest.Pytester) -> None:
    _judge(pytester)
    pytester.path.joinpath("prices.toml").write_text(
        "[judge-1]\ninput = 2.0\noutput = 10.0\ncached_input = 1.0\n"
    )
    pytester.makeini(INI + "texts_prices = prices.toml\n")
    _bench(pytester, 'texts_expect_f1_range("refund", "refund", 0.5, 1.0)')
    result = pytester.runpytest("--prob-json=r.json")
    # 4 calls × (100 in × $2 + 20 out × $10) per million tokens
    assert "  Cost:    $0.0016" in section(result.outlines)


def test_calls_run_eight_at_a_time(pytester: pytest.Pytester) -> None:
    # the judge holds every call until eight are in flight at once: a client that asked one
    # at a time would never get there (counted, not timed)
    _judge(pytester, overlap=8)
    pytester.makepyfile(
        bench_t="""
import conftest
from pytest_probability.texts import texts_agg_f1_mean

def bench_t():
    texts_agg_f1_mean("a refund in 5 days", "a refund in 5 days", 1.0, full_runs=5)
    # 10 question sets, then 10 answer passes: 20 calls, never more than 8 in flight
    assert (len(conftest.CALLS), conftest.FLIGHT["most"]) == (20, 8)
"""
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_max_concurrency_one_asks_one_at_a_time(pytester: pytest.Pytester) -> None:
    _judge(pytester)
    pytester.makeini(INI + "texts_max_concurrency = 1\n")
    pytester.makepyfile(
        bench_t="""
import conftest
from pytest_probability.texts import texts_agg_f1_mean

def bench_t():
    texts_agg_f1_mean("a refund in 5 days", "a refund in 5 days", 1.0, full_runs=5)
    assert (len(conftest.CALLS), conftest.FLIGHT["most"]) == (20, 1)
"""
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_cache_makes_a_rerun_free_and_keeps_runs_distinct(pytester: pytest.Pytester) -> None:
    _judge(pytester)
    pytester.makepyfile(
        bench_t="""
from pytest_probability.texts import texts_expect_f1_range
import conftest

def bench_t():
    texts_expect_f1_range("a refund in 5 days", "a refund in 5 days", 0.5, 1.0)
    print("calls", len(conftest.CALLS))
"""
    )
    first = pytester.runpytest("-p", "cacheprovider", "--texts-cache", "--prob-runs=2", "-s")
    printed = "\n".join(first.outlines)
    assert "calls 4" in printed and "calls 8" in printed  # two runs: two distinct samples
    again = pytester.runpytest("-p", "cacheprovider", "--texts-cache", "--prob-runs=2", "-s")
    printed = "\n".join(again.outlines)
    assert printed.count("calls 0") == 2 and "calls 4" not in printed
    assert "Tokens:" not in "\n".join(again.outlines)


CACHED_BENCH = """
from pytest_probability.texts import texts_expect_f1_range
import conftest

def bench_t():
    texts_expect_f1_range("a refund in 5 days", "a refund in 5 days", 0.5, 1.0)
    print("calls", len(conftest.CALLS))
"""


@pytest.mark.parametrize(
    "change",
    [
        "texts_base_url=http://judge.invalid/v1",
        "texts_temperature=0.5",
        "texts_max_tokens=512",
        "texts_json_mode=object",
    ],
)
def test_the_cache_key_holds_the_settings_that_change_a_reply(
    pytester: pytest.Pytester, change: str
) -> None:
    """As docs/texts.rst says: the base URL, the temperature, the token budget and the JSON
    mode are in the key, so changing one asks the judge again (four calls for an F1)."""
    _judge(pytester)
    pytester.makepyfile(bench_t=CACHED_BENCH)
    cached = ("-p", "cacheprovider", "--texts-cache", "-s", "-p", "no:randomly")
    assert "calls 4" in "\n".join(pytester.runpytest(*cached).outlines)
    assert "calls 0" in "\n".join(pytester.runpytest(*cached).outlines)
    assert "calls 4" in "\n".join(pytester.runpytest(*cached, "-o", change).outlines)
    assert "calls 0" in "\n".join(pytester.runpytest(*cached, "-o", change).outlines)


def test_every_helper_form_fails_without_frames_of_the_plugin(pytester: pytest.Pytester) -> None:
    """A FAIL shows the bench line and the message, for every form (the ``_min`` and
    ``_max`` aggregates showed one frame of the plugin). Every score is 0 against a text
    that mentions nothing; the ``_max`` form compares a text with itself (1.0)."""
    from test_texts_structured import FORMS_BENCH, failures_show_only_the_bench_line

    _judge(pytester)
    given = '{h: E if h.endswith("_max") else "nothing here" for h, _ in FORMS}'
    pytester.makepyfile(bench_t=FORMS_BENCH.format(given=given))
    result = pytester.runpytest("-p", "no:randomly", "--prob-json=r.json")
    records = load_json(pytester.path / "r.json")["records"]
    assert [(r["outcome"], r["error"]) for r in records] == [("fail", None)] * 7
    failures_show_only_the_bench_line(result.outlines)


@pytest.mark.parametrize(
    "entry",
    [
        "[" * 100_000,  # (pytest's cache itself raises RecursionError on this file)
        json.dumps("[" * 100_000),
        '{"questions": ["a stored value that is not a reply"]}',
        json.dumps('{"answers": [' + "9" * 400 + "]}"),
    ],
)
def test_a_cache_entry_that_cannot_be_used_is_a_miss(pytester: pytest.Pytester, entry: str) -> None:
    _judge(pytester)
    pytester.makepyfile(bench_t=CACHED_BENCH)
    cached = ("-p", "cacheprovider", "--texts-cache", "-s", "-p", "no:randomly")
    assert "calls 4" in "\n".join(pytester.runpytest(*cached).outlines)
    stored = list(pytester.path.joinpath(".pytest_cache/v/probability/texts").iterdir())
    assert len(stored) == 4
    for path in stored:
        path.write_text(entry)
    result = pytester.runpytest(*cached)
    result.assert_outcomes(passed=1)
    assert "calls 4" in "\n".join(result.outlines)  # every call asked again


def test_an_answer_to_a_question_not_asked_is_asked_again(pytester: pytest.Pytester) -> None:
    questions = json.dumps({"questions": ["Does the text mention refund?"]})
    bad = json.dumps({"answers": [{"question": 999, "score": 1}]})
    _judge(pytester, replies=repr([questions, bad, bad, bad]))
    _bench(pytester, 'texts_expect_recall_range("a refund in 5 days", "x", 0.0, 0.9)')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    _has(
        result,
        "JudgeReplyError: the judge (fake, judge-1) gave no usable reply in 3 attempts: an "
        "answer's question must be the number of a question asked, 1 to 1, got 999 (×3).",
    )


class Backend:
    """A judge backend that answers every call with ``reply`` and counts the calls."""

    def __init__(self, reply: ChatReply) -> None:
        self.reply = reply
        self.calls = 0

    def complete(self, messages: list[dict[str, str]], *, json_mode: bool = False) -> ChatReply:
        self.calls += 1
        return self.reply


def _reply(text: str, input_tokens: object = 100) -> ChatReply:
    return ChatReply(text, "stop", "m", input_tokens, 20, 0, 1)


def test_a_text_too_long_to_send_is_refused_before_any_call() -> None:
    backend = Backend(_reply('{"questions": ["Does the text say a?"]}'))
    judge = Judge(backend=backend, settings=SETTINGS, reply_retries=2)
    with pytest.raises(RequestError) as info:
        evaluate(judge, "a", "x" * MAX_REQUEST_BYTES, "recall", 1, 1, lambda call: None)
    assert str(info.value) == (
        "the judge (openai, gpt-4o-mini): a request of 1,049,085 bytes is more than the limit "
        "of 1,048,576 (MAX_REQUEST_BYTES): the texts are too long to judge"
    )
    assert backend.calls == 0


def test_questions_too_long_to_send_are_refused_before_their_answer_pass() -> None:
    questions = [f"Does the text say {i} {'x' * 10_000}?" for i in range(110)]
    backend = Backend(_reply(json.dumps({"questions": questions})))
    judge = Judge(backend=backend, settings=SETTINGS, reply_retries=2)
    with pytest.raises(RequestError, match=r"a request of 1,\d{3},\d{3} bytes is more than"):
        evaluate(judge, "a", "b", "recall", 1, 1, lambda call: None)
    assert backend.calls == 1  # the question set; its answer pass was never sent


@pytest.mark.parametrize(
    ("count", "shown"),
    [(-5, "-5"), (2.5, "2.5"), (True, "True"), (math.nan, "nan"), (10**30, str(10**30)),
     ("12", "'12'")],
)  # fmt: skip
def test_junk_token_counts_are_named_and_left_out_of_the_sum(count: object, shown: str) -> None:
    answers = json.dumps({"answers": [{"question": 1, "score": 1}]})
    judge = Judge(backend=Backend(_reply(answers, count)), settings=SETTINGS, reply_retries=2)
    call = judge.ask([], lambda text: read_answers(text, 1), ["a"])
    assert call.result == [1.0]  # the reply is used
    assert call.reply.junk() == [
        f"input_tokens={shown} (not a whole number from 0 to 1,000,000,000)"
    ]
    assert call.reply.usage() is None  # unknown, not a wrong number
