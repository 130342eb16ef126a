"""Public names of a package imported on first use (module ``__getattr__``, PEP 562).

A package's ``__init__`` is imported whenever any of its modules is (pytest imports every
extension's ``hookspecs`` and ``plugin`` at start-up), so an ``__init__`` that re-exports
its public helpers eagerly makes every session pay for them. With :func:`lazy_exports`
the ``__init__`` names where each public name lives, and the module defining it is
imported the first time the name is read (``from package import name`` included).

A lazily imported module is never cached in a module that outlives it: pytester's
in-process runs (``pytester.runpytest``, ``inline_run``) remove from ``sys.modules`` every
module first imported during the run, so a later run imports it again, and a reference kept
from the first run would be a second copy of its state (the run context's ``ContextVar``,
stash keys, sentinels). Names are therefore looked up on each read, and hooks reach such
modules through :func:`current_module`.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
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
        # not kept in the package's namespace: the module is looked up again on each read,
        # so a module dropped and imported again (pytester's in-process runs drop modules a
        # run imported first) is never served in two copies (see :func:`current_module`)
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


def current_module(name: str) -> ModuleType:
    """The module ``name`` as ``sys.modules`` holds it now, imported if it is not: a dict
    lookup per call, for hooks that run on every run and must not keep a module that a
    pytester run may drop (see the module docstring)."""
    found = sys.modules.get(name)
    return found if found is not None else importlib.import_module(name)
