"""Hooks of the ``intervals`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable

    import pytest
    from pytest_probability.api import RegisterIntervalMethod

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_interval_methods(
    register: RegisterIntervalMethod, config: pytest.Config
) -> None:
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
    """


@hookspec(firstresult=True)
def pytest_prob_interval_method(
    name: str, config: pytest.Config
) -> Callable[[int, int, float, tuple[float, float]], tuple[float, float]] | None:
    """Give the row interval method registered as ``name``, for another extension to compute
    intervals exactly as the rows do.

    Called by the ``gates`` extension once per method and session for its ``rate`` and
    ``count`` gates (the interval and the rate verdict), in every process that configures
    or judges a gate: collecting processes (the ``[gate]`` items, ``--prob-plan``,
    ``--prob-stop``) and the aggregating one. The caller keeps the function and calls it
    directly for each interval; it reads a case's ``method``, ``confidence`` and ``prior``
    itself (``options_of(config).case_value(...)``).

    :param name: a method name the settings accepted (``exact``, ``wilson``, ``bayes``,
        ``seq``, or a registered one).
    :return: ``compute(passes, total, level, prior) -> (low, high)``: the method's interval
        for ``passes`` of ``total`` judged runs at two-sided ``level`` with the ``(a, b)``
        Beta prior, checked as the rows' intervals are (a result that is not finite and
        ordered inside [0, 1] raises :class:`ValueError`); or ``None`` to let the next
        implementation answer. The first non-``None`` answer wins. The bundled answer
        (``trylast``) raises :class:`ValueError` for a name nothing registered; without the
        ``intervals`` extension the hook answers ``None`` (and the ``gates`` extension refuses
        ``min_rate`` and ``min_passes`` gates).
    """
