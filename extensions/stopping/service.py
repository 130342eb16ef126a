"""What other extensions need to know about stopping.

* Stopped cases, read from run records only (so it works in the aggregating process):
  :func:`case_stop`, :func:`is_stopped`, :func:`is_spread`, :func:`hidden_reason`,
  :func:`case_kept`.
* The contract for verdicts that read a case's runs (:class:`StopReader`, answered through
  ``pytest_prob_stop_readers``): a case is stopped only when every one of them is settled.
  :func:`case_stopping` says how the rule sees a case (the stopper and ``--prob-plan`` both
  ask it) and :func:`holding` which readers keep it running.

Never imports pytest (the config is used through its hook relay).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_probability.api import (
    PASS,
    CaseResult,
    CaseStopping,
    OptionError,
    Thresholds,
    call_first,
    call_hook,
    describe_exception,
)
from pytest_probability.api import StopContext as StopContext
from pytest_probability.api import StopReader as StopReader

#: what a reader that cannot say when its verdict is settled keeps a case running for
CANNOT_SAY = StopReader.CANNOT_SAY
#: what a reader that said its verdict is not settled yet keeps a case running for
NOT_YET = StopReader.NOT_YET
#: the stop "verdict" of a case without gates, stopped because every reader is settled
SETTLED = "settled"


def case_stopping(config: Any, case: Any) -> CaseStopping | None:
    """How the stopping rule sees ``case`` (a collected
    :class:`~pytest_probability.collection.cases.Case`), or ``None`` when it has no gate a rule can
    decide on and no reader that can say when its verdict is settled (the case always runs
    every run and nothing is said about it). A case without such a gate but with such
    readers (a case a sequential comparison reads) has no ``gates``: it stops as soon as
    every reader of it is settled (:data:`SETTLED`).

    Asks the gates extension for the case's gates (``pytest_prob_case_gates``: none without
    it) and the ``pytest_prob_stop_readers`` hook for its other readers (an implementation
    that fails, raising or answering with something other than :class:`StopReader` objects,
    is named in a warning and counts as a reader that cannot say: the case keeps running).
    Called by the stopper (in the executing process, once per case) and by ``--prob-plan``.
    """
    gates = case_gates(config, case)
    if gates is None:  # the gates extension is disabled (-p no:probability.gates)
        return None
    monotone = tuple((kind, spec) for kind, spec in gates if kind.verdict_at is not None)
    readers = [
        StopReader(f"its {kind.name} gate {kind.describe(spec)}")
        for kind, spec in gates
        if kind.verdict_at is None
    ]
    own = len(readers)

    def failed(name: str, exc: BaseException) -> None:  # keeps the case running, never stops it
        readers.append(StopReader(f"{name}'s pytest_prob_stop_readers ({describe_exception(exc)})"))

    answers = call_hook(
        config,
        "pytest_prob_stop_readers",
        check=_not_readers,
        failed=failed,
        case=case,
        config=config,
    )
    for found in answers:
        readers.extend(found)
    if not monotone and not any(reader.settled is not None for reader in readers[own:]):
        return None  # nothing a rule decides on, and no reader that can say
    return CaseStopping(monotone, tuple(readers), own)


def case_gates(config: Any, case: Any) -> list[tuple[Any, Any]] | None:
    """``pytest_prob_case_gates`` of a collected case, through the extension boundary (an
    implementation that fails is named in a warning and the next one answers; the bundled
    answer's :class:`~pytest_probability.api.OptionError` propagates); ``None`` without the
    gates extension."""
    return call_first(
        config,
        "pytest_prob_case_gates",
        check=not_gates,
        passing=(OptionError,),
        case=case,
        config=config,
    )


def not_gates(answer: Any) -> str | None:
    """What is wrong with a ``pytest_prob_case_gates`` answer (``None``: nothing)."""
    if isinstance(answer, (list, tuple)) and all(
        isinstance(gate, tuple) and len(gate) == 2 and hasattr(gate[0], "verdict_at")
        for gate in answer
    ):
        return None
    return f"answered {answer!r:.200}, not a list of (gate kind, spec) pairs"


def _not_readers(answer: Any) -> str | None:
    if isinstance(answer, (list, tuple)) and all(isinstance(r, StopReader) for r in answer):
        return None
    return f"answered {answer!r:.200}, not a list of StopReader"


def gate_thresholds(shared: dict[Any, Thresholds], config: Any, kind: Any, spec: Any) -> Thresholds:
    """A gate's :class:`~pytest_probability.api.Thresholds`, made once in ``shared`` for the
    cases whose gates are alike (a rule asks them before every run, a plan at every state)."""
    key = (kind.name, spec)
    if key not in shared:
        shared[key] = Thresholds(lambda p, n: kind.verdict_at(spec, p, n, config))
    return shared[key]


def holding(readers: Sequence[StopReader], context: Any) -> list[str]:
    """Why the case must keep running although its gates are settled: one phrase per reader
    that did not answer ``True`` (``"the margin of c[arm] cannot say when it is settled"``);
    empty when it may stop (:meth:`~pytest_probability.api.CaseStopping.holding` over every
    reader)."""
    return CaseStopping((), tuple(readers)).holding(PASS, context)


def case_stop(case: CaseResult) -> dict[str, Any] | None:
    """``{"verdict", "after", "planned", "skipped", "in_flight"}`` when the case was stopped
    early, else ``None``; ``in_flight`` counts the runs that were in flight when it was
    decided and finished after (``--prob-concurrency``: they count in its row)."""
    marks = [r["stopped"] for r in case.records.values() if r.get("stopped")]
    if not marks:
        return None
    in_flight = sum(1 for r in case.records.values() if r.get("stop_in_flight"))
    return {**marks[0], "skipped": len(marks), "in_flight": in_flight}


def is_stopped(case: CaseResult) -> bool:
    """Whether some runs of the case were skipped by a stopping rule (its fraction leans
    toward its verdict, so intervals over several cases should not use it)."""
    return any(r.get("stopped") for r in case.records.values())


def is_spread(case: CaseResult) -> bool:
    """Whether a worker could not stop the case because its runs were spread."""
    return any(r.get("stop_partial") for r in case.records.values())


def hidden_reason(cases: Sequence[CaseResult]) -> str | None:
    """Why an interval over ``cases`` is hidden (some were stopped early), or ``None``."""
    stopped = sum(1 for case in cases if is_stopped(case))
    if not stopped:
        return None
    word = "case was" if stopped == 1 else "cases were"
    return f"{stopped} {word} stopped early and lean toward their verdicts"


def case_kept(case: CaseResult) -> dict[str, Any] | None:
    """``{"after", "planned", "runs", "reasons"}`` when the stopping rule would have stopped
    the case but a verdict reading it kept it running (``runs``: the runs made for that
    reader; ``after``: the runs made before the first of them), else ``None``."""
    held = [r["stop_held"] for r in case.records.values() if r.get("stop_held")]
    if not held:
        return None
    reasons: list[str] = []
    for mark in held:
        reasons.extend(reason for reason in mark["reasons"] if reason not in reasons)
    return {
        "after": min(mark["after"] for mark in held),
        "planned": held[0]["planned"],
        "runs": len(held),
        "reasons": reasons,
    }
