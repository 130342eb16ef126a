"""Hooks of the ``stopping`` extension."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_stopping_rules(register: Any, config: pytest.Config) -> None:
    """Register early-stopping rules by name (the values of ``--prob-stop``).

    Called once per session, historically, the first time a rule is needed (while options
    are validated at ``pytest_configure``), in every process.

    :param register: ``register(name, decide, *, description="")``;
        ``decide(context)`` receives a
        :class:`~pytest_probability.extensions.stopping.plugin.StopContext` (the case's
        passes and judged runs so far, the runs left of those planned, its gates'
        thresholds) before each run of a gated case, in the executing process, and returns
        the settled verdict (``"pass"``, ``"fail"``, ``"undecided"``) to skip the case's
        remaining runs, or ``None`` to go on. A rule must only stop when no remaining run
        can change the verdict the case is judged on. Registering a name twice (or
        ``off``) is an error.
    :param config: the pytest config.
    :return: nothing.

    The bundled ``stopping`` extension registers ``curtail`` and ``sequential`` through it.
    """
