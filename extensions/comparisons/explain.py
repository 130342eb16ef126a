"""Plain-language readings of comparisons and baseline regressions (for ``--prob-explain``).

The one-pair reading follows the spec's own explanation under "A/B-testing prompts".
"""

from __future__ import annotations

from typing import Any

from pytest_probability.extensions.explain.readings import Reading
from pytest_probability.report import ReportBuilder

from .render import p_value, signed_pp


def chance_words(p: float) -> str:
    """How often a gap this big turns up by chance, in words."""
    if 0.4 <= p <= 0.6:
        return "about half the time"
    if p >= 0.95:
        return "almost always"
    if p < 0.001:
        return "almost never"
    return f"about {max(1, round(p * 100))} times in 100"


def _points(x: float) -> str:
    return f"{signed_pp(x)} points"


#: how the bundled test's ``detail`` names its methods, in words
TEST_WORDS = {"sign-flip": "a sign-flip test", "fisher": "Fisher's exact test"}
INTERVAL_WORDS = {
    "paired bootstrap": "a paired bootstrap over inputs",
    "newcombe": "Newcombe's score method",
}


def disagreement(item: dict[str, Any], low: float, high: float) -> str:
    """A sentence when the interval and p disagree about zero (the interval excludes it
    while p > α, or includes it while p ≤ α): they come from different methods, and the
    interval decides a margin verdict. Empty when they agree. Uses the unadjusted p, since
    an adjustment changes p and never the interval."""
    p = item.get("p")
    if p is None:
        return ""
    alpha = 1.0 - item["level"]
    excludes = low > 0 or high < 0
    if excludes == (p <= alpha):  # they agree
        return ""
    detail = item.get("detail") or {}
    test = TEST_WORDS.get(detail.get("test"), "the comparison test")
    interval = INTERVAL_WORDS.get(detail.get("interval"), "its own method")
    which = "p" if item.get("p_adjusted") is None else "the unadjusted p"
    return (
        f" The interval {'excludes' if excludes else 'includes'} zero while {which} = "
        f"{p_value(p)} is {'above' if p > alpha else 'at or below'} {alpha:.10g}: p comes "
        f"from {test}, the interval from {interval}, two different methods that can "
        "disagree near the boundary. A margin verdict is decided by the interval, not by p."
    )


def comparison_text(item: dict[str, Any], versus: str, sides: str) -> str:
    """The reading of one comparison (``versus``: ``chain_of_thought`` against ``terse``;
    ``sides``: what is being compared, for the chance sentence)."""
    if item.get("error"):
        return f"It could not be computed: {item['error']}."
    if item.get("regime") is None:
        return "No input ran on both sides, so nothing was compared."
    p = item.get("p_adjusted") if item.get("p_adjusted") is not None else item.get("p")
    shown_p = "" if p is None else f"p = {p_value(p)}"
    if item["regime"] == "one pair":
        pair = item["pairs"][0]
        arm, base = pair["arm"], pair["baseline"]
        better = "win" if item["difference"] > 0 else "loss" if item["difference"] < 0 else "tie"
        text = (
            f"{arm['passes']}/{arm['total']} against {base['passes']}/{base['total']} looks like "
            f"a {better}, but it is one input: the difference is {_points(item['difference'])}"
            f" with a {round(item['level'] * 100)}% interval from {signed_pp(item['low'])} to "
            f"{signed_pp(item['high'])}, and {shown_p} — if {sides} were equally good, a gap "
            f"this big would turn up by chance {chance_words(p or 1.0)}."
        )
    elif item["regime"] == "few pairs":
        text = (
            f"Over {item['paired']} paired inputs the mean difference is "
            f"{_points(item['difference'])} and {shown_p} (a sign-flip test on the per-input "
            "differences); there are too few inputs for an interval yet."
        )
    elif item.get("low") is None:  # the interval is hidden (cases stopped early)
        text = (
            f"Over {item['paired']} paired inputs {versus} differs by "
            f"{_points(item['difference'])} and {shown_p}; its interval is hidden because "
            f"{item.get('hidden', 'it could not be computed')}."
        )
    else:
        text = (
            f"Over {item['paired']} paired inputs {versus} differs by "
            f"{_points(item['difference'])}, {round(item['level'] * 100)}% interval "
            f"{signed_pp(item['low'])} to {signed_pp(item['high'])} (a paired bootstrap over "
            f"inputs), {shown_p} (a sign-flip test)."
        )
    low, high = item.get("low"), item.get("high")
    if low is not None and high is not None:
        if low > 0:
            text += " The whole interval is above zero: on inputs like these it is better."
        elif high < 0:
            text += " The whole interval is below zero: on inputs like these it is worse."
        else:
            text += " The data can't tell yet which is better."
        text += disagreement(item, low, high)
    ratio = item.get("cost_ratio")
    if ratio is not None and abs(ratio - 1.0) >= 0.05:
        text += (
            f" What it does show is that {item['arm']} costs {ratio:.1f} times as much per run "
            f"as {item['baseline']}."
        )
    if item.get("margin") is not None and item.get("verdict"):
        text += (
            f" Against the margin of {signed_pp(-item['margin'])} points: "
            + item["verdict"].upper()
            + "."
        )
    if item["regime"] != "bootstrap":
        text += (
            " Add inputs: with enough pairs the interval comes from a paired bootstrap over "
            "inputs and p from a sign-flip test on the per-input differences."
        )
    return text


def readings(report: ReportBuilder) -> list[Reading]:
    """A reading per comparison and per function against the baseline."""
    found = []
    terms = ("pp", "interval", "p-value")
    for item in report.json.get("comparisons", []):
        versus = f"{item['arm']} against {item['baseline']}"
        text = comparison_text(item, versus, f"the two {item['axis']} values")
        topic = f"{item['label']}[{item['axis']}] {item['arm']} − {item['baseline']}"
        extra = ("margin",) if item.get("margin") is not None else ()
        found.append(Reading(topic, text, terms + extra, item, order=400))
    for item in (report.json.get("baseline") or {}).get("functions", []):
        text = comparison_text(item, "this run against the baseline", "this run and the baseline")
        if item.get("new"):
            text += f" New cases, not compared: {', '.join(item['new'])}."
        extra = ("margin",) if item.get("margin") is not None else ()
        found.append(Reading(f"{item['label']} now − baseline", text, terms + extra, item, 500))
    return found
