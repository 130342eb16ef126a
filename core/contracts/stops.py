"""The stopping hooks' contract: what a stopping rule and the verdicts that read a case's runs
see (:class:`StopContext`), how such a verdict says it is settled (:class:`StopReader`,
``pytest_prob_stop_readers``), and how the rule sees one case (:class:`CaseStopping`,
``pytest_prob_case_stopping``). Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .outcomes import FAIL

if TYPE_CHECKING:
    from ..collection.cases import Case
    from ..stats.thresholds import Thresholds


@dataclass(frozen=True)
class StopContext:
    """What a stopping rule (and a :class:`StopReader`) sees before a run of a gated case.
    ``--prob-plan`` asks with hypothetical contexts: the counts of each state it follows.

    :ivar case: the collected :class:`~pytest_probability.collection.cases.Case`.
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

    #: what a reader that cannot say when its verdict is settled keeps a case running for
    CANNOT_SAY: ClassVar[str] = "cannot say when it is settled"
    #: what a reader that said its verdict is not settled yet keeps a case running for
    NOT_YET: ClassVar[str] = "is not settled yet"


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

    def never_settled(self) -> list[str]:
        """Why the case always runs every run: one phrase per verdict reading it, other than
        its own gates, that can never say it is settled (``"the margin of c[arm] cannot
        say when it is settled"``); empty when :attr:`always_runs` is false."""
        never = [r for r in self.readers[self.own :] if r.settled is None]
        return [f"{r.name} {StopReader.CANNOT_SAY}" for r in never]

    def holding(self, verdict: str, context: Any) -> list[str]:
        """Why the case must keep running although the rule settled its gates on
        ``verdict``: one phrase per reader that did not answer ``True``, as
        :meth:`never_settled` (a ``settled`` that raised adds the exception), leaving out the
        case's own open gates when ``verdict`` is FAIL (the worst of its checks, whatever they
        do); empty when it may stop."""
        found = []
        for reader in self.readers[self.own :] if verdict == FAIL else self.readers:
            answer, why = None, ""
            if reader.settled is not None:
                try:
                    answer = reader.settled(context)
                except Exception as exc:  # a reader's bug keeps the case running, never stops it
                    why = f" ({type(exc).__name__}: {exc})"
            if answer is not True:
                said = StopReader.NOT_YET if answer is False else StopReader.CANNOT_SAY
                found.append(f"{reader.name} {said}{why}")
        return found
