"""Plain-language readings of comparisons and baseline regressions (for ``--prob-explain``).

The one-pair reading follows the spec's own explanation under "A/B-testing prompts".

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import math
from typing import Any

from pytest_probability.api import Reading, ReportBuilder

from .render import p_value, signed_pp
from .render import ratio as ratio_text


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


def _number(value: Any) -> float | None:
    """A finite number from a JSON field, else ``None`` (a hidden or missing value)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _numbers(item: dict[str, Any]) -> tuple[float | None, ...]:
    """The difference, the interval's ends and p (adjusted when it is) of a JSON item."""
    p = _number(item.get("p_adjusted"))
    p = _number(item.get("p")) if p is None else p
    return _number(item.get("difference")), _number(item.get("low")), _number(item.get("high")), p


def _level(item: dict[str, Any]) -> str:
    level = _number(item.get("level"))
    return "its" if level is None else f"a {round(level * 100)}%"


def _hidden_text(item: dict[str, Any], versus: str) -> str:
    """The reading of a comparison whose numbers are hidden (cases stopped early)."""
    paired = item.get("paired") or 0
    inputs = "input" if paired == 1 else "inputs"
    return (
        f"Over {paired} paired {inputs}, {versus} is not estimated: {item['hidden']}, so a "
        "difference, an interval or a p computed from them would lean too, and none is "
        "shown. Run without --prob-stop to estimate it (a margin= keeps the cases it "
        "judges running)."
    )


#: a settled sequential reading, in words (``{side}``: better or worse)
SETTLED_WORDS = {
    "difference": "the interval left out zero, so on inputs like these it is {side}",
    "resolved": "the interval became narrower than the resolution of {resolution} points, "
    "so any difference is smaller than that",
    "pass": "the margin's PASS was certain",
    "fail": "the margin's FAIL was certain",
    "undecided": "no later look could have decided the margin, so UNDECIDED was certain",
}


def _sequence_text(item: dict[str, Any], versus: str) -> str:
    """The reading of a comparison monitored on its anytime-valid sequence
    (``--prob-stop=sequential``), stopped early or not."""
    detail = item.get("detail") or {}
    difference, low, high, p = _numbers(item)
    pairs, inputs = detail.get("pairs") or 0, item.get("paired") or 0
    horizon = detail.get("method") == "group-sequential"
    if horizon:
        text = (
            "Monitored pair by pair on group-sequential boundaries that spend the error rate "
            f"over the planned pairs: over {pairs} pairs"
        )
    else:
        method = "a mixture" if detail.get("method") == "mixture" else "an empirical-Bernstein"
        text = f"Monitored pair by pair on {method} confidence sequence: over {pairs} pairs"
    if inputs > 1:
        text += f" ({detail.get('rounds')} rounds of {inputs} inputs)"
    if item.get("axis") == "baseline":
        text += " (each run now against one of the baseline's runs, dealt in a seeded order)"
    text += ","
    # (the level its boundaries were designed at, when it is its share of the family's α)
    family_level, designed = _number(item.get("level")), _number(detail.get("level"))
    shared = designed if family_level is not None and designed not in (None, family_level) else None
    interval_level = _level(item) if shared is None else f"a {100 * shared:.4g}%"
    if difference is not None and low is not None and high is not None:
        if horizon:
            adjusted = detail.get("estimate") == "median-unbiased"
            observed = detail.get("observed")
            words = _points(difference)
            if adjusted and observed is not None and _points(observed) == words:
                words += " (median-unbiased for stopping early)"
            elif adjusted and observed is not None:
                words += (
                    f" (median-unbiased for stopping early; {_points(observed)} over the "
                    "pairs used, which leans away from zero)"
                )
            text += (
                f" {versus} differs by {words}, {interval_level} repeated confidence interval "
                f"from {signed_pp(low)} to {signed_pp(high)}, valid at whichever planned look "
                "the runs stopped"
            )
        else:
            text += (
                f" {versus} differs by {_points(difference)}, {_level(item)} interval from "
                f"{signed_pp(low)} to {signed_pp(high)} that stays valid however early the "
                "runs stopped"
            )
    if p is not None:
        text += f"; p = {p_value(p)}, " + (
            "by the stagewise ordering of the looks" if horizon else "valid at any stop"
        )
    text += "."
    if shared is not None and family_level is not None:
        family = round((1.0 - family_level) / max(1e-12, 1.0 - shared))
        text += (
            f" Its boundaries spend its share of α over the {family} comparisons "
            f"--prob-adjust={item.get('adjust')} corrects, so it stops only once its p can "
            "survive the correction."
        )
    reading, after = detail.get("settled"), detail.get("settled_after")
    planned = detail.get("planned_pairs") or 0
    if reading in SETTLED_WORDS and after is not None:
        unit = "pairs" if inputs <= 1 else "rounds"
        total = planned if inputs <= 1 else planned // max(inputs, 1)
        words = SETTLED_WORDS[reading].format(
            side="better" if (low or 0) > 0 else "worse",
            resolution=f"{100 * float(detail.get('resolution') or 0):g}",
        )
        text += f" It settled after {after} of {total} {unit}: {words}."
        made = sum(
            min(int((pair.get(side) or {}).get("total") or 0) for side in ("arm", "baseline"))
            for pair in item.get("pairs") or []
        )
        if made > pairs:  # (a gate of one of its cases kept them running)
            text += (
                f" Its cases made {made - pairs} more pairs for their own gates; they are not "
                "read, so the reading, the interval and p are those of the look it settled at."
            )
        elif horizon and detail.get("estimate") != "median-unbiased" and after < total:
            text += (
                " Its cases stopped then, so their fractions lean toward that reading; the "
                "interval allows for stopping when the data looked clear, and the difference "
                "is the one over the pairs used (a stop on the resolution or an UNDECIDED "
                "margin crossed no boundary of a value to adjust it from)."
            )
        else:
            which = "the estimate and the interval" if horizon else "the interval and p"
            text += (
                " Its cases stopped then, so their fractions lean toward that reading, but "
                f"{which} allow for stopping when the data looked clear."
            )
    else:
        text += " It had not settled when its planned runs ran out."
    return text


def _estimate_text(item: dict[str, Any], versus: str, sides: str) -> str:
    """The sentence about the difference, its interval and p (each may be missing)."""
    difference, low, high, p = _numbers(item)
    shown_p = "" if p is None else f"p = {p_value(p)}"
    paired = item.get("paired") or 0
    if difference is None:
        text = f"Over {paired} paired inputs {versus} has no estimated difference"
        return text + (f"; {shown_p}." if shown_p else ".")
    interval = (
        f"{_level(item)} interval from {signed_pp(low)} to {signed_pp(high)}"
        if low is not None and high is not None
        else "no interval"
    )
    pairs = item.get("pairs") or []
    if item.get("regime") == "one pair" and pairs:
        arm, base = pairs[0].get("arm") or {}, pairs[0].get("baseline") or {}
        better = "win" if difference > 0 else "loss" if difference < 0 else "tie"
        text = (
            f"{arm.get('passes')}/{arm.get('total')} against {base.get('passes')}/"
            f"{base.get('total')} looks like a {better}, but it is one input: the difference "
            f"is {_points(difference)} with {interval}"
        )
        if p is None:
            return text + "."
        return (
            f"{text}, and {shown_p} — if {sides} were equally good, a gap this big would "
            f"turn up by chance {chance_words(p)}."
        )
    if item.get("regime") == "few pairs":
        text = f"Over {paired} paired inputs the mean difference is {_points(difference)}"
        if shown_p:
            text += f" and {shown_p} (a sign-flip test on the per-input differences)"
        return text + "; there are too few inputs for an interval yet."
    if low is None or high is None:
        text = f"Over {paired} paired inputs {versus} differs by {_points(difference)}"
        return text + (f" and {shown_p}; it has no interval." if shown_p else "; no interval.")
    level = _number(item.get("level"))
    shown_level = "an" if level is None else f"{round(level * 100)}%"
    text = (
        f"Over {paired} paired inputs {versus} differs by {_points(difference)}, "
        f"{shown_level} interval {signed_pp(low)} to {signed_pp(high)} (a paired bootstrap "
        "over inputs)"
    )
    return text + (f", {shown_p} (a sign-flip test)." if shown_p else ".")


def comparison_text(item: dict[str, Any], versus: str, sides: str) -> str:
    """The reading of one comparison (``versus``: ``chain_of_thought`` against ``terse``;
    ``sides``: what is being compared, for the chance sentence). Every number may be
    ``null`` (hidden over cases stopped early, or not given by the test): the reading then
    says so instead."""
    if item.get("error"):
        return f"It could not be computed: {item['error']}."
    if item.get("regime") is None:
        return "No input ran on both sides, so nothing was compared."
    if item.get("regime") == "sequence":
        text = _sequence_text(item, versus)
    elif item.get("hidden"):
        text = _hidden_text(item, versus)
    else:
        text = _estimate_text(item, versus, sides)
        low, high = _number(item.get("low")), _number(item.get("high"))
        if low is not None and high is not None:
            if low > 0:
                text += " The whole interval is above zero: on inputs like these it is better."
            elif high < 0:
                text += " The whole interval is below zero: on inputs like these it is worse."
            else:
                text += " The data can't tell yet which is better."
            if _number(item.get("level")) is not None:
                text += disagreement(item, low, high)
    ratio = _number(item.get("cost_ratio"))
    if ratio is not None and abs(ratio - 1.0) >= 0.05:
        times = ratio_text(ratio).removeprefix("×")  # half up, as the line prints it
        text += (
            f" What it does show is that {item.get('arm')} costs {times} times as much per "
            f"run as {item.get('baseline')}."
        )
    margin = _number(item.get("margin"))
    if margin is not None and item.get("verdict"):
        text += f" Against the margin of {signed_pp(-margin)} points: {item['verdict'].upper()}."
    if item.get("regime") not in ("bootstrap", "sequence") and not item.get("hidden"):
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
