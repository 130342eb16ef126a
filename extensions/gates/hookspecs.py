"""Hooks of the ``gates`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest

    from .registry import RegisterGate

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_gates(register: RegisterGate, config: pytest.Config) -> None:
    """Register gate kinds by name.

    Called once per session, historically, the first time gates are needed (at collection
    in collecting processes, at session end in the aggregating one); implementations
    registered later (a conftest) are called on registration.

    :param register: ``register(name, *, configure, judge, minimum_runs=None,
        describe=None, decides_runs=True, render=None, verdict_at=None)``; see
        :class:`~pytest_probability.extensions.gates.registry.GateKind` for what each
        callable receives and returns. Registering a name twice is an error.
    :param config: the pytest config.
    :return: nothing.

    The bundled ``gates`` extension registers ``rate`` (``min_rate``) and ``count``
    (``min_passes``) through it, exactly as a third party would; the ``latency`` extension
    adds ``latency`` (``max_latency``) the same way.

    A kind whose ``judge`` raises does not stop the session: the case's check becomes
    UNDECIDED with the error as its line, and a warning names the kind.
    """
