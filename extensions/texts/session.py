"""Where a helper call gets its judge: the session's settings (read on the first helper call),
backends and cache, and where the judge's token usage goes (the run's ``record_usage``).

Options are declared as plain text (so a bad value never breaks a pytest run that does not use
the helpers) and checked here, the first time a helper needs them: CLI > ini > environment >
default. Errors name the setting and what would be valid.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
import tomllib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from pytest_probability.api import (
    ProbabilityWarning,
    UnreadableInput,
    call_hook,
    current_run_or_none,
    options_of,
    read_input,
    visible,
)

from . import plugin
from .judge import Call, Judge
from .plugin import SESSION, WARNED, caller_stacklevel
from .prompts import PROMPT_VERSION
from .settings import MAX_TIMEOUT, TextsConfigError, TextsSettings, is_reasoning
from .structured import level_of
from .urls import check_url

_lock = threading.RLock()  # making a backend reads the registry under it

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: the reply budget (tokens) of every judge call when ``texts_max_tokens`` is not set: a
#: question set or an answer pass is a few hundred tokens, and a model that never stops is
#: cut off in seconds rather than at the timeout
DEFAULT_MAX_TOKENS = 1024
#: ...for reasoning models (o1, o3, o4, gpt-5*), whose hidden reasoning counts against it
DEFAULT_REASONING_MAX_TOKENS = 8192

#: setting name → (environment variables, default)
SOURCES: dict[str, tuple[tuple[str, ...], Any]] = {
    "texts_backend": ((), "openai"),
    "texts_model": (("PYTEST_TEXTS_MODEL",), None),
    "texts_base_url": (("OPENAI_BASE_URL",), None),
    "texts_azure_endpoint": (("AZURE_OPENAI_ENDPOINT",), None),
    "texts_azure_deployment": ((), None),
    "texts_api_version": (("OPENAI_API_VERSION",), None),
    "texts_temperature": ((), "0"),
    "texts_max_tokens": ((), None),
    "texts_timeout": ((), "60"),
    "texts_json_mode": ((), "schema"),
    "texts_max_concurrency": ((), "8"),
    "texts_cache": ((), "false"),
    "texts_prices": ((), None),
    "texts_breaker_failures": ((), "3"),
    "texts_breaker_cooldown": ((), "30"),
}


class TextsUsageWarning(ProbabilityWarning):
    """The judge's reply carried no token usage or junk usage, or the cache is unavailable."""


def resolve(
    read: Callable[[str], Any] | None, environ: Mapping[str, str] | None = None
) -> TextsSettings:
    """The settings from ``read(name)`` (the session's CLI/ini value or ``None``), then the
    environment, then the defaults. Raises :class:`TextsConfigError` naming a bad setting."""
    env = os.environ if environ is None else environ

    def raw(name: str) -> Any:
        value = read(name) if read is not None else None
        if value is None or value == "":
            envs, default = SOURCES[name]
            value = next((env[e] for e in envs if env.get(e)), default)
        return value

    model = raw("texts_model")
    azure_endpoint = raw("texts_azure_endpoint")
    deployment = raw("texts_azure_deployment")
    if not model and not deployment:
        raise TextsConfigError(
            "no judge model is configured for the texts_* helpers: set --texts-model, the "
            "ini option texts_model or the environment variable PYTEST_TEXTS_MODEL"
        )
    api_key = env.get("AZURE_OPENAI_API_KEY") if azure_endpoint else None
    api_key = api_key or env.get("OPENAI_API_KEY") or None
    api_version = raw("texts_api_version")
    if azure_endpoint and not api_version:
        raise TextsConfigError(
            "Azure OpenAI mode (texts_azure_endpoint) needs texts_api_version (or "
            "OPENAI_API_VERSION), e.g. 2024-10-21"
        )
    base_url = check_url("texts_base_url", str(raw("texts_base_url") or DEFAULT_BASE_URL).strip())
    if azure_endpoint:
        azure_endpoint = check_url("texts_azure_endpoint", str(azure_endpoint).strip())
    name = str(model or deployment)
    max_tokens = _whole("texts_max_tokens", raw("texts_max_tokens"))
    level = _level(raw("texts_json_mode"))
    reasoning = is_reasoning(name)
    return TextsSettings(
        backend=str(raw("texts_backend")).strip(),
        model=name,
        base_url=base_url,
        api_key=api_key,
        azure_endpoint=str(azure_endpoint) if azure_endpoint else None,
        azure_deployment=str(deployment) if deployment else None,
        api_version=str(api_version) if api_version else None,
        temperature=_number("texts_temperature", raw("texts_temperature"), 0.0, 2.0, none=True),
        max_tokens=max_tokens
        or (DEFAULT_REASONING_MAX_TOKENS if reasoning else DEFAULT_MAX_TOKENS),
        max_tokens_default=max_tokens is None,
        timeout=_number("texts_timeout", raw("texts_timeout"), 0.001, MAX_TIMEOUT),  # type: ignore[arg-type]
        json_mode=level != "text",
        json_level=level,
        max_concurrency=_whole("texts_max_concurrency", raw("texts_max_concurrency")) or 8,
        cache=_flag("texts_cache", raw("texts_cache")),
        prices=_prices(raw("texts_prices")),
        breaker_failures=_whole("texts_breaker_failures", raw("texts_breaker_failures"), 0) or 0,
        breaker_cooldown=_number(  # type: ignore[arg-type]
            "texts_breaker_cooldown", raw("texts_breaker_cooldown"), 0.0, MAX_TIMEOUT
        ),
    )


def _level(value: Any) -> str:
    level = level_of(value)
    if level is None:
        raise TextsConfigError(
            f"texts_json_mode={value!r}: expected schema (a JSON schema of the reply, strict "
            "where the server allows), object (any JSON object), text (no response_format), "
            "or true (= schema) / false (= text)"
        )
    return level


def _number(name: str, value: Any, low: float, high: float, none: bool = False) -> float | None:
    if value is None or (none and str(value).strip().lower() in ("", "none")):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not low <= number <= high:
        expected = f"a number from {low:g} to {high:g}"
        if name == "texts_timeout":
            expected = f"seconds, a number from {low:g} to {high:g} (a day)"
        raise TextsConfigError(f"{name}={value!r}: expected {expected}")
    return number


def _whole(name: str, value: Any, low: int = 1) -> int | None:
    if value is None or str(value).strip() == "":
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        number = low - 1
    if number < low:
        raise TextsConfigError(f"{name}={value!r}: expected a whole number of at least {low}")
    return number


def _flag(name: str, value: Any) -> bool:
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise TextsConfigError(f"{name}={value!r}: expected true or false")


#: the largest ``texts_prices`` file read (a price table is a few lines per model)
PRICES_LIMIT = 16 * 1024 * 1024


def _prices(path: Any) -> dict[str, tuple[float, float, float]]:
    """``texts_prices``: a TOML file of ``[model] input = …, output = …, cached_input = …``
    (dollars, or your unit, per million tokens)."""
    if not path:
        return {}
    try:
        document = tomllib.loads(read_input(str(path), limit=PRICES_LIMIT).decode("utf-8"))
    except UnreadableInput as exc:
        raise TextsConfigError(f"texts_prices={path!r}: {exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        raise TextsConfigError(f"texts_prices={path!r}: cannot read it: {exc}") from None
    prices: dict[str, tuple[float, float, float]] = {}
    for model, entry in document.items():
        if not isinstance(entry, dict):
            raise TextsConfigError(
                f"texts_prices={path!r}: [{model}] must be a table with input and output"
            )
        try:
            values = tuple(
                float(entry.get(key, entry.get("input", 0.0) if key == "cached_input" else 0.0))
                for key in ("input", "output", "cached_input")
            )
        except (TypeError, ValueError):
            raise TextsConfigError(f"texts_prices={path!r}: [{model}] has a non-number") from None
        if any(not math.isfinite(v) or v < 0 for v in values):
            raise TextsConfigError(f"texts_prices={path!r}: [{model}] has a negative price")
        prices[model] = values  # type: ignore[assignment]
    return prices


def active_config() -> Any:
    """The running bench run's config, else the session's, else ``None``."""
    context = current_run_or_none()
    if context is not None and context.config is not None:
        return context.config
    return SESSION["config"]


def _per_config(config: Any, key: str, make: Callable[[], Any]) -> Any:
    """``make()`` once per session (stored on the config), or every time without one."""
    if config is None:
        return make()
    store = getattr(config, "_prob_texts", None)
    if store is None:
        store = config._prob_texts = {}
    with _lock:
        if key not in store:
            store[key] = make()
        return store[key]


def settings_for(config: Any) -> TextsSettings:
    """The resolved settings (read once per session, on first use)."""

    def read(name: str) -> Any:
        options = options_of(config)
        value = options.session_value(name) if name in options.specs else None
        if name == "texts_prices" and value and getattr(config, "inipath", None) is not None:
            value = os.path.join(os.path.dirname(str(config.inipath)), str(value))
        return value

    return _per_config(config, "texts-settings", lambda: resolve(read if config else None))


def backends_for(config: Any) -> dict[str, Callable[[TextsSettings], Any]]:
    """The registered backend factories by name (the bundled ones alone outside a pytest
    session)."""

    def make() -> dict[str, Callable[[TextsSettings], Any]]:
        found: dict[str, Callable[[TextsSettings], Any]] = {}

        def register(
            name: str, factory: Callable[[TextsSettings], Any], *, description: str = ""
        ) -> None:
            if not name or not name.replace("-", "").replace("_", "").isalnum():
                raise ValueError(f"backend name {name!r} must be letters, digits, '-' or '_'")
            if name in found:
                raise ValueError(f"backend {name!r} is registered twice")
            found[name] = factory

        if config is None:
            plugin.pytest_prob_register_llm_backends(register=register, config=None)
        else:
            config.hook.pytest_prob_register_llm_backends.call_historic(
                kwargs={"register": register, "config": config}
            )
        return found

    return _per_config(config, "texts-backends", make)


def backend_for(config: Any, settings: TextsSettings, retry_on_error: bool) -> Any:
    """The session's backend, made once per session (and process): its circuit breaker and
    structured-output level last the session. Under ``retry_on_error=False`` the bundled
    client's no-retry variant (sharing both), or a backend made with no retries."""
    __tracebackhide__ = True

    def create(given: TextsSettings) -> Any:
        try:
            factories = backends_for(config)
            if given.backend in factories:
                return factories[given.backend](given)
        except ValueError as exc:  # e.g. a key that cannot be a header, a name taken twice
            raise TextsConfigError(str(exc)) from None
        raise TextsConfigError(
            f"texts_backend={given.backend!r} is not a registered backend; "
            f"registered: {', '.join(factories) or 'none'}"
        )

    backend = _per_config(config, "texts-backend", lambda: create(settings))
    if retry_on_error:
        return backend

    def make_quiet() -> Any:
        variant = getattr(backend, "variant", None)
        if callable(variant):
            return variant(retries=0)
        return create(dataclasses.replace(settings, reply_retries=0, transport_retries=0))

    return _per_config(config, "texts-backend-without-retries", make_quiet)


def judge_for(retry_on_error: bool) -> Judge:
    """A judge for one helper call, with the session's settings."""
    __tracebackhide__ = True
    config = active_config()
    settings = settings_for(config)
    backend = backend_for(config, settings, retry_on_error)
    cache = getattr(config, "cache", None) if settings.cache else None  # pytest's cache
    if settings.cache and cache is None:
        _warn_once("cache", "texts_cache is on but pytest's cache is disabled: not caching")
    context = current_run_or_none()
    run_key = f"{context.case_id}#{context.run}" if context is not None else ""
    if context is not None:  # the run's record names the judge and the prompt version
        context.data["texts"] = {
            "prompt_version": PROMPT_VERSION,
            "backend": settings.backend,
            "model": settings.model,
        }
    return Judge(
        backend=backend,
        settings=settings,
        reply_retries=settings.reply_retries if retry_on_error else 0,
        cache=cache,
        run_key=run_key,
    )


def record_call(call: Call, judge: Judge) -> None:
    """Record a finished call's token usage on the current bench run (if any), priced from
    ``texts_prices``, through the cost extension's ``pytest_prob_record_usage``."""
    reply = call.reply
    if reply is None:
        return
    junk = reply.junk()
    for found in junk:  # a server's bad count is said, never a failed run nor a wrong sum
        _warn_once(
            f"junk {found}",
            f"the judge ({judge.settings.model}) reported unusable token usage, "
            f"{visible(found)}: that reply's tokens are not counted (unknown)",
        )
    usage = reply.usage()
    if usage is None and not junk:
        _warn_once(
            "usage",
            f"the judge ({judge.settings.model}) reported no token usage: its spend is not counted",
        )
    if usage is None:
        return
    config = active_config()
    if current_run_or_none() is None or config is None:
        return
    settings = settings_for(config)
    found = settings.prices.get(reply.model) or settings.prices.get(settings.model)
    cost = None
    if found is not None:
        inputs, outputs, cached = usage
        cost = ((inputs - cached) * found[0] + cached * found[2] + outputs * found[1]) / 1e6
    call_hook(  # (an invalid value is the run's error, as record_usage says)
        config,
        "pytest_prob_record_usage",
        passing=(ValueError,),
        model=reply.model,
        input_tokens=usage[0],
        output_tokens=usage[1],
        cached_input_tokens=usage[2],
        cost=cost,
        config=config,
    )


def _warn_once(key: str, message: str) -> None:
    if key not in WARNED:
        WARNED.add(key)
        warnings.warn(TextsUsageWarning(message), stacklevel=caller_stacklevel())
