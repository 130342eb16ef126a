"""Gate kinds: what a gate needs from a case, how it is judged, how it is printed.

Pure module: never imports pytest (callables receive the config as an opaque value).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class GateResult:
    """One gate's verdict on one case.

    :ivar kind: the gate kind's name.
    :ivar verdict: ``"pass"``, ``"fail"`` or ``"undecided"``.
    :ivar line: the verdict as one line (``37/40  [80%, 98%]  ≥90%  UNDECIDED``), used as
        the ``[gate]`` item's failure message.
    :ivar data: JSON-able details for ``rows[].gate.checks[]`` (the kind adds ``kind`` and
        ``verdict`` itself).
    :ivar cells: values a renderer aligns into the ``probability: gates`` section.
    """

    kind: str
    verdict: str
    line: str
    data: dict[str, Any] = field(default_factory=dict)
    cells: tuple[Any, ...] = ()


class RegisterGate(Protocol):
    def __call__(
        self,
        name: str,
        *,
        configure: Callable[[Mapping[str, Any], Any], Any],
        judge: Callable[[Any, Any, Any], GateResult],
        minimum_runs: Callable[[Any, Any], int | None] | None = None,
        describe: Callable[[Any], str] | None = None,
        decides_runs: bool = True,
        render: Callable[[list[tuple[str, GateResult]]], list[str]] | None = None,
        verdict_at: Callable[[Any, int, int, Any], str] | None = None,
    ) -> None: ...


@dataclass(frozen=True)
class GateKind:
    """A registered gate kind.

    :ivar configure: ``(mark, config) -> spec | None``: the gate's settings for a case whose
        merged ``probability`` mark arguments are ``mark`` (session settings apply where
        the mark is silent), or ``None`` when the case has no gate of this kind.
    :ivar judge: ``(spec, case, config) -> GateResult`` for a
        :class:`~pytest_probability.report.results.CaseResult`.
    :ivar minimum_runs: ``(spec, config) -> int | None``: the fewest runs with which the
        gate can pass (``None``: no minimum); a case planned with fewer gets a warning.
    :ivar describe: ``spec -> str``: the rule as the user wrote it (``min_rate=0.9``).
    :ivar decides_runs: when true, the gate's verdict replaces the runs' own: failing runs
        of the case are reported as xfailed. A latency gate judges speed only (false).
    :ivar render: ``[(case id, result), …] -> lines`` for the ``probability: gates``
        section (kinds sharing a renderer are printed as one aligned table); ``None``
        prints nothing there (the kind's own section shows it).
    :ivar verdict_at: ``(spec, passes, n, config) -> verdict`` for a kind whose verdict
        depends only on the pass count of the judged runs, monotone in ``passes`` (more
        passes never make it worse); ``--prob-stop=curtail`` can stop such gates early.
        ``None``: the kind's cases are never stopped.
    """

    name: str
    configure: Callable[[Mapping[str, Any], Any], Any]
    judge: Callable[[Any, Any, Any], GateResult]
    minimum_runs: Callable[[Any, Any], int | None] | None = None
    describe: Callable[[Any], str] = str
    decides_runs: bool = True
    render: Callable[[list[tuple[str, GateResult]]], list[str]] | None = None
    verdict_at: Callable[[Any, int, int, Any], str] | None = None
