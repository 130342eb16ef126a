"""Executing a bench body and reading its steps. Pure module: never imports pytest.

A *step* is anything with ``label`` and ``passed`` (optionally ``elapsed``, ``error``,
``message``, ``cost``, ``usage``): a dataclass, a dict, or another framework's object. A
bench body may return one step or a list of them, or be a generator (sync or async) that
yields them. ``async def`` bodies run to completion in a fresh event loop.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..formatting.terminal_text import visible
from .user_values import UnreadableValue, read_seconds, read_text, read_truth

MESSAGE_LIMIT = 4000
#: The ``error`` of a step (and of its run) whose fields could not be read.
INVALID_STEP = "InvalidStep"


@dataclass
class Step:
    """A ready-made step type (any object with the same attribute names works as well)."""

    label: str
    passed: bool
    elapsed: float | None = None
    error: str | None = None
    message: str | None = None
    cost: float | None = None
    usage: Any = None


class StepFailed(AssertionError):
    """A step reported ``passed=False``: the run fails."""


class StepErrored(Exception):
    """A step reported an ``error``: the run is an error.

    :ivar error: the step's own error (``TimeoutError``), which the run record keeps.
    """

    def __init__(self, message: str, error: str) -> None:
        super().__init__(message)
        self.error = error


def step_field(step: Any, name: str, default: Any = None) -> Any:
    """Read one field of a duck-typed step (attribute or mapping key)."""
    if isinstance(step, Mapping):
        return step.get(name, default)
    return getattr(step, name, default)


def is_step(value: Any) -> bool:
    """True for anything carrying ``label`` and ``passed``."""
    if isinstance(value, Mapping):
        return "label" in value and "passed" in value
    if isinstance(value, (str, bytes)) or inspect.isclass(value):
        return False
    try:
        return hasattr(value, "label") and hasattr(value, "passed")
    except Exception:  # a property that raises: a step all the same (read_steps names it)
        return True


def steps_from_return(value: Any) -> list[Any]:
    """The steps in a body's return value: one step, a list/tuple of steps, else none."""
    if is_step(value):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(is_step(v) for v in value):
        return list(value)
    return []


def _keep(value: Any, steps: list[Any]) -> bool:
    """Keep a yielded step; whether it ends the body: a failed step, or one that cannot be
    read (the run becomes an error naming it, see :func:`read_steps`)."""
    if not is_step(value):
        return False
    steps.append(value)
    try:
        return bool(step_field(value, "error")) or not bool(step_field(value, "passed"))
    except Exception:
        return True


def run_body(func: Callable[..., Any], kwargs: Mapping[str, Any], steps: list[Any]) -> None:
    """Call ``func(**kwargs)`` to completion, appending its steps to ``steps``. A generator
    is consumed until it ends or yields a failed step (then it is closed, so its ``finally``
    blocks run)."""
    result = func(**kwargs)
    if inspect.isasyncgen(result) or inspect.isawaitable(result):
        import asyncio  # (only for async bench bodies: it costs every start that imports this)

        if inspect.isasyncgen(result):
            asyncio.run(_consume_async(result, steps))
        else:
            steps.extend(steps_from_return(asyncio.run(_await(result))))
    elif inspect.isgenerator(result):
        _consume(result, steps)
    else:
        steps.extend(steps_from_return(result))


async def arun_body(func: Callable[..., Any], kwargs: Mapping[str, Any], steps: list[Any]) -> None:
    """The awaitable twin of :func:`run_body`, for a body running as a task on a loop the
    caller owns (``--prob-concurrency``): the same steps, consumed the same way."""
    result = func(**kwargs)
    if inspect.isasyncgen(result):
        await _consume_async(result, steps)
    elif inspect.isawaitable(result):
        steps.extend(steps_from_return(await result))
    elif inspect.isgenerator(result):
        _consume(result, steps)
    else:
        steps.extend(steps_from_return(result))


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _consume(generator: Any, steps: list[Any]) -> None:
    try:
        for value in generator:
            if _keep(value, steps):
                break
    finally:
        generator.close()


async def _consume_async(generator: Any, steps: list[Any]) -> None:
    try:
        async for value in generator:
            if _keep(value, steps):
                break
    finally:
        await generator.aclose()


def raise_for_failed_step(steps: list[dict[str, Any]]) -> None:
    """Raise :class:`StepErrored` or :class:`StepFailed` for the first failed step (steps in
    their JSON form, :func:`read_steps`). The message is printed as the run's failure: the
    step's error and message show their escapes, as its label does (``repr``)."""
    for step in steps:
        label, error, message = step["label"], step["error"], step["message"]
        if error:
            detail = visible(f"{error}: {message}" if message else error, keep_newlines=True)
            raise StepErrored(f"step {label!r} errored: {detail}", error)
        if not step["passed"]:
            detail = visible(f": {message}", keep_newlines=True) if message else ""
            raise StepFailed(f"step {label!r} failed{detail}")


def _field(step: Any, name: str) -> Any:
    """One field of a step; :class:`UnreadableValue` when reading it raises (a property)."""
    try:
        return step_field(step, name)
    except Exception as exc:
        raise UnreadableValue(f"its {name}", "getattr", exc) from None


def step_to_json(step: Any) -> dict[str, Any]:
    """The kernel's JSON form of one step (extensions add ``cost``/``usage``). Raises
    :class:`~pytest_probability.execution.user_values.UnreadableValue` for a field that
    cannot be read: a label whose ``str()`` raises, a ``passed`` with no truth value (a
    numpy array), an ``elapsed`` too large for a float. An ``error`` counts only when it is
    truthy."""
    label = read_text(_field(step, "label"), "its label")
    raw_error = _field(step, "error")
    error = (
        read_text(raw_error, "its error") or None
        if raw_error is not None and read_truth(raw_error, "its error")
        else None
    )
    passed = read_truth(_field(step, "passed"), "its passed value")
    raw_message = _field(step, "message")
    message = None if raw_message is None else read_text(raw_message, "its message")
    elapsed = read_seconds(_field(step, "elapsed"), "its elapsed time")
    return step_record(label, passed and error is None, elapsed, error, truncate(message))


def step_record(
    label: str, passed: bool, elapsed: float | None, error: str | None, message: str | None
) -> dict[str, Any]:
    """A step in its JSON form (the fields in the report's order)."""
    return dict(label=label, passed=passed, elapsed=elapsed, error=error, message=message)


def read_steps(steps: list[Any]) -> tuple[list[dict[str, Any]], str | None]:
    """Every step in its JSON form, and the problem with the first step that could not be
    read (``None`` when all could): ``step 'judge' is invalid: its passed value cannot be
    read: bool() raised ValueError: …`` (``step 2`` when its label is what failed). Such a
    step is kept as a failed step with the error :data:`INVALID_STEP` and that message."""
    read: list[dict[str, Any]] = []
    problem: str | None = None
    for index, step in enumerate(steps, 1):
        try:
            read.append(step_to_json(step))
        except UnreadableValue as exc:
            label = _readable_label(step)
            name = f"step {label!r}" if label is not None else f"step {index}"
            problem = problem or f"{name} is invalid: {exc}"
            message = truncate(f"{name} is invalid: {exc}")
            read.append(step_record(label or f"step {index}", False, None, INVALID_STEP, message))
    return read, problem


def _readable_label(step: Any) -> str | None:
    try:
        return read_text(step_field(step, "label"), "its label")
    except Exception:
        return None


def truncate(text: str | None, limit: int = MESSAGE_LIMIT) -> str | None:
    """Cap a message at ``limit`` characters, saying how much was cut."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [truncated: {len(text) - limit} more characters]"
