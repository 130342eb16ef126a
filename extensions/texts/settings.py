"""The judge's settings, read lazily on the first helper call.

Options are declared as plain text (so a bad value never breaks a pytest run that does not use
the helpers) and checked here, the first time a helper needs them: CLI > ini > environment >
default. Errors name the setting and what would be valid. Pure module (the config is an opaque
object with ``getoption``/``getini`` through the kernel's registry).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from .structured import level_of
from .urls import UrlError, check_url, redact_url

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: the reply budget (tokens) of every judge call when ``texts_max_tokens`` is not set: a
#: question set or an answer pass is a few hundred tokens, and a model that never stops is
#: cut off in seconds rather than at the timeout
DEFAULT_MAX_TOKENS = 1024
#: ...for reasoning models (o1, o3, o4, gpt-5*), whose hidden reasoning counts against it
DEFAULT_REASONING_MAX_TOKENS = 8192
#: model-name prefixes of reasoning models (the name's last ``/`` part, any case)
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
#: the longest ``texts_timeout``, in seconds (a day)
MAX_TIMEOUT = 86400.0


class TextsConfigError(RuntimeError):
    """The judge is not configured, or a setting is invalid (the run is an ERROR)."""


@dataclass(frozen=True)
class TextsSettings:
    """Everything the helpers need to call the judge."""

    backend: str
    model: str
    base_url: str
    api_key: str | None
    azure_endpoint: str | None
    azure_deployment: str | None
    api_version: str | None
    temperature: float | None
    #: the reply budget of a judge call: ``texts_max_tokens``, else the default
    max_tokens: int | None
    timeout: float
    #: whether to ask for JSON at all (``json_level`` is not ``"text"``)
    json_mode: bool
    max_concurrency: int
    cache: bool
    #: model → (input, output, cached input) price per million tokens
    prices: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    #: replies that are truncated or not valid JSON may be asked again this many times
    reply_retries: int = 2
    #: extra attempts after a connection error, a timeout, 408/409/429 or 5xx
    transport_retries: int = 4
    #: the structured-output level asked for first: ``schema``, ``object`` or ``text``
    json_level: str = "schema"
    #: whether ``max_tokens`` is the default (``texts_max_tokens`` not set)
    max_tokens_default: bool = False
    #: connection failures or timeouts in a row that open the circuit breaker (0: never)
    breaker_failures: int = 3
    #: seconds an open breaker waits before letting one probe through
    breaker_cooldown: float = 30.0

    def redacted(self) -> dict[str, Any]:
        """The settings for reports and messages: the key is never shown."""
        return {
            "backend": self.backend,
            "model": self.model,
            "base_url": redact_url(self.base_url),
            "api_key": None if self.api_key is None else "***",
            "azure_endpoint": redact_url(self.azure_endpoint) if self.azure_endpoint else None,
            "azure_deployment": self.azure_deployment,
            "api_version": self.api_version,
        }

    def __repr__(self) -> str:
        """Every field, with the key as ``***`` and the URLs redacted: a backend's frame
        holding the settings, printed by ``pytest -l``, shows no secret."""
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        shown.update({k: v for k, v in self.redacted().items() if k in shown})
        return f"TextsSettings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


#: setting name → (CLI option dest or None, environment variables, default)
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
    base_url = _url("texts_base_url", raw("texts_base_url") or DEFAULT_BASE_URL)
    if azure_endpoint:
        azure_endpoint = _url("texts_azure_endpoint", azure_endpoint)
    name = str(model or deployment)
    max_tokens = _whole("texts_max_tokens", raw("texts_max_tokens"))
    level = _level(raw("texts_json_mode"))
    return TextsSettings(
        backend=str(raw("texts_backend")).strip(),
        model=name,
        base_url=base_url,
        api_key=api_key,
        azure_endpoint=str(azure_endpoint) if azure_endpoint else None,
        azure_deployment=str(deployment) if deployment else None,
        api_version=str(api_version) if api_version else None,
        temperature=_number("texts_temperature", raw("texts_temperature"), 0.0, 2.0, none=True),
        max_tokens=max_tokens or default_max_tokens(name),
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


def default_max_tokens(model: str) -> int:
    """The reply budget when ``texts_max_tokens`` is not set: 1024 tokens, or 8192 for a
    reasoning model (its hidden reasoning counts against the budget)."""
    name = model.rsplit("/", 1)[-1].lower()
    return (
        DEFAULT_REASONING_MAX_TOKENS if name.startswith(REASONING_PREFIXES) else DEFAULT_MAX_TOKENS
    )


def _url(name: str, value: Any) -> str:
    try:
        return check_url(name, str(value).strip())
    except UrlError as exc:
        raise TextsConfigError(str(exc)) from None


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
        expected = (
            f"a number greater than {low:g}"
            if high == math.inf
            else f"a number from {low:g} to {high:g}"
        )
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
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise TextsConfigError(f"{name}={value!r}: expected true or false")


def _prices(path: Any) -> dict[str, tuple[float, float, float]]:
    """``texts_prices``: a TOML file of ``[model] input = …, output = …, cached_input = …``
    (dollars, or your unit, per million tokens)."""
    if not path:
        return {}
    import tomllib

    try:
        with open(str(path), "rb") as handle:
            document = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
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


def price(settings: TextsSettings, model: str, tokens: tuple[int, int, int]) -> float | None:
    """The cost of one call from ``texts_prices`` (``None`` when the model is not listed)."""
    found = settings.prices.get(model) or settings.prices.get(settings.model)
    if found is None:
        return None
    inputs, outputs, cached = tokens
    return ((inputs - cached) * found[0] + cached * found[2] + outputs * found[1]) / 1e6


class RegisterLlmBackend(Protocol):
    """The ``register`` callback of ``pytest_prob_register_llm_backends``: ``factory``
    receives the resolved :class:`TextsSettings` and returns the backend."""

    def __call__(
        self, name: str, factory: Callable[[TextsSettings], Any], *, description: str = ""
    ) -> None: ...
