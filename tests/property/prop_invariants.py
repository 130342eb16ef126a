"""The invariants the property suite checks (docs/internals.rst, "The property suite").

Session checks hold in every session; relations compare sessions of one example whose flags
differ in a way the spec says cannot matter. Each seam still open is left out by a commented
``assume`` or condition at the one assertion it breaks (or a relation's ``known``), citing
the strict-xfail test in test_regressions.py that keeps its reproduction.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from helpers import stable
from prop_harness import Relation, Session, relation, session_check
from prop_suites import Example, Flags

TOLERANCE = 1e-9
PERCENT_ROW = re.compile(r"^  (?P<case>\S+)\s+(?P<passes>\d+)/(?P<total>\d+)(?P<rest>.*)$")
BOUNDS = re.compile(r"^\s+\[\s*(?P<low>\d+)%,\s*(?P<high>\d+)%\]")
OVERALL = re.compile(r"^  Overall: (?P<passes>\d+)/(?P<count>\d+) passed \((?P<pct>\d+)%\)$")
STOPPED = re.compile(
    r"^  Stopped: (?P<cases>\d+) cases? early, saving (?P<saved>\d+) of (?P<planned>\d+) runs "
    r"\((?P<pct>\d+)%\)(?:, about \$(?P<cost>[0-9.]+) not spent)?$"
)
#: lines that may differ between sessions whose results are equal: the explain hint (absent
#: under --prob-explain), xdist's Workers: line, a writer saying where it wrote
NOTICE = re.compile(
    r"^  (--prob-explain reads .*|Workers: .*|saved this session's baseline to .*)$"
)
GATES = re.compile(r"^  Gates:\s+(?P<text>.*)$")
STATUS = re.compile(r"(FLAKY \(\d+ errored\)|FAIL \(\d+ errored\)|\d+ ERRORED|FLAKY|FAIL|ERROR)?")


# -- reading a report -----------------------------------------------------------------------


def half_up(value: Fraction) -> int:
    """Round half up on the exact value (the spec's printing rule)."""
    return math.floor(value + Fraction(1, 2))


def rows_by_case(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["case"]: row for row in report["rows"]}


def records_by_case(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in report["records"]:
        found[record["case"]].append(record)
    for records in found.values():
        records.sort(key=lambda r: r["run"])
    return found


def comparison_lines(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = list(report.get("comparisons") or [])
    found += list((report.get("baseline") or {}).get("functions") or [])
    return found


def verdicts(report: Mapping[str, Any]) -> dict[tuple[str, ...], Any]:
    """Every verdict of a session: each gated case's verdict and its checks' verdicts, each
    comparison's and each baseline function's."""
    found: dict[tuple[str, ...], Any] = {}
    for row in report["rows"]:
        gate = row.get("gate")
        if gate:
            found["gate", row["case"]] = gate["verdict"]
            for index, check in enumerate(gate.get("checks") or []):
                found["check", row["case"], str(index), check["kind"]] = check["verdict"]
    for line in report.get("comparisons") or []:
        found["compare", line["function"], str(line["arm"])] = line["verdict"]
    for line in (report.get("baseline") or {}).get("functions") or []:
        found["baseline", line["function"]] = line["verdict"]
    return found


def main_rows(session: Session) -> dict[str, tuple[int, int, str]]:
    """``{case: (passes, total, rest of the line)}`` of the main table."""
    found = {}
    known = {row["case"] for row in (session.report or {}).get("rows", [])}
    for line in session.sections().get("probability", []):
        match = PERCENT_ROW.match(line)
        if match and (not known or match.group("case") in known):
            found[match.group("case")] = (
                int(match.group("passes")),
                int(match.group("total")),
                match.group("rest"),
            )
    return found


def summary_line(session: Session, pattern: re.Pattern[str]) -> re.Match[str] | None:
    for line in session.sections().get("probability", []):
        match = pattern.match(line)
        if match:
            return match
    return None


# -- session checks -------------------------------------------------------------------------


@session_check("strict JSON")
def strict_json(example: Example, session: Session) -> None:
    """A ``--prob-json`` report is written, is RFC 8259 JSON (no NaN/Infinity), and records
    the session's exit status."""
    if not session.flags.json or session.ret not in (0, 1):
        return
    assert session.report_error is None, session.report_error
    assert session.report is not None
    assert session.report["exit_status"] == session.ret, (
        f"exit_status {session.report['exit_status']} but the session exited {session.ret}"
    )


@session_check("the session ran")
def session_ran(example: Example, session: Session) -> None:
    """Every drawn suite and flag set is valid: the session runs (exit 0 or 1), without an
    internal error or a warning from a failing extension."""
    assert session.ret in (0, 1), f"exit status {session.ret}"
    for line in session.lines:
        assert "INTERNALERROR" not in line, line
        assert "ProbabilityExtensionWarning" not in line, line  # a hook implementation raised
    for title, lines in session.sections().items():
        for line in lines:
            assert not line.lstrip().startswith("warning:"), f"{title}: {line}"


@session_check("fractions are passes/total")
def fractions(example: Example, session: Session) -> None:
    """Each row's total is passes + fails + errors, its rate is passes/total, its printed
    ``k/N`` is passes/total, it counts its run records, and the totals and the Overall line
    add the rows up."""
    report = session.report
    if report is None:
        return
    records = records_by_case(report)
    totals = Counter()
    for row in report["rows"]:
        passes, fails, errors, total = (row[k] for k in ("passes", "fails", "errors", "total"))
        assert total == passes + fails + errors, row["case"]
        if total:
            assert abs(row["pass_rate"] - 100 * passes / total) < TOLERANCE, row["case"]
        outcomes = Counter(r["outcome"] for r in records.get(row["case"], []))
        assert (outcomes["pass"], outcomes["fail"], outcomes["error"]) == (passes, fails, errors), (
            f"{row['case']}: row {passes}/{fails}/{errors}, records {dict(outcomes)}"
        )
        totals.update(passes=passes, fails=fails, errors=errors, count=total)
    for key in ("passes", "fails", "errors", "count"):
        assert report["totals"][key] == totals[key], (key, report["totals"][key], totals[key])
    printed = main_rows(session)
    for row in report["rows"]:
        if row["total"] == 0 and row["case"] not in printed:
            continue
        assert row["case"] in printed, f"no table row for {row['case']}"
        assert printed[row["case"]][:2] == (row["passes"], row["total"]), row["case"]
    overall = summary_line(session, OVERALL)
    if totals["count"]:
        assert overall, "no Overall: line"
        assert (int(overall["passes"]), int(overall["count"])) == (
            totals["passes"],
            totals["count"],
        )
        exact = half_up(Fraction(100 * totals["passes"], totals["count"]))
        assert int(overall["pct"]) == exact, f"{overall.group(0)}: expected {exact}%"


def _contains(low: Any, value: Any, high: Any, what: str) -> None:
    if value is None:
        return
    if low is not None:
        assert low <= value + TOLERANCE, f"{what}: estimate {value} below its interval's low {low}"
    if high is not None:
        assert value <= high + TOLERANCE, (
            f"{what}: estimate {value} above its interval's high {high}"
        )


@session_check("intervals contain their estimates")
def intervals_contain_estimates(example: Example, session: Session) -> None:
    """Every interval, printed or in the JSON, contains the estimate it is printed with:
    rows, function-level and Overall lines, metrics, comparisons, baselines, latency."""
    report = session.report
    if report is None:
        return
    for row in report["rows"]:
        ci = row.get("ci")
        if ci and row["total"]:
            rate = row["passes"] / row["total"]
            if ci.get("method") == "bayes" and row["passes"] in (0, row["total"]):
                # an equal-tailed credible interval never reaches 0 or 1 (STATISTICS.md:
                # only exact, wilson and seq are pinned to 0/1 at x = 0/n)
                continue
            _contains(ci.get("low"), rate, ci.get("high"), f"row {row['case']}")
        latency = row.get("latency")
        if latency:
            _contains(
                latency.get("low"),
                latency.get("estimate"),
                latency.get("high"),
                f"latency {row['case']}",
            )
    for line in report.get("aggregates") or []:
        ci = line.get("ci") or {}
        _contains(ci.get("low"), line["estimate"], ci.get("high"), f"aggregate {line['label']}")
    for line in (report.get("metrics") or {}).get("lines") or []:
        _contains(line.get("low"), line.get("value"), line.get("high"), f"metric {line}")
    for line in comparison_lines(report):
        _contains(
            line.get("low"),
            line.get("difference"),
            line.get("high"),
            f"comparison {line['label']} {line['arm']}",
        )
        for one in line.get("inputs") or []:
            _contains(one.get("low"), one.get("difference"), one.get("high"), f"input {one}")
    if session.flags.no_intervals:
        return
    by_case = rows_by_case(report)
    for case, (passes, total, rest) in main_rows(session).items():
        match = BOUNDS.match(rest)
        if not match or not total:
            continue
        row = by_case.get(case, {})
        if (row.get("ci") or {}).get("method") == "bayes" and passes in (0, total):
            continue  # (as above)
        value = Fraction(100 * passes, total)
        low, high = int(match["low"]), int(match["high"])
        assert low - Fraction(1, 2) <= value <= high + Fraction(1, 2), (
            f"{case}: {passes}/{total} printed with [{low}%, {high}%]"
        )


@session_check("verdicts follow their numbers")
def verdicts_follow_numbers(example: Example, session: Session) -> None:
    """A rate check is PASS iff its interval's low end is above the bar, FAIL iff its high
    end is below; a count check PASS iff enough runs passed; a margin PASS iff the
    difference's low end is above −margin; a case's verdict combines its checks."""
    report = session.report
    if report is None:
        return
    for row in report["rows"]:
        gate = row.get("gate")
        if not gate:
            continue
        found = []
        for check in gate.get("checks") or []:
            kind, verdict = check["kind"], check["verdict"]
            found.append(verdict)
            if kind == "rate" and check.get("low") is not None:
                expected = (
                    "pass"
                    if check["low"] > check["min_rate"]
                    else "fail"
                    if check["high"] < check["min_rate"]
                    else "undecided"
                )
                assert verdict == expected, f"{row['case']}: {check}"
            elif kind == "count" and "min_passes" in check:
                expected = "pass" if check["passes"] >= check["min_passes"] else "fail"
                assert verdict == expected, f"{row['case']}: {check}"
        if found:
            combined = (
                "fail" if "fail" in found else "undecided" if "undecided" in found else "pass"
            )
            assert gate["verdict"] == combined, f"{row['case']}: {gate}"
    for line in comparison_lines(report):
        margin, verdict = line.get("margin"), line.get("verdict")
        if margin is None or verdict is None or line.get("low") is None:
            continue
        low, high = line["low"], line["high"]
        if line.get("equivalence"):
            expected = (
                "pass"
                if -margin < low and high < margin
                else "fail"
                if high < -margin or low > margin
                else "undecided"
            )
        else:
            expected = "pass" if low > -margin else "fail" if high < -margin else "undecided"
        assert verdict == expected, f"{line['label']} {line['arm']}: {line}"


def _status(passes: int, fails: int, errors: int) -> str:
    """The spec's row status word for the counts."""
    if passes and fails and errors:
        return f"FLAKY ({errors} errored)"
    if fails and errors:
        return f"FAIL ({errors} errored)"
    if passes and errors:
        return f"{errors} ERRORED"
    if errors:
        return "ERROR"
    if passes and fails:
        return "FLAKY"
    if fails:
        return "FAIL"
    return ""


@session_check("row status follows the counts")
def status_follows_counts(example: Example, session: Session) -> None:
    """Each printed row's status (FLAKY, FAIL, 3 ERRORED, ...) names its combination of
    passes, fails and errors."""
    report = session.report
    if report is None:
        return
    by_case = rows_by_case(report)
    for case, (_, _, rest) in main_rows(session).items():
        row = by_case[case]
        expected = _status(row["passes"], row["fails"], row["errors"])
        words = " ".join(re.sub(r"\[[^\]]*\]( seq)?|\$[0-9.]+", " ", rest).split())
        # the status comes first; notes follow (decided after 3/6, of 6 planned, ...)
        shown = STATUS.match(words).group(0).strip()  # type: ignore[union-attr]
        assert shown == expected, f"{case}: shows {shown!r}, counts give {expected!r}"


@session_check("Stopped: counts the runs skipped")
def stopped_line(example: Example, session: Session) -> None:
    """Under ``--prob-stop``, the ``Stopped:`` line counts the stopped cases and the runs
    they skipped (the records skipped by the rule), out of the planned runs, and the money
    not spent is each stopped case's cost per run made times its skipped runs."""
    report = session.report
    if report is None or not session.flags.stop or session.flags.plan:
        return  # (--prob-plan runs nothing, so nothing stops: no Stopped: line)
    match = summary_line(session, STOPPED)
    assert match, "no Stopped: line under --prob-stop"
    stopped_rows = [row for row in report["rows"] if row.get("stopped")]
    skipped = [r for r in report["records"] if r.get("stopped")]
    planned = sum(row["planned"] for row in report["rows"])
    assert int(match["cases"]) == len(stopped_rows), match.group(0)
    assert int(match["saved"]) == len(skipped), f"{match.group(0)}: {len(skipped)} runs skipped"
    assert int(match["planned"]) == planned, f"{match.group(0)}: {planned} runs planned"
    if planned:
        assert int(match["pct"]) == half_up(Fraction(100 * len(skipped), planned)), match.group(0)
    by_case = Counter(r["case"] for r in skipped)
    avoided = 0.0
    for row in stopped_rows:
        stop = row["stopped"]
        assert stop["skipped"] == by_case[row["case"]] == stop["planned"] - stop["after"], (
            f"{row['case']}: {stop}, {by_case[row['case']]} records skipped by the rule"
        )
        if row.get("cost") and stop["after"]:
            avoided += row["cost"] / stop["after"] * stop["skipped"]
    if match["cost"] is not None:
        assert abs(float(match["cost"]) - avoided) <= 0.00005 + 1e-9, (
            f"{match.group(0)}: expected about ${avoided:.4f}"
        )
    else:
        assert avoided < 0.00005, f"{match.group(0)}: ${avoided:.4f} not spent is not printed"


@session_check("no empty sections")
def no_empty_sections(example: Example, session: Session) -> None:
    """Every ``probability`` section the session prints has something under its header."""
    for title, lines in session.sections().items():
        assert any(line.strip() for line in lines), f"the section {title!r} is empty"


PLANNED = re.compile(r"^  (?P<runs>[\d,]+) runs? planned")


@session_check("a plan runs nothing")
def plan_runs_nothing(example: Example, session: Session) -> None:
    """Under ``--prob-plan`` nothing runs and the session exits 0 (docs/plan.rst: "exit
    without running"), whatever else the flags say (a budget, ``--prob-stop``, writers): no
    run is reported, the JSON report (when written) has no rows and carries the plan, the
    plan lists every selected case once and its total is the sum of their planned runs, as
    the ``N runs planned`` line says, and ``--prob-plan-write`` writes TOML holding the same
    cases and runs."""
    if not session.flags.plan:
        return
    assert session.ret == 0, f"a plan session exited {session.ret}"
    ran = {k: v for k, v in session.outcomes().items() if k in ("passed", "failed", "error")}
    assert not ran, f"a plan session ran items: {ran}"
    assert "probability: plan" in session.sections(), "no probability: plan section"
    report = session.report
    if report is None:
        return
    assert report["rows"] == [] and report["records"] == [], "a plan session has rows"
    plan = report["plan"]
    cases = [case["case"] for case in plan["cases"]]
    assert len(cases) == len(set(cases)), f"a case planned twice: {cases}"
    if not session.flags.keyword:
        expected = set((session.suite or example.suite).case_ids())
        assert set(cases) == expected, f"planned {sorted(cases)}, the suite has {sorted(expected)}"
    assert plan["total_runs"] == sum(case["runs"] for case in plan["cases"]), plan["total_runs"]
    line = next((m for m in map(PLANNED.match, session.sections()["probability: plan"]) if m), None)
    assert line, "no 'N runs planned' line"
    assert int(line["runs"].replace(",", "")) == plan["total_runs"], line.group(0)
    if session.flags.plan_write:
        path = session.directory / session.flags.writer_dir / "plan.toml"
        written = tomllib.loads(path.read_text(encoding="utf-8"))
        assert [(c["case"], c["runs"]) for c in written.get("cases", [])] == [
            (c["case"], c["runs"]) for c in plan["cases"]
        ], "plan.toml and the JSON plan differ"
        assert written["total_runs"] == plan["total_runs"]


@session_check("--runxfail keeps pytest's meaning")
def runxfail_reports_failures(example: Example, session: Session) -> None:
    """Under ``--runxfail`` no run is reported as xfailed: a gated case's failing runs are
    failures, as pytest's option means."""
    if session.flags.runxfail:
        assert not session.outcomes().get("xfailed"), session.outcomes()


GATE_WORDS = {"passed": "passed", "failed": "failed", "undecided": "undecided"}


@session_check("Gates: counts the verdicts")
def gates_line(example: Example, session: Session) -> None:
    """The ``Gates:`` line prints the JSON's counts, and the JSON's counts are the gated
    rows' verdicts."""
    report = session.report
    if report is None:
        return
    counts = report.get("gates")
    match = summary_line(session, GATES)
    rows = Counter((row.get("gate") or {}).get("verdict") for row in report["rows"])
    rows.pop(None, None)
    if not counts:
        assert match is None and not rows, f"Gates: line or gated rows without gates counts: {rows}"
        return
    assert match, "no Gates: line"
    shown = {}
    for part in match["text"].split(", "):
        number, _, word = part.partition(" ")
        shown[word] = int(number)
    expected = {word: counts[key] for key, word in GATE_WORDS.items() if counts.get(key)}
    assert shown == expected, f"{match.group(0)} but the JSON counts {expected}"
    assert {"pass": rows["pass"], "fail": rows["fail"], "undecided": rows["undecided"]} == {
        "pass": counts["passed"],
        "fail": counts["failed"],
        "undecided": counts["undecided"],
    } or _counts_more_than_rows(counts, rows), f"gates {counts}, gated rows {dict(rows)}"


def _counts_more_than_rows(counts: Mapping[str, Any], rows: Counter[Any]) -> bool:
    """The counts may include verdicts of comparison and baseline margins (one per arm or
    function), never fewer than the rows'."""
    return all(
        counts[key] >= rows[verdict]
        for key, verdict in (("passed", "pass"), ("failed", "fail"), ("undecided", "undecided"))
    )


AGGREGATE = re.compile(r"^  (?P<label>\S+)\s+N=(?P<inputs>\d+) inputs? × k=\S+\s+(?P<pct>\d+\.\d)%")


@session_check("function-level lines are means of fractions")
def aggregate_lines(example: Example, session: Session) -> None:
    """A function-level or Overall line's estimate is the mean of its cases' fractions
    (each input weighs the same), printed with one decimal, rounded half up on the exact
    value."""
    report = session.report
    if report is None:
        return
    fractions_of: dict[str, list[Fraction]] = defaultdict(list)
    for row in report["rows"]:
        if row["total"]:
            value = Fraction(row["passes"], row["total"])
            fractions_of[row["label"]].append(value)
            fractions_of["Overall"].append(value)
    printed = {}
    for line in session.sections().get("probability", []):
        match = AGGREGATE.match(line)
        if match:
            printed[match["label"]] = match
    for line in report.get("aggregates") or []:
        values = fractions_of[line["label"]]
        assert line["inputs"] == len(values), f"{line['label']}: {line['inputs']} inputs"
        mean = sum(values, Fraction(0)) / len(values)
        assert abs(line["estimate"] - float(mean)) < TOLERANCE, (line, mean)
        match = printed.get(line["label"])
        assert match, f"no printed line for {line['label']}"
        assert int(match["inputs"]) == len(values)
        assert Fraction(match["pct"]) == Fraction(half_up(mean * 1000), 10), (
            f"{match.group(0).strip()}: the exact mean is {float(mean * 100)!r}%"
        )


@session_check("pass^1 is the function-level line")
def pass_one_is_the_mean(example: Example, session: Session) -> None:
    """``pass^1`` of a function (and Overall) is the mean of its cases' fractions, the
    function-level line's estimate, "with the same bootstrap interval"."""
    report = session.report
    if report is None or "pass^1" not in session.flags.metric:
        return
    lines = {
        line["scope"]: line
        for line in (report.get("metrics") or {}).get("lines") or []
        if line["metric"] == "pass^1"
    }
    for aggregate in report.get("aggregates") or []:
        metric = lines.get(aggregate["label"])
        assert metric, f"no pass^1 line for {aggregate['label']}"
        assert abs(metric["value"] - aggregate["estimate"]) < TOLERANCE, (metric, aggregate)
        ci = aggregate.get("ci") or {}
        assert (metric.get("low") is None) == (ci.get("low") is None), (metric, aggregate)


# -- relations ------------------------------------------------------------------------------


def _comparable_sections(session: Session, drop: tuple[str, ...] = ()) -> dict[str, list[str]]:
    out = {}
    for title, lines in session.sections().items():
        if title in drop:
            continue
        kept = [line for line in lines if not NOTICE.match(line)]
        while kept and kept[-1] == "":
            kept.pop()
        if kept or lines == kept:
            out[title] = kept
    return out


def _diff(one: Any, two: Any, names: tuple[str, str]) -> str:
    import difflib
    import pprint

    left = pprint.pformat(one, width=100).splitlines()
    right = pprint.pformat(two, width=100).splitlines()
    return "\n".join(difflib.unified_diff(left, right, names[0], names[1], lineterm="", n=2))


def assert_same(one: Any, two: Any, names: tuple[str, str], what: str) -> None:
    assert one == two, f"{what} differ:\n{_diff(one, two, names)}"


def _report_without_order(report: Mapping[str, Any]) -> Any:
    """The JSON report without volatile fields (times, workers, dates), records sorted."""
    document = stable(dict(report))
    document["records"] = sorted(document["records"], key=lambda r: (r["nodeid"], r["run"]))
    return document


def _stopping_sessions(mode: str) -> Any:
    def sessions(example: Example) -> dict[str, tuple[Flags, int]] | None:
        flags = replace(example.flags, stop=None, budget_runs=None)
        if flags.min_rate is None and not flags.seed:
            # only gated cases stop: most examples without a session-wide bar get one
            flags = replace(flags, min_rate=0.55, runs=flags.runs or 8)
        return {"off": (flags, 0), mode: (replace(flags, stop=mode), 0)}

    return sessions


def _check_prefixes(reference: Session, stopped: Session) -> None:
    """A stopped session makes the same runs as the reference, up to where each case
    stopped: every run it made has the reference's outcome, and the rule skipped exactly the
    runs after the stop."""
    assert reference.report and stopped.report
    full, made = records_by_case(reference.report), records_by_case(stopped.report)
    assert set(full) == set(made), "different cases"
    rows = rows_by_case(stopped.report)
    for case, records in made.items():
        outcomes = {r["run"]: r["outcome"] for r in full[case]}
        after = (rows[case].get("stopped") or {}).get("after")
        for record in records:
            if record.get("stopped"):
                assert after is not None and record["run"] > after, (
                    f"{case} run {record['run']} skipped by the rule, stop after {after}"
                )
                continue
            assert record["outcome"] == outcomes[record["run"]], (
                f"{case} run {record['run']}: {record['outcome']}, "
                f"unstopped {outcomes[record['run']]}"
            )


def _settled_checks(found: dict[tuple[str, ...], Any], stopped: set[str]) -> dict[Any, Any]:
    """The verdicts without the checks of cases stopped early: a case stops as soon as its
    combined verdict is certain (the worst of its checks, issue 27), so a check that did not
    settle it is judged on the runs made and may differ from running every run."""
    return {k: v for k, v in found.items() if not (k[0] == "check" and k[1] in stopped)}


def _stopped_cases(report: Mapping[str, Any]) -> set[str]:
    return {row["case"] for row in report["rows"] if row.get("stopped")}


def _check_worst(report: Mapping[str, Any], cases: set[str]) -> None:
    """A stopped case's verdict is one of its checks' (the worst of them)."""
    for row in report["rows"]:
        gate = row.get("gate")
        if row["case"] in cases and gate and gate.get("checks"):
            found = [check["verdict"] for check in gate["checks"]]
            assert gate["verdict"] in found, (row["case"], gate["verdict"], found)


def check_curtail(example: Example, sessions: Mapping[str, Session]) -> None:
    off, cut = sessions["off"], sessions["curtail"]
    assert off.report and cut.report
    stopped = _stopped_cases(cut.report)
    assert_same(
        _settled_checks(verdicts(off.report), stopped),
        _settled_checks(verdicts(cut.report), stopped),
        ("off", "curtail"),
        "verdicts",
    )
    _check_worst(cut.report, stopped)
    assert_same(
        off.report.get("gates"), cut.report.get("gates"), ("off", "curtail"), "Gates: counts"
    )
    assert off.ret == cut.ret, f"exit status {off.ret} unstopped, {cut.ret} curtailed"
    _check_prefixes(off, cut)


def check_sequential(example: Example, sessions: Mapping[str, Session]) -> None:
    """Sequential stopping judges rate gates on the anytime-valid ``seq`` interval at the
    stop, and comparisons of the ``paired`` test (on an axis, or ``--prob-margin`` against a
    baseline) on their sequences, by design not the fixed-run intervals of the unstopped
    session: every other verdict (count and latency checks, other comparisons and
    baselines) must be equal, and the exit status whenever all verdicts are."""
    off, seq = sessions["off"], sessions["sequential"]
    assert off.report and seq.report
    one, two = verdicts(off.report), verdicts(seq.report)
    rated = {row["case"] for row in seq.report["rows"] if _has_rate(row)}
    # comparisons with the paired test are judged on their own sequence (issue 25)
    sequenced = {
        (line["function"], str(line["arm"]))
        for line in seq.report.get("comparisons") or []
        if line.get("regime") == "sequence"
    }
    # and so are --prob-margin comparisons with a baseline report (issue 25)
    sequenced_baselines = {
        line["function"]
        for line in (seq.report.get("baseline") or {}).get("functions") or []
        if line.get("regime") == "sequence"
    }

    def others(found: dict[tuple[str, ...], Any]) -> dict[tuple[str, ...], Any]:
        return {
            key: value
            for key, value in found.items()
            if not (key[0] == "gate" and key[1] in rated)
            and not (key[0] == "check" and key[3] == "rate")
            and not (key[0] == "compare" and (key[1], key[2]) in sequenced)
            and not (key[0] == "baseline" and key[1] in sequenced_baselines)
        }

    stopped = _stopped_cases(seq.report)
    one, two = _settled_checks(one, stopped), _settled_checks(two, stopped)
    assert_same(others(one), others(two), ("off", "sequential"), "non-rate verdicts")
    _check_worst(seq.report, stopped)
    if one == two:
        assert off.ret == seq.ret, f"same verdicts, exit status {off.ret} and {seq.ret}"
    _check_prefixes(off, seq)


@session_check("sequential comparisons are read from their sequence")
def sequential_comparisons(example: Example, session: Session) -> None:
    """Under ``--prob-stop=sequential`` (issue 25), a comparison judged on its sequence is
    designed at its level, or at α/m of the family under ``--prob-adjust=holm|bonferroni|bh``
    and ``horizon`` without a margin (issue 36), uses no more pairs than its inputs made, its verdict is the one it settled on (a margin
    always settles by its last look), its p (when it has one) is at most α whenever its
    interval leaves out zero, and a comparison whose cases were stopped had settled. The
    ``comparisons_stopped`` counts (the ``Stopped:`` line's continuation) are the pairs
    planned and made of those comparisons. (A budget may cut the runs before a margin's
    last look, and skipped runs make fewer pairs than planned, so the last look never comes:
    one that never settled is then judged on the pairs made.)"""
    report = session.report
    if report is None or session.flags.stop != "sequential":
        return
    by_key = {row.get("nodeid", row["case"]): row for row in report["rows"]}
    saved = planned = 0
    stopped_any = 0
    lines = [
        *(report.get("comparisons") or []),
        *((report.get("baseline") or {}).get("functions") or []),
    ]
    family = len(report.get("comparisons") or [])
    for line in lines:
        if line.get("regime") != "sequence" or line.get("error"):
            continue
        detail = line["detail"]
        # under a family correction and the horizon design an axis comparison without a
        # margin is designed at α/m of the family's m comparisons; everything else at its level
        shared = (
            line.get("axis") != "baseline"
            and line["margin"] is None
            and session.flags.adjust in ("holm", "bonferroni", "bh")
            and detail["design"] == "horizon"
            and family > 1
        )
        expected = 1 - (1 - line["level"]) / family if shared else line["level"]
        assert abs(detail["level"] - expected) < 1e-12, (line["label"], detail, family)
        # (``pairs`` holds the counts at the settling look, ``pairs_full`` every judged run)
        every = line.get("pairs_full") or line["pairs"]
        made = [min(pair["arm"]["total"], pair["baseline"]["total"]) for pair in every]
        assert detail["pairs"] <= sum(made), (line["label"], detail, made)
        # (a comparison stopped early for a margin or the resolution has no p under the
        # horizon design; one whose interval leaves out zero crossed its boundary)
        if line["p"] is not None and (line["low"] > 0 or line["high"] < 0):
            assert line["p"] <= 1 - line["level"] + 1e-12, line
        # a budget (docs/budget.rst) skips every run after it is reached, so the planned
        # runs may never all be made and a margin's last look never come: unsettled, it is
        # judged at the last look made
        cut = session.flags.budget is not None or session.flags.budget_runs is not None
        short = detail["pairs"] < detail["planned_pairs"]  # (skips: the last look never came)
        if line["margin"] is not None and not ((cut or short) and detail["settled"] is None):
            assert detail["settled"] == line["verdict"], (line["label"], detail, line["verdict"])
        keys = [pair[side]["key"] for pair in line["pairs"] for side in ("arm", "baseline")]
        stops = [(by_key.get(key) or {}).get("stopped") for key in keys]
        if any(stops):
            stopped_any += 1
            saved += detail["planned_pairs"] - sum(made)
            planned += detail["planned_pairs"]
            assert detail["settled_after"] is not None, (line["label"], detail)
    found = report.get("comparisons_stopped")
    if stopped_any:
        assert found is not None and found["comparisons"] == stopped_any, found
        assert (found["pairs_saved"], found["pairs_planned"]) == (max(0, saved), planned)
    else:
        assert found is None, found


def _has_rate(row: Mapping[str, Any]) -> bool:
    gate = row.get("gate") or {}
    return any(check["kind"] == "rate" for check in gate.get("checks") or [])


relation(
    Relation(
        name="curtail keeps verdicts",
        doc="--prob-stop=curtail gives every verdict and the exit status of running every run, "
        "and makes the same runs up to each stop",
        sessions=_stopping_sessions("curtail"),
        check=check_curtail,
        examples=40,
        bias="stopping",
        min_stopped=0.5,
    )
)
relation(
    Relation(
        name="sequential keeps other verdicts",
        doc="--prob-stop=sequential changes only rate-gate verdicts (judged on the seq "
        "interval); every other verdict, and the exit status when the verdicts agree, is that "
        "of running every run",
        sessions=_stopping_sessions("sequential"),
        check=check_sequential,
        examples=30,
        bias="stopping",
        min_stopped=0.5,
    )
)


def _toggle(example: Example, **changes: Any) -> dict[str, tuple[Flags, int]]:
    flags = replace(example.flags, budget_runs=None)
    return {"reference": (flags, 0), "variant": (replace(flags, **changes), 0)}


def check_same_everything(example: Example, sessions: Mapping[str, Session]) -> None:
    reference, variant = sessions["reference"], sessions["variant"]
    names = (reference.name, variant.name)
    assert reference.ret == variant.ret, f"exit status {reference.ret} and {variant.ret}"
    assert_same(_comparable_sections(reference), _comparable_sections(variant), names, "sections")
    assert_same(reference.outcomes(), variant.outcomes(), names, "pytest outcomes")
    assert reference.report and variant.report
    assert_same(
        _report_without_order(reference.report),
        _report_without_order(variant.report),
        names,
        "JSON reports",
    )


relation(
    Relation(
        name="transpose equals case-major",
        doc="--prob-transpose changes the order of the runs, nothing in the report",
        sessions=lambda example: _toggle(example, transpose=not example.flags.transpose),
        check=check_same_everything,
        examples=20,
    )
)


def _overlapped(example: Example) -> dict[str, tuple[Flags, int]]:
    # (stopping keeps the runs in flight when a case is decided, so it may make more runs)
    flags = replace(example.flags, budget_runs=None, stop=None, concurrency=None)
    overlapped = replace(flags, concurrency=4, threads=True)
    return {"reference": (flags, 0), "variant": (overlapped, 0)}


relation(
    Relation(
        name="concurrency equals one at a time",
        doc="--prob-concurrency with threads changes when bodies run, nothing in the report",
        sessions=_overlapped,
        check=check_same_everything,
        examples=20,
    )
)


def _xdist_sessions(example: Example) -> dict[str, tuple[Flags, int]]:
    flags = replace(example.flags, budget_runs=None)
    return {"serial": (flags, 0), "-n 2": (flags, 2)}


def check_xdist(example: Example, sessions: Mapping[str, Session]) -> None:
    serial, parallel = sessions["serial"], sessions["-n 2"]
    names = ("serial", "-n 2")
    assert serial.ret == parallel.ret, f"exit status {serial.ret} serial, {parallel.ret} -n 2"
    assert_same(_comparable_sections(serial), _comparable_sections(parallel), names, "sections")
    assert_same(serial.outcomes(), parallel.outcomes(), names, "pytest outcomes")
    assert serial.report and parallel.report
    assert_same(
        _report_without_order(serial.report),
        _report_without_order(parallel.report),
        names,
        "JSON reports",
    )


relation(
    Relation(
        name="-n 2 equals serial",
        doc="under pytest-xdist (-n 2) the rows, verdicts, comparisons, metrics, sections, "
        "JSON (without times and worker ids) and exit status are the serial session's",
        sessions=_xdist_sessions,
        check=check_xdist,
        examples=8,
    )
)


WRITER_OFF = dict(json=False, html=False, markdown=False, save_baseline=False, explain=False)


def _writer_sessions(example: Example) -> dict[str, tuple[Flags, int]]:
    flags = replace(example.flags, budget_runs=None, **WRITER_OFF)
    return {
        "plain": (flags, 0),
        "json": (replace(flags, json=True), 0),
        "writers": (
            replace(flags, json=True, html=True, markdown=True, save_baseline=True, explain=True),
            0,
        ),
    }


def _without_explanations(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_explanations(v)
            for k, v in value.items()
            if k not in ("explanation", "glossary", "explained")
        }
    if isinstance(value, list):
        return [_without_explanations(v) for v in value]
    return value


def check_writers(example: Example, sessions: Mapping[str, Session]) -> None:
    plain = sessions["plain"]
    for name in ("json", "writers"):
        other = sessions[name]
        names = ("plain", name)
        assert plain.ret == other.ret, f"exit status {plain.ret} plain, {other.ret} {name}"
        drop = ("probability: explained",)
        assert_same(
            _comparable_sections(plain, drop), _comparable_sections(other, drop), names, "sections"
        )
        assert_same(plain.summary_lines(), other.summary_lines(), names, "short summary")
        assert_same(plain.outcomes(), other.outcomes(), names, "pytest outcomes")
    json_only, writers = sessions["json"], sessions["writers"]
    assert json_only.report and writers.report
    assert_same(
        _without_explanations(_report_without_order(json_only.report)),
        _without_explanations(_report_without_order(writers.report)),
        ("--prob-json", "all writers and --prob-explain"),
        "JSON reports (without explanations)",
    )
    if any(line.startswith("  --prob-explain reads") for line in plain.lines):
        assert "probability: explained" in writers.sections(), "--prob-explain printed nothing"
    for name in ("report.html", "report.md", "saved.toml"):
        assert (writers.directory / writers.flags.writer_dir / name).exists(), f"no {name}"


relation(
    Relation(
        name="writers change nothing else",
        doc="--prob-json, --prob-html, --prob-markdown, --prob-save-baseline and "
        "--prob-explain add their files and section and change nothing else in the terminal "
        "(and --prob-explain nothing else in the JSON)",
        sessions=_writer_sessions,
        check=check_writers,
        examples=16,
    )
)


def _subset_sessions(example: Example) -> dict[str, tuple[Flags, int]] | None:
    cases = list(example.suite.cases())
    if len(cases) < 2:
        return None
    # a deterministic, drawn-looking subset: every other case, starting from the seed's parity
    start = (example.flags.seed or 0) % 2
    chosen = cases[start::2]
    keyword = " or ".join(function.keyword(suffix) for function, suffix in chosen)
    flags = replace(example.flags, budget_runs=None)
    if flags.stop == "sequential" and _compared(example):
        # a sequential comparison stops a case when its partners' runs settle it (issue 25),
        # so a case whose partner -k leaves out runs on where it would have stopped
        flags = replace(flags, stop=None)
    return {"all": (flags, 0), "-k": (replace(flags, keyword=keyword), 0)}


def _compared(example: Example) -> bool:
    """Whether some function of the example is compared (a mark, ``--prob-compare``, or a
    baseline report: under ``--prob-stop=sequential`` its comparison is monitored too)."""
    return (
        bool(example.flags.compare)
        or example.flags.baseline is not None
        or any(dict(function.mark).get("compare") for function in example.suite.functions)
    )


def check_subset(example: Example, sessions: Mapping[str, Session]) -> None:
    everything, subset = sessions["all"], sessions["-k"]
    assert everything.report and subset.report
    keyword = subset.flags.keyword or ""
    chosen = {
        function.case_id(suffix)
        for function, suffix in example.suite.cases()
        if function.keyword(suffix) in keyword.split(" or ")
    }
    rows_all, rows_some = rows_by_case(everything.report), rows_by_case(subset.report)
    assert set(rows_some) == chosen, f"-k selected {sorted(rows_some)}, expected {sorted(chosen)}"
    for case in sorted(chosen):
        assert_same(stable(rows_all[case]), stable(rows_some[case]), ("all", "-k"), f"row {case}")
    printed_all, printed_some = main_rows(everything), main_rows(subset)
    for case in sorted(chosen):
        if case not in printed_all and case not in printed_some:
            continue  # (every run skipped: no row in either table)
        assert case in printed_all and case in printed_some, f"table row {case} missing"
        one = " ".join(" ".join(map(str, printed_all[case])).replace("[ ", "[").split())
        two = " ".join(" ".join(map(str, printed_some[case])).replace("[ ", "[").split())
        assert one == two, f"table row {case}: {one!r} in full, {two!r} under -k"


relation(
    Relation(
        name="-k subset keeps rows",
        doc="selecting whole cases with -k gives the selected cases' rows (table and JSON) "
        "unchanged",
        sessions=_subset_sessions,
        check=check_subset,
        examples=16,
    )
)


def _reorder_sessions(example: Example) -> dict[str, tuple[Flags, int]]:
    # without --prob-stop: reordered runs stop at other points (only the verdicts would stay)
    flags = replace(example.flags, budget_runs=None, stop=None, cache=True)
    return {
        "first": (flags, 0),
        "--ff": (replace(flags, extra=("--ff",)), 0),
        "--nf": (replace(flags, extra=("--nf",)), 0),
    }


def check_reorder(example: Example, sessions: Mapping[str, Session]) -> None:
    first = sessions["first"]
    assert first.report
    for name in ("--ff", "--nf"):
        other = sessions[name]
        names = ("first", name)
        assert first.ret == other.ret, f"exit status {first.ret} first, {other.ret} {name}"
        assert_same(_comparable_sections(first), _comparable_sections(other), names, "sections")
        assert_same(first.outcomes(), other.outcomes(), names, "pytest outcomes")
        assert other.report
        assert_same(
            _report_without_order(first.report),
            _report_without_order(other.report),
            names,
            "JSON reports",
        )


relation(
    Relation(
        name="--ff and --nf keep results",
        doc="pytest's reordering options (--ff, --nf, after a first session filled the cache) "
        "change the order of items, never a row, a verdict or the exit status: verdict items "
        "still run after their case's runs",
        sessions=_reorder_sessions,
        check=check_reorder,
        examples=12,
    )
)


def _one_session(example: Example) -> dict[str, tuple[Flags, int]]:
    return {"session": (example.flags, 0)}


relation(
    Relation(
        name="any flags",
        doc="one session with any flag set, --prob-budget-runs included: the session checks",
        sessions=_one_session,
        check=lambda example, sessions: None,
        examples=40,
        budget=True,
    )
)


def work_conftest(cap: int = 50_000_000) -> str:
    """A ``conftest.py`` that counts the Python lines executed in the report phase
    (``pytest_sessionfinish``, where the report is built and written, and
    ``pytest_terminal_summary``, where it is printed) and writes ``{"lines": N}`` to
    ``work.json``; it stops counting (and tracing) beyond ``cap`` lines."""
    return f"""
import json
import sys

import pytest

CAP = {cap}
COUNT = {{"lines": 0}}


def _local(frame, event, arg):
    if event == "line":
        COUNT["lines"] += 1
        if COUNT["lines"] > CAP:
            return None
    return _local


def _call(frame, event, arg):
    return _local if COUNT["lines"] <= CAP else None


def _counted():
    previous = sys.gettrace()
    sys.settrace(_call)
    try:
        return (yield)
    finally:
        sys.settrace(previous)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    return (yield from _counted())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    return (yield from _counted())


def pytest_unconfigure(config):
    with open("work.json", "w", encoding="utf-8") as handle:
        json.dump(COUNT, handle)
"""


#: the suite is run with 2, 4 and 8 times its cases: the thresholds where a line appears
#: (prob_min_inputs, a second function for Overall) are usually crossed by the first
#: doubling, so the second doubling measures the growth
SCALES = (2, 4, 8)


def _work_sessions(example: Example) -> dict[str, tuple[Any, ...]]:
    flags = replace(
        example.flags,
        budget_runs=None,
        json=True,
        html=True,
        markdown=True,
        explain=True,
        latency=True,
        metric=example.flags.metric or ("pass^2", "pass@2"),
    )
    return {f"x{k}": (flags, 0, example.suite.scaled(k)) for k in SCALES}


#: the most lines each added case may cost the report phase (about ten times what a case
#: with every feature on costs today, 5,000-20,000): catches a feature that does per-case
#: work growing with something else (a scan, a resampling per case)
LINES_PER_CASE = 100_000


def check_work(example: Example, sessions: Mapping[str, Session]) -> None:
    """The report phase is linear in the cases: going from 4N to 8N cases adds about twice
    the work that going from 2N to 4N added (a quadratic term would add four times), and each
    added case costs at most :data:`LINES_PER_CASE` lines."""
    w2, w4, w8 = (sessions[f"x{k}"].extra["work"]["lines"] for k in SCALES)
    n = len(list(example.suite.cases()))
    shown = f"report-phase lines for {2 * n}, {4 * n} and {8 * n} cases: {w2}, {w4}, {w8}"
    assert w8 - w4 <= 2.6 * (w4 - w2) + 30_000, (
        f"{shown}: the second doubling added {w8 - w4}, the first {w4 - w2}"
    )
    per_case = (w8 - w4) / (4 * n)
    assert per_case <= LINES_PER_CASE, f"{shown}: each added case costs {per_case:,.0f} lines"


relation(
    Relation(
        name="report work is linear",
        doc="the report phase's work (Python lines executed in pytest_sessionfinish and "
        "pytest_terminal_summary) grows linearly with the cases, at a bounded cost per case",
        sessions=_work_sessions,
        check=check_work,
        conftest=work_conftest(),
        examples=12,
        max_functions=2,
    )
)
