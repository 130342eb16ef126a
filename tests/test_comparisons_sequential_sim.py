"""Seeded simulations of sequential comparisons (issue 25): what only shows over many sessions.

1. Under equal arms, monitored after every pair (one input) or round (several) until the
   planned runs run out, the sequence leaves out zero — a false difference — in at most α of
   the sessions, across a grid of pass rates, input counts and run counts.
2. With a margin, at the margin's boundary the stopped verdict is wrong (PASS or FAIL, both
   false there) in at most α of the sessions.
3. Against a baseline report (``--prob-margin``), whose runs are dealt in a seeded order: the
   same two error rates, baseline noise included.
4. Against the fixed-run comparison at the same α: the runs saved at true differences of 0,
   10 and 30 points, and how often each finds the difference (the table in
   docs/comparisons.rst comes from ``benchmarks/sequential_ab.py``, the same computation with
   more sessions).

Every simulation is seeded, so each outcome is fixed. The ``anytime`` sequences are
conservative (their error rates are far below α), so their bounds hold with a wide margin.
The ``horizon`` design (the default, issue 36) spends α over the planned pairs, so its
error rates sit close to α: a simulated rate is checked against α plus three standard
errors of the simulation, and tests/test_comparisons_groupseq.py checks one input exactly.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from pytest_probability.extensions.comparisons.sequential.outcome import (
    baseline_runs,
    replay,
    sequence_outcome,
)
from pytest_probability.extensions.comparisons.sequential.plan import Rule, simulate
from pytest_probability.extensions.comparisons.sequential.rule import (
    ANYTIME,
    DIFFERENCE,
    FAIL,
    HORIZON,
    PASS,
    HorizonLook,
    MixtureLook,
    PairedRuns,
    RoundsLook,
    settle,
)
from pytest_probability.extensions.comparisons.statistics.bernstein import RoundSequence
from pytest_probability.extensions.comparisons.statistics.paired import newcombe_difference
from pytest_probability.extensions.comparisons.statistics.signflip import bootstrap_difference

ALPHA = 0.05


def _allowed(sessions: int, design: str) -> float:
    """α itself for the conservative ``anytime`` sequences; α plus three standard errors of
    a simulated rate for ``horizon``, whose true rate is near α."""
    if design == ANYTIME:
        return ALPHA
    return ALPHA + 3 * (ALPHA * (1 - ALPHA) / sessions) ** 0.5


def _rates(inputs: int, centre: float, rng: random.Random) -> list[float]:
    """Each input's own pass rate, spread around ``centre`` (one input: the centre)."""
    if inputs == 1:
        return [centre]
    return [min(0.99, max(0.01, centre + rng.uniform(-0.15, 0.15))) for _ in range(inputs)]


def _session(
    rng: random.Random, arm: list[float], base: list[float], runs: int, rule: Rule
) -> tuple[int, str | None]:
    """One monitored session: ``(pairs made, settled reading or None)``, stopping at the
    first look the rule settles."""
    inputs = len(arm)
    if rule.design == HORIZON:
        xa = xb = 0
        for k in range(1, runs + 1):
            xa += sum(rng.random() < a for a in arm)
            xb += sum(rng.random() < b for b in base)
            look = HorizonLook(xa, xb, k * inputs, inputs, k, runs - k, rule.level)
            found = settle(look, rule.margin, rule.equivalence, rule.resolution)
            if found is not None:
                return k * inputs, found
        return runs * inputs, None
    if inputs == 1:
        xa = xb = 0
        for n in range(1, runs + 1):
            xa += rng.random() < arm[0]
            xb += rng.random() < base[0]
            look = MixtureLook(xa, xb, n, runs - n, rule.level)
            found = settle(look, rule.margin, rule.equivalence, rule.resolution)
            if found is not None:
                return n, found
        return runs, None
    sequence = RoundSequence(inputs, rule.level)
    for k in range(1, runs + 1):
        sequence.add_round(
            [(rng.random() < a) - (rng.random() < b) for a, b in zip(arm, base, strict=True)]
        )
        found = settle(
            RoundsLook(sequence, runs - k), rule.margin, rule.equivalence, rule.resolution
        )
        if found is not None:
            return k * inputs, found
    return runs * inputs, None


@pytest.mark.slow
@pytest.mark.parametrize("inputs", [1, 3, 20])
@pytest.mark.parametrize("runs", [10, 40])
def test_false_difference_rate_under_equal_arms(inputs: int, runs: int) -> None:
    """``anytime``: equal arms (each input's rate shared by both), resolution 0 so that only
    a found difference stops a session: the chance of ever leaving out zero is at most α at
    every rate of the grid (250 sessions each; the true rate is well under 1 %)."""
    rng = random.Random(1000 * inputs + runs)
    rule = Rule(1 - ALPHA, resolution=0.0, design=ANYTIME)
    for centre in (0.2, 0.5, 0.9):
        found = 0
        sessions = 250
        for _ in range(sessions):
            rates = _rates(inputs, centre, rng)
            _, reading = _session(rng, rates, rates, runs, rule)
            found += reading == DIFFERENCE
        assert found / sessions <= ALPHA, (inputs, runs, centre, found)


def _horizon_false_rate(inputs: int, runs: int, centre: float, sessions: int, seed: int) -> float:
    rng = random.Random(seed)
    rule = Rule(1 - ALPHA, resolution=0.0, design=HORIZON)
    found = 0
    for _ in range(sessions):
        rates = _rates(inputs, centre, rng)
        _, reading = _session(rng, rates, rates, runs, rule)
        found += reading == DIFFERENCE
    return found / sessions


def test_horizon_false_difference_rate_small() -> None:
    """A cheap cell of the grid below (every CI leg runs it)."""
    assert _horizon_false_rate(20, 20, 0.8, 300, seed=1) <= _allowed(300, HORIZON)


@pytest.mark.slow
@pytest.mark.parametrize("inputs", [1, 20])
@pytest.mark.parametrize("runs", [20, 100])
@pytest.mark.parametrize("centre", [0.5, 0.8])
def test_horizon_false_difference_rate_under_equal_arms(
    inputs: int, runs: int, centre: float
) -> None:
    """``horizon``, monitored after every pair (one input) or round (20 inputs) until the
    planned runs run out: the false-difference rate is at most α (within the simulation's
    error; the exact one-input rates are in tests/test_comparisons_groupseq.py)."""
    sessions = 400
    rate = _horizon_false_rate(inputs, runs, centre, sessions, seed=inputs + runs)
    assert rate <= _allowed(sessions, HORIZON), rate


@pytest.mark.slow
@pytest.mark.parametrize("design", [HORIZON, ANYTIME])
@pytest.mark.parametrize("inputs", [1, 10])
@pytest.mark.parametrize("equivalence", [False, True], ids=["non-inferiority", "equivalence"])
def test_wrong_verdict_rate_at_the_margin_boundary(
    inputs: int, equivalence: bool, design: str
) -> None:
    """At the boundary (arm − baseline = −10 points against a 10-point non-inferiority
    margin; +10 points against ±10 points of equivalence) both PASS and FAIL are wrong; the
    stopped verdict is one of them in at most α of the sessions."""
    margin = 0.1
    difference = margin if equivalence else -margin
    rule = Rule(1 - ALPHA, margin, equivalence, 0.0, design)
    rng = random.Random(7 + inputs + 100 * equivalence)
    for runs in (20, 60):
        wrong = 0
        sessions = 200 if inputs == 1 else 250
        for _ in range(sessions):
            base = _rates(inputs, 0.6, rng)
            arm = [b + difference for b in base]
            _, reading = _session(rng, arm, base, runs, rule)
            wrong += reading in (PASS, FAIL)
        assert wrong / sessions <= _allowed(sessions, design), (runs, wrong)


def _fixed_finds(
    rng: random.Random, arm: list[float], base: list[float], runs: int, resamples: int
) -> bool:
    """Whether the fixed-run comparison (every planned run) leaves out zero: Newcombe's
    interval for one input, the paired bootstrap over inputs for several (with the expanded
    percentile ends ``--prob-bootstrap-method=auto`` gives a comparison)."""
    counts = [
        (sum(rng.random() < a for _ in range(runs)), sum(rng.random() < b for _ in range(runs)))
        for a, b in zip(arm, base, strict=True)
    ]
    if len(counts) == 1:
        ((xa, xb),) = counts
        low, high = newcombe_difference(xa, runs, xb, runs, 1 - ALPHA)
    else:
        differences = [Fraction(xa - xb, runs) for xa, xb in counts]
        seed = rng.randrange(10**6)
        low, high = bootstrap_difference(differences, 1 - ALPHA, resamples, seed, "expanded")
    return low > 0 or high < 0


#: the grid of the table: (inputs, runs) and true differences
GRID = ((20, 10), (1, 100))
DIFFERENCES = (0.0, 0.1, 0.2, 0.3)


def saved_table(
    sessions: int,
    resamples: int,
    seed: int = 0,
    grid: tuple[tuple[int, int], ...] = GRID,
    differences: tuple[float, ...] = DIFFERENCES,
) -> list[tuple[int, int, float, float, float, float, float, float]]:
    """``(inputs, runs, difference, runs saved and finds under horizon, the same under
    anytime, fixed finds)`` for the issue's grid: 20 inputs × 10 runs and 1 input × 100
    runs, differences 0, 10, 20, 30 points (the better arm at 80 %, the inputs' rates spread
    around it). Each design sees the same sessions' rates, each its own runs."""
    rng = random.Random(seed)
    rules = (Rule(1 - ALPHA, design=HORIZON), Rule(1 - ALPHA, design=ANYTIME))
    table = []
    for inputs, runs in grid:
        for difference in differences:
            made = [0, 0]
            found = [0, 0]
            fixed = 0
            for _ in range(sessions):
                arm = _rates(inputs, 0.8, rng)
                base = [a - difference for a in arm]
                for index, rule in enumerate(rules):
                    pairs, reading = _session(rng, arm, base, runs, rule)
                    made[index] += pairs
                    found[index] += reading == DIFFERENCE
                fixed += _fixed_finds(rng, arm, base, runs, resamples)
            total = sessions * inputs * runs
            table.append(
                (
                    inputs,
                    runs,
                    difference,
                    1 - made[0] / total,
                    found[0] / sessions,
                    1 - made[1] / total,
                    found[1] / sessions,
                    fixed / sessions,
                )
            )
    return table


@pytest.mark.slow
def test_runs_saved_against_the_fixed_run_comparison() -> None:
    """Issue 36's targets on the cheap cells (20 inputs × 10 runs), 300 sessions: under
    ``horizon`` the runs saved are at least half at 30 points and a tenth at 10; it finds
    the difference at least 85 % as often as the fixed-run comparison at 10 and 20 points
    (less the simulation's error), and more often than ``anytime``."""
    sessions = 300
    rows = saved_table(sessions=sessions, resamples=400, grid=((20, 10),))
    table = {row[2]: row for row in rows}
    error = 2 * (0.25 / sessions) ** 0.5
    assert table[0.0][4] <= _allowed(sessions, HORIZON)
    assert table[0.3][3] >= 0.5 and table[0.3][4] >= 0.95
    assert table[0.1][3] >= 0.1
    for difference in (0.1, 0.2):
        _, _, _, _, horizon, _, anytime, fixed = table[difference]
        assert horizon >= 0.85 * fixed - error, table[difference]
        assert horizon > anytime


@pytest.mark.parametrize("design", [HORIZON, ANYTIME])
def test_plan_simulation_agrees_with_the_sessions(design: str) -> None:
    """``--prob-plan``'s simulation (seqplan) and the sessions above follow the same rule:
    with every input at the same rates, their expected pairs agree within a few standard
    errors."""
    rule = Rule(1 - ALPHA, design=design)
    plan = simulate(8, 10, 0.9, 0.6, rule, sessions=300, seed=3)
    rng = random.Random(4)
    made = [_session(rng, [0.9] * 8, [0.6] * 8, 10, rule)[0] for _ in range(300)]
    mean = sum(made) / len(made)
    spread = (sum((m - mean) ** 2 for m in made) / len(made)) ** 0.5
    assert abs(plan.expected_pairs - mean) <= 4 * spread / len(made) ** 0.5 + 1
    found = sum(1 for m in made if m < 80) / len(made)  # (stopped before the cap: found)
    assert plan.right == DIFFERENCE and plan.right_chance >= 0.5 and found >= 0.5


# -- against a baseline report (--prob-margin under --prob-stop=sequential) -------------------
def _baseline_session(
    rng: random.Random, now: list[float], then: list[float], runs: int, rule: Rule, tag: int
) -> str | None:
    """One monitored session against a baseline report: each baseline case's count drawn
    from ``runs`` runs, dealt in its seeded order (:func:`seqbaseline.baseline_runs`), this
    session's runs drawn in order, and the looks replayed by the report's own function
    (:func:`sequential.replay`) — the reading it settled on, or ``None``."""
    inputs = []
    for index, (rate_now, rate_then) in enumerate(zip(now, then, strict=True)):
        passes = sum(rng.random() < rate_then for _ in range(runs))
        dealt = baseline_runs(f"case{index}", passes, runs, seed=tag)
        made = tuple(int(rng.random() < rate_now) for _ in range(runs))
        inputs.append(PairedRuns(f"case{index}", made, dealt))
    _, reading = replay(
        inputs, rule.level, rule.margin, rule.equivalence, rule.resolution, rule.design
    )
    return reading


def _baseline_error_rates(inputs: int, runs: int, sessions: int, seed: int) -> tuple[int, int]:
    """``(wrong margin verdicts at the boundary, differences found between equal rates)``
    over ``sessions`` sessions each."""
    rng = random.Random(seed)
    margin = 0.1
    wrong = found = 0
    for session in range(sessions):
        then = _rates(inputs, 0.6, rng)
        boundary = [rate - margin for rate in then]
        reading = _baseline_session(
            rng, boundary, then, runs, Rule(1 - ALPHA, margin, False, 0.0), session
        )
        wrong += reading in (PASS, FAIL)
        same = _baseline_session(rng, then, then, runs, Rule(1 - ALPHA, resolution=0.0), session)
        found += same == DIFFERENCE
    return wrong, found


def test_baseline_runs_are_dealt_in_a_uniform_order() -> None:
    """Every arrangement of 2 passes among 5 runs is dealt equally often over seeds (within
    4 standard errors), and a seed deals the same order in every process."""
    counts: dict[tuple[int, ...], int] = {}
    draws = 20_000
    for seed in range(draws):
        dealt = baseline_runs("bench_x.py::bench_a::q01", 2, 5, seed)
        counts[dealt] = counts.get(dealt, 0) + 1
    assert len(counts) == 10 and all(sum(order) == 2 for order in counts)
    expected = draws / 10
    spread = (draws * 0.1 * 0.9) ** 0.5
    assert all(abs(count - expected) <= 4 * spread for count in counts.values()), counts
    assert baseline_runs("k", 3, 7, 0) == baseline_runs("k", 3, 7, 0) == (1, 0, 1, 0, 0, 1, 0)
    with pytest.raises(ValueError, match="passes must lie in"):
        baseline_runs("k", 4, 3, 0)


def test_baseline_margin_error_rates_small() -> None:
    """A quick version of the slow check below (every CI leg runs it)."""
    wrong, found = _baseline_error_rates(inputs=10, runs=20, sessions=60, seed=5)
    bound = _allowed(60, HORIZON)
    assert wrong / 60 <= bound and found / 60 <= bound, (wrong, found)


@pytest.mark.slow
@pytest.mark.parametrize("inputs", [1, 10])
@pytest.mark.parametrize("runs", [20, 60])
def test_baseline_margin_error_rates(inputs: int, runs: int) -> None:
    """Against a baseline report whose runs are dealt in a seeded order: at the margin's
    boundary (now − baseline = −10 points against ``--prob-margin=0.1``) the verdict the
    sequence settles on is wrong (PASS or FAIL) in at most α of the sessions, and between
    equal rates it claims a difference in at most α — both including the baseline's own
    noise, which treating its fractions as fixed would ignore."""
    sessions = 250
    wrong, found = _baseline_error_rates(inputs, runs, sessions, seed=100 * inputs + runs)
    assert wrong / sessions <= _allowed(sessions, HORIZON), (wrong, sessions)
    assert found / sessions <= _allowed(sessions, HORIZON), (found, sessions)


# -- the estimate after an early stop ------------------------------------------------------------
def _reported_estimates(
    arm: float, base: float, runs: int, margin: float | None, equivalence: bool, sessions: int
) -> tuple[float, float, float, float]:
    """One input monitored on the ``horizon`` design through the report's own reading
    (:func:`sequence_outcome`): the shares of sessions whose reported difference is above and
    below the true one, and — over the sessions whose estimate was adjusted — the mean error
    of the reported difference and of the one over the pairs used."""
    rng = random.Random(f"{arm}-{base}-{runs}-{margin}-{equivalence}")
    truth = arm - base
    above = below = adjusted = 0
    reported_error = observed_error = 0.0
    for _ in range(sessions):
        runs_arm = tuple(int(rng.random() < arm) for _ in range(runs))
        runs_base = tuple(int(rng.random() < base) for _ in range(runs))
        found = sequence_outcome(
            [PairedRuns("x", runs_arm, runs_base)], 1 - ALPHA, margin, equivalence, 0.0, HORIZON
        )
        above += found.difference > truth + 1e-9
        below += found.difference < truth - 1e-9
        if found.detail["estimate"] == "median-unbiased":
            adjusted += 1
            reported_error += found.difference - truth
            observed_error += found.detail["observed"] - truth
    return (
        above / sessions,
        below / sessions,
        reported_error / adjusted,
        observed_error / adjusted,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arm", "base", "margin", "equivalence"),
    [(0.8, 0.5, None, False), (0.5, 0.8, 0.1, False), (0.8, 0.5, 0.1, True)],
    ids=["difference", "non-inferiority-fail", "equivalence-fail"],
)
def test_the_reported_estimate_is_median_unbiased_after_early_stops(
    arm: float, base: float, margin: float | None, equivalence: bool
) -> None:
    """30 points apart over one input × 30 pairs, many sessions stop early on a boundary
    (for a difference, a non-inferiority FAIL, an equivalence FAIL): the true difference is a
    median of the reported estimate (above it in about half of the sessions, below it in about
    half: 200 sessions, within 10 points of ½), and after those stops the reported estimate
    is nearer the truth on average than the difference over the pairs used, which leans away
    from the value whose boundary it crossed."""
    above, below, reported, observed = _reported_estimates(arm, base, 30, margin, equivalence, 200)
    assert abs(above - 0.5) <= 0.1 and abs(below - 0.5) <= 0.1, (above, below)
    assert abs(reported) < abs(observed), (reported, observed)
    assert (observed > 0) == (arm > base)  # (the winner's curse, on the side it crossed)
