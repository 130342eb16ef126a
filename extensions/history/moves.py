"""Which moves are real: each case's latest session against the one before it and against
the window before it, with the false alarms controlled over all cases at once. Pure: never
imports pytest.

For every case that ran in the latest session:

* **against the previous session**: the last earlier session in which the case ran;
* **against the window**: its runs pooled over the ``window`` sessions before the latest
  (the sessions, not the case's points: a case that skipped some of them pools fewer). The
  window test is left out when it would pool exactly the runs of the previous session.

Each comparison is Fisher's exact test, two-sided, of the 2×2 table (passes and other runs,
latest against earlier): exact for any counts and conservative, so it never claims more
than the runs show. Every p-value of every case goes into one Benjamini–Hochberg step-up at
``alpha``; a case's move is *real* when one of its adjusted p-values is at most ``alpha``.
Benjamini–Hochberg keeps the expected share of false flags among the flags at ``alpha`` or
less (independent or positively dependent tests); when every case is steady, any flag is a
false one, so the chance of one or more is at most ``alpha``. The seeded simulation in
``tests/test_history_moves.py`` measures the mean number of false flags on 500 steady cases.

Pooling assumes the case was steady in the window; a move inside the window blurs the
window's rate, which is why the previous session is tested on its own too.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pytest_probability.api import benjamini_hochberg, fisher_exact_p

from .sessions import CasePoint, History, Session

DEFAULT_ALPHA = 0.05
DEFAULT_WINDOW = 5
PREVIOUS, WINDOW = "previous", "window"
WORSE, BETTER, STEADY, NEW = "worse", "better", "steady", "new"
METHOD = (
    "Fisher's exact test (two-sided) of each case's latest session against its previous "
    "session and against its runs pooled over the window of sessions before the latest; "
    "Benjamini–Hochberg across every test of every case"
)


@dataclass(frozen=True)
class Comparison:
    """The latest session's runs of a case against earlier runs of it."""

    against: str
    #: How many earlier sessions' runs are pooled (1 against the previous session).
    sessions: int
    #: The earliest session pooled (the previous session itself, for ``previous``).
    since: Session
    base_passes: int
    base_total: int
    latest_passes: int
    latest_total: int
    p_value: float
    #: The Benjamini–Hochberg adjusted p-value over every test (``p_value`` until adjusted).
    p_adjusted: float
    real: bool = False

    @property
    def base_rate(self) -> float:
        return self.base_passes / self.base_total

    @property
    def latest_rate(self) -> float:
        return self.latest_passes / self.latest_total

    @property
    def change(self) -> float:
        """The latest pass fraction less the earlier one (−0.45: 45 points worse)."""
        return self.latest_rate - self.base_rate


@dataclass(frozen=True)
class CaseMove:
    """One case of the latest session: its comparisons and what they say."""

    case: str
    function: str
    latest: CasePoint
    previous: Comparison | None
    window: Comparison | None

    @property
    def comparisons(self) -> list[Comparison]:
        return [c for c in (self.previous, self.window) if c is not None]

    @property
    def status(self) -> str:
        """``worse`` or ``better`` when a comparison is real (the previous session's first),
        ``new`` when the case never ran before, else ``steady``."""
        for comparison in self.comparisons:
            if comparison.real:
                return WORSE if comparison.change < 0 else BETTER
        return STEADY if self.comparisons else NEW

    @property
    def real(self) -> Comparison | None:
        """The comparison that makes the move real, or ``None``."""
        return next((c for c in self.comparisons if c.real), None)

    @property
    def gated(self) -> bool:
        """Whether the case had a gate in the latest session."""
        return self.latest.gate is not None


@dataclass(frozen=True)
class Assessment:
    """What the history says of the latest session."""

    alpha: float
    window: int
    latest: Session | None
    previous: Session | None
    #: Every case of the latest session, in the history's function order.
    moves: list[CaseMove]
    #: Cases of the previous session that the latest one did not run.
    gone: list[str]
    #: How many tests went into the Benjamini–Hochberg step-up.
    tests: int

    def with_status(self, status: str) -> list[CaseMove]:
        return [move for move in self.moves if move.status == status]

    @property
    def worse(self) -> list[CaseMove]:
        return self.with_status(WORSE)

    @property
    def better(self) -> list[CaseMove]:
        return self.with_status(BETTER)

    @property
    def gated_worse(self) -> list[CaseMove]:
        """Gated cases that got worse for real (what ``--fail-on-worse`` fails on)."""
        return [move for move in self.worse if move.gated]

    def headline(self, limit: int = 5) -> list[str]:
        """The lines a reader sees first: ``3 cases got worse since a1b2c3d: …``, the same
        for better, or that nothing moved for real."""
        if self.latest is None:
            return ["No session to read."]
        if self.previous is None:
            return [f"One session ({self.latest.label}): nothing to compare yet."]
        lines = []
        for status, moves in ((WORSE, self.worse), (BETTER, self.better)):
            if not moves:
                continue
            named = ", ".join(_change_text(move, self.previous) for move in moves[:limit])
            more = f", and {len(moves) - limit} more" if len(moves) > limit else ""
            cases = "case" if len(moves) == 1 else "cases"
            lines.append(
                f"{len(moves)} {cases} got {status} since {self.previous.label}: {named}{more}"
            )
        if not lines:
            count = sum(1 for move in self.moves if move.comparisons)
            lines.append(
                f"No real moves since {self.previous.label}: {count} "
                f"case{'' if count == 1 else 's'} tested at α = {self.alpha:g}."
            )
        return lines


def _change_text(move: CaseMove, previous: Session) -> str:
    """``f::x (90% → 40%)``; the earlier session is named when it is not the one before the
    latest (the case skipped that one), the window's size when the window moved."""
    comparison = move.real
    assert comparison is not None
    base = f"{comparison.base_rate:.0%}"
    if comparison.against == WINDOW:
        base += f" over {comparison.sessions} sessions"
    elif comparison.since is not previous:
        base += f" in {comparison.since.label}"
    return f"{move.case} ({base} → {comparison.latest_rate:.0%})"


def assess(
    history: History, *, alpha: float = DEFAULT_ALPHA, window: int = DEFAULT_WINDOW
) -> Assessment:
    """Test every case of the latest session (see the module's docstring)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a whole number of sessions, 1 or more, got {window!r}")
    sessions = history.sessions
    if not sessions:
        return Assessment(alpha, window, None, None, [], [], 0)
    latest, earlier = sessions[-1], sessions[:-1]
    previous = earlier[-1] if earlier else None
    found: list[tuple[str, str, CasePoint, _Table | None, _Table | None]] = []
    for function, cases in history.functions().items():
        for case in cases:
            point = latest.cases.get(case)
            if point is None:
                continue
            before = _against_previous(case, point, earlier)
            pooled = _against_window(case, point, earlier[-window:], before)
            found.append((case, function, point, before, pooled))
    gone = [case for case in (previous.cases if previous else {}) if case not in latest.cases]
    tested = [
        table for *_, before, pooled in found for table in (before, pooled) if table is not None
    ]
    adjusted = benjamini_hochberg([table.p_value for table in tested]) if tested else []
    p_adjusted = dict(zip(map(id, tested), adjusted, strict=True))

    def settled(table: _Table | None) -> Comparison | None:
        # (each comparison is built once, adjusted: the simulations assess 800 histories)
        if table is None:
            return None
        p = p_adjusted[id(table)]
        return Comparison(*table, p_adjusted=p, real=p <= alpha)

    moves = [
        CaseMove(case, function, point, settled(before), settled(pooled))
        for case, function, point, before, pooled in found
    ]
    return Assessment(alpha, window, latest, previous, moves, gone, len(tested))


class _Table(NamedTuple):
    """A comparison's 2×2 table and p-value, before the Benjamini–Hochberg step-up (the
    first fields of :class:`Comparison`, in its order)."""

    against: str
    sessions: int
    since: Session
    base_passes: int
    base_total: int
    latest_passes: int
    latest_total: int
    p_value: float


def _against_previous(case: str, point: CasePoint, earlier: list[Session]) -> _Table | None:
    for session in reversed(earlier):
        base = session.cases.get(case)
        if base is not None:
            return _comparison(PREVIOUS, [session], [base], point)
    return None


def _against_window(
    case: str, point: CasePoint, window: list[Session], previous: _Table | None
) -> _Table | None:
    pooled = [(s, s.cases[case]) for s in window if case in s.cases]
    if not pooled:
        return None
    if len(pooled) == 1 and previous is not None and pooled[0][0] is previous.since:
        return None  # the same runs as the previous session's test: not a second test
    return _comparison(WINDOW, [s for s, _ in pooled], [p for _, p in pooled], point)


def _comparison(
    against: str, sessions: list[Session], points: list[CasePoint], latest: CasePoint
) -> _Table:
    passes = sum(p.passes for p in points)
    total = sum(p.total for p in points)
    p_value = fisher_exact_p(latest.passes, latest.total, passes, total)
    return _Table(
        against, len(sessions), sessions[0], passes, total, latest.passes, latest.total, p_value
    )
