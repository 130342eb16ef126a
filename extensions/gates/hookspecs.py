"""Hooks of the ``gates`` extension.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import pytest
    from pytest_probability.api import Case, CaseResult

    from .registry import GateKind, RegisterGate

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

    A kind whose ``judge`` raises does not stop the session: the case's check becomes
    UNDECIDED with the error as its line, and a warning names the kind.
    """


@hookspec(firstresult=True)
def pytest_prob_case_gates(case: Case, config: pytest.Config) -> list[tuple[GateKind, Any]] | None:
    """Give a collected case's gates, for another extension that reasons about its verdict.

    Called by the ``stopping`` extension once per case the first time its rule considers
    the case (``--prob-stop``: in the executing process, an xdist worker or the only
    process, before the case's first run), and through it by the ``plan`` extension for
    each gated case ``--prob-plan`` plans (in its one process). Not called without
    ``--prob-stop`` or ``--prob-plan``.

    :param case: the collected :class:`~pytest_probability.collection.cases.Case`.
    :return: ``(kind, spec)`` for each gate of the case, in registration order of the
        kinds: the :class:`~pytest_probability.extensions.gates.registry.GateKind` (its
        ``name``, ``describe(spec)``, ``verdict_at``…) and the spec its ``configure``
        returned; ``[]`` for an ungated case; ``None`` to let the next implementation
        answer. The first non-``None`` answer wins. Read the list; do not change it.

    The bundled answer (``trylast``) raises :class:`~pytest_probability.options.OptionError`
    for a ``min_rate`` or ``min_passes`` gate while the ``intervals`` extension is disabled.
    Without the ``gates`` extension the hook answers ``None``: no case is gated.
    """


@hookspec(firstresult=True)
def pytest_prob_case_verdict(case: CaseResult, config: pytest.Config) -> str | None:
    """Give the verdict the gates gave a case at the end of the session, for another
    extension's report (the ``budget`` extension names the gates a cut left UNDECIDED).

    Called in the aggregating process (the only process, or the pytest-xdist controller)
    from ``pytest_prob_build_report`` on; before the gates are judged there is nothing to
    give.

    :param case: the case's :class:`~pytest_probability.report.results.CaseResult`.
    :return: ``"pass"``, ``"fail"`` or ``"undecided"`` (the worst of the case's gates);
        ``None`` for an ungated case, or to let the next implementation answer. The first
        non-``None`` answer wins. Without the ``gates`` extension no case has a verdict.
    """
