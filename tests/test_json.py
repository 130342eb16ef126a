"""The JSON report: fields, strictness, where it is written, failures that never lose the summary."""

from __future__ import annotations

import json
import os
from datetime import datetime

import pytest
from helpers import load_json, section
from pytest_probability.report import json_report, writing
from pytest_probability.report.builder import ReportBuilder
from pytest_probability.report.results import Results

pytestmark = pytest.mark.usefixtures("kernel_only")


def test_report_fields(spec_bench: pytest.Pytester) -> None:
    result = spec_bench.runpytest("--prob-runs=10", "--prob-json=report.json")
    report = load_json(spec_bench.path / "report.json")
    assert list(report)[:7] == [
        "schema_version",
        "created",
        "runs",
        "exit_status",
        "totals",
        "rows",
        "records",
    ]
    assert report["schema_version"] == 1
    assert datetime.fromisoformat(report["created"])
    assert report["runs"] == 10
    assert report["exit_status"] == result.ret == 1
    assert report["totals"] == {
        "passes": 35,
        "fails": 15,
        "errors": 0,
        "skipped": 0,
        "count": 50,
        "pass_rate": 70.0,
    }
    pii = report["rows"][1]
    assert pii == {
        "case": "classify::identify_pii",
        "label": "classify",
        "nodeid": "bench_spec.py::bench_classify::identify_pii",
        "passes": 7,
        "fails": 3,
        "errors": 0,
        "skipped": 0,
        "total": 10,
        "planned": 10,
        "pass_rate": 70.0,
        "xfail": False,
        "status": "flaky",
        "subset": None,
        "failures": [{"text": "got 'other'", "outcome": "fail", "count": 3, "runs": [2, 5, 9]}],
    }
    assert [r["status"] for r in report["rows"]] == ["pass", "flaky", "fail", "flaky", "pass"]
    assert len(report["records"]) == 50
    record = next(
        r for r in report["records"] if r["case"] == "classify::identify_pii" and r["run"] == 2
    )
    assert set(record) == {
        "case",
        "label",
        "run",
        "nodeid",
        "outcome",
        "phase",
        "elapsed",
        "message",
        "error",
        "xfail",
        "worker",
        "steps",
    }
    assert record["nodeid"] == "bench_spec.py::bench_classify::identify_pii[run2]"
    assert record["outcome"] == "fail"
    assert record["message"] == "got 'other'\nassert 2 not in (2, 5, 9)"
    assert record["steps"] == [
        {
            "label": "classify",
            "passed": False,
            "elapsed": record["elapsed"],
            "error": None,
            "message": "got 'other'\nassert 2 not in (2, 5, 9)",
        }
    ]


def test_passing_session_reports_exit_status_zero(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")
    pytester.runpytest("--prob-runs=2", "--prob-json=ok.json").assert_outcomes(passed=2)
    assert load_json(pytester.path / "ok.json")["exit_status"] == 0


def test_non_finite_numbers_become_null() -> None:
    text = json_report.dumps({"a": float("nan"), "b": [float("inf"), -float("inf")], "c": 1.5})
    assert json.loads(text) == {"a": None, "b": [None, None], "c": 1.5}


def test_non_json_values_become_strings() -> None:
    assert json.loads(json_report.dumps({"x": {1: (1, 2)}, "y": object}))["x"] == {"1": [1, 2]}


def test_report_lands_in_a_created_directory(pytester: pytest.Pytester) -> None:
    """``--prob-json=out/deeper/r.json`` creates the missing directories, as --junitxml does
    (the atomic write itself is tested in tests/test_writing.py)."""
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")
    result = pytester.runpytest("--prob-runs=2", "--prob-json=out/deeper/r.json")
    assert result.ret == pytest.ExitCode.OK
    report = load_json(pytester.path / "out" / "deeper" / "r.json")
    assert report["totals"]["passes"] == 2
    assert os.listdir(pytester.path / "out" / "deeper") == ["r.json"]  # no temporary file


def test_write_failure_on_a_full_disk(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(bench_ok="def bench_a():\n    pass\n")

    def full(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writing, "write_atomic", full)
    result = pytester.runpytest("--prob-runs=2", "--prob-json=r.json")
    assert section(result.outlines)[0] == "  a  2/2"
    assert (
        "ERROR: could not write the JSON report to r.json: No space left on device"
        in result.outlines
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_document_from_an_empty_results_model() -> None:
    document = json_report.build_document(
        results=Results(), builder=ReportBuilder(rows=[]), runs=3, exit_status=5
    )
    assert document["totals"]["pass_rate"] is None
    assert document["rows"] == [] and list(document["records"]) == []
    json.loads(json_report.dumps(document))


def test_extension_keys_and_row_fields(spec_bench: pytest.Pytester) -> None:
    spec_bench.makeconftest(
        """
        def pytest_prob_build_report(report, results, config):
            report.set_json("mine", {"cases": len(results)})
            report.add_totals_json({"mine_total": 1})
            for case in results.rows():
                report.add_row_json(case.key, {"mine": case.passes * 2})

        def pytest_prob_run_finished(item, record):
            record["mine"] = item.run * 10
        """
    )
    spec_bench.runpytest("--prob-runs=2", "--prob-json=r.json")
    report = load_json(spec_bench.path / "r.json")
    assert report["mine"] == {"cases": 5}
    assert report["totals"]["mine_total"] == 1
    assert [r["mine"] for r in report["rows"]] == [4, 2, 0, 4, 4]
    assert [r["mine"] for r in report["records"][:2]] == [10, 20]


def test_jsonable_keeps_plain_values_and_converts_the_rest() -> None:
    import enum

    class Colour(str, enum.Enum):  # noqa: UP042 - a str-mixin enum on purpose
        RED = "red"

    class Count(int):
        pass

    flat = {"a": 1, "b": 1.5, "e": True, "n": None}
    assert json_report.jsonable(flat) is flat
    nested = {"a": 1, "b": [1.5, None, {"c": "d"}], "e": True}
    assert json_report.jsonable(nested) == nested
    converted = json_report.jsonable({1: (1, 2), "x": [object], "c": Colour.RED, "n": Count(3)})
    assert converted == {"1": [1, 2], "x": ["<class 'object'>"], "c": "Colour.RED", "n": 3}
    assert type(converted["n"]) is int and type(converted["c"]) is str


def test_record_finishers_shape_written_records_and_a_failing_one_is_dropped(
    spec_bench: pytest.Pytester,
) -> None:
    """A finisher sees each written record; one that raises is warned about once and the
    records are written without it, the one it failed on included."""
    spec_bench.makeconftest(
        """
        seen = []

        def pytest_prob_build_report(report, results, config):
            def label(record):
                record["shown_as"] = record["case"].upper()

            def flaky(record):
                if len(seen) == 2:
                    raise KeyError("boom")
                seen.append(record["run"])
                record["flaky"] = True

            report.add_record_finisher(label)
            report.add_record_finisher(flaky)
        """
    )
    result = spec_bench.runpytest("--prob-runs=2", "--prob-json=r.json", "-W", "always")
    report = load_json(spec_bench.path / "r.json")
    records = report["records"]
    assert [r["shown_as"] for r in records] == [r["case"].upper() for r in records]
    assert [r.get("flaky") for r in records] == [True, True] + [None] * (len(records) - 2)
    assert len(records) == 10
    result.stdout.fnmatch_lines(
        [
            "*RuntimeWarning: the record finisher conftest.pytest_prob_build_report.<locals>.flaky"
            " failed (KeyError: 'boom'): the report's records are written without it"
        ]
    )
    assert result.stdout.str().count("record finisher") == 1
