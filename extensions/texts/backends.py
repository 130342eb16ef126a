"""The registry of judge backends (``pytest_prob_register_llm_backends``). Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .settings import TextsSettings

#: ``factory(settings) -> backend``; a backend has ``complete(messages, *, json_mode)``
#: (and optionally the keywords ``schema`` and ``max_tokens``) returning a reply with
#: ``text``, ``finish_reason``, ``model`` and token counts
Factory = Callable[["TextsSettings"], Any]
OPENAI = "openai"


class Backends:
    """Backend factories by name."""

    def __init__(self) -> None:
        self._factories: dict[str, Factory] = {}
        self._descriptions: dict[str, str] = {}

    def register(self, name: str, factory: Factory, *, description: str = "") -> None:
        """Add a backend (the ``register`` callback of the registration hook)."""
        if not name or not name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"backend name {name!r} must be letters, digits, '-' or '_'")
        if name in self._factories:
            raise ValueError(f"backend {name!r} is registered twice")
        self._factories[name] = factory
        self._descriptions[name] = description

    def names(self) -> list[str]:
        return list(self._factories)

    def create(self, settings: TextsSettings) -> Any:
        factory = self._factories.get(settings.backend)
        if factory is None:
            known = ", ".join(self._factories) or "none"
            from .settings import TextsConfigError

            raise TextsConfigError(
                f"texts_backend={settings.backend!r} is not a registered backend; "
                f"registered: {known}"
            )
        return factory(settings)


def openai_backend(settings: TextsSettings) -> Any:
    """The bundled backend: OpenAI-compatible chat completions over HTTP (stdlib only),
    imported on first use so that loading the plugin stays cheap."""
    from .client import COMPLETION_TOKENS_PREFIXES, ChatClient, ClientSettings

    name = settings.model.rsplit("/", 1)[-1].lower()
    reasoning = name.startswith(COMPLETION_TOKENS_PREFIXES)  # they accept no temperature
    return ChatClient(
        ClientSettings(
            model=settings.model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            azure_endpoint=settings.azure_endpoint,
            azure_deployment=settings.azure_deployment,
            api_version=settings.api_version,
            temperature=None if reasoning else settings.temperature,
            max_tokens=settings.max_tokens,
            timeout=settings.timeout,
            json_mode=settings.json_level,
            retries=settings.transport_retries,
            breaker_failures=settings.breaker_failures,
            breaker_cooldown=settings.breaker_cooldown,
        )
    )


def default_backends() -> Backends:
    """The bundled backends only (helpers used outside a pytest session)."""
    found = Backends()
    found.register(OPENAI, openai_backend, description="OpenAI-compatible chat completions")
    return found
