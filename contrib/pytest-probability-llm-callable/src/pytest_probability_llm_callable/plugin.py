"""The ``llm-callable`` extension's pytest hooks.

Registered by pytest-probability as ``probability.llm-callable`` from the
``pytest_probability.extensions`` entry point (while pytest registers plugins, before it
parses options); ``-p no:probability.llm-callable`` disables it. It declares the ini option
``texts_callable`` and registers the judge backend ``callable``; nothing is read, checked or
imported until a ``texts_*`` helper makes its first judge call with ``texts_backend =
callable``, so a session that does not use it is never affected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .backend import INI, NAME, CallableBackend, CallableSource

if TYPE_CHECKING:
    from pytest_probability.api import RegisterLlmBackend, TextsSettings

HELP = "judge of the callable backend: package.module:function"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the ini option ``texts_callable`` (default: empty, i.e. not set).

    Called once per process (the only one, the xdist controller and each worker), replayed by
    pytest for this plugin when pytest-probability registers it (``pytest_addoption`` is a
    historic hook), before pytest checks the ini file's keys. Returns nothing.
    """
    parser.addini(INI, help=HELP, default="")


@pytest.hookimpl(trylast=True)  # after the bundled openai backend, in listings too
def pytest_prob_register_llm_backends(register: RegisterLlmBackend, config: pytest.Config) -> None:
    """Register the judge backend ``callable``.

    Called by the ``texts`` extension through its historic hook, once per session, the first
    time a ``texts_*`` helper needs a backend, in the process running the bench body (the only
    one, or an xdist worker). The backend's factory is called once per session (and once more
    for helper calls with ``retry_on_error=False``); the function named by ``texts_callable``
    is read and imported once per session, on the backend's first judge call. Returns nothing.
    """
    source = CallableSource(lambda: config.getini(INI))

    def factory(settings: TextsSettings) -> CallableBackend:
        return CallableBackend(source, settings)

    register(NAME, factory, description="your own function, named by the ini texts_callable")
