"""A case with several gates is settled as soon as its combined verdict is certain (issue 27):
the worst of its checks, so FAIL once one check is certainly FAIL, PASS once every check is
certainly PASS, UNDECIDED once no check can FAIL and one can no longer PASS. Checked here by
exact enumeration of every completion of every state up to ten runs."""

from __future__ import annotations

import itertools

import pytest
from pytest_probability.extensions.gates.rate import RateSpec, Settings, rate_verdict
from pytest_probability.extensions.stopping.curtail import (
    FAIL,
    PASS,
    UNDECIDED,
    Thresholds,
    curtail,
    gate_state,
)
from pytest_probability.extensions.stopping.rules import sequential_decision

WORST = {FAIL: 2, UNDECIDED: 1, PASS: 0}


def _rate(bar: float):  # type: ignore[no-untyped-def]
    spec = RateSpec(bar, Settings("exact", 0.95, (1.0, 1.0)))
    return lambda passes, n: rate_verdict(spec, passes, n, None)  # type: ignore[arg-type]


def _count(k: int):  # type: ignore[no-untyped-def]
    return lambda passes, n: PASS if passes >= k else FAIL


def _max_fails(limit: int):  # type: ignore[no-untyped-def]
    return lambda passes, n: FAIL if n - passes > limit else PASS


def _undecided_below(k: int):  # type: ignore[no-untyped-def]
    """A gate that can never FAIL: UNDECIDED below ``k`` passes, else PASS."""
    return lambda passes, n: PASS if passes >= k else UNDECIDED


GATES = {
    "rate50": _rate(0.5),
    "rate30": _rate(0.3),
    "rate80": _rate(0.8),
    "count3": _count(3),
    "count7": _count(7),
    "fails2": _max_fails(2),
    "undecided4": _undecided_below(4),
}


def _completions(passes: int, judged: int, remaining: int):  # type: ignore[no-untyped-def]
    for n in range(judged, judged + remaining + 1):
        for p in range(passes, passes + n - judged + 1):
            yield p, n


@pytest.mark.parametrize("pair", list(itertools.combinations(sorted(GATES), 2)))
def test_curtail_settles_exactly_when_a_rule_of_the_combination_says_so(
    pair: tuple[str, str],
) -> None:
    functions = [GATES[name] for name in pair]
    thresholds = [Thresholds(f) for f in functions]
    planned = 10
    decided = 0
    for judged in range(planned + 1):
        for passes in range(judged + 1):
            for remaining in range(planned - judged + 1):
                ends = list(_completions(passes, judged, remaining))
                # each gate's verdicts over the completions, and the case's
                per_gate = [{f(p, n) for p, n in ends} for f in functions]
                worst = {max((f(p, n) for f in functions), key=WORST.__getitem__) for p, n in ends}
                expected = None
                if any(found == {FAIL} for found in per_gate):
                    expected = FAIL
                elif all(found == {PASS} for found in per_gate):
                    expected = PASS
                elif not any(FAIL in found for found in per_gate) and any(
                    PASS not in found for found in per_gate
                ):
                    expected = UNDECIDED
                got = curtail(thresholds, passes, judged, remaining)
                assert got == expected, (pair, passes, judged, remaining, per_gate)
                if got is not None:
                    decided += 1
                    assert worst == {got}, (pair, passes, judged, remaining, worst)
                for found, t in zip(per_gate, thresholds, strict=True):
                    state = gate_state(t, passes, judged, remaining)
                    assert (state.can_pass, state.can_fail) == (PASS in found, FAIL in found)
                    assert state.settled == (next(iter(found)) if len(found) == 1 else None)
    assert decided > 0


def test_sequential_fails_a_case_as_soon_as_one_rate_gate_fails_on_its_sequence() -> None:
    """Under ``sequential`` a rate gate FAIL on its sequence now settles the case FAIL,
    though another rate gate is UNDECIDED now (it waited for every gate before)."""
    low, high = Thresholds(GATES["rate30"]), Thresholds(GATES["rate80"])
    # 3 of 10 passed: below 80% for certain, 30% undecided
    assert low.at(3, 10) == UNDECIDED and high.at(3, 10) == FAIL
    assert sequential_decision([low, high], ["rate", "rate"], 3, 10, 90) == FAIL
    assert sequential_decision([low], ["rate"], 3, 10, 90) is None
