"""Hooks of the ``history`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_prob_history_commit(config: pytest.Config) -> str | None:
    """Say which commit the session's history entry is filed under.

    Called once per session in the aggregating process (the only process, or the
    pytest-xdist controller; never a worker), at ``pytest_sessionfinish``, when
    ``--prob-history`` (``prob_history``) is given and some bench run produced a result,
    before the report is built (an implementation that fails is among the report's
    warnings). Under pytest-xdist only the rootdir ``conftest.py`` or an installed
    extension reaches it.

    :param config: the pytest config (``config.rootpath`` is the project's root).
    :return: the full commit id, 40 (SHA-1) or 64 (SHA-256) hexadecimal digits, which the
        entry's ``history.commit`` holds and whose first 12 digits name its file; ``""``
        for no commit (the entry is filed under ``nogit``); ``None`` to leave the answer to
        the next implementation. The first non-``None`` answer wins. An implementation that
        raises, or answers anything else, is named in a warning and the next one answers:
        the entry is still written.

    The bundled ``history`` extension's default (``trylast``) reads the git repository
    holding the rootdir, from its files (no ``git`` process): the commit ``HEAD`` names,
    through a branch's loose ref file or ``packed-refs``, in a worktree or a submodule too.
    Where there is none it returns ``None``, and the entry says why in
    ``history.commit_reason`` (``not in a git checkout``, ``HEAD names refs/heads/main,
    which has no commit yet``). A ``conftest.py`` can answer from the CI system instead
    (``GITHUB_SHA``), for a checkout without its ``.git`` directory.
    """
