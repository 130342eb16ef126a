"""The agreement metric: the estimator against brute force, and end to end (pytester).

Expected numbers are computed here independently of the extension: each case's outcomes are
written out below, agreement and pass^K are counted over every pair (K-subset) of runs, the
means are averaged exactly, printed with a half-up rule of this file, and the intervals come
from the case bootstrap with the bundled settings (seed 0, 5000 resamples, level 0.95).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from pytest_probability.api import MetricCase, bootstrap_mean_interval
from pytest_probability_agreement.estimators import agreement, agreement_exact
from pytest_probability_agreement.plugin import pytest_prob_register_metrics

#: classify input i passes its first PASSES[i] of 10 runs; triage "errors" passes runs 1-6,
#: fails 7-8 and raises in 9-10; "skips" skips runs 1-3, passes 4-8, fails 9-10; "once" has a
#: single run (and is left out of every agreement metric).
BENCH = """
import pytest
from pytest_probability import current_run

PASSES = [10, 9, 8, 7, 6, 5, 5, 3, 2, 0, 10, 1]


@pytest.mark.parametrize("item", range(12))
def bench_classify(item):
    assert current_run().run <= PASSES[item]


@pytest.mark.parametrize(
    "case", ["errors", "skips", pytest.param("once", marks=pytest.mark.probability(runs=1))]
)
def bench_triage(case):
    run = current_run().run
    if case == "errors":
        if run > 8:
            raise RuntimeError("model did not answer")
        assert run <= 6
    elif case == "skips":
        if run <= 3:
            pytest.skip("rate limited")
        assert run <= 8
"""

PASSES = [10, 9, 8, 7, 6, 5, 5, 3, 2, 0, 10, 1]
#: The judged outcomes of each case, in run order, as this file reads BENCH (skipped runs are
#: not samples; an error is a non-pass).
OUTCOMES: dict[str, list[str]] = {
    **{f"classify::{i}": ["pass"] * p + ["fail"] * (10 - p) for i, p in enumerate(PASSES)},
    "triage::errors": ["pass"] * 6 + ["fail"] * 2 + ["error"] * 2,
    "triage::skips": ["pass"] * 5 + ["fail"] * 2,
    "triage::once": ["pass"],
}
#: each line's cases in case-id order, the order the case bootstrap draws them in
GROUPS = {
    "classify": sorted(f"classify::{i}" for i in range(12)),
    "triage": sorted(["triage::errors", "triage::skips", "triage::once"]),
    "Overall": sorted(OUTCOMES),
}

#: From a real run of BENCH with ``--prob-runs=10 --prob-metric=pass^3,agreement``; every
#: number is checked against an independent computation in test_expected_numbers.
EXPECTED = [
    "  classify  pass^3     N=12 inputs  31.7%  [12.3%, 53.1%]",
    "            agreement  N=12 inputs  69.3%  [58.0%, 81.1%]",
    "  triage    pass^3     N=2 inputs   22.6%                  1 left out (fewer than 3 runs)",
    "            agreement  N=2 inputs   49.5%                  1 left out (fewer than 2 runs)",
    "  Overall   pass^3     N=14 inputs  30.4%  [13.6%, 49.5%]  1 left out (fewer than 3 runs)",
    "            agreement  N=14 inputs  66.4%  [56.0%, 77.8%]  1 left out (fewer than 2 runs)",
]

EXPECTED_FAMILY = [
    "  classify  agree@3   N=12 inputs  53.9%  [36.9%, 71.7%]",
    "            agree@10  N=12 inputs  25.0%  [ 0.0%, 50.0%]",
    "  triage    agree@3   N=2 inputs   24.3%                  1 left out (fewer than 3 runs)",
    "            agree@10  N=1 input     0.0%                  2 left out (fewer than 10 runs)",
    "  Overall   agree@3   N=14 inputs  49.7%  [34.0%, 66.7%]  1 left out (fewer than 3 runs)",
    "            agree@10  N=13 inputs  23.1%  [ 0.0%, 46.2%]  2 left out (fewer than 10 runs)",
]

LINE = re.compile(
    r"^  (?P<scope>\S+)?\s+(?P<metric>\S+)\s+N=(?P<n>\d+) inputs?\s+(?P<value>\S+%)"
    r"(?:\s+\[\s*(?P<low>\S+%),\s*(?P<high>\S+%)\])?"
    r"(?:\s+(?P<left>\d+) left out \(fewer than (?P<needs>\d+) runs\))?$"
)

ACCEPTED_BUNDLED = "pass^K, pass@K (K a whole number >= 1)"
ACCEPTED = "pass^K, pass@K, agreement, agree@K (K a whole number >= 1; >= 2 for agree@K)"


# -- independent reference ------------------------------------------------------------------
def brute_agree(outcomes: Sequence[str], k: int) -> Fraction:
    """The share of k-subsets of runs whose outcomes (pass / not pass) are all the same."""
    subsets = list(itertools.combinations([o == "pass" for o in outcomes], k))
    return Fraction(sum(all(s) or not any(s) for s in subsets), len(subsets))


def brute_pass_hat(outcomes: Sequence[str], k: int) -> Fraction:
    """The share of k-subsets of runs that all pass."""
    subsets = list(itertools.combinations([o == "pass" for o in outcomes], k))
    return Fraction(sum(all(s) for s in subsets), len(subsets))


def k_of(metric: str) -> int:
    """The runs one draw takes: 2 for ``agreement``, K for ``agree@K`` and ``pass^K``."""
    return 2 if metric == "agreement" else int(re.sub(r"^(agree@|pass\^)", "", metric))


def reference(metric: str, outcomes: Sequence[str]) -> float | None:
    """A case's value of ``agreement``, ``agree@K`` or ``pass^K``; ``None``: left out."""
    k = k_of(metric)
    if len(outcomes) < k:
        return None
    count = brute_pass_hat if metric.startswith("pass^") else brute_agree
    return float(count(outcomes, k))


def pct1(x: float) -> str:
    """Percent, one decimal, half up on the decimal value (``repr``, as the report rounds);
    100.0% / 0.0% only for exact 1 / 0."""
    tenths = math.floor(Fraction(repr(x)) * 1000 + Fraction(1, 2))
    if tenths >= 1000 and x < 1:
        tenths = 999
    if tenths <= 0 and x > 0:
        tenths = 1
    return f"{tenths // 10}.{tenths % 10}%"


def reference_line(scope: str, metric: str) -> dict[str, Any]:
    """One line of the section, as the JSON ``metrics.lines`` entry."""
    values = [reference(metric, OUTCOMES[case]) for case in GROUPS[scope]]
    counted = [v for v in values if v is not None]
    low = high = None
    if len(counted) >= 10:  # min_inputs
        low, high = bootstrap_mean_interval(counted, resamples=5000, seed=0, level=0.95)
    return {
        "scope": scope,
        "metric": metric,
        "n": len(counted),
        "value": math.fsum(counted) / len(counted),  # the plugin's exactly rounded mean
        "low": low,
        "high": high,
        "left_out": len(values) - len(counted),
        "min_runs": k_of(metric),
        "error": None,
    }


def section(outlines: list[str], title: str = "metrics") -> list[str] | None:
    """The lines of ``=== probability: <title> ===``, or ``None`` when it is absent."""
    header = re.compile(rf"^=+ probability: {re.escape(title)} =+$")
    for index, line in enumerate(outlines):
        if header.match(line):
            body = []
            for rest in outlines[index + 1 :]:
                if re.match(r"^(=+|-+) .* (=+|-+)$", rest) or re.match(
                    r"^\d+ (failed|passed)", rest
                ):
                    break
                body.append(rest)
            return body
    return None


def load(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(bench_agree=BENCH)
    return pytester


# -- the expected section is right ----------------------------------------------------------
@pytest.mark.parametrize("lines", [EXPECTED, EXPECTED_FAMILY], ids=["pair", "family"])
def test_expected_numbers(lines: list[str]) -> None:
    scope = ""
    for text in lines:
        match = LINE.match(text)
        assert match, text
        scope = match["scope"] or scope
        line = reference_line(scope, match["metric"])
        assert int(match["n"]) == line["n"], text
        assert match["value"] == pct1(line["value"]), text
        if line["low"] is None:
            assert match["low"] is None, text
        else:
            assert (match["low"], match["high"]) == (pct1(line["low"]), pct1(line["high"])), text
        assert int(match["left"] or 0) == line["left_out"], text
        if line["left_out"]:
            assert int(match["needs"]) == line["min_runs"], text


# -- end to end -----------------------------------------------------------------------------
def test_section_rows_and_json(bench: pytest.Pytester) -> None:
    result = bench.runpytest(
        "--prob-runs=10", "--prob-metric=pass^3,agreement", "--prob-json=r.json"
    )
    assert result.ret == 1  # the bench has failing runs
    assert section(result.outlines) == EXPECTED
    report = load(bench, "r.json")
    rows = {row["case"]: row["metrics"] for row in report["rows"]}
    assert rows == {
        case: {"pass^3": reference("pass^3", runs), "agreement": reference("agreement", runs)}
        for case, runs in OUTCOMES.items()
    }
    # errors count as non-passes (6 of 10: (15 + 6) / 45), skipped runs are not samples
    # (5 of 7: (10 + 1) / 21), a single run is left out
    assert rows["triage::errors"]["agreement"] == 21 / 45
    assert rows["triage::skips"]["agreement"] == 11 / 21
    assert rows["triage::once"] == {"pass^3": None, "agreement": None}
    assert report["metrics"]["metrics"] == ["pass^3", "agreement"]
    # compared on the keys described here (the bundled extension may add more)
    keys = list(reference_line("Overall", "agreement"))
    assert [{key: line[key] for key in keys} for line in report["metrics"]["lines"]] == [
        reference_line(scope, metric)
        for scope in ("classify", "triage", "Overall")
        for metric in ("pass^3", "agreement")
    ]


def test_agreement_alone_counts_the_single_run_case(bench: pytest.Pytester) -> None:
    result = bench.runpytest("--prob-runs=10", "--prob-metric=agreement")
    assert section(result.outlines) == [
        "  classify  agreement  N=12 inputs  69.3%  [58.0%, 81.1%]",
        "  triage    agreement  N=2 inputs   49.5%                  1 left out (fewer than 2 runs)",
        "  Overall   agreement  N=14 inputs  66.4%  [56.0%, 77.8%]  1 left out (fewer than 2 runs)",
    ]


def test_family_agree_at_k(bench: pytest.Pytester) -> None:
    result = bench.runpytest(
        "--prob-runs=10", "--prob-metric=agree@3,agree@10", "--prob-json=r.json"
    )
    assert section(result.outlines) == EXPECTED_FAMILY
    report = load(bench, "r.json")
    for row in report["rows"]:
        runs = OUTCOMES[row["case"]]
        assert row["metrics"] == {
            "agree@3": reference("agree@3", runs),
            "agree@10": reference("agree@10", runs),
        }
    assert [line["min_runs"] for line in report["metrics"]["lines"]] == [3, 10] * 3


def test_ini_spelling(bench: pytest.Pytester) -> None:
    bench.makeini("[pytest]\nprob_metric = pass^3 agreement\n")
    result = bench.runpytest("--prob-runs=10")
    assert section(result.outlines) == EXPECTED


@pytest.mark.parametrize(
    "args",
    [["--prob-metric=agree@1"], ["--prob-metric=agreement", "--prob-metric=agree@1"]],
)
def test_agree_at_1_is_refused_before_anything_runs(
    bench: pytest.Pytester, args: list[str]
) -> None:
    result = bench.runpytest("--prob-runs=10", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        "ERROR: --prob-metric="
        + ",".join(a.split("=", 1)[1] for a in args)
        + f": metric 'agree@1': agree@K needs K >= 2; accepted: {ACCEPTED}"
    )
    assert "passed" not in result.stdout.str()
    assert "Traceback" not in result.stderr.str()


def test_agree_at_1_in_ini_is_refused(bench: pytest.Pytester) -> None:
    bench.makeini("[pytest]\nprob_metric = agree@1\n")
    result = bench.runpytest("--prob-runs=10")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "metric 'agree@1': agree@K needs K >= 2" in result.errlines[0]


@pytest.mark.parametrize("spelling", ["agree", "agree@", "agree@x", "agree@0", "agreement2"])
def test_listed_among_the_accepted_forms(bench: pytest.Pytester, spelling: str) -> None:
    result = bench.runpytest(f"--prob-metric={spelling}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: --prob-metric={spelling}: unknown metric {spelling!r}; accepted: {ACCEPTED}"
    )


def test_disabled_with_p_no(bench: pytest.Pytester) -> None:
    result = bench.runpytest("-p", "no:probability.agreement", "--prob-metric=agreement")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: --prob-metric=agreement: unknown metric 'agreement'; accepted: {ACCEPTED_BUNDLED}"
    )
    # the bundled metrics are unaffected
    result = bench.runpytest(
        "--prob-runs=10", "-p", "no:probability.agreement", "--prob-metric=pass^3"
    )
    assert section(result.outlines) == [
        "  classify  pass^3  N=12 inputs  31.7%  [12.3%, 53.1%]",
        "  triage    pass^3  N=2 inputs   22.6%                  1 left out (fewer than 3 runs)",
        "  Overall   pass^3  N=14 inputs  30.4%  [13.6%, 49.5%]  1 left out (fewer than 3 runs)",
    ]


def test_harmless_without_the_metrics_extension(bench: pytest.Pytester) -> None:
    result = bench.runpytest("--prob-runs=10", "-p", "no:probability.metrics")
    assert result.ret == 1  # the bench's failing runs, nothing else
    assert section(result.outlines) is None
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_not_loaded_without_the_kernel(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = pytester.runpytest("-p", "no:probability")
    assert result.ret == 0
    result.assert_outcomes(passed=1)


@pytest.mark.subprocess
def test_same_under_xdist(bench: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    args = ["--prob-runs=10", "--prob-metric=pass^3,agreement"]
    serial = bench.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = bench.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert parallel.ret == serial.ret == 1
    assert section(parallel.outlines) == section(serial.outlines) == EXPECTED
    one, two = load(bench, "s.json"), load(bench, "p.json")
    assert one["metrics"] == two["metrics"]
    assert {r["case"]: r["metrics"] for r in one["rows"]} == {
        r["case"]: r["metrics"] for r in two["rows"]
    }


@pytest.mark.subprocess
def test_agree_at_1_refused_under_xdist(bench: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = bench.runpytest_subprocess("--prob-metric=agree@1", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "metric 'agree@1': agree@K needs K >= 2" in result.stderr.str()


# -- the estimator ----------------------------------------------------------------------------
@pytest.mark.parametrize("runs", range(1, 9))
def test_estimator_equals_brute_force_over_pairs_and_k_subsets(runs: int) -> None:
    for passes in range(runs + 1):
        outcomes = ["pass"] * passes + ["fail"] * (runs - passes)
        if runs >= 2:  # the default k is a pair
            pairs = list(itertools.combinations(outcomes, 2))
            same = Fraction(sum(a == b for a, b in pairs), len(pairs))
            assert agreement_exact(passes, runs) == same
            assert agreement(passes, runs) == float(same)
        for k in range(2, runs + 1):
            assert agreement_exact(passes, runs, k) == brute_agree(outcomes, k)
            assert agreement(passes, runs, k) == float(brute_agree(outcomes, k))
        with pytest.raises(ValueError, match=f"needs at least k={runs + 1} runs"):
            agreement(passes, runs, runs + 1)


@pytest.mark.parametrize("p", [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), 1])
def test_estimator_is_unbiased_for_independent_runs(p: Fraction) -> None:
    """Exactly: the binomial expectation of the estimate is p^k + (1 - p)^k."""
    q = 1 - p
    for runs in range(2, 9):
        for k in range(2, runs + 1):
            mean = sum(
                math.comb(runs, c) * p**c * q ** (runs - c) * agreement_exact(c, runs, k)
                for c in range(runs + 1)
            )
            assert mean == p**k + q**k


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 2, 1), "k must be at least 2, got 1"),
        ((3, 2, 2), "passes must be between 0 and runs (2), got 3"),
        ((1, 1, 2), "needs at least k=2 runs, got 1"),
        ((True, 2, 2), "passes must be a whole number, got True"),
        ((1, 2.0, 2), "runs must be a whole number, got 2.0"),
    ],
)
def test_estimator_arguments_are_checked(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        agreement(*args)


def test_registered_metrics() -> None:
    """What the package registers: names, runs needed, errors as non-passes, K >= 2 (the
    sessions above check how the metrics extension parses and refuses the names)."""
    found: dict[str, tuple[Any, dict[str, Any]]] = {}

    def register(name: str, compute: Any, **options: Any) -> None:
        found[name] = (compute, options)

    pytest_prob_register_metrics(register, None)  # type: ignore[arg-type]
    assert list(found) == ["agreement", "agree@"]
    pair, pair_options = found["agreement"]
    family, family_options = found["agree@"]
    assert (family_options["family"], family_options["min_parameter"]) == (True, 2)
    assert (pair_options["min_runs"](None), family_options["min_runs"](3)) == (2, 3)
    case = MetricCase("c", ("pass", "error", "fail", "pass"))  # 2 passes of 4 judged runs
    assert pair(case, None) == pytest.approx(1 / 3)  # (1 + 1) / 6
    assert family(case, 3) == 0.0  # any 3 of them mix a pass and a non-pass
    assert family(MetricCase("all", ("fail", "fail", "fail")), 3) == 1.0
