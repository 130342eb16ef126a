"""The ``pytest11`` entry point of pytest-probability.

Registering this module is all pytest does; its ``pytest_addhooks`` adds the hook
specifications, registers the kernel, then the bundled and third-party extensions, all
before option parsing (so their options are known).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import pytest

from . import hookspecs, loader
from .kernel import KERNEL_NAME, Kernel


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add hookspecs and register the kernel and every extension.

    Called once when this plugin registers, in every process (controller and workers).
    Raises :class:`pytest.UsageError` when a third-party extension fails to load.
    Returns nothing.
    """
    pluginmanager.add_hookspecs(hookspecs)
    loader.add_bundled_hookspecs(pluginmanager)
    if pluginmanager.get_plugin(KERNEL_NAME) is None:
        pluginmanager.register(Kernel(), KERNEL_NAME)
    loader.register_bundled(pluginmanager)
    loader.register_third_party(pluginmanager)
