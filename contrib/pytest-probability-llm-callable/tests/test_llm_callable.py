"""The ``callable`` backend end to end (pytester): a bench uses the ``texts_*`` helpers and a
stub module written here plays the judge as a plain function (deterministic, no network).

The stub grades like the core suite's fake judge: it writes one question per keyword
("refund", "days", "call") of a text and scores an answer 1 when the answering text contains
the question's keyword, else 0.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

#: The judge as functions: ``ask`` returns a dict with usage, ``ask_text`` the text only,
#: ``client.ask`` an object with attributes; each records every call it gets.
STUB = '''
import json
import threading
import time

CALLS = []  # (json_mode, roles, thread id) of every call
LOCK = threading.Lock()
DELAY = 0.0


def reply_text(messages):
    user = messages[-1]["content"]
    text = user.split("<<<")[1].split(">>>")[0]
    if "Questions:" in user:
        questions = [q for q in user.split("Questions:")[1].splitlines() if q.strip()]
        scores = [1 if q.rsplit(" ", 1)[-1].rstrip("?") in text else 0 for q in questions]
        answers = [{"question": i + 1, "score": s} for i, s in enumerate(scores)]
        return json.dumps({"answers": answers})
    words = [w for w in ("refund", "days", "call") if w in text] or ["nothing"]
    return json.dumps({"questions": [f"Does the text mention {w}?" for w in words]})


def record(messages, json_mode):
    with LOCK:
        CALLS.append((json_mode, [m["role"] for m in messages], threading.get_ident()))
    if DELAY:
        time.sleep(DELAY)


def ask(messages, json_mode):
    record(messages, json_mode)
    return {
        "text": reply_text(messages),
        "model": "stub-judge",
        "input_tokens": 100,
        "output_tokens": 20,
        "cached_input_tokens": 40,
        "finish_reason": "stop",
    }


def ask_text(messages, json_mode):
    record(messages, json_mode)
    return reply_text(messages)


SEEN = set()


def ask_after_prose(messages, json_mode):
    """Answers each prompt in prose first (the judge asks again), and empties its list."""
    record(messages, json_mode)
    prompt = messages[-1]["content"]
    with LOCK:
        first = prompt not in SEEN
        SEEN.add(prompt)
    text = "Sure! Here is my assessment." if first else reply_text(messages)
    messages.clear()  # its own copy: the judge asks again with the same messages
    return text


class Reply:
    """Duck-typed: no cached_input_tokens or finish_reason attribute."""

    def __init__(self, text):
        self.text = text
        self.model = "stub-object"
        self.input_tokens = 300
        self.output_tokens = 50


class Client:
    def ask(self, messages, json_mode):
        record(messages, json_mode)
        return Reply(reply_text(messages))


client = Client()
'''

#: Two cases: "same" gets F1 1.0 (passes), "other" F1 0.0 (fails).
BENCH = """
from pytest_probability.texts import texts_expect_f1_range

def bench_same():
    texts_expect_f1_range("a refund in 5 days", "your refund comes in 5 days", 0.9, 1.0)

def bench_other():
    texts_expect_f1_range("a refund in 5 days", "we will call you", 0.9, 1.0)
"""

SEPARATOR = re.compile(r"^=+ (?P<title>.+?) =+$")


def ini(
    callable_spec: str | None = "judge_stub:ask", backend: str = "callable", extra: str = ""
) -> str:
    """A pytest.ini: the judge model, the backend, the function, the test dir importable."""
    lines = ["[pytest]", "pythonpath = .", "texts_model = judge-1", f"texts_backend = {backend}"]
    if callable_spec is not None:
        lines.append(f"texts_callable = {callable_spec}")
    return "\n".join(lines) + "\n" + extra


def section(lines: list[str], title: str = "probability") -> list[str]:
    """The lines of one ``=== title ===`` section of pytest's output (without the header)."""
    out: list[str] = []
    inside = False
    for line in lines:
        match = SEPARATOR.match(line)
        if inside and re.match(r"^-+ probability: .+ -+$", line):
            break  # (the files written follow every section)
        if match:
            if inside:
                break
            inside = match.group("title") == title
            continue
        if inside:
            out.append(line)
    return out


def has(result: pytest.RunResult, *texts: str) -> None:
    """Each text appears in a line of the output (brackets are literal, unlike fnmatch)."""
    for text in texts:
        assert any(text in line for line in result.outlines), text


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """The stub judge module and the two-case bench (tests write the ini)."""
    pytester.makepyfile(judge_stub=STUB, bench_t=BENCH)
    return pytester


def load_records(pytester: pytest.Pytester) -> list[dict[str, Any]]:
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["records"]


def test_dict_replies_give_the_rows_and_the_usage(suite: pytest.Pytester) -> None:
    suite.makeini(ini())
    result = suite.runpytest("--prob-runs=2", "--prob-json=r.json")
    result.assert_outcomes(passed=2, failed=2, warnings=0)
    lines = section(result.outlines)
    assert lines[:2] == [
        "  same   2/2  [16%, 100%]",
        "  other  0/2  [ 0%,  84%]  FAIL",
    ]
    # 2 cases × 2 runs × (2 question sets + 2 answer passes) = 16 calls of 100 / 20 / 40
    assert "  Tokens:  stub-judge  1,600 in / 320 out / 640 cached" in lines
    has(
        result,
        "AssertionError: texts_expect_f1_range: the F1 score (the harmonic mean of precision and "
        "recall) is 0.00, below the minimum 0.90 (accepted: [0.90, 1.00])",
    )
    records = load_records(suite)
    assert [r["outcome"] for r in records] == ["pass", "pass", "fail", "fail"]
    assert records[0]["usage"] == {
        "stub-judge": {
            "input_tokens": 400,
            "output_tokens": 80,
            "cached_input_tokens": 160,
            "cost": None,
        }
    }


def test_the_model_the_function_names_is_priced(suite: pytest.Pytester) -> None:
    suite.path.joinpath("prices.toml").write_text(
        '["stub-judge"]\ninput = 2.0\noutput = 10.0\ncached_input = 1.0\n'
    )
    suite.makeini(ini(extra="texts_prices = prices.toml\n"))
    result = suite.runpytest("-k", "same")
    result.assert_outcomes(passed=1)
    # 4 calls × (60 uncached × $2 + 40 cached × $1 + 20 out × $10) per million tokens
    assert "  Cost:    $0.0014" in section(result.outlines)


@pytest.mark.parametrize(("setting", "mode"), [("true", True), ("false", False)])
def test_the_function_gets_chat_messages_and_json_mode(
    suite: pytest.Pytester, setting: str, mode: bool
) -> None:
    suite.makeini(ini(extra=f"texts_json_mode = {setting}\n"))
    suite.makepyfile(
        bench_t=f"""
import judge_stub
from pytest_probability.texts import texts_expect_f1_range

def bench_modes():
    texts_expect_f1_range("a refund in 5 days", "a refund in 5 days", 0.9, 1.0)
    assert len(judge_stub.CALLS) == 4
    assert {{(m, tuple(roles)) for m, roles, _ in judge_stub.CALLS}} == {{
        ({mode}, ("system", "user"))
    }}
"""
    )
    suite.runpytest().assert_outcomes(passed=1)


def test_string_replies_work_and_warn_once_about_usage(suite: pytest.Pytester) -> None:
    suite.makeini(ini("judge_stub:ask_text"))
    # its own process, as in real use: the helpers warn once per process
    result = suite.runpytest_subprocess("--prob-runs=2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2, warnings=1)
    lines = section(result.outlines)
    assert lines[:2] == [
        "  same   2/2  [16%, 100%]",
        "  other  0/2  [ 0%,  84%]  FAIL",
    ]
    assert not any("Tokens:" in line for line in lines)
    warned = [line for line in result.outlines if "reported no token usage" in line]
    assert len(warned) == 1
    assert warned[0].endswith(
        "TextsUsageWarning: the judge (judge-1) reported no token usage: its spend is not counted"
    )


def test_object_replies_and_a_dotted_name(suite: pytest.Pytester) -> None:
    suite.makeini(ini("judge_stub:client.ask"))
    result = suite.runpytest("-k", "same", "--prob-runs=3")
    result.assert_outcomes(passed=3, warnings=0)
    lines = section(result.outlines)
    assert lines[0] == "  same  3/3  [29%, 100%]"
    # 3 runs × 4 calls of 300 in / 50 out; no cached_input_tokens attribute: none cached
    assert "  Tokens:  stub-object  3,600 in / 600 out" in lines


def test_unreadable_replies_are_asked_again_with_the_same_messages(
    suite: pytest.Pytester,
) -> None:
    suite.makeini(ini("judge_stub:ask_after_prose"))
    suite.makepyfile(
        bench_t="""
import judge_stub
from pytest_probability.texts import texts_expect_f1_range

def bench_retried():
    texts_expect_f1_range("a refund in 5 days", "your refund comes in 5 days", 0.9, 1.0)
    # 2 question sets and 2 answer passes, each answered in prose first
    assert len(judge_stub.CALLS) == 8
    assert {tuple(roles) for _, roles, _ in judge_stub.CALLS} == {("system", "user")}
"""
    )
    result = suite.runpytest()
    result.assert_outcomes(passed=1, warnings=1)  # (string replies: no usage)


THREADS = """
import threading
import judge_stub
from pytest_probability.texts import texts_agg_f1_mean

def bench_threads():
    judge_stub.DELAY = 0.05
    texts_agg_f1_mean("a refund in 5 days", "a refund in 5 days", 1.0, full_runs=4)
    threads = {ident for _, _, ident in judge_stub.CALLS}
    print(f"calls={len(judge_stub.CALLS)} threads={len(threads)}", end=" ")
    print(f"bench-thread={threading.get_ident() in threads}")
"""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("", re.compile(r"calls=16 threads=([2-9]|1\d) bench-thread=False")),
        ("texts_max_concurrency = 1\n", re.compile(r"calls=16 threads=1 bench-thread=True")),
    ],
    ids=["concurrent", "one-at-a-time"],
)
def test_the_function_is_called_from_several_threads_unless_concurrency_is_1(
    suite: pytest.Pytester, extra: str, expected: re.Pattern[str]
) -> None:
    suite.makeini(ini(extra=extra))
    suite.makepyfile(bench_t=THREADS)
    result = suite.runpytest("-s")
    result.assert_outcomes(passed=1)
    assert any(expected.search(line) for line in result.outlines), result.outlines


#: A judge registered from conftest (the way test_texts.py in the core suite does it).
FAKE_BACKEND = """
import json

class Reply:
    def __init__(self, text):
        self.text = text
        self.finish_reason = "stop"
        self.model = "fake-judge"
        self.input_tokens = 10
        self.output_tokens = 1
        self.cached_input_tokens = 0

class Judge:
    def complete(self, messages, *, json_mode=None):
        if "Questions:" in messages[-1]["content"]:
            return Reply(json.dumps({"answers": [{"question": 1, "score": 1}]}))
        return Reply(json.dumps({"questions": ["Does the text mention refund?"]}))

def pytest_prob_register_llm_backends(register, config):
    register("fake", lambda settings: Judge())
"""

#: What texts_callable names in the isolation tests: importing it is an error.
TRAP = 'raise RuntimeError("texts_callable was imported")\n'

ISOLATED = """
import sys
from pytest_probability.texts import texts_expect_f1_range

def bench_t():
    texts_expect_f1_range("a refund", "a refund", 0.9, 1.0)
    assert "judge_trap" not in sys.modules
"""


def test_another_backend_never_touches_texts_callable(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FAKE_BACKEND)
    pytester.makepyfile(judge_trap=TRAP, bench_t=ISOLATED)
    pytester.makeini(ini("judge_trap:ask", backend="fake"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=0)
    assert "  Tokens:  fake-judge  40 in / 4 out" in section(result.outlines)


def test_a_session_without_the_helpers_is_not_affected(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        judge_trap=TRAP,
        bench_t="import sys\n\ndef bench_t():\n    assert 'judge_trap' not in sys.modules\n",
    )
    for spec in ("judge_trap:ask", "not a function name", None):
        pytester.makeini(ini(spec))
        result = pytester.runpytest()
        result.assert_outcomes(passed=1, warnings=0)


def test_the_backend_is_registered_beside_openai(pytester: pytest.Pytester) -> None:
    pytester.makeini(ini(backend="nope"))
    pytester.makepyfile(bench_t=ISOLATED)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    has(result, "TextsConfigError: texts_backend='nope' is not a registered backend; registered: ")
    registered = next(
        line for line in result.outlines if line.startswith("E ") and "registered: " in line
    )
    assert "callable" in registered.split("registered: ")[1].split(", ")


def test_disabling_the_extension_removes_the_backend(pytester: pytest.Pytester) -> None:
    pytester.makeini(ini())
    pytester.makepyfile(bench_t=ISOLATED)
    result = pytester.runpytest(
        "-p", "no:probability.llm-callable", "-W", "ignore::pytest.PytestConfigWarning"
    )
    result.assert_outcomes(failed=1)
    has(result, "TextsConfigError: texts_backend='callable' is not a registered backend; ")
    registered = next(
        line for line in result.outlines if line.startswith("E ") and "registered: " in line
    )
    assert "callable" not in registered.split("registered: ")[1].split(", ")


def test_the_ini_option_is_declared(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    assert config.pluginmanager.get_plugin("probability.llm-callable") is not None
    assert config.getini("texts_callable") == ""
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["  texts_callable (string):*"])
