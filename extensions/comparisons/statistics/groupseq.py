"""Group-sequential boundaries for a comparison whose looks have a known horizon: the
Lan–DeMets α-spending boundaries (Kim and DeMets's power family ``α t²`` by default) on the
information fraction, the probabilities of crossing them, the stagewise-ordering p-value and the
median-unbiased estimate after a stop (docs/statistics.rst, "Sequential comparisons").

Everything is computed on the canonical joint distribution of the looks' z-statistics —
``S_k = Z_k √t_k`` a Brownian motion observed at the information fractions ``t_k``, with
drift ``θ`` — by the recursive numerical integration of Armitage, McPherson and Rowe
(1969) as Jennison and Turnbull (2000, ch. 19) describe it: the density of ``S_k`` on the
continuation region is carried look to look on one lattice, the Gaussian kernel of an
increment being a band of the lattice, so a look costs the lattice's width times the
band's. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType

from pytest_probability.api import norm_ppf

_SQRT2 = math.sqrt(2.0)
_ROOT2PI = math.sqrt(2.0 * math.pi)
#: lattice points per standard deviation of the smallest increment
RESOLUTION = 8
#: the kernel's band, in standard deviations of the increment
BAND = 9.0
#: the most looks the boundaries are computed for one by one; beyond, the looks are those at
#: :data:`MOST_LOOKS` equally spaced fractions and a look in between uses the next one's
MOST_LOOKS = 200

OBRIEN_FLEMING = "obrien-fleming"
POCOCK = "pocock"
QUADRATIC = "power-2"
#: the comparisons' spending function, between O'Brien–Fleming-type (the most power, the
#: fewest runs saved) and Pocock-type: it keeps at least 85 % of the fixed-run comparison's
#: power at 10 and 20 points and saves a tenth of the runs at 10 (docs/statistics.rst, "Why
#: α·t²"); with the family's α/m under a correction it keeps Holm's power too
DEFAULT_SPENDING = QUADRATIC


def norm_sf(x: float) -> float:
    return 0.5 * math.erfc(x / _SQRT2)


def obrien_fleming_spending(t: float, alpha: float) -> float:
    """Lan and DeMets's O'Brien–Fleming-type spending of a two-sided ``α``, each side
    spending its ``α/2`` as ``2 − 2Φ(z_{α/4}/√t)`` (as gsDesign's ``sfLDOF`` and
    Jennison and Turnbull §7.2 use it for symmetric two-sided tests)."""
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return alpha
    return 4.0 * norm_sf(norm_ppf(1.0 - alpha / 4.0) / math.sqrt(t))


def pocock_spending(t: float, alpha: float) -> float:
    """Lan and DeMets's Pocock-type spending: ``α log(1 + (e − 1)t)``."""
    return alpha * math.log1p((math.e - 1.0) * min(max(t, 0.0), 1.0))


def quadratic_spending(t: float, alpha: float) -> float:
    """Kim and DeMets's (1987) power family ``α t^ρ`` at ``ρ = 2``: a quarter of α spent by
    half the pairs (O'Brien–Fleming-type spends 6 % of it by then, Pocock-type 62 %)."""
    return alpha * min(max(t, 0.0), 1.0) ** 2


SPENDING: dict[str, Callable[[float, float], float]] = {
    OBRIEN_FLEMING: obrien_fleming_spending,
    POCOCK: pocock_spending,
    QUADRATIC: quadratic_spending,
}


class _Density:
    """The sub-density of ``S`` on the continuation region at one look, as lattice masses
    (quadrature weight × density) at the points ``first·h, (first+1)·h, …``."""

    def __init__(self, h: float) -> None:
        self.h = h
        self.first = 0
        self.masses = [1.0]  # (before the first look: all mass at S = 0)
        self.t = 0.0

    def _kernel(self, delta: float, shift: float, widen: float = 0.0) -> tuple[int, list[float]]:
        """The Gaussian kernel of an increment over the lattice band (stretched by what a
        drift of ``widen`` would shift it), times the lattice step."""
        sd = math.sqrt(delta)
        reach = math.ceil((BAND * sd + abs(shift) + widen * delta) / self.h) + 1
        values = [
            math.exp(-0.5 * ((d * self.h - shift) / sd) ** 2) / (sd * _ROOT2PI) * self.h
            for d in range(-reach, reach + 1)
        ]
        return reach, values

    def crossing(self, t: float, upper: float, lower: float, theta: float) -> tuple[float, float]:
        """``P(S_t ≥ upper)`` and ``P(S_t ≤ lower)`` from the mass still in."""
        delta = t - self.t
        sd, shift = math.sqrt(delta), theta * delta
        up = low = 0.0
        h, first = self.h, self.first
        for j, mass in enumerate(self.masses):
            if mass:
                s = (first + j) * h + shift
                up += mass * norm_sf((upper - s) / sd)
                low += mass * norm_sf((s - lower) / sd)
        return up, low

    def advance(
        self, t: float, upper: float, lower: float, theta: float, widen: float = 0.0
    ) -> None:
        """Carry the mass to look ``t``, keeping what lies strictly between the bounds (and
        within the lattice's span, which ``widen`` stretches as a drift of that size would)."""
        delta = t - self.t
        shift = theta * delta
        h = self.h
        reach, kernel = self._kernel(delta, shift, widen)
        old_first, old = self.first, self.masses
        old_last = old_first + len(old) - 1
        span = BAND * math.sqrt(t) + (abs(theta) + widen) * t + 1.0
        lo = max(old_first - reach, math.floor(max(lower, -span) / h) + 1)
        hi = min(old_last + reach, math.ceil(min(upper, span) / h) - 1)
        masses = []
        mul = operator.mul
        for i in range(lo, hi + 1):
            a = max(old_first, i - reach)
            b = min(old_last, i + reach)
            if a > b:
                masses.append(0.0)
                continue
            # kernel index of d = i - j is d + reach; j from a to b gives d from i-a down to i-b
            k0 = i - a + reach
            k1 = i - b + reach
            piece = kernel[k1 : k0 + 1]
            piece.reverse()
            masses.append(sum(map(mul, old[a - old_first : b - old_first + 1], piece)))
        if not masses:
            masses, lo, hi = [0.0], 0, 0
        # each point stands for the half-lattice around it; the end points', cut by the
        # region's edges, for the part inside (a midpoint rule up to the exact edges)
        if lower > -span:
            masses[0] *= (lo * h + h / 2 - lower) / h
        if upper < span:
            masses[-1] *= (upper - (hi * h - h / 2)) / h
        self.first, self.masses, self.t = lo, masses, t


def _lattice(fractions: Sequence[float]) -> float:
    smallest = min(b - a for a, b in zip((0.0, *fractions), fractions, strict=False))
    return math.sqrt(smallest) / RESOLUTION


def _check(fractions: Sequence[float]) -> None:
    if not fractions or any(b <= a for a, b in zip((0.0, *fractions), fractions, strict=False)):
        raise ValueError(f"the information fractions must increase from above 0, got {fractions}")


@functools.lru_cache(maxsize=256)
def spending_boundaries(
    fractions: tuple[float, ...], alpha: float, spending: str = DEFAULT_SPENDING
) -> tuple[float, ...]:
    """Two-sided z boundaries ``b_k`` (stop when ``|Z_k| ≥ b_k``) that spend ``α(t_k)`` by look
    ``k``: each ``b_k`` solves ``P₀(first crossing at k) = α(t_k) − α(t_{k−1})``."""
    _check(fractions)
    spend = SPENDING[spending]
    density = _Density(_lattice(fractions))
    bounds, spent = [], 0.0
    for t in fractions:
        target = spend(t, alpha) - spent
        b = _solve_bound(density, t, target)
        bounds.append(b)
        up, low = density.crossing(t, b * math.sqrt(t), -b * math.sqrt(t), 0.0)
        spent += up + low
        density.advance(t, b * math.sqrt(t), -b * math.sqrt(t), 0.0)
    return tuple(bounds)


def _solve_bound(density: _Density, t: float, target: float) -> float:
    if target <= 0.0:
        return math.inf
    root = math.sqrt(t)

    def excess(b: float) -> float:
        up, low = density.crossing(t, b * root, -b * root, 0.0)
        return up + low - target

    low, high = 0.0, 40.0
    if excess(high) > 0.0:
        return high
    for _ in range(60):
        middle = (low + high) / 2
        if excess(middle) > 0.0:
            low = middle
        else:
            high = middle
        if high - low < 1e-7:
            break
    return high


def constant_boundary(looks: int, alpha: float, shape: str) -> float:
    """The constant of Pocock's (``b_k = C``) or O'Brien and Fleming's
    (``b_k = C √(K/k)``) boundary with ``looks`` equally spaced looks and two-sided error
    ``alpha`` — Jennison and Turnbull's Tables 2.1 and 2.3."""
    fractions = tuple(k / looks for k in range(1, looks + 1))

    def error(c: float) -> float:
        shape_of = (lambda k: c) if shape == POCOCK else (lambda k: c * math.sqrt(looks / k))
        bounds = tuple(shape_of(k) for k in range(1, looks + 1))
        return sum(sum(pair) for pair in crossings(fractions, bounds))

    low, high = 1.0, 6.0
    for _ in range(50):
        middle = (low + high) / 2
        if error(middle) > alpha:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def crossings(
    fractions: Sequence[float], bounds: Sequence[float], theta: float = 0.0
) -> list[tuple[float, float]]:
    """``(P(cross up at k), P(cross down at k))`` for each look under drift ``θ`` (on the
    scale where the information at the last fraction is ``fractions[-1]``)."""
    _check(fractions)
    density = _Density(_lattice(fractions))
    found = []
    for t, b in zip(fractions, bounds, strict=True):
        edge = b * math.sqrt(t)
        found.append(density.crossing(t, edge, -edge, theta))
        density.advance(t, edge, -edge, theta)
    return found


def stagewise_upper(
    fractions: Sequence[float], bounds: Sequence[float], look: int, z: float, theta: float
) -> float:
    """``P_θ(the stagewise ordering is at least (look, z))``: crossing the upper boundary at
    an earlier look, or reaching look ``look`` (1-based) and ``Z ≥ z`` there."""
    density = _Density(_lattice(fractions[:look]))
    total = 0.0
    for k in range(look - 1):
        t, b = fractions[k], bounds[k]
        edge = b * math.sqrt(t)
        up, _ = density.crossing(t, edge, -edge, theta)
        total += up
        density.advance(t, edge, -edge, theta)
    t = fractions[look - 1]
    up, _ = density.crossing(t, z * math.sqrt(t), -math.inf, theta)
    return total + up


def stagewise_p(fractions: Sequence[float], bounds: Sequence[float], look: int, z: float) -> float:
    """The two-sided p-value of the stagewise ordering (Fairbanks and Madsen 1982;
    Jennison and Turnbull §8.4) for a comparison stopped at ``look`` with statistic ``z``."""
    one = stagewise_upper(fractions, bounds, look, abs(z), 0.0)
    return min(1.0, 2.0 * one)


def median_unbiased(
    fractions: Sequence[float], bounds: Sequence[float], look: int, z: float
) -> float:
    """The drift ``θ`` (on the scale where ``S_k = Z_k √t_k``) at which the stagewise
    ordering's upper tail at the observed ``(look, z)`` is ½ — the median-unbiased estimate
    (Emerson and Fleming 1990; Jennison and Turnbull §8.3). The naive estimate is
    ``z/√t_look``."""
    t = fractions[look - 1]
    naive = z / math.sqrt(t)
    low, high = naive - 6.0 / math.sqrt(t), naive + 6.0 / math.sqrt(t)
    upper_tail = _tilted_upper(fractions, bounds, look, z, max(abs(low), abs(high)))
    for _ in range(40):
        middle = (low + high) / 2
        if upper_tail(middle) < 0.5:
            low = middle
        else:
            high = middle
        if high - low < 1e-4:
            break
    return (low + high) / 2


def _tilted_upper(
    fractions: Sequence[float], bounds: Sequence[float], look: int, z: float, most: float
) -> Callable[[float], float]:
    """:func:`stagewise_upper` at ``(look, z)`` as a function of the drift ``θ``, for
    ``|θ| ≤ most``, from one recursion under no drift. A path's density under drift ``θ`` is
    its density under none times ``exp(θ S_t − θ² t / 2)`` (the likelihood ratio of Brownian
    motion with drift), and the stopping regions do not depend on ``θ``; so each look's mass
    carried under no drift, reweighted, gives that look's crossing chance under any drift —
    one recursion instead of one per step of the median-unbiased estimate's bisection. The
    lattice spans what a drift of ``most`` reaches, as the direct recursion's would."""
    density = _Density(_lattice(fractions[:look]))
    stages: list[tuple[float, float, int, list[float], float, float]] = []
    for k in range(look):
        t, b = fractions[k], bounds[k]
        edge = b * math.sqrt(t) if k < look - 1 else z * math.sqrt(t)
        stages.append((density.t, t, density.first, list(density.masses), density.h, edge))
        if k < look - 1:
            density.advance(t, edge, -edge, 0.0, most)

    def upper(theta: float) -> float:
        total = 0.0
        for before, t, first, masses, h, edge in stages:
            delta = t - before
            sd, shift = math.sqrt(delta), theta * delta
            tilt = -0.5 * theta * theta * before
            for j, mass in enumerate(masses):
                if mass:
                    s = (first + j) * h
                    total += mass * math.exp(theta * s + tilt) * norm_sf((edge - s - shift) / sd)
        return total

    return upper


# -- exact boundaries for binomial looks -----------------------------------------------------
#: the common pass rates over which the exact boundaries bound the error (by the symmetry of
#: passes and failures, a rate and one minus it err alike)
NUISANCE = tuple(k / 100 for k in range(1, 51))
#: the most pairs the exact boundaries follow (their cost grows as the cube)
EXACT_PAIRS = 200


def score_z(xa: int, xb: int, n: int) -> float:
    """The score statistic for "equal rates" with ``xa`` and ``xb`` passes of ``n`` runs
    each: ``(xa − xb)/√(n · 2p̄(1 − p̄))``, ``p̄`` the pooled rate (0 when every run agrees)."""
    total = xa + xb
    spread = total * (2 * n - total)
    return (xa - xb) * math.sqrt(2 * n / spread) if spread else 0.0


def path_counts(per_look: int, looks: int) -> Iterator[tuple[int, list[list[float]]]]:
    """``(n, counts)`` at each look (after every ``per_look`` pairs, ``looks`` of them):
    ``counts[xa][xb]`` is the number of paths of ``n`` pairs with ``xa`` arm passes and
    ``xb`` baseline passes that never crossed — a path with ``T`` passes in all has
    probability ``pᵀ(1−p)²ⁿ⁻ᵀ`` at a common rate ``p``. The caller zeroes, in place, the
    cells of paths that cross at a look before asking for the next one."""
    counts = [[1.0]]
    for n in range(1, per_look * looks + 1):
        previous, counts = counts, []
        for xa in range(n + 1):
            here = previous[xa] if xa < n else None
            below = previous[xa - 1] if xa else None
            if here is None or below is None:
                row = list(below if here is None else here)  # (one is there when n ≥ 1)
            else:
                row = [a + b for a, b in zip(here, below, strict=True)]
            counts.append([a + b for a, b in zip([*row, 0.0], [0.0, *row], strict=True)])
        if n % per_look == 0:
            yield n, counts


@functools.lru_cache(maxsize=64)
def exact_boundaries(
    per_look: int, looks: int, alpha: float, spending: str = DEFAULT_SPENDING
) -> tuple[tuple[float, ...], float]:
    """Boundaries on :func:`score_z` for looks after every ``per_look`` pairs of two
    binomial sequences, up to ``looks`` looks, that spend ``α(t_k)`` by look ``k`` exactly:
    at each look the crossing region ``|z| ≥ b_k`` is the largest one whose cumulative
    probability, under equal arms at every common rate of :data:`NUISANCE`, is at most
    ``α(k/looks)`` (dynamic programming over both paths; a look that cannot cross gets
    ``inf`` and its α rolls over). Returns the boundaries and the largest total error over
    the rates — the attainable level, at most ``alpha``."""
    spend = SPENDING[spending]
    horizon = per_look * looks
    spent = [0.0] * len(NUISANCE)
    bounds = []
    floor = max(0.0, norm_ppf(1.0 - alpha / 2.0) - 1.0)
    for n, counts in path_counts(per_look, looks):
        budget = spend(n / horizon, alpha)
        candidates = []
        for xa, row in enumerate(counts):
            for xb, count in enumerate(row):
                if count and xa != xb:
                    z = abs(score_z(xa, xb, n))
                    if z >= floor:
                        candidates.append((z, xa, xb))
        candidates.sort(reverse=True)
        logs = [(math.log(p), math.log1p(-p)) for p in NUISANCE]
        mass = list(spent)
        taken = 0
        bound = math.inf
        index = 0
        while index < len(candidates):
            z = candidates[index][0]
            end = index
            added = [0.0] * len(NUISANCE)
            while end < len(candidates) and candidates[end][0] > z - 1e-9:
                _, xa, xb = candidates[end]
                total = xa + xb
                count = counts[xa][xb]
                for j, (lp, lq) in enumerate(logs):
                    added[j] += count * math.exp(total * lp + (2 * n - total) * lq)
                end += 1
            trial = [m + a for m, a in zip(mass, added, strict=True)]
            if max(trial) > budget + 1e-15:
                break
            mass, taken, bound, index = trial, end, z - 1e-9, end
        for _, xa, xb in candidates[:taken]:
            counts[xa][xb] = 0.0
        spent = mass
        bounds.append(bound)
    return tuple(bounds), max(spent)


def exact_stagewise_p(
    per_look: int, looks: int, bounds: Sequence[float], look: int, z: float
) -> float:
    """The stagewise-ordering p-value of :func:`stagewise_p` for the binomial looks of
    :func:`exact_boundaries`, exactly: the largest over the rates of :data:`NUISANCE` of the
    chance, under equal arms, of crossing at an earlier look or reaching look ``look`` with
    ``|z|`` at least the observed one."""
    logs = [(math.log(p), math.log1p(-p)) for p in NUISANCE]
    found = [0.0] * len(NUISANCE)
    observed = abs(z) - 1e-9
    for n, counts in path_counts(per_look, look):
        k = n // per_look
        cut = observed if k == look else bounds[k - 1] - 1e-12
        for xa, row in enumerate(counts):
            for xb, count in enumerate(row):
                if count and abs(score_z(xa, xb, n)) >= cut:
                    total = xa + xb
                    for j, (lp, lq) in enumerate(logs):
                        found[j] += count * math.exp(total * lp + (2 * n - total) * lq)
                    row[xb] = 0.0
    return min(1.0, max(found))


@functools.lru_cache(maxsize=1024)
def design_boundaries(
    per_look: int, looks: int, alpha: float, spending: str = DEFAULT_SPENDING
) -> tuple[Mapping[int, float], tuple[float, ...], tuple[float, ...], bool]:
    """The comparison's boundaries over ``looks`` looks of ``per_look`` pairs each:
    ``(look → boundary, the design's fractions, its boundaries, exact)``, kept per design
    (a comparison asks for its boundary at every look and for every value it tests). Exact
    (:func:`exact_boundaries`) up to :data:`EXACT_PAIRS` pairs; beyond, Lan–DeMets boundaries
    on the normal approximation, at every look while there are at most :data:`MOST_LOOKS`
    (else at :data:`MOST_LOOKS` evenly spread ones, the last at the horizon)."""
    if looks <= 0:
        return {}, (), (), False
    if per_look * looks <= EXACT_PAIRS:
        bounds, _ = exact_boundaries(per_look, looks, alpha, spending)
        positions = list(range(1, looks + 1))
        exact = True
    else:
        step = -(-looks // MOST_LOOKS)
        positions = [min(j * step, looks) for j in range(1, -(-looks // step) + 1)]
        fractions = tuple(p / looks for p in positions)
        bounds = spending_boundaries(fractions, alpha, spending)
        exact = False
    fractions = tuple(p / looks for p in positions)
    where = MappingProxyType(dict(zip(positions, bounds, strict=True)))  # (shared: read-only)
    return where, fractions, tuple(bounds), exact
