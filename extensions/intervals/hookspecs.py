"""Hooks of the ``intervals`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest

    from .registry import Register

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_interval_methods(register: Register, config: pytest.Config) -> None:
    """Register row interval methods by name.

    Called once per session, historically, the first time a method name is needed (while
    options are validated at ``pytest_configure``), in every process; implementations
    registered later (a conftest) are called on registration.

    :param register: ``register(name, compute, *, description="", uses_prior=False,
        tag="")``;
        ``compute(passes, total, level, prior)`` returns ``(low, high)`` as fractions for
        ``passes`` of ``total`` judged runs at two-sided ``level``; ``prior`` is the
        ``(a, b)`` Beta prior (only methods registered with ``uses_prior=True`` use it);
        ``tag`` is a short word printed after the method's row intervals (``seq``).
        Registering a name twice is an error.
    :param config: the pytest config.
    :return: nothing.

    The bundled ``intervals`` extension registers ``exact`` (Clopper–Pearson), ``wilson``
    and ``bayes`` through it, exactly as a third party would.
    """
