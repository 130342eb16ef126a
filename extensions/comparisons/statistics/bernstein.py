"""The anytime-valid confidence sequence for the mean difference over ``K ≥ 2`` paired
inputs: Waudby-Smith and Ramdas's predictable plug-in empirical-Bernstein sequence on
``X = (D + 1)/2`` (docs/statistics.rst, "Sequential comparisons", gives the derivation).

In round ``k`` every input makes its ``k``-th pair. The process is linear in the means, so
with one bet per round it covers the mean over inputs exactly at the end of every round,
and is read only there (a product of betting factors would not be, which is why it is not
used). Each round's bet is WSR's ``λ = min(½, √(2 log(2/α) / (σ̂² t log(1 + t))))`` at the
round's first pair ``t``; each pair's centre is its input's own mean so far, shrunk toward
the pooled mean (both from earlier rounds only). Two one-sided sequences at ``α/2`` give
the interval in closed form, and their average at ``Δ = 0`` is the e-process of the
always-valid p-value. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

#: the largest bet (WSR's truncation c)
CAP = 0.5
#: the weight (in rounds) of the pooled mean in each input's centre
SHRINK = 2.0


def psi(bet: float) -> float:
    """``ψ(λ) = (−log(1 − λ) − λ)/4``."""
    return (-math.log1p(-bet) - bet) / 4.0


@dataclass
class RoundSequence:
    """The sequence after the rounds added so far (:meth:`add_round`).

    :ivar inputs: ``K``, the paired inputs (each round has one difference per input).
    :ivar level: the sequence's level ``1 − α``.
    """

    inputs: int
    level: float
    rounds: int = 0
    weighted: float = 0.0  # Σₖ λₖ Σᵢ Xᵢₖ
    bets: float = 0.0  # Σₖ λₖ
    penalty: float = 0.0  # Σₖ ψ(λₖ) Σᵢ vᵢₖ
    squares: float = 0.0  # Σₛ (Xₛ − μ̂ₛ)², for σ̂²
    totals: list[float] = field(default_factory=list)  # per input Σₖ Xᵢₖ
    #: the largest log e-value against Δ = 0 at any round end so far
    best_log_e: float = 0.0
    #: the log e-value at the last round end
    log_e: float = 0.0

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0.0] * self.inputs

    @property
    def pairs(self) -> int:
        return self.rounds * self.inputs

    @property
    def threshold(self) -> float:
        """``log(2/α)``: each one-sided sequence's bound."""
        return math.log(2.0 / (1.0 - self.level))

    def next_bet(self) -> float:
        """The bet of the next round, from the rounds so far only."""
        first = self.pairs + 1
        variance = (0.25 + self.squares) / (self.pairs + 1)
        raw = math.sqrt(2.0 * self.threshold / (variance * first * math.log1p(first)))
        return min(CAP, raw)

    def add_round(self, differences: Sequence[float]) -> None:
        """Add one round: the ``K`` inputs' differences ``arm − baseline`` in ``[−1, 1]``."""
        bet = self.next_bet()
        pooled = (0.5 + sum(self.totals)) / (1 + self.pairs)
        weight = SHRINK + self.rounds
        values = [(float(d) + 1.0) / 2.0 for d in differences]
        residue = 0.0
        totals = self.totals
        for index, x in enumerate(values):  # each centre: the input's mean, shrunk to pooled
            gap = x - (SHRINK * pooled + totals[index]) / weight
            residue += gap * gap
            totals[index] += x
        self.weighted += bet * sum(values)
        self.bets += bet
        self.penalty += psi(bet) * 4.0 * residue
        self.squares += residue
        self.rounds += 1
        self.log_e = self._log_e()
        self.best_log_e = max(self.best_log_e, self.log_e)

    def _log_e(self) -> float:
        """``log ½(e^{S⁺} + e^{S⁻})`` at ``X``'s mean ½ (``Δ = 0``)."""
        drift = self.weighted - 0.5 * self.inputs * self.bets
        up, down = drift - self.penalty, -drift - self.penalty
        top = max(up, down)
        return top + math.log(0.5 * (math.exp(up - top) + math.exp(down - top)))

    def interval(self) -> tuple[float, float]:
        """The interval for ``Δ`` at the last round end (``[−1, 1]`` before any)."""
        if not self.rounds:
            return -1.0, 1.0
        scale = self.inputs * self.bets
        low = (self.weighted - self.penalty - self.threshold) / scale
        high = (self.weighted + self.penalty + self.threshold) / scale
        return max(-1.0, 2.0 * low - 1.0), min(1.0, 2.0 * high - 1.0)

    def highest_low(self, rounds_left: int) -> float:
        """An upper bound on the interval's low end at any round end from now until
        ``rounds_left`` more rounds are added: every future pair at ``X = 1`` with the
        largest bet and no penalty (the bound grows with the future bets, so their largest
        sum gives it)."""
        if rounds_left <= 0:
            return self.interval()[0]
        future = CAP * rounds_left
        scale = self.inputs * (self.bets + future)
        low = (self.weighted - self.penalty - self.threshold + self.inputs * future) / scale
        return max(-1.0, min(1.0, 2.0 * low - 1.0))

    def lowest_high(self, rounds_left: int) -> float:
        """A lower bound on the interval's high end at any round end from now until
        ``rounds_left`` more rounds are added (every future pair at ``X = 0``)."""
        if rounds_left <= 0:
            return self.interval()[1]
        scale = self.inputs * (self.bets + CAP * rounds_left)
        high = (self.weighted + self.penalty + self.threshold) / scale
        return max(-1.0, min(1.0, 2.0 * high - 1.0))
