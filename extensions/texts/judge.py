"""One judge call with its reply budget: the cache, the structured-output shape, the reply
budget in tokens, and retries that change the request.

A reply that arrived but cannot be used — not JSON, the wrong shape, invalid grades, or not a
chat completion at all — is asked again up to ``reply_retries`` times. Each retry *varies the
request*: a note is added to the system message naming the attempt, what was wrong with the
last reply and the exact shape wanted, so that a judge at temperature 0 (or a server's
prompt cache) does not send the same unusable reply back. A reply cut off by its token budget
(``finish_reason: length``) is asked again once with the budget doubled; cut off again, the
call fails with a message naming ``texts_max_tokens``. A request larger than
:data:`MAX_REQUEST_BYTES` is refused before it is sent; a cache entry that cannot be read is
a miss. Pure module (never imports pytest).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import ProtocolError, RequestError
from .prompts import PROMPT_VERSION, ReplyError
from .settings import TextsSettings
from .structured import Shape

#: the keywords a backend's ``complete`` may accept besides ``json_mode``
OPTIONAL_KEYWORDS = ("schema", "max_tokens")
_EXCERPT = 160  # characters of a cut-off reply quoted in the message
#: the largest judge request, its messages as JSON (1 MiB: a question set or an answer pass
#: over texts of a few pages is a few KiB)
MAX_REQUEST_BYTES = 1024 * 1024
#: the most tokens one reply's usage may count: more is junk, as is a negative count
MOST_TOKENS = 10**9


class JudgeReplyError(RuntimeError):
    """The judge kept answering something unusable (truncated, not JSON, invalid scores)
    after its retry budget; the run is an ERROR, not a FAIL."""


@dataclass(frozen=True)
class Call:
    """A finished call: the reply (``None`` when it came from the cache; else the replies
    of its attempts as one, for usage accounting)."""

    reply: _Combined | None
    result: Any


def accepted_keywords(method: Any) -> frozenset[str]:
    """Which of :data:`OPTIONAL_KEYWORDS` a backend's ``complete`` takes (all of them with
    ``**kwargs``; none when its signature cannot be read)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return frozenset(OPTIONAL_KEYWORDS)
    names = {p.name for p in parameters}
    return frozenset(name for name in OPTIONAL_KEYWORDS if name in names)


def varied(
    messages: list[dict[str, str]], attempt: int, total: int, problem: str, shape: Shape | None
) -> list[dict[str, str]]:
    """``messages`` with a note for retry ``attempt`` appended to the system message (a new
    one when there is none): the attempt, what was wrong, and the shape wanted."""
    wanted = shape.example if shape is not None else "the JSON object asked for"
    note = (
        f"(Attempt {attempt} of {total}. Your last reply could not be used: {problem}. "
        f"Reply with only this JSON and nothing else: {wanted}.)"
    )
    out = [dict(message) for message in messages]
    for message in out:
        if message.get("role") == "system":
            message["content"] = f"{message.get('content', '')}\n\n{note}"
            return out
    return [{"role": "system", "content": note}, *out]


@dataclass
class Judge:
    """How to call the judge for one helper call. ``backend`` is what a registered factory
    made (``complete(messages, *, json_mode, [schema], [max_tokens])``, see the hookspec);
    ``cache`` is pytest's (``config.cache``: ``get(key, default)``, ``set(key, text)``)."""

    backend: Any
    settings: TextsSettings
    reply_retries: int
    cache: Any = None
    #: identifies the bench run (case id and run index) so each run draws fresh samples
    run_key: str = ""
    _accepts: frozenset[str] = field(init=False, repr=False)
    _settings_key: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._accepts = accepted_keywords(getattr(self.backend, "complete", None))
        # what of the settings changes a reply, for the cache key — hashed, since the base
        # URL may hold a token in its query string and the judge's ``repr`` may be printed
        s = self.settings
        material = (
            s.base_url,
            s.azure_endpoint,
            s.azure_deployment,
            s.temperature,
            s.max_tokens,
            s.json_level,
        )
        self._settings_key = hashlib.sha256(repr(material).encode("utf-8")).hexdigest()

    def _cache_key(self, messages: list[dict[str, str]], key: list[Any]) -> str:
        material = [
            self.settings.backend,
            self.settings.model,
            self._settings_key,
            PROMPT_VERSION,
            self.run_key,
            key,
            messages,
        ]
        digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode("utf-8"))
        return f"probability/texts/{digest.hexdigest()}"

    def ask(
        self,
        messages: list[dict[str, str]],
        read: Callable[[str], Any],
        key: list[Any],
        shape: Shape | None = None,
    ) -> Call:
        """One call (from the cache when enabled), read with ``read``; an unusable reply is
        asked again (varied) up to ``reply_retries`` times, a cut-off one once with twice
        the token budget. ``shape`` is the reply's JSON schema, for backends that take it."""
        __tracebackhide__ = True
        self.check_size(messages)
        cache_key = self._cache_key(messages, key) if self.cache is not None else None
        if cache_key is not None and (hit := self._cached(cache_key, read)) is not None:
            return hit
        problems: list[str] = []
        replies: list[Any] = []
        budget, raised = self.settings.max_tokens, False
        total = self.reply_retries + 1
        sent = messages
        for attempt in range(1, total + 1):
            if attempt > 1:
                sent = varied(messages, attempt, total, problems[-1], shape)
            try:
                reply = self.backend.complete(sent, **self._keywords(shape, budget))
            except ProtocolError as exc:  # a 2xx that is not a completion: ask again
                problems.append(str(exc))
                continue
            except Exception as exc:
                _spent(exc, replies)
                raise
            replies.append(reply)
            if reply.finish_reason == "length":
                if raised or attempt == total:
                    raise self._cut_off(reply, budget, replies, raised)
                cut = f"at {budget} tokens" if budget else "(finish_reason: length)"
                problems.append(f"it was cut off {cut}: keep it short")
                budget, raised = (budget * 2 if budget else None), True
                continue
            try:
                result = read(reply.text)
            except ReplyError as exc:
                problems.append(str(exc))
                continue
            if cache_key is not None:
                self.cache.set(cache_key, reply.text)
            return Call(_Combined(replies), result)
        raise self._unusable(problems, replies)

    def check_size(self, messages: list[dict[str, str]]) -> None:
        """Raise :class:`RequestError` when ``messages`` are more than a request may send."""
        size = len(json.dumps(messages).encode("utf-8"))
        if size > MAX_REQUEST_BYTES:
            raise RequestError(
                f"{self._who()}: a request of {size:,} bytes is more than the limit of "
                f"{MAX_REQUEST_BYTES:,} (MAX_REQUEST_BYTES): the texts are too long to judge"
            )

    def _cached(self, cache_key: str, read: Callable[[str], Any]) -> Call | None:
        """The call stored under ``cache_key``, or ``None``: an entry that cannot be read or
        used, however it is broken, is asked again rather than failing the run."""
        try:
            cached = self.cache.get(cache_key, None)
            return Call(None, read(cached)) if isinstance(cached, str) else None
        except Exception:  # (pytest's cache raises RecursionError on a deeply nested file)
            return None

    def _keywords(self, shape: Shape | None, budget: int | None) -> dict[str, Any]:
        keywords: dict[str, Any] = {"json_mode": self.settings.json_mode}
        if shape is not None and "schema" in self._accepts:
            keywords["schema"] = shape
        if budget is not None and "max_tokens" in self._accepts:
            keywords["max_tokens"] = budget
        return keywords

    def _who(self) -> str:
        return f"the judge ({self.settings.backend}, {self.settings.model})"

    def _unusable(self, problems: list[str], replies: list[Any]) -> JudgeReplyError:
        # the same problem in a row is said once, with a count
        said = [(p, len(list(run))) for p, run in itertools.groupby(problems)]
        text = "; ".join(p if n == 1 else f"{p} (×{n})" for p, n in said)
        attempts = len(problems)
        return _spent(
            JudgeReplyError(
                f"{self._who()} gave no usable reply in {attempts} attempt"
                f"{'s' if attempts != 1 else ''}: {text}. {self._advice()}"
            ),
            replies,
        )

    def _advice(self) -> str:
        """What to change after unusable replies: the structured-output level when it is
        not ``schema`` yet, else a backend or server that applies the schema, or a larger
        model."""
        level, backend = self.settings.json_level, self.settings.backend
        if level != "schema":
            return (
                f"A small judge may need texts_json_mode = schema (now {level}) on a "
                "server that supports it, or a larger texts_model"
            )
        if "schema" not in self._accepts:
            return (
                f"The {backend} backend's complete() takes no schema keyword (the "
                "reply's JSON schema): a small judge may need a backend that sends it, or a "
                "larger texts_model"
            )
        return (
            "texts_json_mode is schema already: a small judge may need a server that "
            "enforces the JSON schema it is sent (llama.cpp, vLLM, Ollama and OpenAI do), or "
            "a larger texts_model"
        )

    def _cut_off(
        self, reply: Any, budget: int | None, replies: list[Any], raised: bool
    ) -> JudgeReplyError:
        text = " ".join(reply.text.split())
        excerpt = text[:_EXCERPT] + ("…" if len(text) > _EXCERPT else "")
        first = self.settings.max_tokens
        now = f"now {first}, the default" if self.settings.max_tokens_default else f"now {first}"
        how = f"at {first} tokens, then at {budget}" if raised else f"at {budget} tokens"
        error = JudgeReplyError(
            f"{self._who()} was cut off by its reply budget (finish_reason: length) {how}: "
            f"set texts_max_tokens higher ({now}) if its replies are that long, or the model "
            f"does not stop by itself (a runaway reply); the reply began: {excerpt!r}"
        )
        return _spent(error, replies)


def _spent(error: JudgeReplyError | Exception, replies: list[Any]) -> Any:
    """``error`` carrying, as ``partial``, the call of the replies that came before it: what
    they cost is recorded all the same."""
    if replies:
        error.partial = Call(_Combined(replies), None)  # type: ignore[union-attr]
    return error


@dataclass(frozen=True)
class _Combined:
    """The replies of one call with retries, as one reply for usage accounting."""

    replies: list[Any]

    @property
    def model(self) -> str:
        return self.replies[-1].model

    def junk(self) -> list[str]:
        """What is wrong with the replies' token counts, one entry per reply with junk."""
        return [found for found in map(junk_usage, self.replies) if found]

    def usage(self) -> tuple[int, int, int] | None:
        """The token counts summed over the replies that reported sound ones (``None``:
        none did); a reply with junk counts is left out, its tokens unknown."""
        known = [r for r in self.replies if r.input_tokens is not None and not junk_usage(r)]
        if not known:
            return None
        return (
            sum(r.input_tokens or 0 for r in known),
            sum(r.output_tokens or 0 for r in known),
            sum(r.cached_input_tokens or 0 for r in known),
        )


def junk_usage(reply: Any) -> str:
    """The first of a reply's token counts that is neither ``None`` nor a whole number from
    0 to :data:`MOST_TOKENS`, as ``name=value (why)``; "" when there is none."""
    for name in ("input_tokens", "output_tokens", "cached_input_tokens"):
        value = getattr(reply, name)
        whole = isinstance(value, int) and not isinstance(value, bool)
        if value is not None and not (whole and 0 <= value <= MOST_TOKENS):
            return f"{name}={repr(value)[:_EXCERPT]} (not a whole number from 0 to {MOST_TOKENS:,})"
    return ""
