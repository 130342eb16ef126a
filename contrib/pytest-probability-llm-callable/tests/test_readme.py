"""What the README shows is what runs: the example directory's output, and the gateway
function (taken from the README) against a loopback server that plays the gateway."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_llm_callable import BENCH, section

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def python_block(first_line: str) -> str:
    """The README's ```python block whose first line is ``first_line``."""
    for block in README.split("```python\n")[1:]:
        code = block.split("```", 1)[0]
        if code.startswith(first_line):
            return code
    raise AssertionError(f"no python block starting with {first_line!r} in the README")


def test_the_example_runs_as_the_readme_shows(pytester: pytest.Pytester) -> None:
    for name in ("pytest.ini", "stub_judge.py", "bench_support.py"):
        shutil.copy(ROOT / "example" / name, pytester.path / name)
    result = pytester.runpytest("--prob-runs=5")
    result.assert_outcomes(passed=4, failed=1, warnings=0)
    lines = section(result.outlines)
    expected = [
        "  refund_answer  4/5  [28%, 99%]  FLAKY",
        "  Tokens:  stub-judge  5,000 in / 600 out",
    ]
    for line in expected:
        assert line in lines
        assert f"\n{line}\n" in README
    fact = "E           0    Does the text mention call?  [asked of the given text]"
    assert fact in result.outlines
    assert fact in README


def judge_reply(messages: list[dict[str, str]]) -> str:
    """Grade like the stub judge: one question per keyword, 1 when the other text has it."""
    prompt = messages[-1]["content"]
    text = prompt.split("<<<")[1].split(">>>")[0]
    if "Questions:" in prompt:
        questions = [q for q in prompt.split("Questions:")[1].splitlines() if q.strip()]
        scores = [1 if q.rsplit(" ", 1)[-1].rstrip("?") in text else 0 for q in questions]
        return json.dumps(
            {"answers": [{"question": i + 1, "score": s} for i, s in enumerate(scores)]}
        )
    words = [w for w in ("refund", "days", "call") if w in text] or ["nothing"]
    return json.dumps({"questions": [f"Does the text mention {w}?" for w in words]})


class Gateway(BaseHTTPRequestHandler):
    """A gateway with its own body and usage shape; keeps what it was sent."""

    requests: ClassVar[list[tuple[str, dict[str, str], dict[str, Any]]]] = []
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            self.requests.append((self.path, dict(self.headers), body))
        reply = {
            "output": judge_reply(body["messages"]),
            "model": "gw-judge",
            "usage": {"input_tokens": 120, "output_tokens": 9},
        }
        data = json.dumps(reply).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[str]:
    """A loopback gateway for the test's duration; yields its URL."""
    Gateway.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/generate"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_gateway_function_from_the_readme(
    pytester: pytest.Pytester, gateway: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_GATEWAY_URL", gateway)
    monkeypatch.setenv("LLM_GATEWAY_TOKEN", "gw-secret")
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "*")
    pytester.mkpydir("my_judges")
    pytester.path.joinpath("my_judges", "gateway_judge.py").write_text(
        python_block("# my_judges/gateway_judge.py"), encoding="utf-8"
    )
    pytester.makepyfile(bench_t=BENCH)
    pytester.makeini(
        "[pytest]\npythonpath = .\ntexts_model = judge-1\ntexts_backend = callable\n"
        "texts_callable = my_judges.gateway_judge:ask\n"
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1, warnings=0)
    lines = section(result.outlines)
    assert lines[:2] == ["  same   1/1", "  other  0/1  FAIL"]
    # 2 cases × 4 calls of 120 in / 9 out
    assert "  Tokens:  gw-judge  960 in / 72 out" in lines
    assert len(Gateway.requests) == 8
    path, headers, body = Gateway.requests[0]
    assert path == "/v1/generate"
    assert headers["Authorization"] == "Bearer gw-secret"
    assert headers["X-Cost-Center"] == "support-bot-evals"
    assert body["route"] == "eval-judge"
    assert body["response_format"] == "json"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_the_gateway_function_without_its_token(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLM_GATEWAY_TOKEN", raising=False)
    pytester.mkpydir("my_judges")
    pytester.path.joinpath("my_judges", "gateway_judge.py").write_text(
        python_block("# my_judges/gateway_judge.py"), encoding="utf-8"
    )
    pytester.makepyfile(bench_t=BENCH)
    pytester.makeini(
        "[pytest]\npythonpath = .\ntexts_model = judge-1\ntexts_backend = callable\n"
        "texts_callable = my_judges.gateway_judge:ask\n"
    )
    result = pytester.runpytest("-k", "same")
    result.assert_outcomes(failed=1)
    assert any(
        line.endswith(
            "CallableConfigError: texts_callable=my_judges.gateway_judge:ask: importing "
            "'my_judges.gateway_judge' failed: KeyError: 'LLM_GATEWAY_TOKEN'"
        )
        for line in result.outlines
    )
