"""The comparisons extension: arms on a parametrize axis, margins, adjustment."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from helpers import load_json, section
from pytest_probability.extensions.comparisons.statistics.signflip import bootstrap_difference
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep
from test_gates import record_warnings, recorded, warnings_summary

#: The spec's comparison example (one input, 8/10 against 10/10, costs 1:4).
TRIAGE_BENCH = """
import pytest
from pytest_probability import current_run, record_cost


@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
@pytest.mark.parametrize("text", [pytest.param("my card was charged twice", id="refund")])
def bench_triage(text, style):
    record_cost(0.0001 if style == "terse" else 0.0004)
    if style == "terse":
        assert current_run().run not in (4, 7)
"""

SPEC_LINE = (
    "  triage[style]  chain_of_thought − terse  +20 pp [−11, +51]  p=0.47  1 paired  cost ×4.0"
)


def test_spec_comparison_example(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=TRIAGE_BENCH)
    result = pytester.runpytest("--prob-runs=10", "--prob-compare=style", "--prob-json=r.json")
    assert section(result.outlines)[:2] == [
        "  triage::refund-terse              8/10  [44%,  97%]  $0.0010  FLAKY",
        "  triage::refund-chain_of_thought  10/10  [69%, 100%]  $0.0040",
    ]
    assert section(result.outlines, "probability: comparisons") == [SPEC_LINE]
    assert result.ret == 1  # the failing runs still fail: a comparison without margin reports
    report = load_json(pytester.path / "r.json")
    (found,) = report["comparisons"]
    low, high = confint_proportions_2indep(10, 10, 8, 10, method="newcomb", compare="diff")
    assert found["low"] == pytest.approx(low, abs=1e-9)
    assert found["high"] == pytest.approx(high, abs=1e-9)
    table = [[10, 0], [8, 2]]
    assert found["p"] == pytest.approx(stats.fisher_exact(table).pvalue, abs=1e-9)
    assert found["difference"] == pytest.approx(0.2)
    assert (found["arm"], found["baseline"], found["axis"], found["label"]) == (
        "chain_of_thought",
        "terse",
        "style",
        "triage",
    )
    assert (found["regime"], found["paired"], found["cost_ratio"]) == ("one pair", 1, 4.0)
    assert found["detail"] == {"interval": "newcombe", "test": "fisher"}
    assert found["pairs"][0]["arm"]["passes"] == 10 and found["pairs"][0]["baseline"]["passes"] == 8
    assert report["rows"][0]["comparison"]["arm"] == "terse"
    assert report["rows"][1]["comparison"]["input"] == "refund"


def test_mark_and_baseline_choice(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_triage=TRIAGE_BENCH.replace(
            '@pytest.mark.parametrize("style"',
            '@pytest.mark.probability(compare="style", baseline="chain_of_thought")\n'
            '@pytest.mark.parametrize("style"',
        )
    )
    result = pytester.runpytest("--prob-runs=10")
    assert section(result.outlines, "probability: comparisons") == [
        "  triage[style]  terse − chain_of_thought  −20 pp [−51, +11]  p=0.47  1 paired  cost ×0.3"
    ]


def _outcome_bench(rates: dict[str, tuple[int, ...]], mark: str = "") -> str:
    """A bench where input i of arm A passes its first rates[A][i] of 10 runs."""
    return f"""
import pytest
from pytest_probability import current_run

RATES = {rates!r}

{mark}
@pytest.mark.parametrize("arm", {list(rates)!r})
@pytest.mark.parametrize("item", range({len(next(iter(rates.values())))}))
def bench_pick(item, arm):
    assert current_run().run <= RATES[arm][item]
"""


def _brute_sign_flip(differences: list[Fraction]) -> float:
    observed = abs(sum(differences))
    nonzero = [d for d in differences if d]
    hits = sum(
        abs(sum(s * d for s, d in zip(signs, nonzero, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(nonzero))
    )
    return hits / 2 ** len(nonzero)


def test_few_inputs_give_a_line_per_input(pytester: pytest.Pytester) -> None:
    rates = {"a": (8, 9, 10), "b": (10, 10, 7)}
    pytester.makepyfile(bench_pick=_outcome_bench(rates))
    result = pytester.runpytest("--prob-runs=10", "--prob-compare=arm", "--prob-json=r.json")
    assert section(result.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  0 pp  p=1  3 paired",
        "      0  +20 pp [−11, +51]",
        "      1  +10 pp [−19, +40]",
        "      2  −30 pp [−60, +4]",
    ]
    (found,) = load_json(pytester.path / "r.json")["comparisons"]
    differences = [Fraction(b - a, 10) for a, b in zip(rates["a"], rates["b"], strict=True)]
    assert found["p"] == pytest.approx(_brute_sign_flip(differences), abs=1e-12)
    assert (found["regime"], found["low"], found["high"]) == ("few pairs", None, None)


def test_many_inputs_use_the_paired_bootstrap(pytester: pytest.Pytester) -> None:
    base = (6, 7, 8, 9, 10, 5, 6, 7, 8, 9, 10, 4)
    arm = (9, 9, 10, 9, 10, 8, 8, 7, 10, 10, 10, 7)
    pytester.makepyfile(bench_pick=_outcome_bench({"base": base, "arm": arm}))
    result = pytester.runpytest("--prob-runs=10", "--prob-compare=arm", "--prob-json=r.json")
    (found,) = load_json(pytester.path / "r.json")["comparisons"]
    differences = [Fraction(y - x, 10) for x, y in zip(base, arm, strict=True)]
    low, high = bootstrap_difference(differences, 0.95, 5000, 0, "expanded")
    assert (found["low"], found["high"]) == (low, high)
    assert found["p"] == pytest.approx(_brute_sign_flip(differences), abs=1e-12)
    assert found["detail"]["exact"] is True
    assert found["detail"]["bootstrap_method"] == "expanded"  # auto: the calibrated one
    assert found["regime"] == "bootstrap"
    (line,) = section(result.outlines, "probability: comparisons")
    assert line == "  pick[arm]  arm − base  +15 pp [+8, +23]  p=0.008  12 paired"


@pytest.mark.parametrize(
    ("method", "interval"),
    [("percentile", "[+8, +22]"), ("bca", "[+8, +22]"), ("expanded", "[+8, +23]")],
)
def test_bootstrap_method_option_sets_the_paired_interval(
    pytester: pytest.Pytester, method: str, interval: str
) -> None:
    """``--prob-bootstrap-method=percentile`` gives the spec's percentile paired bootstrap
    (the interval before issue 36 §4); the ini key does the same."""
    base = (6, 7, 8, 9, 10, 5, 6, 7, 8, 9, 10, 4)
    arm = (9, 9, 10, 9, 10, 8, 8, 7, 10, 10, 10, 7)
    pytester.makepyfile(bench_pick=_outcome_bench({"base": base, "arm": arm}))
    result = pytester.runpytest(
        "--prob-runs=10", "--prob-compare=arm", f"--prob-bootstrap-method={method}"
    )
    (line,) = section(result.outlines, "probability: comparisons")
    assert line == f"  pick[arm]  arm − base  +15 pp {interval}  p=0.008  12 paired"
    pytester.makeini(f"[pytest]\nprob_bootstrap_method = {method}\n")
    from_ini = pytester.runpytest("--prob-runs=10", "--prob-compare=arm")
    assert section(from_ini.outlines, "probability: comparisons") == [line]


def test_bad_bootstrap_method_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-bootstrap-method=studentized")
    assert result.ret == 4
    assert "--prob-bootstrap-method" in result.errlines[0]
    assert (
        "expected one of auto, expanded, bca, percentile, got 'studentized'" in (result.errlines[0])
    )


@pytest.mark.parametrize(
    ("rates", "margin", "equivalence", "verdict", "ret"),
    [
        ({"a": (10,) * 12, "b": (10,) * 12}, 0.05, False, "PASS", 0),
        ({"a": (10,) * 12, "b": (5,) * 12}, 0.05, False, "FAIL", 1),
        ({"a": (10,) * 12, "b": (9, 10) * 6}, 0.05, False, "UNDECIDED", 1),
        ({"a": (10,) * 12, "b": (10,) * 12}, 0.05, True, "PASS", 0),
    ],
)
def test_margin_makes_a_gate(
    pytester: pytest.Pytester,
    rates: dict[str, tuple[int, ...]],
    margin: float,
    equivalence: bool,
    verdict: str,
    ret: int,
) -> None:
    mark = f'@pytest.mark.probability(compare="arm", margin={margin}, equivalence={equivalence})'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    result = pytester.runpytest("--prob-runs=10", "-rA", "-p", "no:probability.gates")
    (line,) = section(result.outlines, "probability: comparisons")
    rule = f"±{margin * 100:g} pp" if equivalence else f"≥−{margin * 100:g} pp"
    assert line.endswith(f"  {rule}  {verdict}")
    assert result.ret == ret
    word = "PASSED" if verdict == "PASS" else "FAILED"
    assert any(
        line.startswith(f"{word} bench_pick.py::bench_pick[compare:b]") for line in result.outlines
    )


def test_compare_item_carries_the_verdict_into_lf(pytester: pytest.Pytester) -> None:
    rates = {"a": (2,) * 12, "b": (0,) * 12}
    mark = '@pytest.mark.probability(compare="arm", margin=0.05)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    first = pytester.runpytest("--prob-runs=2", "-p", "cacheprovider")
    # the margin makes it a gate: the failing runs are xfailed, the verdict is the failure
    first.assert_outcomes(passed=24, failed=1, xfailed=24)
    assert section(first.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  −100 pp [−100, −100]  p<0.001  12 paired  ≥−5 pp  FAIL"
    ]
    # selecting the failed compare item alone brings back every run of its function
    again = pytester.runpytest("--prob-runs=2", "-p", "cacheprovider", "--lf", "-k", "compare")
    again.assert_outcomes(passed=24, failed=1, xfailed=24)
    assert "FAILED bench_pick.py::bench_pick[compare:b]" in "\n".join(again.outlines)


def test_adjustment_and_exploratory_note(pytester: pytest.Pytester) -> None:
    rates = {"a": (5, 6, 7), "b": (10, 10, 10), "c": (6, 5, 8), "d": (9, 9, 9)}
    pytester.makepyfile(bench_pick=_outcome_bench(rates))
    plain = pytester.runpytest("--prob-runs=10", "--prob-compare=arm", "--prob-json=p.json")
    assert section(plain.outlines, "probability: comparisons")[-1] == (
        "  3 comparisons, p not adjusted for multiplicity: treat them as exploratory "
        "(--prob-adjust=holm adjusts them)"
    )
    held = pytester.runpytest(
        "--prob-runs=10", "--prob-compare=arm", "--prob-adjust=holm", "--prob-json=h.json"
    )
    assert section(held.outlines, "probability: comparisons")[-1] == (
        "  p adjusted with holm over 3 comparisons"
    )
    raw = [c["p"] for c in load_json(pytester.path / "p.json")["comparisons"]]
    adjusted = [c["p_adjusted"] for c in load_json(pytester.path / "h.json")["comparisons"]]
    expected = multipletests(raw, method="holm")[1]
    assert adjusted == pytest.approx(list(expected), abs=1e-12)


def test_unpaired_inputs_are_listed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_pick="""
import pytest

@pytest.mark.parametrize("arm", ["a", "b"])
@pytest.mark.parametrize("item", ["x", "y"])
def bench_pick(item, arm):
    if item == "y" and arm == "b":
        pytest.skip("not today")
"""
    )
    result = pytester.runpytest("--prob-runs=3", "--prob-compare=arm")
    assert section(result.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  0 pp [−56, +56]  p=1  1 paired",
        "      not compared (one side missing): y (a only)",
    ]


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        (
            'compare="tone"',
            "bench_pick.py::bench_pick: compare='tone' names no parametrize argument of "
            "bench_pick (its arguments are: item, arm)",
        ),
        (
            'compare="arm", baseline="z"',
            "bench_pick.py::bench_pick: baseline='z' is not a value of arm in bench_pick; its "
            "values are: a, b",
        ),
        (
            'compare="arm", margin=2',
            "margin=2: expected a margin of at least 0 and below 1 such as 0.02 for 2 "
            "points, got 2; did you mean 0.02 (2 points)?",
        ),
        (
            'compare="arm", equivalence=True',
            "bench_pick.py::bench_pick: equivalence=True needs margin= (how close counts as "
            "equivalent)",
        ),
        ("margin=0.05", "bench_pick.py::bench_pick: margin= needs compare= (or --prob-compare)"),
    ],
)
def test_bad_comparison_settings_name_the_function(
    pytester: pytest.Pytester, mark: str, message: str
) -> None:
    pytester.makepyfile(
        bench_pick=_outcome_bench({"a": (1, 1), "b": (1, 1)}, f"@pytest.mark.probability({mark})")
    )
    result = pytester.runpytest("--prob-runs=2")
    assert result.ret == 2
    assert any(message in line for line in result.outlines), result.outlines
    assert "Traceback" not in "\n".join(result.outlines)


def test_per_case_comparison_keys_are_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        bench_pick="""
import pytest

@pytest.mark.parametrize("arm", [
    "a", pytest.param("b", marks=pytest.mark.probability(compare="arm")),
])
def bench_pick(arm):
    pass
"""
    )
    result = pytester.runpytest()
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*per-function settings: put them on bench_pick*"])


def test_unknown_adjustment_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_a="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-adjust=fdr")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        [
            "ERROR: --prob-adjust=fdr: unknown p adjustment 'fdr'; registered: none, holm, "
            "bonferroni, bh"
        ]
    )


def test_third_party_test_and_adjustment(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
from pytest_probability.extensions.comparisons.registry import TestOutcome

def pytest_prob_register_comparison_tests(register, config):
    def rough(pairs, settings):
        d = sum(p.arm.rate - p.base.rate for p in pairs) / len(pairs)
        return TestOutcome(d, d - 0.5, d + 0.5, 0.5, "rough")
    register("rough", rough)

def pytest_prob_register_p_adjustments(register, config):
    register("double", lambda ps: [2 * p for p in ps])
"""
    )
    pytester.makepyfile(bench_triage=TRIAGE_BENCH)
    pytester.makeini("[pytest]\nprob_compare_test = rough\n")
    result = pytester.runpytest("--prob-runs=10", "--prob-compare=style", "--prob-adjust=double")
    assert section(result.outlines, "probability: comparisons") == [
        "  triage[style]  chain_of_thought − terse  +20 pp [−30, +70]  p=1  1 paired  cost ×4.0",
        "  p adjusted with double over 1 comparisons",
    ]


def test_transposed_compare_item_comes_after_its_last_run(pytester: pytest.Pytester) -> None:
    mark = '@pytest.mark.probability(compare="arm", margin=0.5)'
    pytester.makepyfile(bench_pick=_outcome_bench({"a": (3, 3), "b": (3, 3)}, mark))
    result = pytester.runpytest("--prob-runs=3", "--prob-transpose", "--collect-only", "-q")
    ids = [line for line in result.outlines if line.startswith("bench_pick.py::")]
    assert ids[-1] == "bench_pick.py::bench_pick[compare:b]"
    assert ids[-2] == "bench_pick.py::bench_pick::1-b[run3]"


@pytest.mark.subprocess
@pytest.mark.parametrize("dist", [[], ["--dist", "loadgroup"]])
def test_xdist_gives_the_same_comparisons(pytester: pytest.Pytester, dist: list[str]) -> None:
    rates = {"a": (10, 9, 10, 8), "b": (5, 6, 4, 7), "c": (10, 10, 10, 10)}
    mark = '@pytest.mark.probability(compare="arm", margin=0.05)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    serial = pytester.runpytest_subprocess("--prob-runs=10", "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(
        "--prob-runs=10", "-n", "2", *dist, "--prob-json=p.json"
    )
    assert serial.ret == parallel.ret == 1
    one = section(serial.outlines, "probability: comparisons")
    two = section(parallel.outlines, "probability: comparisons")
    assert two[: len(one)] == one
    strip = ("pairs",)
    first = [
        {k: v for k, v in c.items() if k not in strip}
        for c in load_json(pytester.path / "s.json")["comparisons"]
    ]
    second = [
        {k: v for k, v in c.items() if k not in strip}
        for c in load_json(pytester.path / "p.json")["comparisons"]
    ]
    assert first == second


AXIS_BENCH = """
import pytest


@pytest.mark.parametrize("style", ["terse", "chain_of_thought"])
@pytest.mark.parametrize("text", ["a", "b"])
def bench_triage(text, style):
    pass


def bench_other():
    pass
"""
AXIS_WARNING = "pytest_probability.extensions.comparisons.session.AxisWarning"


def _axis_message(source: str, axis: str, hint: str) -> str:
    return (
        f"{source}: no collected bench function has a parametrize argument named {axis!r}"
        f"{hint}, so nothing is compared; their arguments are: style, text"
    )


def test_unknown_session_axis_warns_with_a_did_you_mean(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_triage=AXIS_BENCH)
    warned = record_warnings(pytester)
    result = pytester.runpytest("--prob-compare=styl")
    message = _axis_message("--prob-compare=styl", "styl", " (did you mean 'style'?)")
    assert recorded(warned, "AxisWarning") == [
        ["AxisWarning", message, "<command line>", 1, "collect"]
    ]
    assert warnings_summary(result.outlines) == [
        "<command line>:1",
        f"  <command line>:1: AxisWarning: {message}",
        "",
    ]
    assert result.ret == 0  # a warning: the functions without the axis are not errors
    pytester.runpytest("--prob-compare=zzz")  # nothing close: no did-you-mean
    assert recorded(warned, "AxisWarning") == [
        [
            "AxisWarning",
            _axis_message("--prob-compare=zzz", "zzz", ""),
            "<command line>",
            1,
            "collect",
        ]
    ]
    # an axis some collected function has: no warning, also when -k deselects that function
    pytester.runpytest("--prob-compare=style", "-k", "other")
    assert recorded(warned, "AxisWarning") == []
    # from the ini file the warning points at the line setting it; -o is the command line
    ini = pytester.makeini("[pytest]\nprob_compare = txt\n")
    pytester.runpytest()
    txt = _axis_message("ini option prob_compare=txt", "txt", " (did you mean 'text'?)")
    assert recorded(warned, "AxisWarning") == [["AxisWarning", txt, str(ini), 2, "collect"]]
    pytester.runpytest("-o", "prob_compare=stlye")
    stlye = _axis_message("ini option prob_compare=stlye", "stlye", " (did you mean 'style'?)")
    assert recorded(warned, "AxisWarning") == [
        ["AxisWarning", stlye, "<command line>", 1, "collect"]
    ]
    # -W error makes it a usage error
    failed = pytester.runpytest("--prob-compare=styl", "-W", f"error::{AXIS_WARNING}")
    assert failed.ret == pytest.ExitCode.USAGE_ERROR
    failed.stderr.fnmatch_lines([f"ERROR: <command line>:1: AxisWarning: {message}"])


def test_unknown_axis_without_parametrized_functions(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_plain="def bench_plain():\n    pass\n")
    warned = record_warnings(pytester)
    pytester.runpytest("--prob-compare=style")
    assert recorded(warned, "AxisWarning") == [
        [
            "AxisWarning",
            "--prob-compare=style: no collected bench function has a parametrize argument named "
            "'style', so nothing is compared; none of them is parametrized",
            "<command line>",
            1,
            "collect",
        ]
    ]
    pytester.makepyfile(bench_plain="def test_plain():\n    pass\n")
    pytester.runpytest("--prob-compare=style")  # no bench function at all: nothing to say
    assert recorded(warned, "AxisWarning") == []


MARGIN_BENCH = """
import pytest


@pytest.mark.probability(compare="arm", margin=0.05{extra})
@pytest.mark.parametrize("arm", ["a", "b", "c"])
@pytest.mark.parametrize("item", range(3))
def bench_pick(item, arm):
    pass
"""
#: the line of bench_pick's first decorator
MARGIN_LINE = 4


def _margin_warning(path: Any, arm: str, paired: int, rule: str, few: str, least: int) -> list:
    return [
        "MarginWarning",
        f"pick[arm] {arm} − a: the margin cannot pass with {paired} paired inputs: {rule} is "
        f"judged on an interval, and {few} have none (prob_min_inputs={least}): the verdict "
        "is always UNDECIDED",
        str(path),
        MARGIN_LINE,
        "collect",
    ]


def _both_arms_warning(path: Any, few: str) -> list:
    """One mark, one problem: one warning at the mark for both arms."""
    found = _margin_warning(path, "b", 3, "margin=0.05", few, 10)
    found[1] = (
        found[1].replace("pick[arm] b − a:", "pick:", 1)
        + " (2 comparisons: pick[arm] b − a, pick[arm] c − a)"
    )
    return found


def test_margin_with_too_few_inputs_warns_at_the_function(pytester: pytest.Pytester) -> None:
    bench = pytester.makepyfile(bench_pick=MARGIN_BENCH.format(extra=""))
    assert (
        bench.read_text()
        .splitlines()[MARGIN_LINE - 1]
        .startswith("@pytest.mark.probability(compare=")
    )
    warned = record_warnings(pytester)
    result = pytester.runpytest("--prob-runs=2")
    few = "2 to 9 paired inputs"
    assert recorded(warned, "MarginWarning") == [_both_arms_warning(bench, few)]
    # and the verdicts are UNDECIDED, as the warning said
    assert [
        line.split("  ")[-1]
        for line in section(result.outlines, "probability: comparisons")
        if "paired" in line
    ] == ["UNDECIDED", "UNDECIDED"]
    # counted over the selected cases, per arm; prob_min_inputs moves the bound
    pytester.runpytest(
        "--prob-runs=2", "-o", "prob_min_inputs=3", "--deselect", "bench_pick.py::bench_pick::2-b"
    )
    assert recorded(warned, "MarginWarning") == [
        _margin_warning(bench, "b", 2, "margin=0.05", "2 paired inputs", 3)
    ]
    # one pair has an interval (Newcombe's): no warning
    one = pytester.runpytest("--prob-runs=2", "-k", "bench_pick and 0")
    assert recorded(warned, "MarginWarning") == []
    compared = section(one.outlines, "probability: comparisons")
    assert ["  1 paired  " in line for line in compared[:2]] == [True, True]
    # equivalence is named in the rule
    pytester.makepyfile(bench_pick=MARGIN_BENCH.format(extra=", equivalence=True"))
    pytester.runpytest("--prob-runs=2", "--deselect", "bench_pick.py::bench_pick::2-c")
    rule = "margin=0.05, equivalence=True"
    assert recorded(warned, "MarginWarning") == [
        _margin_warning(bench, "b", 3, rule, few, 10),
        _margin_warning(bench, "c", 2, rule, few, 10),
    ]


@pytest.mark.subprocess
def test_collection_warnings_once_under_xdist(pytester: pytest.Pytester) -> None:
    bench = pytester.makepyfile(bench_pick=MARGIN_BENCH.format(extra=""))
    warned = record_warnings(pytester)
    pytester.runpytest_subprocess("--prob-runs=2", "-n", "2", "--prob-compare=amr")
    few = "2 to 9 paired inputs"
    assert recorded(warned, "MarginWarning", "AxisWarning") == [
        [
            "AxisWarning",
            "--prob-compare=amr: no collected bench function has a parametrize argument named "
            "'amr' (did you mean 'arm'?), so nothing is compared; their arguments are: arm, item",
            "<command line>",
            1,
            "collect",
        ],
        _both_arms_warning(bench, few),
    ]


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        ("None", "returned None; expected a TestOutcome"),
        ("TestOutcome(0.1, 0.3, 0.2, 0.5, 'x')", "interval [0.3, 0.2]"),
        ("TestOutcome(0.1, None, None, 7.0, 'x')", "p=7.0 (expected a number in [0, 1])"),
    ],
)
def test_an_invalid_test_answer_marks_the_comparison(
    pytester: pytest.Pytester, returned: str, problem: str
) -> None:
    pytester.makeconftest(
        f"""
from pytest_probability.extensions.comparisons.registry import TestOutcome

def pytest_prob_register_comparison_tests(register, config):
    register("bad", lambda pairs, settings: {returned})
"""
    )
    mark = '@pytest.mark.probability(compare="arm", margin=0.05, compare_test="bad")'
    pytester.makepyfile(bench_pick=_outcome_bench({"a": (2, 2), "b": (2, 2)}, mark))
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json", "-rfs")
    (line,) = section(result.outlines, "probability: comparisons")
    assert line.startswith("  pick[arm]  b − a  could not be computed: ValueError: comparison")
    assert problem in line
    assert line.endswith("  UNDECIDED")
    # a margin that cannot be computed fails closed: UNDECIDED (failing by default), not a skip
    report = load_json(pytester.path / "r.json")
    assert (report["comparisons"][0]["verdict"], report["exit_status"]) == ("undecided", 1)
    result.assert_outcomes(passed=8, failed=1)  # (the [compare:b] item fails)
    result.stdout.fnmatch_lines(["*ComparisonWarning: comparison test 'bad' failed*"])


# -- a margin makes it a gate: its verdict, not each run, decides ------------------------------
def test_a_margin_decides_the_exit_status_like_a_gate(pytester: pytest.Pytester) -> None:
    """Every case fails its tenth run; b − a is 0 pp [0, 0], above the −5 pp margin: PASS.
    The failing runs of the compared cases are xfailed, so the session passes (before: 24
    failed runs, exit 1); a FAIL verdict is the one failure."""
    rates = {"a": (9,) * 12, "b": (9,) * 12}
    mark = '@pytest.mark.probability(compare="arm", margin=0.05)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    result = pytester.runpytest("--prob-runs=10", "-v", "--prob-json=r.json")
    assert section(result.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  0 pp [0, 0]  p=1  12 paired  ≥−5 pp  PASS"
    ]
    result.assert_outcomes(passed=217, xfailed=24)
    assert result.ret == 0
    assert any(
        line.startswith("bench_pick.py::bench_pick::0-a[run10] XFAIL (compared case")
        for line in result.outlines
    ), result.outlines
    records = load_json(pytester.path / "r.json")["records"]
    assert sum(r["outcome"] == "fail" for r in records) == 24  # the records keep the truth
    # a failing verdict fails the session through its [compare:b] item
    pytester.makepyfile(bench_pick=_outcome_bench({"a": (9,) * 12, "b": (4,) * 12}, mark))
    failing = pytester.runpytest("--prob-runs=10", "-rf")
    failing.assert_outcomes(passed=156, failed=1, xfailed=84)
    assert failing.ret == 1
    assert any(
        line.startswith("FAILED bench_pick.py::bench_pick[compare:b]") for line in failing.outlines
    )
    # --runxfail keeps pytest's meaning: the runs' failures are failures again
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    plain = pytester.runpytest("--prob-runs=10", "--runxfail")
    plain.assert_outcomes(passed=217, failed=24)
    assert plain.ret == 1


def test_a_margin_leaves_the_runs_of_unpaired_inputs_alone(pytester: pytest.Pytester) -> None:
    """Only the cases a margin judges are decided by it: input 1 has no b arm, so its failing
    runs still fail the session (they are listed, not compared)."""
    pytester.makepyfile(
        bench_pick="""
import pytest
from pytest_probability import current_run

@pytest.mark.probability(compare="arm", margin=0.9)
@pytest.mark.parametrize(("item", "arm"), [(0, "a"), (0, "b"), (1, "a")])
def bench_pick(item, arm):
    assert current_run().run != 2
"""
    )
    result = pytester.runpytest("--prob-runs=3", "-rfx")
    result.assert_outcomes(passed=7, failed=1, xfailed=2)
    assert "FAILED bench_pick.py::bench_pick::1-a - 1/3 runs failed: assert 2 != 2" in (
        result.outlines
    )
    assert result.ret == 1


def test_margin_zero_means_no_drop(pytester: pytest.Pytester) -> None:
    """``margin=0``: the difference's lower end must be above zero (printed ``≥0 pp``);
    ``equivalence=True`` cannot hold within ±0 and is refused."""
    rates = {"a": (5,) * 12, "b": (9,) * 12}
    mark = '@pytest.mark.probability(compare="arm", margin=0)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    result = pytester.runpytest("--prob-runs=10")
    assert section(result.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  +40 pp [+40, +40]  p<0.001  12 paired  ≥0 pp  PASS"
    ]
    equal = {"a": (9,) * 12, "b": (9,) * 12}
    pytester.makepyfile(bench_pick=_outcome_bench(equal, mark))
    same = pytester.runpytest("--prob-runs=10")
    assert section(same.outlines, "probability: comparisons") == [
        "  pick[arm]  b − a  0 pp [0, 0]  p=1  12 paired  ≥0 pp  UNDECIDED"
    ]
    assert same.ret == 1
    equivalence = mark.replace("margin=0", "margin=0, equivalence=True")
    pytester.makepyfile(bench_pick=_outcome_bench(rates, equivalence))
    refused = pytester.runpytest("--prob-runs=10")
    assert refused.ret == 2
    assert (
        "bench_pick.py::bench_pick: equivalence=True needs a margin above 0: no interval lies "
        "within ±0 points"
    ) in refused.outlines


# -- a session-wide axis lists the functions it cannot compare ---------------------------------
ONE_VALUE_BENCH = """
import pytest

@pytest.mark.parametrize("style", ["terse", "cot"])
@pytest.mark.parametrize("text", ["x", "y"])
def bench_two(text, style):
    pass

@pytest.mark.parametrize("style", ["terse"])
@pytest.mark.parametrize("text", ["x", "y"])
def bench_one(text, style):
    pass

@pytest.mark.parametrize("style", ["cot"])
def bench_single(style):
    pass

def bench_none():
    pass
"""


def test_session_axis_lists_functions_with_one_value_as_not_compared(
    pytester: pytest.Pytester,
) -> None:
    """``--prob-compare=style`` compares the functions with two styles and lists those with
    one (before: a collection error, exit 2); functions without the argument stay silent, as
    in the spec's example."""
    pytester.makepyfile(bench_a=ONE_VALUE_BENCH)
    result = pytester.runpytest("--prob-runs=2", "--prob-compare=style", "--prob-json=r.json")
    assert result.ret == 0
    assert section(result.outlines, "probability: comparisons") == [
        "  two[style]  cot − terse  0 pp  p=1  2 paired",
        "      x  0 pp [−66, +66]",
        "      y  0 pp [−66, +66]",
        "  not compared (one value of style): one (terse), single (cot)",
    ]
    report = load_json(pytester.path / "r.json")
    assert report["not_compared"] == [
        {"function": "bench_a.py::bench_one", "label": "one", "axis": "style", "values": ["terse"]},
        {
            "function": "bench_a.py::bench_single",
            "label": "single",
            "axis": "style",
            "values": ["cot"],
        },
    ]
    assert [c["label"] for c in report["comparisons"]] == ["two"]
    # nothing compared at all: the section still says why
    only = pytester.runpytest("--prob-runs=2", "--prob-compare=style", "-k", "one")
    assert only.ret == 0
    assert section(only.outlines, "probability: comparisons") == [
        "  not compared (one value of style): one (terse)"
    ]
    # compare= on the function itself asks for that function: one value is an error there
    pytester.makepyfile(
        bench_a=ONE_VALUE_BENCH.replace(
            '@pytest.mark.parametrize("style", ["terse"])',
            '@pytest.mark.probability(compare="style")\n@pytest.mark.parametrize("style", ["terse"])',
        )
    )
    marked = pytester.runpytest("--prob-runs=2")
    assert marked.ret == 2
    assert (
        "bench_a.py::bench_one: compare='style': bench_one has one value of style (terse): "
        "there is nothing to compare it with"
    ) in marked.outlines


@pytest.mark.subprocess
def test_margin_runs_and_not_compared_are_the_same_under_xdist(
    pytester: pytest.Pytester,
) -> None:
    rates = {"a": (9,) * 12, "b": (9,) * 12}
    mark = '@pytest.mark.probability(compare="arm", margin=0.05)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark), bench_a=ONE_VALUE_BENCH)
    args = ("--prob-runs=10", "--prob-compare=style")
    serial = pytester.runpytest_subprocess(*args, "--prob-json=s.json")
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--prob-json=p.json")
    assert serial.ret == parallel.ret == 0
    serial.assert_outcomes(passed=297, xfailed=24)
    parallel.assert_outcomes(passed=297, xfailed=24)
    one = section(serial.outlines, "probability: comparisons")
    assert one == section(parallel.outlines, "probability: comparisons")
    assert one[-1] == "  not compared (one value of style): one (terse), single (cot)"
    first, second = load_json(pytester.path / "s.json"), load_json(pytester.path / "p.json")
    assert first["not_compared"] == second["not_compared"]
    assert first["comparisons"] == second["comparisons"]


def test_a_margin_does_not_take_the_runs_of_a_case_whose_partner_is_deselected(
    pytester: pytest.Pytester,
) -> None:
    """``-k left`` keeps only the baseline arm: no pair is judged, so no margin verdict
    decides for those runs and their failures fail the session, as without a margin."""
    rates = {"left": (9,) * 12, "right": (9,) * 12}
    mark = '@pytest.mark.probability(compare="arm", margin=0.05)'
    pytester.makepyfile(bench_pick=_outcome_bench(rates, mark))
    result = pytester.runpytest("--prob-runs=10", "-k", "left")
    result.assert_outcomes(passed=108, failed=12, deselected=121)
    assert result.ret == 1
    both = pytester.runpytest("--prob-runs=10")
    both.assert_outcomes(passed=217, xfailed=24)
    assert both.ret == 0


def test_a_comparison_test_answers_each_comparison_once(pytester: pytest.Pytester) -> None:
    """The ``[compare:ARM]`` item and the report read the same runs: the test (a bootstrap,
    at the largest ``--prob-bootstrap`` minutes of work) is asked once, and both say the
    same (a held SIGTERM is answered within seconds: issue 35 §2)."""
    pytester.makeconftest(
        """
from pytest_probability.extensions.comparisons.registry import TestOutcome

CALLS = []

def counted(pairs, settings):
    CALLS.append(len(pairs))
    return TestOutcome(0.0, -0.1, 0.1, 0.5, "x")

def pytest_prob_register_comparison_tests(register, config):
    register("counted", counted)

def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"test calls: {CALLS}")
"""
    )
    mark = '@pytest.mark.probability(compare="arm", margin=0.2, compare_test="counted")'
    pytester.makepyfile(bench_pick=_outcome_bench({"a": (2, 2), "b": (2, 2)}, mark))
    result = pytester.runpytest("-p", "no:randomly", "--prob-runs=2", "--prob-json=r.json")
    result.assert_outcomes(passed=9)  # 8 runs and the [compare:b] item
    assert "test calls: [2]" in result.outlines  # one call, with the 2 paired inputs
    assert load_json(pytester.path / "r.json")["comparisons"][0]["verdict"] == "pass"
