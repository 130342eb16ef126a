"""The files a session writes, claimed when it is configured (:class:`.writing.Claims`), in the
aggregating process: a path that cannot take the file, one another writer (or
``--junitxml``) already writes, and an existing Python source file are usage errors.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import os

import pytest

from .writing import Claims, Target, UnwritablePath, resolve

CLAIMS_KEY = pytest.StashKey[Claims]()


def claim_output(
    config: pytest.Config,
    option: str,
    value: str | os.PathLike[str],
    what: str = "the report",
) -> Target:
    """The checked :class:`~.writing.Target` of ``option=value``; raises
    :class:`pytest.UsageError` (``--prob-html=r.html: cannot write the report:
    --prob-json=r.html writes the same file; give each its own path``)."""
    claims = config.stash.setdefault(CLAIMS_KEY, Claims())
    try:
        target = resolve(option, value, what)
        sources = (*_globs(config, "python_files"), "conftest.py")
        claims.claim(option, target, what, sources=sources, others=_other_writers(config))
    except UnwritablePath as exc:
        raise pytest.UsageError(str(exc)) from None
    return target


def _globs(config: pytest.Config, name: str) -> list[str]:
    try:
        return [str(glob) for glob in config.getini(name) or ()]
    except (ValueError, KeyError):
        return []


def _other_writers(config: pytest.Config) -> list[tuple[str, str]]:
    """Files pytest itself writes this session (``--junitxml``)."""
    xml = getattr(config.option, "xmlpath", None)
    return [("--junitxml", os.path.expanduser(os.path.expandvars(xml)))] if xml else []
