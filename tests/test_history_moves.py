"""Which moves are real (issue 38 §3): :func:`history.moves.assess` and the two statistics it
stands on.

* **reference**: ``fisher_exact_p`` against ``scipy.stats.fisher_exact`` (two-sided) to 1e-9
  over a grid of tables up to 500 pooled runs, and ``benjamini_hochberg`` against
  statsmodels' ``multipletests(method="fdr_bh")`` to 1e-12;
* **by hand**: small histories whose every count, comparison, status and headline line is
  known;
* **seeded simulation** (the numbers docs/history.rst quotes): 500 steady cases raise at most
  α false flags on average; with 20 real drops among 480 steady cases the false-discovery
  proportion stays at most α, and the share of drops found is measured; and the issue's
  "done when": 50 generated sessions × 200 cases with injected changes, read from disk;
* **properties** (hypothesis, derandomized): adjusted ≥ raw, real ⇔ adjusted ≤ α, the
  order the files are given in does not matter, swapping the two sessions swaps worse and
  better, and a case whose counts never change is never flagged.

Every simulation is seeded: its outcome is fixed, and the assertions compare real values.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from history_sessions import case_ids, generate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_probability.api import benjamini_hochberg, fisher_exact_p
from pytest_probability.extensions.history.moves import (
    BETTER,
    NEW,
    PREVIOUS,
    STEADY,
    WINDOW,
    WORSE,
    Assessment,
    assess,
)
from pytest_probability.extensions.history.sessions import (
    CasePoint,
    History,
    Session,
    read_history,
)

ALPHA = 0.05
PROPERTY = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# -- building histories ----------------------------------------------------------------------


def point(case: str, passes: int, total: int, gate: str | None = None) -> CasePoint:
    return CasePoint(case, case.split("::", 1)[0], passes, total, gate=gate)


def session(
    day: int, points: Sequence[CasePoint], commit: str | None = None, runs: int | None = None
) -> Session:
    return Session(
        source=f"s{day:02d}.json",
        created=f"2026-01-{day:02d}T09:00:00",
        commit=commit,
        runs=runs,
        exit_status=0,
        cases={p.case: p for p in points},
    )


def counts(*sessions: dict[str, tuple[int, int]]) -> History:
    """A history from one ``{case: (passes, total)}`` per session, oldest first."""
    return History(
        sessions=[
            session(day, [point(case, x, n) for case, (x, n) in cases.items()])
            for day, cases in enumerate(sessions, 1)
        ]
    )


def write_report(
    directory: Path,
    name: str,
    created: str,
    rows: dict[str, tuple[int, int]],
    commit: str | None = None,
    gates: dict[str, str] | None = None,
) -> Path:
    """A report in the spec's format (``created``, ``rows`` of case/passes/total) with the
    ``history.commit`` a ``--prob-history`` entry carries."""
    document: dict[str, Any] = {
        "created": created,
        "rows": [
            {
                "case": case,
                "label": case.split("::", 1)[0],
                "passes": x,
                "fails": n - x,
                "errors": 0,
                "total": n,
                **({"gate": {"verdict": gates[case]}} if gates and case in gates else {}),
            }
            for case, (x, n) in rows.items()
        ],
    }
    if commit is not None:
        document["history"] = {"commit": commit}
    path = directory / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def summary(assessment: Assessment) -> list[tuple[Any, ...]]:
    """What an assessment says, without the sessions' file paths."""
    out: list[tuple[Any, ...]] = []
    for move in assessment.moves:
        out.append(
            (
                move.case,
                move.function,
                move.status,
                [
                    (
                        c.against,
                        c.sessions,
                        c.since.created,
                        c.base_passes,
                        c.base_total,
                        c.latest_passes,
                        c.latest_total,
                        c.p_value,
                        c.p_adjusted,
                        c.real,
                    )
                    for c in move.comparisons
                ],
            )
        )
    return out


def flagged(assessment: Assessment) -> dict[str, str]:
    return {m.case: m.status for m in assessment.moves if m.status in (WORSE, BETTER)}


# -- 1. reference checks ---------------------------------------------------------------------


def fisher_tables() -> list[tuple[int, int, int, int]]:
    """``(x_latest, n_latest, x_base, n_base)``: every table of the small totals, and a
    sample (with every edge) of 20 runs against 100 and 500 pooled ones."""
    tables = []
    for n_a, n_b in [(1, 1), (1, 2), (2, 1), (3, 7), (7, 3), (5, 5), (10, 20), (20, 20)]:
        tables += [(a, n_a, b, n_b) for a in range(n_a + 1) for b in range(n_b + 1)]
    for n_a, n_b in [(20, 100), (20, 500), (1, 500), (40, 120), (100, 20)]:
        bs = sorted({*range(0, n_b + 1, max(1, n_b // 37)), 0, 1, 2, n_b - 2, n_b - 1, n_b})
        bs += [b for b in range(max(0, n_b - 30), n_b + 1) if b not in bs]
        as_ = sorted({*range(0, n_a + 1, max(1, n_a // 10)), 0, 1, n_a - 1, n_a})
        tables += [(a, n_a, b, n_b) for a in as_ for b in bs]
    return tables


def test_fisher_exact_p_matches_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    tables = fisher_tables()
    assert len(tables) > 2000
    worst = 0.0
    for a, n_a, b, n_b in tables:
        mine = fisher_exact_p(a, n_a, b, n_b)
        ref = float(stats.fisher_exact([[a, n_a - a], [b, n_b - b]], alternative="two-sided")[1])
        assert abs(mine - ref) <= 1e-9, (a, n_a, b, n_b, mine, ref)
        if ref > 0:  # tiny tails too: relative
            worst = max(worst, abs(mine - ref) / ref)
            assert abs(mine - ref) <= 1e-9 * ref, (a, n_a, b, n_b, mine, ref)
        # the test does not care which row is the latest one
        assert fisher_exact_p(b, n_b, a, n_a) == mine
    assert worst < 1e-12  # measured: ~2e-15


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ((0, 20, 0, 100), 1.0),  # 0/n against 0/n: nothing to compare
        ((20, 20, 100, 100), 1.0),  # n/n against n/n
        ((10, 10, 8, 10), 9 / 19),  # the spec's example: 0.4737
        ((0, 20, 20, 20), 2 / math.comb(40, 20)),  # the two most extreme tables
        ((20, 20, 0, 500), 1 / math.comb(520, 20)),  # one tail only: below it, nothing
    ],
)
def test_fisher_exact_p_edges(table: tuple[int, int, int, int], expected: float) -> None:
    assert fisher_exact_p(*table) == pytest.approx(expected, rel=1e-12, abs=0)


def bh_vectors() -> list[list[float]]:
    rng = random.Random(38)
    vectors: list[list[float]] = [
        [0.0],
        [1.0],
        [0.03],
        [1.0] * 7,
        [0.0] * 4,
        [0.01, 0.01, 0.01, 0.01],
        [0.05, 0.05, 1.0, 1.0, 0.0],
        [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216],
    ]
    for size in (2, 3, 5, 10, 50, 200, 1000):
        for _ in range(6):
            vectors.append([rng.random() for _ in range(size)])
            # ties and ones, as discrete tests give them
            vectors.append([min(1.0, round(rng.random() ** 3, 2)) for _ in range(size)])
            vectors.append([rng.choice((1.0, 1.0, 0.5, 0.04, 1e-5, 0.04)) for _ in range(size)])
            vectors.append([rng.random() * 1e-3 for _ in range(size)])
    return vectors


def test_benjamini_hochberg_matches_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    for ps in bh_vectors():
        mine = benjamini_hochberg(ps)
        ref = multitest.multipletests(ps, alpha=ALPHA, method="fdr_bh")[1]
        assert len(mine) == len(ps)
        for got, want, p in zip(mine, ref, ps, strict=True):
            assert abs(got - float(want)) <= 1e-12, (ps, got, want)
            assert got >= p
        # tied p-values get equal adjusted values
        by_p: dict[float, set[float]] = {}
        for got, p in zip(mine, ps, strict=True):
            by_p.setdefault(p, set()).add(got)
        assert all(len(values) == 1 for values in by_p.values())
    assert benjamini_hochberg([]) == []


# -- 2. assess() on hand-made histories ------------------------------------------------------

A_COMMIT = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
B_COMMIT = "0f1e2d3c4b5a69788796a5b4c3d2e1f0aabbccdd"


def test_two_sessions_read_from_files(tmp_path: Path) -> None:
    """Two reports on disk: the window is the previous session, so one test per case."""
    write_report(
        tmp_path,
        "b.json",
        "2026-01-02T09:00:00",
        {"f::a": (5, 20), "f::b": (10, 20), "g::c": (19, 20), "g::new": (3, 4)},
        commit=B_COMMIT,
        gates={"f::a": "fail", "g::c": "pass"},
    )
    write_report(
        tmp_path,
        "a.json",
        "2026-01-01T09:00:00",
        {"f::a": (20, 20), "f::b": (10, 20), "g::c": (2, 20), "g::gone": (7, 10)},
        commit=A_COMMIT,
    )
    history = read_history([tmp_path])
    assert history.skipped == []
    assert [s.commit for s in history.sessions] == [A_COMMIT, B_COMMIT]
    result = assess(history)
    first, latest = history.sessions
    assert result.latest is latest and result.previous is first
    assert result.tests == 3
    assert result.gone == ["g::gone"]
    assert [(m.case, m.function, m.status) for m in result.moves] == [
        ("f::a", "f", WORSE),
        ("f::b", "f", STEADY),
        ("g::c", "g", BETTER),
        ("g::new", "g", NEW),
    ]
    moves = {m.case: m for m in result.moves}
    assert all(m.window is None for m in result.moves)
    assert moves["g::new"].previous is None and moves["g::new"].comparisons == []
    raw = [
        fisher_exact_p(5, 20, 20, 20),
        fisher_exact_p(10, 20, 10, 20),
        fisher_exact_p(19, 20, 2, 20),
    ]
    adjusted = benjamini_hochberg(raw)
    for case, p, q in zip(("f::a", "f::b", "g::c"), raw, adjusted, strict=True):
        comparison = moves[case].previous
        assert comparison is not None
        assert comparison.against == PREVIOUS and comparison.sessions == 1
        assert comparison.since is first
        assert (comparison.p_value, comparison.p_adjusted) == (p, q)
        assert comparison.real is (q <= ALPHA)
    assert raw[1] == 1.0
    a = moves["f::a"].previous
    assert a is not None
    assert (a.base_passes, a.base_total, a.latest_passes, a.latest_total) == (20, 20, 5, 20)
    assert a.change == -0.75
    assert [m.case for m in result.gated_worse] == ["f::a"]
    assert moves["g::c"].gated and not moves["f::b"].gated
    assert result.headline() == [
        "1 case got worse since a1b2c3d: f::a (100% → 25%)",
        "1 case got better since a1b2c3d: g::c (10% → 95%)",
    ]


def test_previous_is_the_last_session_the_case_ran_in() -> None:
    history = counts(
        {"f::x": (18, 20), "f::y": (10, 20)},
        {"f::y": (11, 20)},
        {"f::y": (12, 20), "f::z": (20, 20)},
        {"f::x": (2, 20), "f::y": (9, 20), "f::z": (20, 20)},
    )
    s1, s2, s3, _ = history.sessions
    result = assess(history)
    moves = {m.case: m for m in result.moves}
    x, y, z = moves["f::x"], moves["f::y"], moves["f::z"]
    # x skipped s2 and s3: its previous session is s1, which is also all its window pools
    assert x.previous is not None and x.previous.since is s1
    assert (x.previous.base_passes, x.previous.base_total) == (18, 20)
    assert x.window is None
    # y ran everywhere: previous s3, window s1..s3 pooled
    assert y.previous is not None and y.previous.since is s3
    assert y.window is not None
    assert (y.window.sessions, y.window.since) == (3, s1)
    assert (y.window.base_passes, y.window.base_total) == (33, 60)
    # z ran only in s3 before: the window would pool s3 alone, the previous test's runs
    assert z.previous is not None and z.previous.since is s3 and z.window is None
    assert result.tests == 4
    assert x.status == WORSE and y.status == STEADY and z.status == STEADY
    assert result.gone == []
    # its p-value is the table 2/20 against 18/20, among 4 tests
    assert x.previous.p_value == fisher_exact_p(2, 20, 18, 20)
    assert s2.cases.keys() == {"f::y"}


def test_window_pools_only_the_last_window_sessions() -> None:
    rows = [
        {"f::v": (v, 10), "f::w": (w, 10), "f::z": (z, 10)}
        for v, w, z in [(1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 1, 2), (3, 4, 5), (6, 7, 8)]
    ]
    rows.insert(3, {"f::w": (9, 10), "f::z": (0, 10)})  # v skips session 4
    rows[5].pop("f::w")  # w skips session 6
    rows[2].pop("f::z")  # z skips session 3
    rows[0]["f::u"] = (10, 10)  # u ran once, long before the window
    rows.append({"f::v": (5, 10), "f::w": (5, 10), "f::z": (5, 10), "f::u": (0, 10)})
    history = counts(*rows)
    sessions = history.sessions
    assert len(sessions) == 8
    result = assess(history, window=3)
    moves = {m.case: m for m in result.moves}
    # the window is sessions 5, 6 and 7 (indices 4..6), whatever ran before
    v, w, z = moves["f::v"].window, moves["f::w"].window, moves["f::z"].window
    assert v is not None and w is not None and z is not None
    assert (v.sessions, v.since, v.base_passes, v.base_total) == (3, sessions[4], 10 + 3 + 6, 30)
    assert (w.sessions, w.since, w.base_passes, w.base_total) == (2, sessions[4], 1 + 7, 20)
    assert (z.sessions, z.since, z.base_passes, z.base_total) == (3, sessions[4], 2 + 5 + 8, 30)
    assert all(c.against == WINDOW for c in (v, w, z))
    previous = moves["f::w"].previous
    assert previous is not None and previous.since is sessions[6]
    # u: its previous session is older than the window, which holds none of its runs
    u = moves["f::u"]
    assert u.previous is not None and u.previous.since is sessions[0] and u.window is None
    assert u.status == WORSE  # 0/10 against 10/10
    assert result.tests == 7
    # window=1: the window is the previous session, never a second test
    one = assess(history, window=1)
    assert one.tests == 4 and all(m.window is None for m in one.moves)
    # a window wider than the history pools every earlier session the case ran in
    wide = assess(history, window=50)
    wide_v = {m.case: m for m in wide.moves}["f::v"].window
    assert wide_v is not None
    assert (wide_v.sessions, wide_v.base_passes, wide_v.base_total) == (6, 31, 60)


def test_a_move_real_only_against_the_window() -> None:
    """The previous session was already low by chance; the window shows the drop."""
    steady = {"f::a": (20, 20), "f::b": (10, 20)}
    history = counts(
        steady, steady, steady, steady, {"f::a": (14, 20), "f::b": (10, 20)},
        {"f::a": (10, 20), "f::b": (10, 20)},
    )  # fmt: skip
    result = assess(history)
    move = {m.case: m for m in result.moves}["f::a"]
    assert move.previous is not None and move.window is not None
    assert not move.previous.real and move.window.real
    assert (move.window.base_passes, move.window.base_total, move.window.sessions) == (94, 100, 5)
    assert move.status == WORSE and move.real is move.window
    assert result.tests == 4
    assert result.headline() == [
        "1 case got worse since 2026-01-05T09:00:00: f::a (94% over 5 sessions → 50%)"
    ]


def test_gated_worse_and_the_headline_limit() -> None:
    cases = [f"f::c{i}" for i in range(7)]
    before = session(1, [point(c, 20, 20) for c in cases], commit=A_COMMIT)
    latest = session(
        2,
        [point(c, 4, 20, gate="fail" if i % 2 else None) for i, c in enumerate(cases)]
        + [point("g::ok", 20, 20, gate="pass")],
        commit=B_COMMIT,
    )
    result = assess(History([before, latest]))
    assert [m.case for m in result.worse] == cases
    assert [m.case for m in result.gated_worse] == ["f::c1", "f::c3", "f::c5"]
    ok = {m.case: m for m in result.moves}["g::ok"]
    assert ok.gated and ok.status == NEW
    assert result.headline() == [
        "7 cases got worse since a1b2c3d: f::c0 (100% → 20%), f::c1 (100% → 20%), "
        "f::c2 (100% → 20%), f::c3 (100% → 20%), f::c4 (100% → 20%), and 2 more"
    ]
    assert result.headline(limit=1) == [
        "7 cases got worse since a1b2c3d: f::c0 (100% → 20%), and 6 more"
    ]
    assert result.headline(limit=7)[0].endswith("f::c6 (100% → 20%)")


def test_nothing_real_and_nothing_to_compare() -> None:
    steady = counts({"f::a": (9, 10), "g::b": (3, 10)}, {"f::a": (8, 10), "g::b": (4, 10)})
    result = assess(steady, alpha=0.01)
    assert result.worse == [] and result.better == [] and result.tests == 2
    assert result.headline() == [
        "No real moves since 2026-01-01T09:00:00: 2 cases tested at α = 0.01."
    ]
    single = assess(counts({"f::a": (9, 10)}))
    assert single.previous is None and single.tests == 0 and single.gone == []
    assert [m.status for m in single.moves] == [NEW]
    assert single.headline() == ["One session (2026-01-01T09:00:00): nothing to compare yet."]
    with_commit = History([session(1, [point("f::a", 1, 1)], commit=A_COMMIT)])
    assert assess(with_commit).headline() == ["One session (a1b2c3d): nothing to compare yet."]
    empty = assess(History())
    assert (empty.latest, empty.moves, empty.tests) == (None, [], 0)
    assert empty.headline() == ["No session to read."]


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5, math.nan, math.inf])
def test_bad_alpha(alpha: float) -> None:
    with pytest.raises(ValueError, match="alpha must be strictly between 0 and 1"):
        assess(counts({"f::a": (1, 2)}), alpha=alpha)


@pytest.mark.parametrize("window", [0, -1, -50, 2.5, True])
def test_bad_window(window: int) -> None:
    with pytest.raises(ValueError, match="window must be a whole number of sessions, 1 or more"):
        assess(counts({"f::a": (1, 2)}), window=window)


def test_a_case_read_under_two_functions_is_assessed_once() -> None:
    """A spec-format report may give a row a ``label`` with ``::`` in it (``K::f``), another
    report none: the same case id then falls under two functions, and is listed (and
    tested) once, under the function its latest point names."""
    old = session(1, [CasePoint("K::f::x", "K", 10, 10)])
    new = session(2, [CasePoint("K::f::x", "K::f", 0, 10)])
    result = assess(History([old, new]))
    assert [m.case for m in result.moves] == ["K::f::x"]
    assert result.tests == 1
    assert result.headline() == ["1 case got worse since 2026-01-01T09:00:00: K::f::x (100% → 0%)"]


def test_the_headline_names_the_older_session_a_case_skipped_to() -> None:
    """A case that did not run in the session before the latest is compared with the last
    one it ran in, and the headline names that one; new cases are not counted as tested."""
    result = assess(
        counts({"f::a": (10, 10), "f::b": (9, 10)}, {"f::b": (9, 10)}, {"f::a": (0, 10)}),
        window=1,
    )
    assert result.headline() == [
        "1 case got worse since 2026-01-02T09:00:00: f::a (100% in 2026-01-01T09:00:00 → 0%)"
    ]
    steady = assess(counts({"f::a": (9, 10)}, {"f::a": (9, 10), "f::new": (1, 10)}))
    assert [move.status for move in steady.moves] == ["steady", "new"]
    assert steady.headline() == [
        "No real moves since 2026-01-01T09:00:00: 1 case tested at α = 0.05."
    ]


# -- 3. seeded simulation --------------------------------------------------------------------

#: A realistic mix of steady pass rates.
STEADY_RATES = (1.0, 0.98, 0.95, 0.9, 0.8, 0.6, 0.5)
#: Real drops (rate before, rate in the latest session), all of 30 points or more.
DROPS = (
    (1.0, 0.7),
    (0.95, 0.6),
    (0.9, 0.6),
    (0.9, 0.5),
    (0.8, 0.5),
    (0.8, 0.4),
    (0.6, 0.3),
    (0.5, 0.2),
    (1.0, 0.5),
    (0.95, 0.5),
)
RUNS, SESSIONS = 20, 6


def simulated(rng: Any, before: Any, after: Any) -> History:
    """``SESSIONS`` sessions of ``RUNS`` runs per case: the rates ``before``, then ``after``
    in the latest session."""
    import numpy as np

    rates = np.tile(before, (SESSIONS, 1))
    rates[-1] = after
    passes = rng.binomial(RUNS, rates).tolist()
    names = [f"f::c{i:03d}" for i in range(len(before))]
    return History(
        sessions=[
            session(
                day + 1,
                [CasePoint(name, "f", x, RUNS) for name, x in zip(names, row, strict=True)],
                runs=RUNS,
            )
            for day, row in enumerate(passes)
        ]
    )


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its Monte Carlo standard error."""
    n = len(values)
    mean = math.fsum(values) / n
    spread = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(spread / n)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mix", "suites", "expected"),
    [
        # measured: mean 0.0100 (SE 0.0050), 4 of 400 suites with any flag
        (STEADY_RATES, 400, (0.01, 4)),
        # every case at 50%, where Fisher's test is least discrete, so least conservative:
        # measured mean 0.0175 (SE 0.0066), 7 of 400 suites with any flag
        ((0.5,), 400, (0.0175, 7)),
    ],
    ids=["realistic-mix", "all-half"],
)
def test_500_steady_cases_raise_at_most_alpha_false_flags(
    mix: tuple[float, ...], suites: int, expected: tuple[float, int]
) -> None:
    """500 steady cases × 6 sessions × 20 runs, window 5 (1000 tests a suite): the mean
    number of flagged cases over seeded suites is at most α."""
    np = pytest.importorskip("numpy")
    flags: list[float] = []
    for index in range(suites):
        rng = np.random.default_rng((38, len(mix), index))
        rates = rng.choice(np.array(mix), size=500)
        result = assess(simulated(rng, rates, rates))
        assert result.tests == 1000
        flags.append(len(result.worse) + len(result.better))
    mean, error = mean_and_error(flags)
    with_any = sum(1 for f in flags if f)
    figures = f"mean {mean:.4f} (MC SE {error:.4f}), {with_any}/{suites} suites with any flag"
    assert mean <= ALPHA, figures
    # BH under no change at all: the chance of any flag is at most α too
    assert with_any / suites <= ALPHA, figures
    assert (mean, with_any) == pytest.approx(expected), figures


#: The power measured over the 400 suites below (0.5624, MC SE 0.0051), less 5 MC SEs.
POWER_FLOOR = 0.53


@pytest.mark.slow
def test_fdr_and_power_with_twenty_real_drops() -> None:
    """480 steady cases and 20 real drops of 30–50 points in the latest session: the mean
    false-discovery proportion is at most α, and more than half of the drops are found (each
    in the right direction). A drop flagged as better would count as a false discovery."""
    np = pytest.importorskip("numpy")
    suites = 400
    changed = {f"f::c{i:03d}" for i in range(20)}
    fdp: list[float] = []
    power: list[float] = []
    false_flags: list[float] = []
    found_by_drop = [0] * len(DROPS)
    for index in range(suites):
        rng = np.random.default_rng((38, 20, index))
        before = rng.choice(np.array(STEADY_RATES), size=500)
        after = before.copy()
        for i in range(20):
            before[i], after[i] = DROPS[i % len(DROPS)]
        result = assess(simulated(rng, before, after))
        flags = flagged(result)
        true = {case for case, status in flags.items() if case in changed and status == WORSE}
        fdp.append((len(flags) - len(true)) / max(1, len(flags)))
        false_flags.append(len(flags) - len(true))
        power.append(len(true) / 20)
        for case in true:
            found_by_drop[int(case[4:]) % len(DROPS)] += 1
    fdr, fdr_error = mean_and_error(fdp)
    found, found_error = mean_and_error(power)
    by_drop = {
        f"{b:.0%}→{a:.0%}": n / (2 * suites) for (b, a), n in zip(DROPS, found_by_drop, strict=True)
    }
    false_mean = math.fsum(false_flags) / suites
    with_false = sum(1 for f in false_flags if f)
    figures = (
        f"FDR {fdr:.4f} (MC SE {fdr_error:.4f}), power {found:.4f} (MC SE {found_error:.4f}); "
        f"false flags {false_mean:.3f} a suite, {with_false}/{suites} suites with one; "
        f"found by drop {by_drop}"
    )
    assert fdr <= ALPHA, figures
    assert found >= POWER_FLOOR, figures
    assert (round(fdr, 4), round(found, 4)) == (0.0117, 0.5624), figures
    # α bounds the false flags' share, not their number: ~11 flags, 0.145 of them false
    assert (false_mean, with_false) == (0.145, 50), figures
    # the large drops are nearly always found, 30 points from the middle seldom
    assert by_drop["100%→50%"] >= 0.99 and by_drop["60%→30%"] < 0.2, figures


#: Injected in the generated directory: each at least 40 points (at 20 runs a session, a
#: 30-point move from the middle is found only about one time in three: see above).
INJECTED = ((1.0, 0.6), (0.97, 0.5), (0.95, 0.5), (0.9, 0.4), (0.8, 0.3), (0.6, 0.1), (0.6, 1.0))


def generated(directory: Path, seed: int, inject: bool = True) -> tuple[Any, Assessment]:
    """50 sessions × 200 cases from :func:`history_sessions.generate`, read back from disk
    and assessed, with :data:`INJECTED` on cases whose steady rate matches."""
    changes: dict[int, float] = {}
    ids = [case for _, case in case_ids(200)]
    if inject:
        # the steady rates depend only on the seed and the number of cases: read them from a
        # one-session probe, then put each change on a case with the right rate
        rates = generate(directory / "probe", sessions=1, cases=200, seed=seed).rates
        for before, after in INJECTED:
            index = next(
                i for i, case in enumerate(ids) if rates[case] == before and i not in changes
            )
            changes[index] = after
    truth = generate(directory / "history", sessions=50, cases=200, changes=changes, seed=seed)
    assert sorted(truth.changed[ids[i]] for i in changes) == sorted(INJECTED if inject else ())
    history = read_history([directory / "history"])
    assert len(history.sessions) == 50 and history.skipped == []
    return truth, assess(history)


def test_done_when_generated_history_finds_the_injected_changes(tmp_path: Path) -> None:
    """The issue's "done when": 50 generated sessions, 200 cases, 7 injected changes of 40
    points or more: every one found in its direction, and no steady case flagged.

    One seed shows it whole; it is not a guarantee: over 20 seeds 92% of these changes are
    found (the next test). Seed 0, for one, misses two, whose latest runs happened to land
    closer to the old rate: 90% → 40% drew 10/20 against 85/100 over the window (adjusted
    p 0.068), and 60% → 10% drew 3/20 against 54/100 (0.068)."""
    truth, result = generated(tmp_path, seed=1)
    assert result.tests == 400
    assert set(result.gone) == set()
    assert {m.case for m in result.worse} == truth.worse
    assert {m.case for m in result.better} == truth.better
    assert len(truth.worse) == 6 and len(truth.better) == 1
    assert result.headline()[0].startswith("6 cases got worse since ")
    assert result.headline()[1].startswith("1 case got better since ")
    gated = {m.case for m in result.gated_worse}
    assert gated == {c for c in truth.worse if c.split("::")[0] in ("classify", "triage")}


@pytest.mark.slow
def test_done_when_over_twenty_seeds(tmp_path: Path) -> None:
    """The same over 20 seeds, and each seed's noise-only directory (no change injected):
    with no change the mean number of flags is at most α; with the injected changes the
    mean false-discovery proportion is (BH bounds the false flags' share of the flags, not
    their number: with 7 real moves flagged, ~0.3 false flags would still be within α)."""
    noise_flags: list[float] = []
    fdp: list[float] = []
    false_flags: list[float] = []
    found: list[float] = []
    for seed in range(20):
        _, noise = generated(tmp_path / f"noise{seed}", seed, inject=False)
        noise_flags.append(len(noise.worse) + len(noise.better))
        truth, result = generated(tmp_path / f"changed{seed}", seed)
        flags = flagged(result)
        right = {
            case
            for case, status in flags.items()
            if case in truth.changed
            and status == (WORSE if truth.changed[case][1] < truth.changed[case][0] else BETTER)
        }
        false_flags.append(len(flags) - len(right))
        fdp.append((len(flags) - len(right)) / max(1, len(flags)))
        found.append(len(right) / len(INJECTED))
    noise_mean, noise_error = mean_and_error(noise_flags)
    fdr, fdr_error = mean_and_error(fdp)
    power, power_error = mean_and_error(found)
    figures = (
        f"noise-only: mean flags {noise_mean:.3f} (MC SE {noise_error:.3f}); injected: "
        f"FDR {fdr:.4f} (MC SE {fdr_error:.4f}), mean false flags {sum(false_flags) / 20:.2f}, "
        f"found {power:.3f} (MC SE {power_error:.3f})"
    )
    assert noise_mean <= ALPHA, figures
    assert fdr <= ALPHA, figures
    assert power >= 0.8, figures
    assert (noise_mean, round(fdr, 4), round(power, 3)) == (0.0, 0.0134, 0.921), figures


# -- 4. properties ---------------------------------------------------------------------------

CASES = ("f::a", "f::b", "g::c", "g::d", "h::e")


@st.composite
def histories(
    draw: st.DrawFn, min_sessions: int = 1, max_sessions: int = 6
) -> list[dict[str, tuple[int, int]]]:
    """Sessions as ``{case: (passes, total)}``, each with at least one case."""
    count = draw(st.integers(min_sessions, max_sessions))
    out = []
    for _ in range(count):
        present = draw(st.lists(st.sampled_from(CASES), min_size=1, unique=True))
        rows = {}
        for case in sorted(present):
            total = draw(st.integers(1, 30))
            rows[case] = (draw(st.integers(0, total)), total)
        out.append(rows)
    return out


@PROPERTY
@given(histories(), st.sampled_from((0.01, 0.05, 0.2, 0.5)), st.integers(1, 6))
def test_adjusted_p_values_and_real(
    sessions: list[dict[str, tuple[int, int]]], alpha: float, window: int
) -> None:
    result = assess(counts(*sessions), alpha=alpha, window=window)
    tested = [c for m in result.moves for c in m.comparisons]
    assert result.tests == len(tested)
    assert [c.p_adjusted for c in tested] == benjamini_hochberg([c.p_value for c in tested])
    for move in result.moves:
        for c in move.comparisons:
            assert c.p_adjusted >= c.p_value
            assert c.real is (c.p_adjusted <= alpha)
            assert c.p_value == fisher_exact_p(
                c.latest_passes, c.latest_total, c.base_passes, c.base_total
            )
        assert (move.status in (WORSE, BETTER)) is any(c.real for c in move.comparisons)
        assert (move.status == NEW) is (move.comparisons == [])


@PROPERTY
@given(histories(max_sessions=5), st.randoms(use_true_random=False), st.booleans())
def test_the_order_the_files_are_given_in_does_not_matter(
    sessions: list[dict[str, tuple[int, int]]], shuffle: random.Random, same_time: bool
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        paths = [
            write_report(
                Path(directory),
                f"r{day:02d}.json",  # with equal times, the name orders them
                "2026-01-01T09:00:00" if same_time else f"2026-01-{day:02d}T09:00:00",
                rows,
            )
            for day, rows in enumerate(sessions, 1)
        ]
        given_order = list(paths)
        shuffle.shuffle(given_order)
        in_order = assess(read_history(paths))
        shuffled = assess(read_history(given_order))
        from_directory = assess(read_history([directory]))
    assert summary(shuffled) == summary(in_order) == summary(from_directory)
    assert shuffled.headline() == in_order.headline()
    assert shuffled.gone == in_order.gone
    assert in_order.latest is not None and in_order.latest.name == f"r{len(sessions):02d}.json"


@PROPERTY
@given(histories(min_sessions=2, max_sessions=2), st.sampled_from((0.05, 0.5)))
def test_swapping_the_two_sessions_swaps_worse_and_better(
    sessions: list[dict[str, tuple[int, int]]], alpha: float
) -> None:
    first, second = sessions
    forward = assess(counts(first, second), alpha=alpha)
    backward = assess(counts(second, first), alpha=alpha)
    swap = {WORSE: BETTER, BETTER: WORSE, STEADY: STEADY}
    back = {m.case: m for m in backward.moves}
    for move in forward.moves:
        if move.status == NEW:  # ran only in the second: gone when it comes first
            assert move.case in backward.gone and move.case not in back
            continue
        other = back[move.case]
        assert other.status == swap[move.status]
        assert move.previous is not None and other.previous is not None
        assert other.previous.p_adjusted == move.previous.p_adjusted
        assert other.previous.change == -move.previous.change
    assert sorted(forward.gone) == sorted(m.case for m in backward.moves if m.status == NEW)


@PROPERTY
@given(
    histories(),
    st.integers(1, 40).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.sampled_from((0.01, 0.05, 0.2)),
    st.integers(1, 6),
)
def test_a_case_that_never_changes_is_never_flagged(
    sessions: list[dict[str, tuple[int, int]]],
    same: tuple[int, int],
    alpha: float,
    window: int,
) -> None:
    for rows in sessions:
        rows["z::same"] = same
    result = assess(counts(*sessions), alpha=alpha, window=window)
    move = {m.case: m for m in result.moves}["z::same"]
    assert move.status == (NEW if len(sessions) == 1 else STEADY)
    for c in move.comparisons:
        assert c.change == 0.0 and not c.real
        # equal rates: the observed table is the hypergeometric mean, far from any tail
        assert c.p_value >= 0.5
