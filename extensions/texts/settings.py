"""The judge's settings as a backend factory receives them (:class:`TextsSettings`), and the
error naming a bad one. Read and checked by :func:`.session.resolve`. Pure module: it
imports nothing of the plugin, since the public API imports it.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

#: model-name prefixes of reasoning models (the name's last ``/`` part, any case)
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
#: the longest ``texts_timeout``, in seconds (a day)
MAX_TIMEOUT = 86400.0


class TextsConfigError(RuntimeError):
    """The judge is not configured, or a setting is invalid (the run is an ERROR)."""


def is_reasoning(model: str) -> bool:
    """Whether ``model`` (``openai/o3`` too) is a reasoning model: it takes
    ``max_completion_tokens``, no temperature, and a larger default reply budget."""
    return model.rsplit("/", 1)[-1].lower().startswith(REASONING_PREFIXES)


def authority(url: str) -> str:
    """The ``user:password@host:port`` part of ``url`` (without parsing it strictly)."""
    rest = url.split("//", 1)[1] if "//" in url else ""
    return re.split(r"[/?#]", rest, maxsplit=1)[0]


def without_secrets(url: str) -> str:
    """``url`` with its userinfo and query replaced with ``***`` and no fragment (a checked
    URL holds no control character: :func:`.urls.redact_url` shows those of any URL)."""
    found = authority(url)
    if "@" in found:
        url = url.replace(found, "***@" + found.rsplit("@", 1)[1], 1)
    url = url.split("#", 1)[0]
    return url.split("?", 1)[0] + "?***" if "?" in url else url


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
    #: connection failures, timeouts or rate limits in a row that open the breaker (0: never)
    breaker_failures: int = 3
    #: seconds an open breaker waits before letting one probe through
    breaker_cooldown: float = 30.0

    def redacted(self) -> dict[str, Any]:
        """The settings for reports and messages: the key is never shown."""
        return {
            "backend": self.backend,
            "model": self.model,
            "base_url": without_secrets(self.base_url),
            "api_key": None if self.api_key is None else "***",
            "azure_endpoint": without_secrets(self.azure_endpoint) if self.azure_endpoint else None,
            "azure_deployment": self.azure_deployment,
            "api_version": self.api_version,
        }

    def __repr__(self) -> str:
        """Every field, with the key as ``***`` and the URLs redacted: a backend's frame
        holding the settings, printed by ``pytest -l``, shows no secret."""
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        shown.update({k: v for k, v in self.redacted().items() if k in shown})
        return f"TextsSettings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


class RegisterLlmBackend(Protocol):
    """The ``register`` callback of ``pytest_prob_register_llm_backends``: ``factory``
    receives the resolved :class:`TextsSettings` and returns the backend."""

    def __call__(
        self, name: str, factory: Callable[[TextsSettings], Any], *, description: str = ""
    ) -> None: ...
