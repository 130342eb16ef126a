"""Public names of a package imported on first use (module ``__getattr__``, PEP 562).

A package's ``__init__`` is imported whenever any of its modules is (pytest imports every
extension's ``hookspecs`` and ``plugin`` at start-up), so an ``__init__`` that re-exports
its public helpers eagerly makes every session pay for them. With :func:`lazy_exports`
the ``__init__`` names where each public name lives, and the module defining it is
imported the first time the name is read (``from package import name`` included).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` for ``package`` whose public names live in the
    modules ``where`` maps them to (relative names such as ``".markup"`` are resolved
    against ``package``). Each name is imported once, then kept in the package's namespace.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        vars(sys.modules[package])[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
