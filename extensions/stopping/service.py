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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pytest_probability.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_probability.api import Case

    from .curtail import Thresholds


#: The verdict words and thresholds, the stopping rule and the confidence sequence, for the
#: planner (which models the rule the runtime applies); imported on first use.
__getattr__, _ = lazy_exports(
    __name__,
    {
        "FAIL": "pytest_probability.api",
        "PASS": "pytest_probability.api",
        "UNDECIDED": "pytest_probability.api",
        "Thresholds": "pytest_probability.extensions.stopping.curtail",
        "RATE": "pytest_probability.extensions.stopping.rules",
        "sequential_decision": "pytest_probability.extensions.stopping.rules",
        "sequence_end": "pytest_probability.extensions.stopping.sequence",
    },
)

#: what a reader that cannot say when its verdict is settled keeps a case running for
CANNOT_SAY = "cannot say when it is settled"
#: what a reader that said its verdict is not settled yet keeps a case running for
NOT_YET = "is not settled yet"
#: the stop "verdict" of a case without gates, stopped because every reader is settled
SETTLED = "settled"


@dataclass(frozen=True)
class StopContext:
    """What a stopping rule (and a :class:`StopReader`) sees before a run of a gated case.
    ``--prob-plan`` asks with hypothetical contexts: the counts of each state it follows.

    :ivar case: the collected case.
    :ivar passes: passes so far: the case's runs this process made, in whatever order
        they came (every earlier run, when the runs come in order).
    :ivar judged: judged runs so far (errors count unless ``prob_errors=exclude``).
    :ivar remaining: runs left of the planned ones, this one included.
    :ivar planned: the case's planned runs.
    :ivar gates: the thresholds of each of its gates whose kind has ``verdict_at``.
    :ivar kinds: each gate's kind (``rate``, ``count``), in the order of ``gates``.
    """

    case: Case
    passes: int
    judged: int
    remaining: int
    planned: int
    gates: tuple[Thresholds, ...]
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class StopReader:
    """A verdict that reads a case's runs besides the case's own gates (a comparison
    margin, a baseline margin, a third party's verdict kind), as ``--prob-stop`` sees it.

    The stopping rule stops a case only when its gates are settled **and** every reader of
    it answers ``True``.

    :ivar name: what the verdict is, to say why a case was kept running:
        ``"the margin of c[arm]"``.
    :ivar settled: ``settled(context) -> bool | None``, asked (in the executing process)
        each time the rule would stop the case, with the
        :class:`StopContext` of that moment:
        ``True`` when the verdict can no longer change whatever the case's remaining runs
        do, ``False`` when it still can, ``None`` when it cannot say. Only ``True`` lets
        the case stop. Leave it ``None`` (the default) for a verdict that can never say:
        the case then always runs every run, and ``--prob-plan`` plans it so without
        asking. A ``settled`` that raises counts as ``None``.
    """

    name: str
    settled: Callable[[Any], bool | None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class CaseStopping:
    """How a stopping rule sees one case.

    :ivar gates: ``(kind, spec)`` of each gate whose verdict depends only on the pass count
        (the kind has ``verdict_at``): the rule decides on these.
    :ivar readers: the verdicts that must be settled too before the case stops: the gates
        of the case whose kind has no ``verdict_at`` (a latency gate; they take part in the
        case's verdict, so a FAIL settled by the other gates does not wait for them), then
        every :class:`StopReader` the ``pytest_prob_stop_readers`` hook returned (other
        verdicts reading the case, which always must be settled).
    :ivar own: how many of ``readers``, from the first, are the case's own gates.
    """

    gates: tuple[tuple[Any, Any], ...]
    readers: tuple[StopReader, ...] = ()
    own: int = 0

    @property
    def always_runs(self) -> bool:
        """Whether some verdict reading the case other than its own gates can never say it
        is settled: the case runs every run (its own gates' FAIL would not stop it)."""
        return any(reader.settled is None for reader in self.readers[self.own :])

    def holding(self, verdict: str, context: Any) -> list[str]:
        """Why the case must keep running although the rule settled its gates on
        ``verdict``: :func:`holding` over the readers, without the case's own open gates
        when ``verdict`` is FAIL (the worst of its checks, whatever they do)."""
        from .curtail import FAIL

        return holding(self.readers[self.own :] if verdict == FAIL else self.readers, context)


def case_stopping(config: Any, case: Any) -> CaseStopping | None:
    """How the stopping rule sees ``case`` (a collected
    :class:`~pytest_probability.cases.Case`), or ``None`` when it has no gate a rule can
    decide on and no reader that can say when its verdict is settled (the case always runs
    every run and nothing is said about it). A case without such a gate but with such
    readers (a case a sequential comparison reads) has no ``gates``: it stops as soon as
    every reader of it is settled (:data:`SETTLED`).

    Asks the gates extension for the case's gates (``pytest_prob_case_gates``: none without
    it) and the ``pytest_prob_stop_readers`` hook for its other readers (an implementation
    that raises, or answers with something other than a :class:`StopReader`, counts as a
    reader that cannot say: the case keeps running). Called by the stopper (in the
    executing process, once per case) and by ``--prob-plan``.
    """
    gates = config.hook.pytest_prob_case_gates(case=case, config=config)
    if gates is None:  # the gates extension is disabled (-p no:probability.gates)
        return None
    monotone = tuple((kind, spec) for kind, spec in gates if kind.verdict_at is not None)
    readers = [
        StopReader(f"its {kind.name} gate {kind.describe(spec)}")
        for kind, spec in gates
        if kind.verdict_at is None
    ]
    own = len(readers)
    try:
        answers = config.hook.pytest_prob_stop_readers(case=case, config=config)
    except Exception as exc:  # a broken implementation keeps the case running, never stops it
        name = f"a pytest_prob_stop_readers implementation ({type(exc).__name__}: {exc})"
        answers = [[StopReader(name)]]
    for found in answers:
        for reader in found or ():
            readers.append(reader if isinstance(reader, StopReader) else StopReader(repr(reader)))
    if not monotone and not any(reader.settled is not None for reader in readers[own:]):
        return None  # nothing a rule decides on, and no reader that can say
    return CaseStopping(monotone, tuple(readers), own)


def holding(readers: Sequence[StopReader], context: Any) -> list[str]:
    """Why the case must keep running although its gates are settled: one phrase per reader
    that did not answer ``True`` (``"the margin of c[arm] cannot say when it is settled"``);
    empty when it may stop."""
    found = []
    for reader in readers:
        answer: bool | None = None
        if reader.settled is not None:
            try:
                answer = reader.settled(context)
            except Exception as exc:  # a reader's bug keeps the case running, never stops it
                found.append(f"{reader.name} {CANNOT_SAY} ({type(exc).__name__}: {exc})")
                continue
        if answer is not True:
            found.append(f"{reader.name} {NOT_YET if answer is False else CANNOT_SAY}")
    return found


class HasRecords(Protocol):
    records: dict[int, dict[str, Any]]


def case_stop(case: HasRecords) -> dict[str, Any] | None:
    """``{"verdict", "after", "planned", "skipped"}`` when the case was stopped early,
    else ``None``."""
    marks = [r["stopped"] for r in case.records.values() if r.get("stopped")]
    if not marks:
        return None
    return {**marks[0], "skipped": len(marks)}


def is_stopped(case: HasRecords) -> bool:
    """Whether some runs of the case were skipped by a stopping rule (its fraction leans
    toward its verdict, so intervals over several cases should not use it)."""
    return any(r.get("stopped") for r in case.records.values())


def is_spread(case: HasRecords) -> bool:
    """Whether a worker could not stop the case because its runs were spread."""
    return any(r.get("stop_partial") for r in case.records.values())


def hidden_reason(cases: list[Any]) -> str | None:
    """Why an interval over ``cases`` is hidden (some were stopped early), or ``None``."""
    stopped = sum(1 for case in cases if is_stopped(case))
    if not stopped:
        return None
    word = "case was" if stopped == 1 else "cases were"
    return f"{stopped} {word} stopped early and lean toward their verdicts"


def case_kept(case: HasRecords) -> dict[str, Any] | None:
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
