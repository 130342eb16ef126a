"""The bundled client's settings: where and how to ask the judge, checked when made. Pure
module (never imports pytest).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .settings import MAX_TIMEOUT
from .settings import REASONING_PREFIXES as COMPLETION_TOKENS_PREFIXES
from .structured import level_of
from .urls import check_url, redact_url

__all__ = ["COMPLETION_TOKENS_PREFIXES", "MAX_TIMEOUT", "ClientSettings"]


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to ask the judge. ``repr`` and :meth:`redacted` mask the key and
    redact the URLs; invalid values raise :class:`ValueError` naming the setting."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api_key: str | None = None
    azure_endpoint: str | None = None
    azure_deployment: str | None = None
    api_version: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0
    #: the structured-output level: ``"schema"``, ``"object"``, ``"text"`` (or a bool)
    json_mode: bool | str = True
    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 20.0
    #: connection failures or timeouts in a row that open the circuit breaker (0: never)
    breaker_failures: int = 3
    #: seconds before an open breaker lets a probe through
    breaker_cooldown: float = 30.0

    def __post_init__(self) -> None:
        key = (self.api_key or "").strip()  # a trailing newline from a key file is forgiven
        if not all("!" <= char <= "~" for char in key):  # else http.client would quote it
            raise ValueError("texts_api_key: only printable ASCII characters are allowed")
        object.__setattr__(self, "api_key", key or None)
        if not (self.model or self.azure_deployment):
            raise ValueError("texts_model: a model name is required")
        if self.azure_endpoint and not self.api_version:
            raise ValueError(
                "texts_api_version is required in Azure OpenAI mode (texts_azure_endpoint is set)"
            )
        if self.azure_endpoint:
            check_url("texts_azure_endpoint", self.azure_endpoint)
        else:
            check_url("texts_base_url", self.base_url)
        if not (isinstance(self.timeout, (int, float)) and 0 < self.timeout <= MAX_TIMEOUT):
            raise ValueError(
                f"texts_timeout must be a number of seconds above 0 and at most "
                f"{MAX_TIMEOUT:g} (a day), got {self.timeout!r}"
            )
        if self.retries < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must be >= 0")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"texts_max_tokens must be >= 1, got {self.max_tokens!r}")
        if level_of(self.json_mode) is None:
            raise ValueError(
                f"texts_json_mode: expected schema, object or text (or true/false), "
                f"got {self.json_mode!r}"
            )
        if self.breaker_failures < 0 or not (0 <= self.breaker_cooldown <= MAX_TIMEOUT):
            raise ValueError("texts_breaker_failures and texts_breaker_cooldown must be >= 0")

    @property
    def azure(self) -> bool:
        """Whether Azure OpenAI mode is on (``azure_endpoint`` is set)."""
        return bool(self.azure_endpoint)

    @property
    def level(self) -> str:
        """The structured-output level asked for first."""
        return level_of(self.json_mode) or "schema"

    def redacted(self) -> dict[str, Any]:
        """All settings, fit for reports and messages: the key is ``"***"`` (``None`` if
        unset), the URLs have no userinfo or query string."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["api_key"] = "***" if self.api_key else None
        for name in ("base_url", "azure_endpoint"):
            if out[name]:
                out[name] = redact_url(out[name])
        return out

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={value!r}" for name, value in self.redacted().items())
        return f"ClientSettings({items})"
