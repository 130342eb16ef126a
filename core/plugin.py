"""The ``pytest11`` entry point of pytest-probability.

Registering this module is all pytest does; its ``pytest_addhooks`` adds the kernel's hook
specifications and registers the kernel and the third-party extensions, all before option
parsing (so their options are known). The bundled extensions register when the session
needs them (:mod:`pytest_probability.loader`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import pytest

from . import hookspecs, loader
from .kernel import Kernel


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the kernel's hookspecs, register the kernel (which declares every bundled
    extension's settings from the catalog and registers an extension when the session needs
    it) and the third-party extensions.

    Called once when this plugin registers, in every process (controller and workers).
    Raises :class:`pytest.UsageError` when a third-party extension fails to load.
    Returns nothing.
    """
    pluginmanager.add_hookspecs(hookspecs)
    if pluginmanager.get_plugin(loader.KERNEL_NAME) is None:
        pluginmanager.register(Kernel(), loader.KERNEL_NAME)
    loader.register_third_party(pluginmanager)
