"""The bundled stopping rules as functions of a case's counts: the one place each rule is
written down.

The runtime's stopper calls them (through ``curtail_rule`` and ``sequential_rule`` of the
plugin, with the case's runs so far) before each run of a gated case, and ``--prob-plan``'s
dynamic programme calls the very same functions at every state it follows (:mod:`.planning`),
so the plan's chances and expected runs are those of the rule that runs. Pure module: never
imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence

from .curtail import FAIL, PASS, SETTLED_PASS, Thresholds, combined, curtail, gate_state

#: the gate kind whose verdict ``sequential`` reads on its confidence sequence
RATE = "rate"


#: ``curtail``: the case's verdict once every completion gives it (:func:`~.curtail.combined`),
#: or ``None`` to make the next run
curtail_decision = curtail


def sequential_decision(
    gates: Sequence[Thresholds],
    kinds: Sequence[str],
    passes: int,
    judged: int,
    remaining: int,
) -> str | None:
    """``sequential``: a rate gate is judged on its confidence sequence, valid at every
    look, so once it is PASS or FAIL on the runs so far it is settled so; any other gate,
    and a rate gate still UNDECIDED on its sequence, is settled as ``curtail`` settles it
    (once no remaining run can change it); the case's verdict is then certain as
    :func:`~.curtail.combined` says. ``kinds`` are the gates' kind names, in their order;
    ``remaining`` counts the runs left of those planned, the next one included. Returns the
    settled verdict, or ``None`` to make the next run."""
    states = []
    for index, thresholds in enumerate(gates):  # (a loop: --prob-plan asks this very often)
        if index < len(kinds) and kinds[index] == RATE:
            now = thresholds.at(passes, judged)
            if now == FAIL:
                return FAIL
            if now == PASS:
                states.append(SETTLED_PASS)
                continue
        state = gate_state(thresholds, passes, judged, remaining)
        if state.settled == FAIL:
            return FAIL
        states.append(state)
    return combined(states)
