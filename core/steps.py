"""Executing a bench body and reading its steps. Pure module: never imports pytest.

A *step* is anything with ``label`` and ``passed`` (optionally ``elapsed``, ``error``,
``message``, ``cost``, ``usage``): a dataclass, a dict, or another framework's object. A
bench body may return one step or a list of them, or be a generator (sync or async) that
yields them. ``async def`` bodies run to completion in a fresh event loop.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

MESSAGE_LIMIT = 4000


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
    return hasattr(value, "label") and hasattr(value, "passed")


def steps_from_return(value: Any) -> list[Any]:
    """The steps in a body's return value: one step, a list/tuple of steps, else none."""
    if value is None:
        return []
    if is_step(value):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(is_step(v) for v in value):
        return list(value)
    return []


def _failed(step: Any) -> bool:
    return bool(step_field(step, "error")) or not bool(step_field(step, "passed"))


def run_body(func: Callable[..., Any], kwargs: Mapping[str, Any], steps: list[Any]) -> None:
    """Call ``func(**kwargs)`` to completion, appending its steps to ``steps``.

    A generator is consumed until it ends or yields a failed step (then it is closed, so its
    ``finally`` blocks run). Coroutines and async generators run in a fresh event loop.
    """
    result = func(**kwargs)
    if result is None:
        return
    if inspect.isasyncgen(result):
        _asyncio().run(_consume_async(result, steps))
    elif inspect.isawaitable(result):
        value = _asyncio().run(_await(result))
        steps.extend(steps_from_return(value))
    elif inspect.isgenerator(result):
        _consume(result, steps)
    else:
        steps.extend(steps_from_return(result))


def _asyncio() -> Any:
    import asyncio  # imported on first use: most sessions have no async bench

    return asyncio


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _consume(generator: Any, steps: list[Any]) -> None:
    try:
        for value in generator:
            if is_step(value):
                steps.append(value)
                if _failed(value):
                    break
    finally:
        generator.close()


async def _consume_async(generator: Any, steps: list[Any]) -> None:
    try:
        async for value in generator:
            if is_step(value):
                steps.append(value)
                if _failed(value):
                    break
    finally:
        await generator.aclose()


def raise_for_failed_step(steps: list[Any]) -> None:
    """Raise :class:`StepErrored` or :class:`StepFailed` for the first failed step."""
    for step in steps:
        label = step_field(step, "label")
        error = step_field(step, "error")
        message = step_field(step, "message")
        if error:
            detail = f"{error}: {message}" if message else str(error)
            raise StepErrored(f"step {label!r} errored: {detail}", str(error))
        if not step_field(step, "passed"):
            raise StepFailed(f"step {label!r} failed" + (f": {message}" if message else ""))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _seconds(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def step_to_json(step: Any) -> dict[str, Any]:
    """The kernel's JSON form of one step (extensions add ``cost``/``usage``)."""
    return {
        "label": str(step_field(step, "label")),
        "passed": bool(step_field(step, "passed")) and not step_field(step, "error"),
        "elapsed": _seconds(step_field(step, "elapsed")),
        "error": _text(step_field(step, "error")) or None,
        "message": truncate(_text(step_field(step, "message"))),
    }


def truncate(text: str | None, limit: int = MESSAGE_LIMIT) -> str | None:
    """Cap a message at ``limit`` characters, saying how much was cut."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [truncated: {len(text) - limit} more characters]"
