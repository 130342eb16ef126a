"""The ``callable`` judge backend: every judge call goes to a user's Python function.

The function is named by the ini option ``texts_callable = package.module:function`` (the
part after the colon may be dotted: ``module:client.ask``). It is imported on the first judge
call of a session, not before, and called as ``function(messages, json_mode)``:

* ``messages`` — a fresh ``list`` of ``{"role": ..., "content": ...}`` dicts (chat messages:
  a system prompt, then the user's request); the function may keep or change it;
* ``json_mode`` — ``True`` when the judge wants a JSON object back (ini ``texts_json_mode``,
  default true); pass it on as the API's JSON mode, or ignore it.

It returns the reply: a ``str`` (the text; no token usage), a ``dict`` with ``"text"`` and
optionally ``"model"``, ``"input_tokens"``, ``"output_tokens"``, ``"cached_input_tokens"``
and ``"finish_reason"``, or any object with those attributes (only ``.text`` is required).
Anything else is an error naming the function. Exceptions the function raises propagate
unchanged: the run is an ERROR with the function's own traceback.

The function is called from several threads at once (up to ini ``texts_max_concurrency``,
default 8): it must be thread-safe, or set ``texts_max_concurrency = 1``.
"""

from __future__ import annotations

import importlib
import reprlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_probability.api import TextsConfigError, TextsSettings

#: the ini option naming the function
INI = "texts_callable"
#: the backend's name (``texts_backend = callable``)
NAME = "callable"
#: what a reply may carry; only ``text`` is required
FIELDS = ("text", "model", "input_tokens", "output_tokens", "cached_input_tokens", "finish_reason")
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens")
EXPECTED = 'expected a str, a dict with "text", or an object with .text'

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxlong = 60


class CallableConfigError(TextsConfigError):
    """``texts_callable`` is not set, is malformed, or names nothing callable (the run is an
    ERROR). A :class:`~pytest_probability.texts.TextsConfigError`."""


class CallableReplyError(RuntimeError):
    """The function returned something that is not a reply (the run is an ERROR)."""


@dataclass(frozen=True)
class CallableReply:
    """One reply, as the ``texts`` extension reads it."""

    text: str
    finish_reason: str | None
    model: str
    input_tokens: int | None
    output_tokens: int | None
    cached_input_tokens: int | None


def _a(value: Any) -> str:
    """``an int``, ``a list``: the value's type with an article."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def parse_spec(spec: str) -> tuple[str, tuple[str, ...]]:
    """``"pkg.mod:obj.fn"`` → ``("pkg.mod", ("obj", "fn"))``; raises
    :class:`CallableConfigError` for anything else."""
    module, colon, attribute = spec.partition(":")
    names = tuple(attribute.split("."))
    if (
        not colon
        or not all(part.isidentifier() for part in module.split("."))
        or not all(name.isidentifier() for name in names)
    ):
        raise CallableConfigError(
            f"{INI}={spec!r}: expected package.module:function (a module to import, a colon, "
            "then the name of a callable in it)"
        )
    return module, names


def load(spec: str) -> Callable[..., Any]:
    """Import the function ``spec`` names; raises :class:`CallableConfigError` when the
    module cannot be imported, the attribute is missing or it is not callable."""
    __tracebackhide__ = True  # the message says it all: show the user's code, not ours
    module_name, names = parse_spec(spec)
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            raise CallableConfigError(
                f"{INI}={spec}: cannot import {module_name!r}: no module named {exc.name!r} "
                "(install it, or put its directory on sys.path, e.g. with pytest's ini option "
                "pythonpath)"
            ) from None
        raise CallableConfigError(
            f"{INI}={spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        raise CallableConfigError(
            f"{INI}={spec}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    where = f"module {module_name!r}"
    for index, name in enumerate(names):
        try:
            target = getattr(target, name)
        except AttributeError:
            raise CallableConfigError(f"{INI}={spec}: {where} has no attribute {name!r}") from None
        where = f"{module_name}:{'.'.join(names[: index + 1])}"
    if not callable(target):
        raise CallableConfigError(
            f"{INI}={spec}: {where} is not callable (it is {_a(target)}: {_short.repr(target)})"
        )
    return target


def to_reply(spec: str, value: Any, default_model: str) -> CallableReply:
    """The function's return ``value`` as a reply; raises :class:`CallableReplyError` naming
    ``spec`` when it is not one. ``default_model`` (ini ``texts_model``) stands in for a
    missing or empty model name."""
    __tracebackhide__ = True
    if isinstance(value, str):
        return CallableReply(value, None, default_model, None, None, None)
    if isinstance(value, Mapping):
        if "text" not in value:
            raise CallableReplyError(f"{INI}={spec} returned {_short.repr(value)}; {EXPECTED}")
        unknown = [key for key in value if key not in FIELDS]
        if unknown:
            raise CallableReplyError(
                f"{INI}={spec} returned a dict with unknown key(s) "
                f"{', '.join(_short.repr(key) for key in unknown)}; valid keys: "
                f"{', '.join(FIELDS)}"
            )
        fields = {name: value.get(name) for name in FIELDS}
        whose = 'a dict whose "{}"'
    elif not isinstance(value, (bytes, bytearray)) and hasattr(value, "text"):
        fields = {name: getattr(value, name, None) for name in FIELDS}
        whose = f"{_a(value)} whose .{{}}"
    else:
        raise CallableReplyError(f"{INI}={spec} returned {_short.repr(value)}; {EXPECTED}")

    def bad(name: str, expected: str) -> CallableReplyError:
        found = fields[name]
        kind = "" if found is None else f" ({_a(found)})"
        return CallableReplyError(
            f"{INI}={spec} returned {whose.format(name)} is {_short.repr(found)}{kind}; "
            f"expected {expected}"
        )

    if not isinstance(fields["text"], str):
        raise bad("text", "a str")
    model = fields["model"]
    if model is not None and not isinstance(model, str):
        raise bad("model", "a str or None")
    finish = fields["finish_reason"]
    if finish is not None and not isinstance(finish, str):
        raise bad("finish_reason", "a str or None")
    for name in TOKEN_FIELDS:
        count = fields[name]
        if count is not None and (
            isinstance(count, bool) or not isinstance(count, int) or count < 0
        ):
            raise bad(name, "a whole number >= 0 or None")
    inputs, outputs, cached = (fields[name] for name in TOKEN_FIELDS)
    if (inputs is None) != (outputs is None) or (cached is not None and inputs is None):
        given = ", ".join(name for name in TOKEN_FIELDS if fields[name] is not None)
        raise CallableReplyError(
            f"{INI}={spec} returned token usage with only {given}; give input_tokens and "
            "output_tokens together (cached_input_tokens is optional), or none of them"
        )
    if cached is not None and inputs is not None and cached > inputs:
        raise CallableReplyError(
            f"{INI}={spec} returned cached_input_tokens={cached} > input_tokens={inputs}; "
            "cached input tokens are part of the input tokens"
        )
    return CallableReply(
        text=fields["text"],
        finish_reason=finish,
        model=model or default_model,
        input_tokens=inputs,
        output_tokens=outputs,
        cached_input_tokens=cached,
    )


class CallableSource:
    """The session's function, imported once, on first use, by whichever thread asks first.

    ``read_spec()`` returns the raw ``texts_callable`` value (read when first needed). A
    failed import is not remembered: every later call tries again and fails the same way.
    """

    def __init__(self, read_spec: Callable[[], Any]) -> None:
        self._read_spec = read_spec
        self._lock = threading.Lock()
        self._loaded: tuple[str, Callable[..., Any]] | None = None

    def get(self) -> tuple[str, Callable[..., Any]]:
        """``(spec, function)``; raises :class:`CallableConfigError`."""
        __tracebackhide__ = True
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                raw = self._read_spec()
                spec = str(raw).strip() if raw is not None else ""
                if not spec:
                    raise CallableConfigError(
                        f"texts_backend = {NAME} needs the ini option {INI} = "
                        "package.module:function (the function that answers the judge's "
                        "calls); it is not set"
                    )
                self._loaded = (spec, load(spec))
            return self._loaded


class CallableBackend:
    """A judge backend (``complete(messages, *, json_mode=None)``) over the session's
    function. Made once per session by the factory; cheap, and safe to use from several
    threads at once as long as the function is."""

    def __init__(self, source: CallableSource, settings: TextsSettings) -> None:
        self.source = source
        self.settings = settings

    def complete(
        self, messages: list[dict[str, str]], *, json_mode: bool | None = None
    ) -> CallableReply:
        """Call the function once and check what it returned (no retries of our own: the
        judge asks again after a truncated or unreadable reply)."""
        __tracebackhide__ = True
        spec, function = self.source.get()
        wanted = self.settings.json_mode if json_mode is None else bool(json_mode)
        value = function([dict(message) for message in messages], wanted)
        return to_reply(spec, value, self.settings.model)
