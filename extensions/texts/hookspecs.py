"""Hooks of the ``texts`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import RegisterLlmBackend

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_llm_backends(register: RegisterLlmBackend, config: pytest.Config) -> None:
    """Register judge backends for the ``texts_*`` helpers by name.

    Called once per session, historically, the first time a helper needs a backend (never
    at start-up: a session that does not use the helpers never touches them), in the process
    running the bench body.

    :param register: ``register(name, factory, *, description="")``; ``factory(settings)``
        receives the resolved
        :class:`~pytest_probability.extensions.texts.settings.TextsSettings` (once per
        session and process; the backend it returns serves every helper call) and returns an
        object with ``complete(messages, *, json_mode=None)`` that sends chat messages
        (``[{"role": ..., "content": ...}]``) and returns a reply with ``text``,
        ``finish_reason``, ``model``, ``input_tokens``, ``output_tokens`` and
        ``cached_input_tokens`` (token counts may be ``None``). ``complete`` may also take
        the keywords ``schema`` (the reply's shape: ``.name``, ``.schema``,
        ``.response_format(level)``) and ``max_tokens`` (this call's reply budget); they are
        passed only when it names them or takes ``**kwargs``. It may be called from several
        threads at once. Errors it raises make the run an ERROR. Registering a name twice is
        an error.

    The bundled ``texts`` extension registers ``openai`` (any OpenAI-compatible server, and
    Azure OpenAI) through it; ``texts_backend`` selects one.
    """
