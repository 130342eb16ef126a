"""Curtailment: is a gate's verdict already settled, whatever the remaining runs do?

A gate whose verdict depends only on the pass count ``P`` of ``N`` judged runs, monotonely in
``P``, is settled after ``p`` passes in ``n`` judged runs with ``r`` runs left when every
completion gives the same verdict. A remaining run may pass (``P+1, N+1``), fail
(``N+1``), or not be judged at all (a skip, an excluded error: ``N`` unchanged), so the
completions are ``N`` in ``[n, n+r]`` with ``P`` in ``[p, p + N − n]``. Because the verdict is
monotone in ``P``, it is enough to compare, for each ``N``, the fewest passes that PASS and
the most passes that FAIL. The verdict on the runs actually made is one of those
completions, so judging a stopped case on its runs gives the settled verdict. The thresholds
themselves (:class:`~pytest_probability.api.Thresholds`) are the kernel's, shared with
``--prob-plan``. Pure module.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_probability.api import FAIL, PASS, UNDECIDED, Thresholds


@dataclass(frozen=True)
class GateState:
    """What the completions of a case allow one gate: the verdict they all give
    (``settled``, ``None`` while it can still change), and whether some completion passes
    (``can_pass``) or fails (``can_fail``) it."""

    settled: str | None
    can_pass: bool
    can_fail: bool


#: a gate already PASS for good (a sequential rate gate that passes on its sequence now)
SETTLED_PASS = GateState(PASS, True, False)


def gate_state(thresholds: Thresholds, passes: int, judged: int, remaining: int) -> GateState:
    """One gate's :class:`GateState` after ``passes`` of ``judged`` with ``remaining`` runs
    left. PASS is settled when even the fewest passes pass at every ``N`` (``passes ≥
    pass_min(N)``), FAIL when even the most fail (``passes + N − judged ≤ fail_max(N)``);
    some completion passes when the most passes reach ``pass_min(N)`` at some ``N``, some
    fails when the fewest are at most ``fail_max(N)`` at some ``N``, and UNDECIDED is settled
    when neither can happen. Each is one comparison with :meth:`Thresholds.span`."""
    most_needed, needed_gap, most_failing, failing_gap = thresholds.span(judged, judged + remaining)
    can_pass = passes - judged >= needed_gap
    can_fail = passes <= most_failing
    if passes >= most_needed:
        return GateState(PASS, True, can_fail)
    if passes - judged <= failing_gap:
        return GateState(FAIL, can_pass, True)
    if not can_pass and not can_fail:
        return GateState(UNDECIDED, False, False)
    return GateState(None, can_pass, can_fail)


def combined(states: Sequence[GateState]) -> str | None:
    """The case's verdict, the worst of its gates' (docs/gates.rst), once it is certain
    (``None`` while it can still change): FAIL as soon as one gate is certainly FAIL; PASS
    when every gate is certainly PASS; UNDECIDED once no gate can still FAIL and one can no
    longer PASS. (A gate whose verdict does not follow the pass count, a latency gate, is
    not among the states: it is a reader of the case, :func:`~.service.holding`.)"""
    if any(state.settled == FAIL for state in states):
        return FAIL
    if all(state.settled == PASS for state in states):
        return PASS
    if not any(state.can_fail for state in states) and not all(s.can_pass for s in states):
        return UNDECIDED
    return None


def curtail(gates: Sequence[Thresholds], passes: int, judged: int, remaining: int) -> str | None:
    """The case's verdict once certain (:func:`combined` of each gate's
    :func:`gate_state`); ``None`` otherwise."""
    return combined([gate_state(thresholds, passes, judged, remaining) for thresholds in gates])
