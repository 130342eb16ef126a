"""Loading extensions: the bundled ones in a fixed order, third parties from entry points.

Bundled extensions register as ``probability.<name>``; ``-p no:probability.<name>`` blocks
one. Their hook specifications are always added, so a third-party implementation of a
disabled extension's hook never aborts pytest. Third-party extensions come from the
``pytest_probability.extensions`` entry-point group (not ``pytest11``: with
``-p no:probability`` they must not load) and honour ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``.
"""

from __future__ import annotations

import importlib
import os
from importlib import metadata as importlib_metadata

import pytest

ENTRY_POINT_GROUP = "pytest_probability.extensions"
PREFIX = "probability."

#: Bundled extensions, in registration order: (name, package).
BUNDLED: tuple[tuple[str, str], ...] = (
    ("fractions", "pytest_probability.extensions.fractions"),
    ("intervals", "pytest_probability.extensions.intervals"),
    ("cost", "pytest_probability.extensions.cost"),
    ("gates", "pytest_probability.extensions.gates"),
    ("latency", "pytest_probability.extensions.latency"),
    ("comparisons", "pytest_probability.extensions.comparisons"),
    ("metrics", "pytest_probability.extensions.metrics"),
    ("stopping", "pytest_probability.extensions.stopping"),
    ("plan", "pytest_probability.extensions.plan"),
    ("texts", "pytest_probability.extensions.texts"),
    ("budget", "pytest_probability.extensions.budget"),
    ("explain", "pytest_probability.extensions.explain"),
    ("html", "pytest_probability.extensions.html"),
    ("markdown", "pytest_probability.extensions.markdown"),
)
#: Plugin names of the bundled extensions.
BUNDLED_NAMES = frozenset(PREFIX + name for name, _ in BUNDLED)


def add_bundled_hookspecs(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add every bundled extension's ``hookspecs`` module, enabled or not."""
    for _, package in BUNDLED:
        pluginmanager.add_hookspecs(importlib.import_module(f"{package}.hookspecs"))


def register_bundled(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register each bundled extension's ``plugin`` module unless ``-p no:`` blocked it."""
    for name, package in BUNDLED:
        plugin_name = PREFIX + name
        if pluginmanager.is_blocked(plugin_name) or pluginmanager.get_plugin(plugin_name):
            continue
        pluginmanager.register(importlib.import_module(f"{package}.plugin"), plugin_name)


def register_third_party(pluginmanager: pytest.PytestPluginManager) -> None:
    """Load and register every installed third-party extension.

    Raises :class:`pytest.UsageError` (exit 4, no traceback) naming a broken one and the
    ``-p no:`` flag that disables it.
    """
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return
    for entry_point in importlib_metadata.entry_points(group=ENTRY_POINT_GROUP):
        plugin_name = PREFIX + entry_point.name
        if pluginmanager.is_blocked(plugin_name) or pluginmanager.get_plugin(plugin_name):
            continue
        try:
            plugin = entry_point.load()
            pluginmanager.register(plugin, plugin_name)
        except Exception as exc:
            dist = entry_point.dist.name if entry_point.dist else "an unknown distribution"
            raise pytest.UsageError(
                f"pytest-probability extension {entry_point.name!r} (entry point "
                f"{entry_point.value!r} from {dist}) failed to load: "
                f"{type(exc).__name__}: {exc}. Fix or uninstall it, or run pytest with "
                f"-p no:{plugin_name} to disable it."
            ) from None
