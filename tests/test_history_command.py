"""``python -m pytest_probability history``: the command, its Markdown and its JSON summary
(issue 38), on generated histories with known changes and on reports of every kind.

The command runs in-process through ``main`` (one run goes through the real entry point in
a subprocess). The p-values of the JSON summary are checked against scipy's Fisher test and
statsmodels' Benjamini–Hochberg, from counts read straight from the report files.
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import load_json
from history_sessions import generate
from pytest_probability.__main__ import main
from pytest_probability.extensions.history.command import read
from pytest_probability.extensions.history.markdown import (
    MARKDOWN_CAP,
    SPARKS,
    render_markdown,
    sparkline,
)
from pytest_probability.extensions.history.moves import METHOD, assess

CHANGES = {3: 0.4, 10: 0.5, 17: 1.0}
#: What the generated history (seed 0) says: case 3 (extract, not gated) and case 10
#: (classify, gated) got worse; case 17's rise (0.8 → 1.0 over 20 runs) is too small to show.
HEADLINE = (
    "2 cases got worse since 217ef9d: classify::input-010 (83% over 5 sessions → 40%), "
    "extract::input-003 (100% → 35%)"
)
READ = "read 50 sessions (2026-10-01 … 2026-11-19), 200 cases, 400 tests at α = 0.05"
PAGE = Path(__file__).resolve().parent.parent / "extensions" / "history" / "page.py"


def cli(*arguments: str | os.PathLike[str]) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of ``python -m pytest_probability history …`` run
    in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["history", *map(str, arguments)])
        except SystemExit as exc:  # (argparse's own errors)
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def error(*arguments: str | os.PathLike[str]) -> str:
    """The one error line of a command that must fail with status 2 (and write nothing to
    stdout)."""
    status, out, err = cli(*arguments)
    assert (status, out) == (2, ""), err
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    prefix = "python -m pytest_probability: error: "
    assert lines[0].startswith(prefix)
    return lines[0][len(prefix) :]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("history") / "h"
    truth = generate(directory, changes=CHANGES)
    assert truth.worse == {"extract::input-003", "classify::input-010"}
    assert truth.better == {"summarize::input-017"}
    return directory


@pytest.fixture(scope="module")
def outputs(history: Path) -> dict[str, Any]:
    """The command run once on the generated history, with every output but the page."""
    out = history.parent / "out"
    status, stdout, stderr = cli(
        history, "--json", out / "s.json", "--markdown", out / "s.md", "--fail-on-worse"
    )
    return {
        "status": status,
        "stdout": stdout,
        "stderr": stderr,
        "json": load_json(out / "s.json"),
        "text": (out / "s.json").read_text("utf-8"),
        "markdown": (out / "s.md").read_text("utf-8"),
        "out": out,
    }


# -- the generated history: what is printed ------------------------------------------------
def test_prints_the_headline_what_was_read_and_what_was_written(outputs: dict[str, Any]) -> None:
    out = outputs["out"]
    json_kib = f"{len(outputs['text'].encode()) / 1024:,.0f}"
    assert outputs["stdout"].splitlines() == [
        HEADLINE,
        READ,
        f"wrote {out / 's.md'} (2 KiB)",
        f"wrote {out / 's.json'} ({json_kib} KiB)",
        "--fail-on-worse: 1 gated case got worse for real: "
        "classify::input-010 (83% over 5 sessions → 40%)",
    ]
    assert outputs["stderr"] == ""
    assert outputs["status"] == 1


def test_without_fail_on_worse_the_status_is_0(history: Path) -> None:
    assert cli(history) == (0, f"{HEADLINE}\n{READ}\n", "")


def test_fail_on_worse_ignores_a_case_that_is_not_gated(tmp_path: Path) -> None:
    # only case 3 (extract: not gated) gets worse
    truth = generate(tmp_path, sessions=10, cases=20, changes={3: 0.0}, seed=1)
    assert truth.worse == {"extract::input-003"}
    status, out, err = cli(tmp_path, "--fail-on-worse")
    assert (status, err) == (0, "")
    assert out.splitlines()[0].startswith("1 case got worse since ")
    assert "--fail-on-worse" not in out
    # the same case gated: status 1, naming it
    gated = tmp_path / "gated"
    generate(gated, sessions=10, cases=20, changes={3: 0.0}, seed=1, gated=("extract",))
    status, out, err = cli(gated, "--fail-on-worse")
    assert (status, err) == (1, "")
    assert out.splitlines()[-1].startswith(
        "--fail-on-worse: 1 gated case got worse for real: extract::input-003 ("
    )


# -- the JSON summary --------------------------------------------------------------------
def _reports(directory: Path) -> list[dict[str, Any]]:
    return [load_json(path) for path in sorted(directory.glob("*.json"))]


def test_json_summary_fields(history: Path, outputs: dict[str, Any]) -> None:
    document = outputs["json"]
    assert list(document) == [
        "schema",
        "version",
        "alpha",
        "window",
        "level",
        "method",
        "tests",
        "sessions",
        "skipped",
        "headline",
        "moves",
        "gone",
    ]
    assert document["schema"] == "pytest-probability-history"
    assert document["version"] == 1
    assert (document["alpha"], document["window"], document["level"]) == (0.05, 5, 0.95)
    assert document["method"] == METHOD
    assert document["tests"] == 400
    assert document["headline"] == [HEADLINE]
    assert document["skipped"] == [] and document["gone"] == []
    reports = _reports(history)
    files = sorted(history.glob("*.json"))
    assert len(document["sessions"]) == 50
    for session, report, path in zip(document["sessions"], reports, files, strict=True):
        rows = report["rows"]
        assert session == {
            "file": str(path),
            "created": report["created"],
            "commit": report["history"]["commit"],
            "runs": 20,
            "exit_status": report["exit_status"],
            "cases": 200,
            "passes": sum(row["passes"] for row in rows),
            "total": 4000,
            "cost": pytest.approx(sum(row["cost"] for row in rows), rel=1e-12),
        }
    statuses = {move["case"]: move["status"] for move in document["moves"]}
    assert {case for case, status in statuses.items() if status == "worse"} == {
        "extract::input-003",
        "classify::input-010",
    }
    assert set(statuses.values()) == {"worse", "steady"}
    gated = {move["case"] for move in document["moves"] if move["gated"]}
    assert gated == {
        move["case"] for move in document["moves"] if move["function"] in ("classify", "triage")
    }


def test_json_p_values_match_scipy_and_statsmodels(history: Path, outputs: dict[str, Any]) -> None:
    stats = pytest.importorskip("scipy.stats")
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    reports = _reports(history)
    rows = [{row["case"]: row for row in report["rows"]} for report in reports]
    latest, previous, window = rows[-1], rows[-2], rows[-6:-1]
    moves = outputs["json"]["moves"]
    assert [move["case"] for move in moves] == sorted(latest, key=lambda c: (int(c[-3:]) % 5, c))
    tests, p_values = [], []
    for move in moves:
        case = move["case"]
        now = latest[case]
        interval = stats.beta.ppf(
            [0.025, 0.975],
            [now["passes"], now["passes"] + 1],
            [now["total"] - now["passes"] + 1, now["total"] - now["passes"]],
        )
        low = 0.0 if now["passes"] == 0 else interval[0]
        high = 1.0 if now["passes"] == now["total"] else interval[1]
        assert move["latest"] == {
            "passes": now["passes"],
            "total": 20,
            "rate": now["passes"] / 20,
            "low": pytest.approx(low, abs=1e-9),
            "high": pytest.approx(high, abs=1e-9),
            "cost": now["cost"],
            "latency": now["latency"]["estimate"],
            "latency_quantile": 0.95,
            "gate": now["gate"]["verdict"] if "gate" in now else None,
        }
        for key, base, since in (
            ("previous", [previous[case]], reports[-2]),
            ("window", [w[case] for w in window], reports[-6]),
        ):
            passes, total = sum(b["passes"] for b in base), sum(b["total"] for b in base)
            table = [[now["passes"], 20 - now["passes"]], [passes, total - passes]]
            p_value = stats.fisher_exact(table, alternative="two-sided").pvalue
            found = move[key]
            assert found["sessions"] == len(base)
            assert found["since"] == {
                "file": str(history / since["history"]["file"]),
                "created": since["created"],
                "commit": since["history"]["commit"],
            }
            assert (found["passes"], found["total"]) == (passes, total)
            assert found["rate"] == passes / total
            assert found["change"] == pytest.approx(now["passes"] / 20 - passes / total, abs=1e-15)
            assert found["p_value"] == pytest.approx(p_value, abs=1e-9)
            tests.append(found)
            p_values.append(p_value)
    assert len(tests) == 400
    reject, adjusted, _, _ = multitest.multipletests(p_values, alpha=0.05, method="fdr_bh")
    for found, expected, real in zip(tests, adjusted, reject, strict=True):
        assert found["p_adjusted"] == pytest.approx(expected, abs=1e-12)
        assert found["real"] is bool(real)
    real = {
        move["case"]
        for move in moves
        for key in ("previous", "window")
        if (move[key] or {}).get("real")
    }
    assert real == {"extract::input-003", "classify::input-010"}


def test_json_is_strict_one_line_per_session_and_move(outputs: dict[str, Any]) -> None:
    text = outputs["text"]
    assert "NaN" not in text and "Infinity" not in text
    lines = text.splitlines()
    # "{", 7 numbers and texts, the sessions, "skipped", the headline, the moves, "gone", "}"
    assert len(lines) == 1 + 7 + (2 + 50) + 1 + (2 + 1) + (2 + 200) + 1 + 1
    assert lines[lines.index('  "moves": [') + 1].startswith('    {"case": "classify::input-000", ')
    assert lines[-1] == "}"


# -- the Markdown ------------------------------------------------------------------------
def test_markdown_leads_with_the_real_moves(outputs: dict[str, Any]) -> None:
    markdown = outputs["markdown"]
    assert len(markdown.encode("utf-8")) <= MARKDOWN_CAP
    lines = markdown.splitlines()
    assert lines[:10] == [
        "## pytest-probability history",
        "",
        HEADLINE,
        "",
        "_Read 50 sessions (2026-10-01 … 2026-11-19), 200 cases, 400 tests at α = 0.05._",
        "",
        "### Real moves",
        "",
        "| Case | Earlier | Latest | Change (points) | Adjusted p | Gated |",
        "| :--- | :--- | ---: | ---: | ---: | :--- |",
    ]
    assert lines[10:12] == [
        "| extract::input-003 | 20/20 (100%), previous session 217ef9d | 7/20 (35%) "
        "| −65.0 (worse) | 0.0026 | no |",
        "| classify::input-010 | 83/100 (83%), window of 5 sessions since 5ed4a58 | 8/20 (40%) "
        "| −43.0 (worse) | 0.023 | yes (fail) |",
    ]
    functions = lines.index("### Functions")
    assert functions == 13
    assert lines[functions + 2 : functions + 5] == [
        "| Function | Cases | Latest | Change (points) | Last 20 sessions |",
        "| :--- | ---: | ---: | ---: | :--- |",
        "| classify | 40 | 641/800 (80%) | +0.1 | ▄▃▄▅▅▅▆▅▆▄▆▅▆▄▄▄▅▃▃▃ 80%–84% |",
    ]
    assert [line.split(" | ")[0] for line in lines[functions + 4 : functions + 9]] == [
        "| classify",
        "| triage",
        "| summarize",
        "| extract",
        "| route",
    ]
    assert lines[-1] == f"_Method: {METHOD}; α = 0.05, window of 5 sessions._"
    assert "Not in the latest session" not in markdown and "Cut here" not in markdown


def test_sparkline_scale() -> None:
    assert sparkline([]) == ""
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█·"
    # a narrow wobble is drawn on a scale at least 10 points wide
    assert sparkline([0.90, 0.91, 0.92]) == "▄▅▅"
    assert sparkline([1.0, 1.0]) == "██"
    assert sparkline([0.0]) == "▁"
    assert set(sparkline([i / 100 for i in range(101)])) == set(SPARKS)


def test_markdown_is_capped_for_a_2000_case_history(tmp_path: Path) -> None:
    # every third case falls to 0%: ~667 real moves, far more than 60,000 bytes of rows
    changes = {index: 0.0 for index in range(0, 2000, 3)}
    truth = generate(tmp_path / "h", sessions=4, cases=2000, changes=changes, seed=3)
    status, _, err = cli(
        tmp_path / "h", "--markdown", tmp_path / "m.md", "--json", tmp_path / "s.json"
    )
    assert (status, err) == (0, "")
    markdown = (tmp_path / "m.md").read_text("utf-8")
    assert len(markdown.encode("utf-8")) <= MARKDOWN_CAP
    assert len(markdown.encode("utf-8")) > MARKDOWN_CAP - 1000
    document = load_json(tmp_path / "s.json")
    worse = [move["case"] for move in document["moves"] if move["status"] == "worse"]
    assert set(worse) >= set(truth.worse) and len(truth.worse) == 667
    lines = markdown.splitlines()
    assert lines[2].startswith(f"{len(worse)} cases got worse since ")
    assert lines[2].endswith(f", and {len(worse) - 5} more")
    better = [move["case"] for move in document["moves"] if move["status"] == "better"]
    if better:  # (false flags: Benjamini–Hochberg allows α of the flags to be false)
        assert lines[4].startswith(f"{len(better)} case{'s' * (len(better) > 1)} got better since ")
    assert lines.index("### Real moves") == 6 + 2 * bool(better)
    rows = [line for line in lines if line.startswith("| ") and "(worse)" in line]
    assert 300 < len(rows) < len(worse)  # worse first: no better row shown
    assert all(line.endswith(" |") and line.count(" | ") == 5 for line in rows)
    note = lines[-3]
    assert note.startswith(
        "_Cut here: this summary stops at 60,000 bytes so that it fits a pull-request comment"
    )
    # what is kept is the start of the whole document; the note counts the lines left out
    full = render_markdown(
        read([str(tmp_path / "h")]), assess(read([str(tmp_path / "h")])), cap=10**9
    )
    kept = markdown[: markdown.index("\n_Cut here")]
    method = full[full.rindex("\n_Method: ") :]
    assert full.startswith(kept) and markdown.endswith(method)
    left = full[len(kept) : -len(method)].count("\n")
    assert left > len(worse) + len(better) - len(rows)
    assert f"; {left:,} more lines left out." in note
    assert lines[-1].startswith("_Method: ")
    assert "### Functions" not in markdown
    # the JSON summary keeps every case
    assert len(document["moves"]) == 2000


def test_markdown_escapes_every_report_string(tmp_path: Path) -> None:
    hostile = [
        "f|g::<script>alert(1)</script>",
        "f|g::`code` *em* [link](http://x)",
        "f|g::line\nbreak $x$ & ~~",
    ]
    for number, passes in enumerate((20, 20, 2)):
        rows = [{"case": case, "passes": passes, "total": 20} for case in hostile]
        rows.append({"case": f"gone|{number}::<b>", "passes": 1, "total": 1})
        _write(
            tmp_path / f"r{number}.json",
            {"created": f"2026-01-0{number + 1}T00:00:00", "rows": rows},
        )
    status, out, err = cli(
        tmp_path, "--markdown", tmp_path.parent / "m.md", "--title", "## <i>T</i> #"
    )
    assert (status, err) == (0, "")
    markdown = (tmp_path.parent / "m.md").read_text("utf-8")
    assert "<" not in markdown
    assert re.findall(r"(?<!\\)`[^`]*`", markdown) == []
    assert markdown.splitlines()[0] == r"## \## &lt;i&gt;T&lt;/i&gt; \#"
    moves = [line for line in markdown.splitlines() if "(worse)" in line]
    assert len(moves) == 3
    assert moves[0].startswith(r"| f\|g::&lt;script&gt;alert(1)&lt;/script&gt; | 20/20 (100%)")
    assert r"| f\|g::line break \$x\$ &amp; \~\~ |" in markdown
    assert all(line.count(" | ") == 5 for line in moves)
    gone = markdown.splitlines().index("### Not in the latest session")
    assert markdown.splitlines()[gone + 2 : gone + 5] == [
        r"1 case of the previous session (2026-01-02T00:00:00) did not run:",
        "",
        r"- gone\|1::&lt;b&gt;",
    ]
    status, out, err = cli(tmp_path / "r0.json", tmp_path / "r1.json", "--markdown", "-")
    assert out.count("<") == 0


# -- errors: status 2, one line ----------------------------------------------------------
@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--alpha", "0", "--alpha=0: must be a number strictly between 0 and 1 (such as 0.05)"),
        ("--alpha", "1", "--alpha=1: must be a number strictly between 0 and 1 (such as 0.05)"),
        ("--alpha", "nan", "--alpha=nan: must be a number strictly between 0 and 1 (such as 0.05)"),
        (
            "--alpha",
            "five",
            "--alpha=five: must be a number strictly between 0 and 1 (such as 0.05)",
        ),
        ("--level", "95", "--level=95: must be a number strictly between 0 and 1 (such as 0.95)"),
        ("--window", "0", "--window=0: must be a whole number of sessions, 1 or more"),
        ("--window", "2.5", "--window=2.5: must be a whole number of sessions, 1 or more"),
        ("--window", "-3", "--window=-3: must be a whole number of sessions, 1 or more"),
    ],
)
def test_bad_settings(history: Path, option: str, value: str, message: str) -> None:
    assert error(history, f"{option}={value}") == message


def test_no_readable_session(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[]")
    status, out, err = cli(tmp_path, tmp_path / "missing.json")
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"skipped {tmp_path / 'a.json'}: not a report: a JSON array, not an object",
        f"skipped {tmp_path / 'missing.json'}: no such file",
        "python -m pytest_probability: error: no readable session in "
        f"{tmp_path}, {tmp_path / 'missing.json'} (every file was skipped)",
    ]


def test_unwritable_outputs(history: Path, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    (tmp_path / "bench.py").write_text("")
    report = sorted(history.glob("*.json"))[0]
    assert error(history, "-o", tmp_path / "afile" / "p.html") == (
        f"-o={tmp_path}/afile/p.html: cannot write the page: {str(tmp_path / 'afile')!r} "
        "is not a directory"
    )
    assert error(history, "--json", tmp_path) == (
        f"--json={tmp_path}: cannot write the JSON summary: it is a directory"
    )
    assert error(history, "--markdown", tmp_path / "bench.py") == (
        f"--markdown={tmp_path}/bench.py: cannot write the Markdown summary: "
        f"{str(tmp_path / 'bench.py')!r} is a Python source file"
    )
    assert error(history, "--markdown", report) == (
        f"--markdown={report}: cannot write the Markdown summary: it would replace the report "
        f"{str(report)!r} that the command reads; give another path"
    )
    assert error(history, "--json", history / "summary.json") == (
        f"--json={history}/summary.json: cannot write the JSON summary into {str(history)!r}, "
        "a directory of reports the command reads (the next reading would take it for a "
        "report); give a path outside it"
    )
    same = tmp_path / "same.md"
    assert error(history, "--markdown", same, "--json", same) == (
        f"--json={same}: cannot write the JSON summary: --markdown={same} writes the same "
        "file; give each its own path"
    )
    assert error(history, "--markdown", "-", "--json", "-") == (
        "--markdown=- and --json=-: only one of them may go to stdout"
    )
    assert error(history, "-o", "-") == "-o=-: the page is written to a file; give a path"
    assert not (tmp_path / "same.md").exists() and not (history / "summary.json").exists()


def test_a_failed_write_is_one_line(history: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    status, out, err = cli(history, "--markdown", "/dev/full")
    assert (status, out) == (2, f"{HEADLINE}\n{READ}\n")
    assert err == (
        "python -m pytest_probability: error: could not write the Markdown summary to "
        "/dev/full: No space left on device\n"
    )


# -- reading reports of any kind ---------------------------------------------------------
def _write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_spec_format_reports_without_created_in_modification_time_order(tmp_path: Path) -> None:
    rates = {"c.json": 20, "a.json": 19, "b.json": 2}  # the order of their times: c, a, b
    for seconds, (name, passes) in enumerate(rates.items()):
        path = _write(tmp_path / name, {"rows": [{"case": "f::x", "passes": passes, "total": 20}]})
        os.utime(path, (1_700_000_000 + seconds * 60, 1_700_000_000 + seconds * 60))
    status, out, err = cli(tmp_path, "--json", "-")
    assert (status, out.count("{\n")) == (0, 1)
    document = json.loads(out)
    assert [Path(s["file"]).name for s in document["sessions"]] == ["c.json", "a.json", "b.json"]
    assert [s["commit"] for s in document["sessions"]] == [None, None, None]
    (move,) = document["moves"]
    assert move["function"] == "f" and move["status"] == "worse"
    assert (move["previous"]["passes"], move["window"]["passes"]) == (19, 39)
    assert move["latest"]["cost"] is None and move["latest"]["gate"] is None
    assert err.splitlines() == [
        "1 case got worse since " + document["sessions"][1]["created"] + ": f::x (95% → 10%)",
        f"read 3 sessions ({document['sessions'][0]['created'][:10]}), 1 case, 2 tests at α = 0.05",
    ]


def test_garbage_files_are_each_skipped_with_one_line(tmp_path: Path) -> None:
    good = tmp_path / "h"
    generate(good, sessions=3, cases=5, seed=2)
    (good / "not-json.json").write_text("{rows: }")
    (good / "array.json").write_text("[1, 2]")
    _write(good / "no-rows.json", {"created": "2026-01-01T00:00:00"})
    _write(good / "too-many.json", {"rows": [{"case": "f::x", "passes": 3, "total": 2}]})
    _write(
        good / "one-bad-row.json",
        {
            "created": "2026-01-01T00:00:00",
            "rows": [{"case": "f::x"}, {"case": "f::y", "passes": 1, "total": 2}],
        },
    )
    (good / "binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (good / "folder.json").mkdir()
    os.mkfifo(good / "pipe.json")
    (good / "notes.txt").write_text("not read: not *.json")
    status, out, err = cli(good, "--json", tmp_path / "s.json")
    assert status == 0
    assert sorted(err.splitlines()) == sorted(
        f"skipped {good / name}: {reason}"
        for name, reason in [
            ("array.json", "not a report: a JSON array, not an object"),
            ("binary.json", "not UTF-8 text"),
            ("folder.json", "is a directory"),
            ("no-rows.json", 'not a report: no "rows" list'),
            ("not-json.json", "not JSON (line 1, column 2)"),
            (
                "one-bad-row.json",
                "1 row left out: rows[0].passes: missing or not a whole number ≥ 0 (case 'f::x')",
            ),
            ("pipe.json", "is not a regular file (a named pipe)"),
            ("too-many.json", "1 row left out: rows[0]: passes 3 > total 2 (case 'f::x')"),
        ]
    )
    document = load_json(tmp_path / "s.json")
    # the three generated sessions, and the one good row of one-bad-row.json (oldest)
    names = [Path(session["file"]).name for session in document["sessions"]]
    assert names[0] == "one-bad-row.json" and len(names) == 4
    assert len(document["skipped"]) == 8
    kib = f"{(tmp_path / 's.json').stat().st_size / 1024:,.0f}"
    assert out.splitlines()[-1] == f"wrote {tmp_path / 's.json'} ({kib} KiB)"


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path: Path) -> None:
    if sys.platform == "darwin":
        pytest.skip("macOS file names are UTF-8")
    generate(tmp_path, sessions=2, cases=2, seed=4)
    (tmp_path / os.fsdecode(b"bad\xff.json")).write_text("[]")
    status, out, err = cli(tmp_path, "--json", "-")
    assert status == 0
    assert (
        err.splitlines()[0]
        == f"skipped {tmp_path}/bad\\udcff.json: not a report: a JSON array, not an object"
    )
    assert json.loads(out)["skipped"][0]["file"] == f"{tmp_path}/bad\\udcff.json"


def test_the_same_session_given_twice_is_read_once(history: Path, tmp_path: Path) -> None:
    files = sorted(history.glob("*.json"))
    latest = files[-1]
    copy = tmp_path / "copy.json"
    copy.write_bytes(latest.read_bytes())  # a copy: the same created time, commit and counts
    link = tmp_path / "link.json"
    link.symlink_to(files[-2])
    status, out, err = cli(history, latest, history, copy, link)
    assert (status, out) == (0, f"{HEADLINE}\n{READ}\n")
    assert err.splitlines() == [
        f"skipped {history}: given twice (as {str(history)!r}): read once",
        f"skipped {link}: the same file as {str(files[-2])!r}: read once",
        f"skipped {latest}: given twice: read once",
        f"skipped {copy}: the same session as {str(latest)!r} (the same time, commit and "
        "counts): read once",
    ]


def test_one_session_has_nothing_to_compare(history: Path) -> None:
    first = sorted(history.glob("*.json"))[0]
    status, out, err = cli(first, "--fail-on-worse")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "One session (98b33c6): nothing to compare yet.",
        "read 1 session (2026-10-01), 200 cases, 0 tests at α = 0.05",
    ]


# -- the page ----------------------------------------------------------------------------
@pytest.mark.skipif(not PAGE.exists(), reason="the page's renderer is not written yet")
def test_the_page_is_written_with_the_headline(history: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "history.html"
    status, out, err = cli(history, "-o", target, "--title", "Nightly <evals>")
    assert (status, err) == (0, "")
    page = target.read_text("utf-8")
    assert page.lstrip().lower().startswith("<!doctype html")
    headline = re.search(r'<ul class="headline">(.*?)</ul>', page, re.S)
    assert headline and html.unescape(re.sub(r"<[^>]+>", "", headline.group(1))) == HEADLINE
    assert "Nightly <evals>" not in page and "Nightly &lt;evals&gt;" in page
    kib = f"{len(page.encode()) / 1024:,.0f}"
    assert out.splitlines() == [HEADLINE, READ, f"wrote {target} ({kib} KiB)"]


# -- the real entry point ----------------------------------------------------------------
def test_the_entry_point_and_its_exit_statuses(history: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pytest_probability", "history"]
    done = subprocess.run(
        [*command, str(history), "--fail-on-worse", "--json", "-"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 1
    assert json.loads(done.stdout)["headline"] == [HEADLINE]  # stdout holds only the JSON
    assert done.stderr.splitlines() == [
        HEADLINE,
        READ,
        "--fail-on-worse: 1 gated case got worse for real: "
        "classify::input-010 (83% over 5 sessions → 40%)",
    ]
    done = subprocess.run(
        [*command, str(tmp_path), "--window", "0"], capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "python -m pytest_probability: error: --window=0: must be a whole number of sessions, "
        "1 or more\n"
    )


E2E_BENCH = """
import os

import pytest
from pytest_probability import current_run


@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("case", ["steady", "moving"])
def bench_e2e(case):
    limit = 20 if case == "steady" else int(os.environ["MOVING_PASSES"])
    assert current_run().run <= limit
"""


def test_real_sessions_filed_by_the_plugin_show_the_real_move(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four real sessions, each with other options the history meets (pytest-xdist,
    ``--prob-transpose``, ``-k`` selection, stopping), filed by ``--prob-history``: the
    command reads the entries and finds the one real move, in the right session order."""
    pytester.makepyfile(bench_e2e=E2E_BENCH)
    extra: list[tuple[str, ...]] = [
        ("-n", "2"),
        ("--prob-transpose",),
        ("-k", "steady or moving"),
        ("--prob-stop=curtail",),
    ]
    if importlib.util.find_spec("xdist") is None:
        extra[0] = ()
    passes = ["20", "20", "20", "4"]
    for options, moving in zip(extra, passes, strict=True):
        monkeypatch.setenv("MOVING_PASSES", moving)
        result = pytester.runpytest(
            "-p", "no:randomly", "--prob-runs=20", "--prob-history=hist", *options
        )
        assert result.ret in (0, 1)
    entries = sorted((pytester.path / "hist").iterdir())
    assert len(entries) == 4
    summary_path = pytester.path / "summary.json"
    capsys.readouterr()
    assert main(["history", str(pytester.path / "hist"), "--json", str(summary_path)]) == 0
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    assert [s["file"] for s in summary["sessions"]] == [str(e) for e in entries]
    moves = {move["case"]: move for move in summary["moves"]}
    assert moves["e2e::steady"]["status"] == "steady"
    moving = moves["e2e::moving"]
    assert moving["status"] == "worse" and moving["gated"]
    # --prob-stop=curtail ends a gated case once its verdict is settled: its runs are
    # the ones the latest session made, however many that was
    made = moving["latest"]["total"]
    assert moving["latest"]["passes"] == min(4, made)
    assert moving["previous"]["passes"] == moving["previous"]["total"] == 20
    since = summary["sessions"][-2]["created"]
    rate = f"{min(4, made) / made:.0%}"
    assert capsys.readouterr().out.splitlines()[0] == (
        f"1 case got worse since {since}: e2e::moving (100% → {rate})"
    )
