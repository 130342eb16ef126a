"""Running the judge: question sets, answer passes, concurrency, retries, usage, cache.

One *sample* is one question set per needed side (recall: questions from the expected text,
answered from the given one; precision: the reverse) and one answer pass over it. An
aggregate makes ``full_runs`` question sets and ``each_question_runs`` answer passes per set:
``full_runs × each_question_runs`` samples, every one from its own calls, so no sample is
counted twice. Every call has its own retry budget. Calls that do not depend on each other
run concurrently; usage is recorded from the calling thread (where the bench run is current).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from .judge import Call, Judge
from .prompts import answer_messages, question_messages, read_answers, read_questions
from .scoring import Sample, SideSample
from .structured import answers_shape, questions_shape

#: judge calls in flight in this process, per ``texts_max_concurrency`` value: bench runs in
#: flight at once (``--prob-concurrency``) share the judge's limit instead of each having it
_LIMITS: dict[int, threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()


def calls_allowed(size: int) -> threading.BoundedSemaphore:
    """The process-wide limit of ``size`` judge calls in flight."""
    with _LIMITS_LOCK:
        return _LIMITS.setdefault(size, threading.BoundedSemaphore(size))


def _attempt(
    task: Callable[[], Call], failed: threading.Event, limit: threading.BoundedSemaphore
) -> Call | Exception | None:
    """Run ``task`` unless a task of the same batch has failed (``None``); its error is
    returned, not raised, so that its traceback holds no frame of the thread pool. A failure
    is flagged before the thread takes its next task, so that no call starts after it: a
    runaway or unreachable judge costs no more than the calls in flight."""
    __tracebackhide__ = True
    with limit:
        if failed.is_set():
            return None
        try:
            return task()
        except Exception as exc:
            failed.set()
            return exc


def _in_parallel(
    judge: Judge, tasks: Sequence[Callable[[], Call]], on_call: Callable[[Call], None]
) -> list[Call]:
    """Run the tasks (concurrently up to ``max_concurrency``, counting the calls of every
    helper call in flight in this process) and show every finished call
    to ``on_call``; once one fails, the tasks not started yet are not run (the helper call
    errors anyway), the calls already in flight finish and count (their usage is recorded),
    and then the first error is raised."""
    __tracebackhide__ = True
    failed = threading.Event()
    limit = calls_allowed(judge.settings.max_concurrency)
    workers = min(judge.settings.max_concurrency, len(tasks))
    if workers == 1:
        outcomes = [_attempt(task, failed, limit) for task in tasks]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            outcomes = list(
                pool.map(_attempt, tasks, itertools.repeat(failed), itertools.repeat(limit))
            )
    for outcome in outcomes:
        call = outcome if isinstance(outcome, Call) else getattr(outcome, "partial", None)
        if call is not None:
            on_call(call)
    errors = [outcome for outcome in outcomes if isinstance(outcome, Exception)]
    if errors:
        raise errors[0]
    return outcomes  # type: ignore[return-value]  # (every one a Call when none failed)


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
    __tracebackhide__ = True
    sides = {"recall": (expected, given), "precision": (given, expected)}
    wanted = ["recall", "precision"] if metric == "f1" else [metric]
    for side in wanted:  # a text too long to send is refused before any call goes out
        judge.check_size(question_messages(sides[side][0]))
        judge.check_size(answer_messages(sides[side][1], []))

    def ask_questions(side: str, run: int) -> Call:
        __tracebackhide__ = True
        source = sides[side][0]
        if not source.strip():
            return Call(None, [])  # an empty text states no facts
        shape = questions_shape(source)
        return judge.ask(question_messages(source), read_questions, ["q", side, run], shape)

    plan = [(side, run) for run in range(full_runs) for side in wanted]
    asked = _in_parallel(judge, [partial(ask_questions, *p) for p in plan], on_call)
    questions = {p: call.result for p, call in zip(plan, asked, strict=True)}

    def ask_answers(side: str, run: int, index: int) -> Call:
        __tracebackhide__ = True
        found = questions[(side, run)]
        if not found:
            return Call(None, [])
        return judge.ask(
            answer_messages(sides[side][1], found),
            lambda text: read_answers(text, len(found)),
            ["a", side, run, index],
            answers_shape(len(found)),
        )

    passes = [
        (side, run, index)
        for run in range(full_runs)
        for index in range(each_question_runs)
        for side in wanted
    ]
    answered = _in_parallel(judge, [partial(ask_answers, *p) for p in passes], on_call)
    results = {
        (side, run, index): SideSample(tuple(questions[(side, run)]), tuple(call.result))
        for (side, run, index), call in zip(passes, answered, strict=True)
    }
    return [
        Sample(
            recall=results.get(("recall", run, index)),
            precision=results.get(("precision", run, index)),
        )
        for run in range(full_runs)
        for index in range(each_question_runs)
    ]
