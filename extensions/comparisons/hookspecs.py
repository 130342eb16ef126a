"""Hooks of the ``comparisons`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import pytest

    from .registry import RegisterAdjustment, RegisterComparisonTest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(historic=True)
def pytest_prob_register_comparison_tests(
    register: RegisterComparisonTest, config: pytest.Config
) -> None:
    """Register comparison tests by name.

    Called once per session, historically, in every process: at ``pytest_configure`` when
    a plugin other than the bundled extension implements this hook or
    ``pytest_prob_register_p_adjustments``, or ``prob_compare_test`` or ``--prob-adjust``
    is set; else the first time a test is needed. Implementations registered later (a
    conftest) are called on registration.

    :param register: ``register(name, compute, *, description="")``;
        ``compute(pairs, settings)`` receives the paired inputs of one arm (a sequence of
        :class:`~pytest_probability.extensions.comparisons.registry.Pair`, each with the
        arm's and the baseline's passes and judged runs) and the
        :class:`~pytest_probability.extensions.comparisons.registry.TestSettings` (level,
        ``min_inputs``, resamples, seed), and returns a
        :class:`~pytest_probability.extensions.comparisons.registry.TestOutcome`
        (difference, interval or ``None``, p or ``None``, regime, details, per-input lines).
        It is called only with at least one pair. Registering a name twice is an error.

    The bundled ``comparisons`` extension registers ``paired`` (Newcombe and Fisher for one
    input, the sign-flip test, the paired bootstrap) through it; ``prob_compare_test`` (or
    the mark key ``compare_test``) selects one.
    """


@hookspec(historic=True)
def pytest_prob_register_p_adjustments(register: RegisterAdjustment, config: pytest.Config) -> None:
    """Register p-value adjustments for a family of comparisons by name.

    Called once per session, historically, in every process: at ``pytest_configure`` when
    a plugin other than the bundled extension implements this hook or
    ``pytest_prob_register_comparison_tests``, or ``prob_compare_test`` or
    ``--prob-adjust`` is set; else the first time an adjustment is needed. Implementations
    registered later (a conftest) are called on registration.

    :param register: ``register(name, adjust, *, description="")``; ``adjust(p_values)``
        receives the session's comparison p-values (every comparison that has one, in
        report order) and returns the adjusted values in the same order (each is clipped
        to ``[0, 1]``). Registering a name twice is an error.

    The bundled ``comparisons`` extension registers ``none``, ``holm``, ``bonferroni`` and
    ``bh`` (Benjamini–Hochberg) through it; ``--prob-adjust`` selects one.
    """
