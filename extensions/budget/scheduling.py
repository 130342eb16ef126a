"""The budget's hand in pytest-xdist's scheduling (the controller only): once the budget is
reached, the controller hands out no more runs to be made.

The session's budget wraps whichever scheduler ``pytest_xdist_make_scheduler`` chose (the
kernel's, pytest-xdist's, or the run-major one of ``--prob-transpose``) in a
:class:`Dealing`, which passes every call of pytest-xdist's scheduler protocol on, giving the
wrapped scheduler a :class:`Hand` for each worker: what it sends through it reaches the
worker only as the budget allows.

* A worker that reads the tally file (it leaves a mark beside it:
  :func:`~.session.reader_mark`) gets everything, as without a budget: it skips every run
  once the file says the budget is reached, and the file is rewritten before anything more
  is handed out.
* A worker that cannot read it (on another machine, or the file could not be written) holds
  at most :data:`AT_A_TIME` runs at once, and once the budget is reached gets no more runs:
  the scheduler is told they are done (never made, never reported by pytest) and the budget
  counts them as skipped (:attr:`Dealing.withheld`). Verdict items and other tests still go.

So the spend passes the budget only by runs already handed out when it was reached.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

#: the runs a worker that cannot read the tally file holds at once: the one it is making and
#: the next (a pytest-xdist worker starts a run only once it holds the one after it, or is
#: told to shut down)
AT_A_TIME = 2
#: a run's node id suffix
_RUN = re.compile(r"\[run\d+\]$")
#: pytest-xdist's ``@group`` suffix (pytest 7.4 with ``--dist loadgroup`` and ``xdist_group``)
_GROUP = re.compile(r"@[^\]]*$")
#: the bundled verdict items' node id suffixes (``[gate]``, ``[baseline]``, ``[compare:ARM]``)
_VERDICT = re.compile(r"\[(gate|baseline|compare:[^\]]*)\]$")


def run_case(nodeid: str) -> str | None:
    """The case key of a bench run's node id (the node id without ``[runK]``), or ``None``
    for anything else: a verdict item (``[gate]``, ``[compare:ARM]``, ``[baseline]``, a
    function-level item), a ``test_*``. A suffix of another kind on a case (a third party's
    verdict item, a parameter id ending in ``]``) is taken for a run: a budget fails
    closed."""
    plain = _GROUP.sub("", nodeid)
    parts = plain.split("::")
    if len(parts) < 2 or not parts[1].startswith("bench_") or _VERDICT.search(plain):
        return None
    found = _RUN.search(plain)
    if found is not None:
        return plain[: found.start()]
    if len(parts) == 2 and plain.endswith("]"):
        return None  # a function-level item (an unparametrized run has no suffix)
    return plain


class Hand:
    """What the wrapped scheduler takes for a worker (a pytest-xdist ``WorkerController``):
    it keeps what is sent until the budget lets it go. Everything else is the worker's."""

    def __init__(self, node: Any, dealing: Dealing) -> None:
        self.node = node
        self.dealing = dealing
        #: indices the scheduler sent that have not gone to the worker yet
        self.queue: deque[int] = deque()
        #: indices the worker got and has not finished
        self.out: set[int] = set()
        #: whether the scheduler asked the worker to shut down (sent once the queue is empty)
        self.closing = False
        #: the worker's collection (node ids by index)
        self.collection: list[str] = []
        #: whether the worker reads the tally file (asked once, at the first hand-out)
        self.reads: bool | None = None
        #: whether the worker finished without an error (``pytest_testnodedown``)
        self.finished = False

    def __repr__(self) -> str:
        return repr(self.node)

    def __getattr__(self, name: str) -> Any:
        if name == "node":  # (not set yet)
            raise AttributeError(name)
        return getattr(self.node, name)  # gateway, workerinput, send_steal, ...

    @property
    def shutting_down(self) -> bool:
        return self.closing or bool(self.node.shutting_down)

    def send_runtest_some(self, indices: Sequence[int]) -> None:
        self.queue.extend(indices)
        self.flush()

    def send_runtest_all(self) -> None:
        self.send_runtest_some(range(len(self.collection)))

    def shutdown(self) -> None:
        self.closing = True
        self.flush()

    def sees(self) -> bool:
        """Whether the worker learns the tally from the file."""
        if self.reads is None:
            self.reads = self.dealing.reads(self.node)
        return bool(self.reads) and self.dealing.sharing()

    def flush(self) -> None:
        """Send the worker what the budget allows; withhold the runs a worker that cannot
        read the tally would make after the budget was reached."""
        node = self.node
        if node.shutting_down:  # nothing more reaches the worker (see Dealing.remove_node)
            return
        blind = bool(self.queue) and not self.sees()
        reached = blind and self.dealing.reached()
        sending: list[int] = []
        while self.queue:
            index = self.queue[0]
            if reached and self.dealing.is_run(self, index):
                self.dealing.withhold(self, self.queue.popleft())
                continue
            if blind and len(self.out) + len(sending) >= AT_A_TIME:
                break
            sending.append(self.queue.popleft())
        if sending:
            self.out.update(sending)
            node.send_runtest_some(sending)
        if self.closing and not self.queue:
            node.shutdown()


def _passed_on(name: str) -> property:
    """A property of the wrapped scheduler, read through."""
    return property(lambda dealing: bool(getattr(dealing.inner, name)))


class Dealing:
    """A pytest-xdist scheduler that passes every call of the protocol on to the scheduler
    it wraps, through one :class:`Hand` per worker. (:func:`wrap` names its class after the
    wrapped one: ``-v`` prints "scheduling tests via CaseScheduling" as before.)"""

    def __init__(
        self,
        inner: Any,
        *,
        reached: Callable[[], bool],
        sharing: Callable[[], bool],
        reads: Callable[[Any], bool],
    ) -> None:
        self.inner = inner
        self.reached = reached
        self.sharing = sharing
        self.reads = reads
        self.hands: dict[Any, Hand] = {}
        #: node ids of the runs never handed out for the budget (their case keys: run_case)
        self.withheld: list[str] = []
        self._done: deque[tuple[Hand, int]] = deque()  # withheld, not yet marked done

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # (not set yet)
            raise AttributeError(name)
        return getattr(self.inner, name)  # config, log, ...: what other plugins read

    def is_run(self, hand: Hand, index: int) -> bool:
        collection = hand.collection
        return index >= len(collection) or run_case(collection[index]) is not None

    def withhold(self, hand: Hand, index: int) -> None:
        if index < len(hand.collection):
            self.withheld.append(hand.collection[index])
        self._done.append((hand, index))

    def _settle(self) -> None:
        """Tell the wrapped scheduler that withheld runs are done (which may withhold more)."""
        while self._done:
            hand, index = self._done.popleft()
            if self.hands.get(hand.node) is hand:
                self.inner.mark_test_complete(hand, index, 0)

    # -- the scheduler protocol -----------------------------------------------------------
    @property
    def nodes(self) -> list[Any]:
        return [hand.node for hand in self.inner.nodes]

    collection_is_completed = _passed_on("collection_is_completed")
    tests_finished = _passed_on("tests_finished")
    has_pending = _passed_on("has_pending")

    def add_node(self, node: Any) -> None:
        hand = self.hands[node] = Hand(node, self)
        self.inner.add_node(hand)

    def add_node_collection(self, node: Any, collection: Sequence[str]) -> None:
        hand = self.hands[node]
        hand.collection = list(collection)
        self.inner.add_node_collection(hand, collection)
        self._settle()

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        hand = self.hands[node]
        hand.out.discard(item_index)
        self.inner.mark_test_complete(hand, item_index, duration)
        hand.flush()
        self._settle()

    def mark_test_pending(self, item: str) -> None:
        self.inner.mark_test_pending(item)
        self._settle()

    def remove_pending_tests_from_node(self, node: Any, indices: Sequence[int]) -> None:
        hand = self.hands[node]
        hand.out.difference_update(indices)
        self.inner.remove_pending_tests_from_node(hand, indices)
        hand.flush()
        self._settle()

    def down(self, node: Any, error: Any) -> None:
        """A worker finished (``error`` is ``None``) or died."""
        hand = self.hands.get(node)
        if hand is not None:
            hand.finished = error is None

    def remove_node(self, node: Any) -> str | None:
        """A worker left. What it was sent but never got is, when it finished (pytest-xdist
        stopped the session: ``-x``, ``--maxfail``), done like what pytest-xdist itself had
        not sent yet; when it died, back in the queue like the rest of its work."""
        hand = self.hands[node]  # (a KeyError, as from pytest-xdist's own schedulers)
        while hand.finished and hand.queue:
            self.inner.mark_test_complete(hand, hand.queue.popleft(), 0)
        hand.queue.clear()
        del self.hands[node]
        crashed: str | None = self.inner.remove_node(hand)
        self._settle()
        return crashed

    def schedule(self) -> None:
        self.inner.schedule()
        self._settle()


def wrap(inner: Any, **budget: Any) -> Dealing:
    """``inner`` wrapped in a :class:`Dealing` whose class bears ``inner``'s class name."""
    kind = type(type(inner).__name__, (Dealing,), {"__module__": __name__})
    return kind(inner, **budget)  # type: ignore[no-any-return]
