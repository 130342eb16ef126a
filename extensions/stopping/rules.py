"""The bundled stopping rules as functions of a case's counts: the one place each rule is
written down.

The runtime's stopper calls them (through ``curtail_rule`` and ``sequential_rule`` of the
plugin, with the case's runs so far) before each run of a gated case, and ``--prob-plan``'s
dynamic programme calls the very same functions at every state it follows
(:mod:`pytest_probability.extensions.plan.sequential`), so the plan's chances and expected
runs are those of the rule that runs. Pure module: never imports pytest.
"""

from __future__ import annotations

from collections.abc import Sequence

from .curtail import FAIL, PASS, UNDECIDED, Thresholds, curtail

#: the gate kind whose verdict ``sequential`` reads on its confidence sequence
RATE = "rate"


def curtail_decision(
    gates: Sequence[Thresholds], passes: int, judged: int, remaining: int
) -> str | None:
    """``curtail``: the verdict every completion of the case gives (each gate settled; any
    FAIL fails, else any UNDECIDED, else PASS), or ``None`` to make the next run."""
    return curtail(gates, passes, judged, remaining)


def sequential_decision(
    gates: Sequence[Thresholds],
    kinds: Sequence[str],
    passes: int,
    judged: int,
    remaining: int,
) -> str | None:
    """``sequential``: when every gate is a rate gate (judged on the confidence sequence,
    which is valid at every look), stop as soon as each is PASS or FAIL on the runs so far;
    otherwise, and for any other gate, stop as ``curtail`` does, once no remaining run can
    change the verdict (an UNDECIDED that can no longer resolve, a count gate).

    :param gates: each gate's thresholds (:class:`~.curtail.Thresholds`).
    :param kinds: each gate's kind name, in the order of ``gates``.
    :param passes: passes so far.
    :param judged: judged runs so far.
    :param remaining: runs left of those planned (the next one included).
    :return: the settled verdict, or ``None`` to make the next run.
    """
    if gates and len(kinds) == len(gates) and all(kind == RATE for kind in kinds):
        found = PASS
        for thresholds in gates:  # (a loop, not lists: --prob-plan asks this very often)
            now = thresholds.at(passes, judged)
            if now == UNDECIDED:
                break
            if now == FAIL:
                found = FAIL
        else:
            return found
    return curtail(gates, passes, judged, remaining)
