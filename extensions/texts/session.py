"""Where a helper call gets its judge: the session's settings, backends and cache, and where
the judge's token usage goes (the run's ``record_usage``).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from pytest_probability.api import current_run_or_none

from .active import SESSION, WARNED, caller_stacklevel
from .backends import Backends, default_backends
from .evaluate import Call, Judge
from .prompts import PROMPT_VERSION
from .settings import TextsConfigError, TextsSettings, price, resolve

_lock = threading.RLock()  # making a backend reads the registry under it
_BACKENDS_KEY = "texts-backends"
_BACKEND_KEY = "texts-backend"
_QUIET_BACKEND_KEY = "texts-backend-without-retries"
_SETTINGS_KEY = "texts-settings"
_WARNED = WARNED


class TextsUsageWarning(UserWarning):
    """The judge's reply carried no token usage, or the cache is unavailable."""


def active_config() -> Any:
    """The running bench run's config, else the session's, else ``None``."""
    context = current_run_or_none()
    if context is not None and context.config is not None:
        return context.config
    return SESSION["config"]


def _per_config(config: Any, key: str, make: Any) -> Any:
    store = getattr(config, "_prob_texts", None) if config is not None else None
    if store is None:
        if config is None:
            return make()
        store = {}
        config._prob_texts = store
    with _lock:
        if key not in store:
            store[key] = make()
        return store[key]


def settings_for(config: Any) -> TextsSettings:
    """The resolved settings (read once per session, on first use)."""

    def read(name: str) -> Any:
        from pytest_probability.api import options_of

        options = options_of(config)
        value = options.session_value(name) if name in options.specs else None
        if name == "texts_prices" and value and getattr(config, "inipath", None) is not None:
            import os

            value = os.path.join(os.path.dirname(str(config.inipath)), str(value))
        return value

    return _per_config(config, _SETTINGS_KEY, lambda: resolve(read if config else None))


def backends_for(config: Any) -> Backends:
    def make() -> Backends:
        if config is None:
            return default_backends()
        found = Backends()
        config.hook.pytest_prob_register_llm_backends.call_historic(
            kwargs={"register": found.register, "config": config}
        )
        return found

    return _per_config(config, _BACKENDS_KEY, make)


class PytestCache:
    """The judge cache in pytest's cache directory (``.pytest_cache``)."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def get(self, key: str) -> str | None:
        found = self.cache.get(f"probability/texts/{key}", None)
        return found if isinstance(found, str) else None

    def set(self, key: str, text: str) -> None:
        self.cache.set(f"probability/texts/{key}", text)


def backend_for(config: Any, settings: TextsSettings, retry_on_error: bool) -> Any:
    """The session's backend, made once per session (and process): its circuit breaker and
    structured-output level last the session. Under ``retry_on_error=False`` the bundled
    client's no-retry variant (sharing both), or a backend made with no retries."""
    __tracebackhide__ = True

    def create(given: TextsSettings) -> Any:
        try:
            return backends_for(config).create(given)
        except ValueError as exc:  # e.g. a base URL that is not http(s)
            raise TextsConfigError(str(exc)) from None

    backend = _per_config(config, _BACKEND_KEY, lambda: create(settings))
    if retry_on_error:
        return backend

    def make_quiet() -> Any:
        variant = getattr(backend, "variant", None)
        if callable(variant):
            return variant(retries=0)
        return create(_without_retries(settings))

    return _per_config(config, _QUIET_BACKEND_KEY, make_quiet)


def judge_for(retry_on_error: bool) -> Judge:
    """A judge for one helper call, with the session's settings."""
    __tracebackhide__ = True
    config = active_config()
    settings = settings_for(config)
    backend = backend_for(config, settings, retry_on_error)
    cache = None
    if settings.cache:
        store = getattr(config, "cache", None)
        if store is None:
            _warn_once("cache", "texts_cache is on but pytest's cache is disabled: not caching")
        else:
            cache = PytestCache(store)
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
        backend_name=settings.backend,
        model=settings.model,
        json_mode=settings.json_mode,
        max_concurrency=settings.max_concurrency,
        reply_retries=settings.reply_retries if retry_on_error else 0,
        cache=cache,
        run_key=run_key,
        max_tokens=settings.max_tokens,
        max_tokens_default=settings.max_tokens_default,
        json_level=settings.json_level,
        settings_key=_settings_key(settings),
    )


def _settings_key(settings: TextsSettings) -> str:
    """What of the settings changes a reply, for the cache key — hashed, since the base URL
    may hold a token in its query string and the judge's ``repr`` may be printed."""
    import hashlib

    material = (
        settings.base_url,
        settings.azure_endpoint,
        settings.azure_deployment,
        settings.temperature,
        settings.max_tokens,
        settings.json_level,
    )
    return hashlib.sha256(repr(material).encode("utf-8")).hexdigest()


def _without_retries(settings: TextsSettings) -> TextsSettings:
    import dataclasses

    return dataclasses.replace(settings, reply_retries=0, transport_retries=0)


def record_call(call: Call, judge: Judge) -> None:
    """Record a finished call's token usage on the current bench run (if any)."""
    reply = call.reply
    if reply is None:
        return
    usage = reply.usage() if hasattr(reply, "usage") else None
    if usage is None:
        _warn_once(
            "usage", f"the judge ({judge.model}) reported no token usage: its spend is not counted"
        )
        return
    context = current_run_or_none()
    if context is None:
        return
    config = active_config()
    if config is None:  # (a run outside a pytest session: nothing records the usage)
        return
    cost = price(settings_for(config), reply.model, usage)
    # recorded on the run by the cost extension (nothing records it without one)
    config.hook.pytest_prob_record_usage(
        model=reply.model,
        input_tokens=usage[0],
        output_tokens=usage[1],
        cached_input_tokens=usage[2],
        cost=cost,
        config=config,
    )


def _warn_once(key: str, message: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(TextsUsageWarning(message), stacklevel=caller_stacklevel())
