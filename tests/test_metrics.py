"""The metrics extension: pass^k and pass@k, the registry, the section and JSON."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from helpers import load_json, section
from pytest_probability.extensions.metrics.estimators import (
    pass_at_k,
    pass_at_k_exact,
    pass_hat_k,
    pass_hat_k_exact,
)
from pytest_probability.extensions.metrics.registry import MetricCase, Metrics

#: Outcomes chosen so that the spec's metrics example comes out digit for digit: classify
#: input i passes its first CLASSIFY[i] of 10 runs; triage a 5/10, b 10/10, c 3/3 (3 runs).
#: The case bootstrap takes cases in case-id order (classify::0, ::1, ::10, ::11, ::2, …).
METRICS_BENCH = """
import pytest
from pytest_probability import current_run

CLASSIFY = [6, 8, 7, 4, 7, 4, 8, 6, 6, 10, 10, 4]


@pytest.mark.parametrize("item", range(12))
def bench_classify(item):
    assert current_run().run <= CLASSIFY[item]


@pytest.mark.parametrize(
    "passes",
    [
        pytest.param(5, id="a"),
        pytest.param(10, id="b"),
        pytest.param(3, id="c", marks=pytest.mark.probability(runs=3)),
    ],
)
def bench_triage(passes):
    assert current_run().run <= passes
"""

SPEC_METRICS = [
    "  classify  pass^3  N=12 inputs  34.3%  [17.2%,  53.8%]",
    "            pass@5  N=12 inputs  99.4%  [98.8%, 100.0%]",
    "  triage    pass^3  N=3 inputs   69.4%",
    "            pass@5  N=2 inputs   99.8%                   1 left out (fewer than 5 runs)",
    "  Overall   pass^3  N=15 inputs  41.3%  [22.9%,  61.2%]",
    "            pass@5  N=14 inputs  99.5%  [98.9%,  99.9%]  1 left out (fewer than 5 runs)",
]


def test_spec_metrics_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_m=METRICS_BENCH)
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-metric=pass^3,pass@5", "--prob-json=r.json"
    )
    assert section(result.outlines, "probability: metrics") == SPEC_METRICS
    report = load_json(pytester.path / "r.json")
    classify = [6, 8, 7, 4, 7, 4, 8, 6, 6, 10, 10, 4]
    for row, passes in zip(report["rows"], classify, strict=False):
        assert row["metrics"] == {
            "pass^3": float(pass_hat_k_exact(passes, 10, 3)),
            "pass@5": float(pass_at_k_exact(passes, 10, 5)),
        }
    assert report["rows"][-1]["metrics"] == {"pass^3": 1.0, "pass@5": None}  # 3 runs < 5
    assert report["metrics"]["metrics"] == ["pass^3", "pass@5"]
    overall = report["metrics"]["lines"][-1]
    assert overall == {
        "scope": "Overall",
        "metric": "pass@5",
        "n": 14,
        "value": pytest.approx(0.99462, abs=1e-5),
        "low": pytest.approx(0.989, abs=5e-4),
        "high": pytest.approx(0.999, abs=5e-4),
        "left_out": 1,
        "min_runs": 5,
        "error": None,
        "hidden": None,
    }


def test_repeatable_flag_and_ini_spellings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_m=METRICS_BENCH)
    repeated = pytester.runpytest("--prob-runs=10", "--prob-metric=pass^3", "--prob-metric=pass@5")
    assert section(repeated.outlines, "probability: metrics") == SPEC_METRICS
    pytester.makeini("[pytest]\nprob_metric = pass^3 pass@5\n")
    from_ini = pytester.runpytest("--prob-runs=10")
    assert section(from_ini.outlines, "probability: metrics") == SPEC_METRICS


@pytest.mark.parametrize("spelling", ["pass^0", "pass^00", "pass^x", "passk", "pass@", "pass^-3"])
def test_bad_spelling_lists_the_accepted_forms(pytester: pytest.Pytester, spelling: str) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    # (an installed third-party metric, the agreement contrib, would add its own forms)
    result = pytester.runpytest(f"--prob-metric={spelling}", "-p", "no:probability.agreement")
    assert result.ret == 4
    assert result.errlines[0] == (
        f"ERROR: --prob-metric={spelling}: unknown metric {spelling!r}; accepted: pass^K, "
        "pass@K (K a whole number >= 1)"
    )


def test_no_section_without_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_m=METRICS_BENCH)
    result = pytester.runpytest("--prob-runs=10", "--prob-json=r.json")
    assert section(result.outlines, "probability: metrics") == []
    report = load_json(pytester.path / "r.json")
    assert "metrics" not in report and "metrics" not in report["rows"][0]


def test_third_party_metric_and_a_broken_one(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
def pytest_prob_register_metrics(register, config):
    def streak(case, parameter):
        return 1.0 if "fail" not in case.outcomes[:2] else 0.0
    register("first2", streak, min_runs=lambda parameter: 2)
    register("broken", lambda case, parameter: 2.0)
"""
    )
    pytester.makepyfile(bench_m=METRICS_BENCH)
    result = pytester.runpytest("--prob-runs=10", "--prob-metric=first2,broken")
    lines = section(result.outlines, "probability: metrics")
    assert lines[0] == "  classify  first2  N=12 inputs  100.0%  [100.0%, 100.0%]"
    assert (
        lines[3] == "            broken  could not be computed: ValueError: metric 'broken' "
        "returned 2.0 for classify::0; expected a number in [0, 1]"
    )
    assert lines[2] == "  triage    first2  N=3 inputs   100.0%"
    result.stdout.fnmatch_lines(["*MetricWarning: metric 'broken' failed: ValueError*"])


@pytest.mark.subprocess
def test_xdist_gives_the_same_metrics(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_m=METRICS_BENCH)
    args = ["--prob-runs=10", "--prob-metric=pass^3,pass@5"]
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert section(parallel.outlines, "probability: metrics") == SPEC_METRICS
    assert section(serial.outlines, "probability: metrics") == SPEC_METRICS
    one, two = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert one["metrics"] == two["metrics"]
    assert [r["metrics"] for r in one["rows"]] == [r["metrics"] for r in two["rows"]]


# -- estimators ---------------------------------------------------------------------------------
@pytest.mark.parametrize("runs", range(1, 9))
def test_estimators_equal_brute_force_over_k_subsets(runs: int) -> None:
    for passes in range(runs + 1):
        outcomes = [True] * passes + [False] * (runs - passes)
        for k in range(1, runs + 1):
            subsets = list(itertools.combinations(outcomes, k))
            all_pass = Fraction(sum(all(s) for s in subsets), len(subsets))
            any_pass = Fraction(sum(any(s) for s in subsets), len(subsets))
            assert pass_hat_k_exact(passes, runs, k) == all_pass
            assert pass_at_k_exact(passes, runs, k) == any_pass
            assert pass_hat_k(passes, runs, k) == float(all_pass)
            assert pass_at_k(passes, runs, k) == float(any_pass)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((3, 2, 1), "passes must be between 0 and runs (2), got 3"),
        ((1, 2, 3), "needs at least k=3 runs, got 2"),
        ((1, 2, 0), "k must be at least 1, got 0"),
        ((True, 2, 1), "passes must be a whole number, got True"),
    ],
)
def test_estimator_arguments_are_checked(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pass_hat_k(*args)


@pytest.mark.slow
def test_estimators_are_unbiased_under_independent_runs() -> None:
    rng = random.Random(7)
    for p, runs, k in [(0.9, 10, 3), (0.6, 10, 5), (0.3, 6, 2), (0.97, 20, 10)]:
        replicates = 20000
        hat = at = 0.0
        for _ in range(replicates):
            passes = sum(rng.random() < p for _ in range(runs))
            hat += pass_hat_k(passes, runs, k)
            at += pass_at_k(passes, runs, k)
        # each estimate lies in [0, 1]: 4 standard errors of a mean of bounded values
        tolerance = 4 * 0.5 / replicates**0.5
        assert abs(hat / replicates - p**k) < tolerance
        assert abs(at / replicates - (1 - (1 - p) ** k)) < tolerance


def test_registry_parses_and_refuses() -> None:
    metrics = Metrics()
    metrics.register("pass^", lambda case, k: 0.0, family=True)
    metrics.register("agreement", lambda case, k: 1.0, min_runs=lambda k: 2)
    chosen = metrics.parse("pass^3, agreement pass^3")
    assert [(c.label, c.parameter, c.needs()) for c in chosen] == [
        ("pass^3", 3, 3),
        ("agreement", None, 2),
    ]
    assert chosen[1].value(MetricCase("a", ("pass",))) is None  # too few runs
    with pytest.raises(ValueError, match="registered twice"):
        metrics.register("agreement", lambda case, k: 1.0)
    with pytest.raises(ValueError, match=r"accepted: pass\^K, agreement \(K a whole number"):
        metrics.parse("agreement3")


def test_family_minimum_parameter() -> None:
    metrics = Metrics()
    metrics.register("agree@", lambda case, k: 1.0, family=True, min_parameter=2)
    assert metrics.choose("agree@2").parameter == 2
    with pytest.raises(ValueError, match=r"metric 'agree@1': agree@K needs K >= 2; accepted: "):
        metrics.choose("agree@1")
    assert metrics.accepted() == "agree@K (K a whole number; >= 2 for agree@K)"


# -- spellings: K is a whole number ------------------------------------------------------------
def test_leading_zeros_in_k_are_read_as_the_number(pytester: pytest.Pytester) -> None:
    """``pass^02`` is ``pass^2`` (as ``--prob-runs=010`` is 10): labelled ``pass^2`` and
    reported once with ``pass^2`` (before: a usage error)."""
    pytester.makepyfile(bench_m=METRICS_BENCH)
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-metric=pass^02,pass@005", "--prob-metric=pass^2",
        "--prob-json=r.json",
    )  # fmt: skip
    assert result.ret == 1  # the failing runs (no gate)
    lines = section(result.outlines, "probability: metrics")
    assert [line.split()[1] for line in lines if line.split()[0] in ("classify", "Overall")] == [
        "pass^2",
        "pass^2",
    ]
    assert [line.split()[0] for line in lines] == [
        "classify", "pass@5", "triage", "pass@5", "Overall", "pass@5",
    ]  # fmt: skip
    report = load_json(pytester.path / "r.json")
    assert report["metrics"]["metrics"] == ["pass^2", "pass@5"]
    assert set(report["rows"][0]["metrics"]) == {"pass^2", "pass@5"}


# -- pass^1 has exactly the function-level interval --------------------------------------------
#: case ids out of alphabetical order, so that collection order and case-id order differ
PASS1_BENCH = """
import pytest
from pytest_probability import current_run

IDS = ["zeta", "alpha", "mike", "bravo", "yank", "delta", "x-ray", "echo", "kilo", "golf",
       "lima", "hotel"]

@pytest.mark.parametrize("i", [pytest.param(n, id=name) for n, name in enumerate(IDS)])
def bench_k(i):
    assert current_run().run > (i * 7) % 5

@pytest.mark.parametrize("i", [pytest.param(n, id=f"n{11 - n:02d}") for n in range(11)])
def bench_j(i):
    assert current_run().run > i % 4
"""


def test_pass_hat_1_has_the_function_level_interval(pytester: pytest.Pytester) -> None:
    """pass^1 of a case is its pass fraction, and the metric lines use the function-level
    lines' resampler and draw order (cases in case-id order): the same interval to the last
    digit, per function and Overall (before: 46.7% against 48.3% for k)."""
    pytester.makepyfile(bench_k=PASS1_BENCH)
    for extra in ([], ["--prob-transpose"]):
        result = pytester.runpytest(
            "--prob-runs=5", "--prob-metric=pass^1", "--prob-json=r.json", *extra
        )
        report = load_json(pytester.path / "r.json")
        aggregates = {a["label"]: a for a in report["aggregates"]}
        lines = {line["scope"]: line for line in report["metrics"]["lines"]}
        assert set(aggregates) == set(lines) == {"k", "j", "Overall"}
        for scope, line in lines.items():
            ci = aggregates[scope]["ci"]
            assert (line["low"], line["high"]) == (ci["low"], ci["high"]), scope
            assert line["value"] == aggregates[scope]["estimate"]
        main = section(result.outlines)
        metrics = section(result.outlines, "probability: metrics")
        for scope in ("k", "j", "Overall"):
            function = next(x for x in main if x.split()[:1] == [scope] and "N=" in x)
            metric = next(x for x in metrics if x.split()[:1] == [scope])
            interval = function[function.index("[") : function.index("]") + 1]
            assert metric.endswith(interval), (function, metric)
        assert main[main.index("  Overall: 78/115 passed (68%)") + 2] == (
            "  k        N=12 inputs × k=5  63.3%  [48.3%, 78.3%]  ρ=0.20"
        )
        assert metrics[0] == "  k        pass^1  N=12 inputs  63.3%  [48.3%, 78.3%]"


# -- registration at start-up ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('raise ValueError("no metrics today")', "no metrics today"),
        ('register("pass^", lambda case, k: 1.0)', "metric 'pass^' is registered twice"),
    ],
    ids=["raises", "registers-twice"],
)
def test_a_broken_conftest_registration_is_a_usage_error_at_start_up(
    pytester: pytest.Pytester, body: str, message: str
) -> None:
    """Also in a session that does not use the plugin (no bench file, no ``--prob-*``): a
    plugin other than the extension implements the hook, so the registry is filled at
    ``pytest_configure``."""
    pytester.makeconftest(f"def pytest_prob_register_metrics(register, config):\n    {body}\n")
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == f"ERROR: registering metrics failed: {message}"
    assert not any("Traceback" in line for line in result.errlines + result.outlines)


LATE_CONFTEST = """
from pytest_probability.extensions.metrics.plugin import metrics_of


def pytest_prob_register_metrics(register, config):
    {body}


def pytest_collection_finish(session):
    print("accepted:", metrics_of(session.config).accepted())
"""


def test_a_conftest_registered_after_configure_registers_after_the_bundled_metrics(
    pytester: pytest.Pytester,
) -> None:
    """A subdirectory's conftest registers after ``pytest_configure``, which left the
    registry to first use: its metrics still come after the bundled ones."""
    pytester.mkpydir("sub").joinpath("conftest.py").write_text(
        LATE_CONFTEST.format(body='register("late", lambda case, k: 1.0)')
    )
    pytester.path.joinpath("sub", "test_b.py").write_text("def test_b():\n    pass\n")
    result = pytester.runpytest("-s", "-p", "no:probability.agreement")
    assert result.ret == pytest.ExitCode.OK
    assert "accepted: pass^K, pass@K, late (K a whole number >= 1)" in result.outlines


def test_a_conftest_registered_after_configure_fails_its_collection_when_broken(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """... and one whose registration raises is a collection error at its registration,
    whether or not metrics are used."""
    # (pytest 7 names the exception's module too, and cuts the summary line at the
    # terminal's width: 80 columns would end it at "failed: to...")
    monkeypatch.setenv("COLUMNS", "200")
    pytester.mkpydir("sub").joinpath("conftest.py").write_text(
        LATE_CONFTEST.format(body='raise ValueError("too late")')
    )
    pytester.path.joinpath("sub", "test_b.py").write_text("def test_b():\n    pass\n")
    result = pytester.runpytest("-p", "no:probability.agreement")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # (pytest 7 leaves the directory's name out of the summary line: "ERROR  - ..."; the
    # conftest registers the metrics extension, which fills its registry then)
    result.stdout.fnmatch_lines(["ERROR *- *UsageError: registering metrics failed: too late"])
