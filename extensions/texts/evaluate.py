"""Running the judge: question sets, answer passes, concurrency, retries, usage, cache.

One *sample* is one question set per needed side (recall: questions from the expected text,
answered from the given one; precision: the reverse) and one answer pass over it. An
aggregate makes ``full_runs`` question sets and ``each_question_runs`` answer passes per set:
``full_runs × each_question_runs`` samples, every one from its own calls, so no sample is
counted twice. Every call has its own retry budget. Calls that do not depend on each other
run concurrently; usage is recorded from the calling thread (where the bench run is current).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from .prompts import PROMPT_VERSION, ReplyError, answer_messages, question_messages
from .prompts import read_answers as parse_answers
from .prompts import read_questions as parse_questions
from .scoring import Sample, SideSample


class Reply(Protocol):
    text: str
    finish_reason: str | None
    model: str
    input_tokens: int | None
    output_tokens: int | None
    cached_input_tokens: int | None


class Backend(Protocol):
    def complete(
        self, messages: list[dict[str, str]], *, json_mode: bool | None = None
    ) -> Reply: ...


class JudgeReplyError(RuntimeError):
    """The judge kept answering something unusable (truncated, not JSON, invalid scores)
    after its retry budget; the run is an ERROR, not a FAIL."""


@dataclass(frozen=True)
class Call:
    """A finished call: the reply (``None`` when it came from the cache)."""

    reply: Reply | None
    result: Any


class Cache(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, text: str) -> None: ...


@dataclass
class Judge:
    """How to call the judge for one helper call."""

    backend: Backend
    backend_name: str
    model: str
    json_mode: bool
    max_concurrency: int
    reply_retries: int
    cache: Cache | None = None
    #: identifies the bench run (case id and run index) so each run draws fresh samples
    run_key: str = ""
    #: the settings that change replies (base URL, temperature, max tokens, JSON mode)
    settings_key: str = ""

    def ask(
        self, messages: list[dict[str, str]], read: Callable[[str], Any], key: list[Any]
    ) -> Call:
        """One call (from the cache when enabled), read with ``read``; a truncated or
        unreadable reply is asked again up to ``reply_retries`` times."""
        cache_key = None
        if self.cache is not None:
            material = [
                self.backend_name,
                self.model,
                self.settings_key,
                PROMPT_VERSION,
                self.run_key,
                key,
                messages,
            ]
            cache_key = hashlib.sha256(
                json.dumps(material, sort_keys=True).encode("utf-8")
            ).hexdigest()
            cached = self.cache.get(cache_key)
            if cached is not None:
                try:
                    return Call(None, read(cached))
                except ReplyError:
                    pass  # an unreadable cache entry is asked again
        problems: list[str] = []
        replies: list[Reply] = []
        for _ in range(self.reply_retries + 1):
            try:
                reply = self.backend.complete(messages, json_mode=self.json_mode)
            except Exception as exc:
                from .client import ProtocolError

                if not isinstance(exc, ProtocolError):  # a 2xx that is not a completion
                    if replies:
                        exc.partial = Call(_Combined(replies), None)  # type: ignore[attr-defined]
                    raise
                problems.append(str(exc))
                continue
            replies.append(reply)
            if reply.finish_reason == "length":
                problems.append("the reply was cut off (finish_reason: length)")
                continue
            try:
                result = read(reply.text)
            except ReplyError as exc:
                problems.append(str(exc))
                continue
            if cache_key is not None and self.cache is not None:
                self.cache.set(cache_key, reply.text)
            return Call(_Combined(replies), result)
        error = JudgeReplyError(
            f"the judge ({self.backend_name}, {self.model}) gave no usable reply in "
            f"{len(problems)} attempt(s): {'; '.join(problems)}"
        )
        if replies:  # what the unusable replies cost is still recorded
            error.partial = Call(_Combined(replies), None)  # type: ignore[attr-defined]
        raise error


@dataclass(frozen=True)
class _Combined:
    """The replies of one call with retries, as one reply for usage accounting."""

    replies: list[Reply]

    @property
    def model(self) -> str:
        return self.replies[-1].model

    def usage(self) -> tuple[int, int, int] | None:
        known = [r for r in self.replies if r.input_tokens is not None]
        if not known:
            return None
        return (
            sum(r.input_tokens or 0 for r in known),
            sum(r.output_tokens or 0 for r in known),
            sum(r.cached_input_tokens or 0 for r in known),
        )


def _in_parallel(
    judge: Judge, tasks: Sequence[Callable[[], Call]], on_call: Callable[[Call], None]
) -> list[Call]:
    """Run the tasks (concurrently up to ``max_concurrency``) and show every finished call
    to ``on_call``; when some failed, the others still count (their usage is recorded)
    before the first error is raised."""
    outcomes: list[Call | BaseException] = []
    if len(tasks) == 1 or judge.max_concurrency == 1:
        for task in tasks:
            try:
                outcomes.append(task())
            except Exception as exc:
                outcomes.append(exc)
                break
    else:
        with ThreadPoolExecutor(max_workers=min(judge.max_concurrency, len(tasks))) as pool:
            futures = [pool.submit(task) for task in tasks]
            for future in futures:
                try:
                    outcomes.append(future.result())
                except Exception as exc:
                    outcomes.append(exc)
    failure: BaseException | None = None
    for outcome in outcomes:
        if isinstance(outcome, Call):
            on_call(outcome)
        else:
            partial = getattr(outcome, "partial", None)
            if partial is not None:
                on_call(partial)
            failure = failure or outcome
    if failure is not None:
        raise failure
    return [outcome for outcome in outcomes if isinstance(outcome, Call)]


def evaluate(
    judge: Judge,
    expected: str,
    given: str,
    metric: str,
    full_runs: int,
    each_question_runs: int,
    on_call: Callable[[Call], None],
) -> list[Sample]:
    """``full_runs × each_question_runs`` samples for ``metric``; ``on_call`` sees every
    finished call in this thread (to record its usage)."""
    sides = {"recall": (expected, given), "precision": (given, expected)}
    wanted = ["recall", "precision"] if metric == "f1" else [metric]

    def question_task(side: str, run: int) -> Callable[[], Call]:
        source = sides[side][0]
        if not source.strip():
            return lambda: Call(None, [])  # an empty text states no facts
        return lambda: judge.ask(question_messages(source), parse_questions, ["q", side, run])

    plan = [(side, run) for run in range(full_runs) for side in wanted]
    asked = _in_parallel(judge, [question_task(side, run) for side, run in plan], on_call)
    questions: dict[tuple[str, int], list[str]] = {}
    for (side, run), call in zip(plan, asked, strict=True):
        questions[(side, run)] = call.result

    def answer_task(side: str, run: int, index: int) -> Callable[[], Call]:
        found = questions[(side, run)]
        if not found:
            return lambda: Call(None, [])
        target = sides[side][1]
        return lambda: judge.ask(
            answer_messages(target, found),
            lambda text: parse_answers(text, len(found)),
            ["a", side, run, index],
        )

    passes = [
        (side, run, index)
        for run in range(full_runs)
        for index in range(each_question_runs)
        for side in wanted
    ]
    answered = _in_parallel(judge, [answer_task(*p) for p in passes], on_call)
    results: dict[tuple[str, int, int], SideSample] = {}
    for (side, run, index), call in zip(passes, answered, strict=True):
        results[(side, run, index)] = SideSample(tuple(questions[(side, run)]), tuple(call.result))
    return [
        Sample(
            recall=results.get(("recall", run, index)),
            precision=results.get(("precision", run, index)),
        )
        for run in range(full_runs)
        for index in range(each_question_runs)
    ]
