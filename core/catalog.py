"""The catalog of the bundled extensions: ``bundled.json``, and the command that writes it.

pytest must know every ``--prob-*`` flag and ``prob_*`` ini key when it parses the command
line, long before a bundled extension is registered (extensions register when the session
needs them: :mod:`pytest_probability.loader`). So the package ships, beside this module, a
data file describing each bundled extension in registration order: its name and package,
the hooks its ``hookspecs`` module declares, the registration hooks its plugin implements
(``pytest_prob_register_*``: the registries of other extensions it adds to), its registry
filler (``FILL_REGISTRY``, as ``module:function``, or null), and the settings its
``pytest_prob_addoption`` declares (everything but the parser). Start-up
declares the flags and ini keys from it; the extension's own declarations stay the single
source of truth, replacing these placeholders when it registers, and
``tests/test_catalog.py`` fails when the file differs from what the extensions declare.
After changing an extension's options or hooks, write it again with::

    python -m pytest_probability.catalog

:func:`describe` imports every bundled extension; only that command and the test call it.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

from .loader import BUNDLED, CATALOG_PATH
from .options import OptionRegistry

#: The settings' fields the catalog keeps (all of :class:`~pytest_probability.options.OptionSpec`
#: but the parser and ``with_config``, which only the extension's own declaration carries).
FIELDS = (
    "name",
    "cli",
    "ini",
    "mark",
    "help",
    "ini_help",
    "metavar",
    "choices",
    "flag_value",
    "repeatable",
    "owner",
)


def encode_default(value: Any) -> Any:
    """A default as JSON: a tuple becomes ``{"tuple": [...]}`` (decoded by the loader)."""
    if isinstance(value, tuple):
        return {"tuple": [encode_default(part) for part in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"default {value!r} cannot be kept in the catalog (JSON values and tuples)")


def describe() -> dict[str, Any]:
    """What the bundled extensions declare, read from the extensions themselves."""
    extensions = []
    for name, package in BUNDLED:
        hookspecs = importlib.import_module(f"{package}.hookspecs")
        plugin = importlib.import_module(f"{package}.plugin")
        registry = OptionRegistry()
        declare = getattr(plugin, "pytest_prob_addoption", None)
        if declare is not None:
            declare(options=registry)
        options = [  # (a tuple is written as a JSON list)
            {field: getattr(spec, field) for field in FIELDS}
            | {"default": encode_default(spec.default)}
            for spec in registry.specs.values()
        ]
        extensions.append(
            {
                "name": name,
                "package": package,
                "hooks": sorted(  # (the functions marked as pytest hook specs)
                    hook
                    for hook, function in inspect.getmembers(hookspecs, inspect.isfunction)
                    if hook.startswith("pytest_") and hasattr(function, "pytest_spec")
                ),
                "registers": sorted(
                    hook
                    for hook, _ in inspect.getmembers(plugin, inspect.isfunction)
                    if hook.startswith("pytest_prob_register_")
                ),
                "fill": _filler(plugin),
                "options": options,
            }
        )
    return {"extensions": extensions}


def _filler(plugin: Any) -> str | None:
    """``module:function`` of the plugin's ``FILL_REGISTRY``: the function that makes and
    fills the extension's registry from its own package, without the plugin module."""
    function = getattr(plugin, "FILL_REGISTRY", None)
    return None if function is None else f"{function.__module__}:{function.__name__}"


def dumps(catalog: dict[str, Any]) -> str:
    """The file's text: stable, indented JSON ending with a newline."""
    return json.dumps(catalog, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover (python -m pytest_probability.catalog)
    CATALOG_PATH.write_text(dumps(describe()), encoding="utf-8")
    print(f"wrote {CATALOG_PATH}")
