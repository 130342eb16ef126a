"""Baseline files: reading a --prob-json report or a TOML baseline, writing the TOML form."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from helpers import section
from pytest_probability.extensions.comparisons.baseline import files as baselines
from pytest_probability.extensions.comparisons.baseline.files import (
    BASELINE_FORMAT,
    BASELINE_VERSION,
    Baseline,
    BaselineCase,
    BaselineError,
    baseline_toml,
    read_baseline,
    write_baseline_toml,
)

KEY = "bench_x.py::bench_classify::identify_pii"
#: A field or argument left out.
DROP = object()


def make_case(key: str = KEY, case: str = "classify::identify_pii", **counts: Any) -> BaselineCase:
    values: dict[str, Any] = {"label": "classify", "passes": 7, "fails": 2, "errors": 1}
    values.update(counts)
    values.setdefault("total", values["passes"] + values["fails"] + values["errors"])
    return BaselineCase(key=key, case=case, **values)


def row(index: int, **fields: Any) -> dict[str, Any]:
    """A report row as ``--prob-json`` writes it (extension fields included)."""
    data: dict[str, Any] = {
        "case": f"a::{index}",
        "label": "a",
        "nodeid": f"bench_a.py::bench_a::{index}",
        "passes": 2,
        "fails": 1,
        "errors": 0,
        "skipped": 0,
        "total": 3,
        "planned": 3,
        "pass_rate": 66.66666666666667,
        "xfail": False,
        "cost": None,
        "usage": {},
        "status": "flaky",
    }
    data.update(fields)
    return {k: v for k, v in data.items() if v is not DROP}


def report(rows: Any = DROP, **top: Any) -> dict[str, Any]:
    """A report with four valid rows, unless ``rows`` is given (``DROP``: the default)."""
    document: dict[str, Any] = {
        "schema_version": 1,
        "created": "2026-11-30T14:14:16",
        "runs": 3,
        "exit_status": 1,
        "totals": {},
        "rows": [row(i) for i in range(4)] if rows is DROP else rows,
        "records": [],
        "aggregates": [],
    }
    document.update(top)
    return {k: v for k, v in document.items() if v is not DROP}


def write(tmp_path: Path, content: str | bytes, name: str = "main.json") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(BaselineError) as info:
        read_baseline(path)
    return str(info.value)


# -- round trip and layout -------------------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    cases = [
        make_case(),
        make_case("bench_x.py::bench_triage::refund-terse", "triage::refund-terse", cost=0.0),
        make_case('bench_é.py::bench_q::"quoted\\"', 'q::"quoted\\"', cost=1.25, label="q"),
        make_case("bench_y.py::bench_none", "none", passes=0, fails=0, errors=0, label="none"),
    ]
    settings = {"runs": 10, "confidence": 0.95, "method": "exact", "seed": 0, "version": "0.1.0"}
    path = tmp_path / "baseline.toml"
    write_baseline_toml(path, reversed(cases), settings)
    baseline = read_baseline(path)
    assert baseline == Baseline(
        str(path), "toml", {c.key: c for c in sorted(cases, key=lambda c: c.key)}, settings
    )
    assert list(baseline.cases) == sorted(c.key for c in cases)
    assert baseline.cases[KEY].cost is None
    assert baseline.by_case_id()["triage::refund-terse"].cost == 0.0
    assert baseline.by_case_id()['q::"quoted\\"'].label == "q"


def test_layout_is_compact_sorted_and_stable(tmp_path: Path) -> None:
    cases = [
        make_case("b.py::bench_b", "b", label="b", passes=1, fails=0, errors=0, cost=2),
        make_case(),
    ]
    settings = {"seed": 3, "runs": 10, "created": None, "plugin": {"version": "0.1.0"}}
    text = baseline_toml(cases, settings)
    assert text == (
        'format = "pytest-probability baseline"\n'
        "version = 1\n"
        "\n"
        "[settings]\n"
        "runs = 10\n"
        "seed = 3\n"
        "\n"
        "[settings.plugin]\n"
        'version = "0.1.0"\n'
        "\n"
        '[cases."b.py::bench_b"]\n'
        'case = "b"\n'
        'label = "b"\n'
        "passes = 1\n"
        "fails = 0\n"
        "errors = 0\n"
        "total = 1\n"
        "cost = 2.0\n"
        "\n"
        f'[cases."{KEY}"]\n'
        'case = "classify::identify_pii"\n'
        'label = "classify"\n'
        "passes = 7\n"
        "fails = 2\n"
        "errors = 1\n"
        "total = 10\n"
    )
    assert baseline_toml(reversed(cases), dict(reversed(settings.items()))) == text
    path = tmp_path / "b.toml"
    write_baseline_toml(path, cases, settings)
    assert path.read_text(encoding="utf-8") == text
    assert os.listdir(tmp_path) == ["b.toml"]
    assert read_baseline(path).settings == {"runs": 10, "seed": 3, "plugin": {"version": "0.1.0"}}


def test_empty_baseline_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    write_baseline_toml(path, [], {})
    assert read_baseline(path) == Baseline(str(path), "toml", {}, {})


def test_writer_refuses_cases_it_could_not_read_back() -> None:
    with pytest.raises(ValueError, match="duplicate case key or id"):
        baseline_toml([make_case(), make_case()], {})
    with pytest.raises(ValueError, match="duplicate case key or id"):
        baseline_toml([make_case(), make_case(key="other.py::x")], {})
    with pytest.raises(TypeError):
        baseline_toml([], {"when": object()})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"total": 9}, "total: expected passes + fails + errors = 10, got 9"),
        ({"passes": True}, "passes: expected a whole number >= 0, got true"),
        ({"fails": -1, "total": 7}, "fails: expected a whole number >= 0, got -1"),
        ({"cost": float("nan")}, "cost: expected a finite number >= 0 or null, got nan"),
        ({"key": ""}, 'key: expected a non-empty string, got ""'),
    ],
)
def test_baseline_case_checks_itself(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        make_case(**changes)
    assert str(info.value) == f"baseline case {changes.get('key', KEY)!r}: {message}"


# -- detection by content --------------------------------------------------------------------


def test_toml_named_json_and_json_named_toml(tmp_path: Path) -> None:
    toml_path = tmp_path / "looks.json"
    write_baseline_toml(toml_path, [make_case()], {"runs": 10})
    json_path = write(tmp_path, "\n  " + json.dumps(report()), "looks.toml")
    assert read_baseline(toml_path).format == "toml"
    assert read_baseline(toml_path).cases == {KEY: make_case()}
    parsed = read_baseline(json_path)
    assert parsed.format == "json"
    assert list(parsed.cases) == [f"bench_a.py::bench_a::{i}" for i in range(4)]


def test_json_with_byte_order_mark(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + json.dumps(report()).encode())
    assert len(read_baseline(path).cases) == 4


# -- reading a real report -------------------------------------------------------------------

BENCH = """
import pytest
from pytest_probability import current_run, record_cost


@pytest.mark.parametrize("text", ["q1", "q2"])
def bench_classify(text):
    record_cost(0.25)
    assert text == "q1" or current_run().run != 2


@pytest.mark.parametrize("x", [1, 2])
def bench_extract(x):
    if x == 2 and current_run().run == 3:
        raise ConnectionError("upstream")


@pytest.mark.skip(reason="off")
def bench_off():
    pass
"""


def test_reads_a_real_report(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(bench_a=BENCH)
    result = pytester.runpytest(
        "--prob-runs=3", "--prob-json=r.json", "--prob-confidence=0.9", "--prob-seed=7",
        "-o", "prob_min_inputs=2",
    )  # fmt: skip
    assert result.ret == 1
    baseline = read_baseline(pytester.path / "r.json")
    assert baseline.format == "json"
    assert baseline.path == str(pytester.path / "r.json")
    created = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["created"]
    assert baseline.settings == {
        "schema_version": 1,
        "created": created,
        "runs": 3,
        "exit_status": 1,
        "confidence": 0.9,
        "seed": 7,
        "resamples": 5000,
    }
    assert list(baseline.cases.values()) == [
        BaselineCase(
            "bench_a.py::bench_classify::q1", "classify::q1", "classify", 3, 0, 0, 3, 0.75
        ),
        BaselineCase(
            "bench_a.py::bench_classify::q2", "classify::q2", "classify", 2, 1, 0, 3, 0.75
        ),
        BaselineCase("bench_a.py::bench_extract::1", "extract::1", "extract", 3, 0, 0, 3, None),
        BaselineCase("bench_a.py::bench_extract::2", "extract::2", "extract", 2, 0, 1, 3, None),
        BaselineCase("bench_a.py::bench_off", "off", "off", 0, 0, 0, 0, None),
    ]
    saved = tmp_path / "baseline.toml"
    write_baseline_toml(saved, baseline.cases.values(), baseline.settings)
    again = read_baseline(saved)
    assert again.cases == baseline.cases
    assert again.settings == baseline.settings
    assert again.by_case_id()["extract::2"].errors == 1


def test_report_without_optional_fields(tmp_path: Path) -> None:
    """Hand-trimmed reports: only ``rows`` and the row fields a baseline needs."""
    rows = [
        {
            "nodeid": "a.py::bench_a",
            "case": "a",
            "label": "a",
            "passes": 1,
            "fails": 0,
            "errors": 0,
            "total": 1,
        }
    ]
    baseline = read_baseline(write(tmp_path, json.dumps({"rows": rows})))
    assert baseline.settings == {}
    assert baseline.cases["a.py::bench_a"].cost is None


#: The spec's JSON report example, exactly (its rows carry no ``nodeid``).
SPEC_REPORT = """
{
  "created": "2026-07-07T21:43:18",
  "runs": 10,
  "exit_status": 1,
  "totals": {"passes": 35, "fails": 15, "errors": 0, "count": 50,
             "pass_rate": 70.0, "cost": 0.011,
             "usage": {"m-small": {"input_tokens": 1200, "output_tokens": 80,
                                   "cached_input_tokens": 640, "cost": 0.001}}},
  "rows": [
    {"case": "classify::identify_pii", "label": "classify", "passes": 7,
     "fails": 3, "errors": 0, "total": 10, "pass_rate": 70.0,
     "status": "flaky", "cost": 0.002, "usage": {}}
  ],
  "records": [
    {"case": "classify::identify_pii", "run": 3, "steps": [
      {"label": "classify", "passed": false, "elapsed": 0.01, "error": null,
       "message": "got 'other'", "cost": 0.0002, "usage": []}]}
  ]
}
"""


def test_the_spec_example_report_is_a_baseline(tmp_path: Path) -> None:
    """Rows without ``nodeid`` (another tool's report, an earlier version's) are keyed by
    their case id."""
    baseline = read_baseline(write(tmp_path, SPEC_REPORT))
    case = BaselineCase(
        "classify::identify_pii", "classify::identify_pii", "classify", 7, 3, 0, 10, 0.002,
        keyed_by="case",
    )  # fmt: skip
    assert baseline.cases == {"classify::identify_pii": case}
    assert baseline.by_case_id() == {"classify::identify_pii": case}
    assert case.module is None and make_case().module == "bench_x.py"
    assert baseline.settings == {"created": "2026-07-07T21:43:18", "runs": 10, "exit_status": 1}


@pytest.mark.parametrize(
    ("counts", "fails", "errors"),
    [
        ({"passes": 7, "total": 10}, 3, 0),  # the runs that did not pass are fails
        ({"passes": 7, "errors": 1, "total": 10}, 2, 1),
        ({"passes": 7, "fails": 1, "total": 10}, 1, 2),  # the rest are errors
        ({"passes": 10, "total": 10}, 0, 0),
    ],
)
def test_rows_need_only_what_a_comparison_reads(
    tmp_path: Path, counts: dict[str, int], fails: int, errors: int
) -> None:
    """Another implementation's report, or an older one: ``case``, ``passes`` and ``total``
    are enough (a comparison reads passes of total); ``fails`` and ``errors`` are read when
    present and make up the rest when not."""
    rows = [{"case": "classify::identify_pii", **counts}]
    baseline = read_baseline(write(tmp_path, json.dumps({"rows": rows})))
    case = BaselineCase(
        "classify::identify_pii", "classify::identify_pii", "classify", counts["passes"], fails,
        errors, counts["total"], keyed_by="case",
    )  # fmt: skip
    assert baseline.cases == {"classify::identify_pii": case}


def test_rows_with_and_without_node_ids_mix(tmp_path: Path) -> None:
    rows = [
        row(0),
        row(1, nodeid=DROP),
        row(2, nodeid=None, label=DROP, case="b::2"),  # label: the case id's function part
        {"case": "solo", "passes": 1, "fails": 0, "errors": 0, "total": 1},
    ]
    baseline = read_baseline(write(tmp_path, json.dumps(report(rows=rows))))
    assert list(baseline.cases) == ["bench_a.py::bench_a::0", "a::1", "b::2", "solo"]
    assert [c.keyed_by for c in baseline.cases.values()] == ["nodeid", "case", "case", "case"]
    assert [c.label for c in baseline.cases.values()] == ["a", "a", "b", "solo"]
    assert [c.module for c in baseline.cases.values()] == ["bench_a.py", None, None, None]


def test_a_case_keyed_by_its_case_id_checks_itself() -> None:
    with pytest.raises(ValueError, match="key: expected the case id"):
        make_case(key="other", case="a::1", keyed_by="case")
    with pytest.raises(ValueError, match='keyed_by: expected "nodeid" or "case"'):
        make_case(keyed_by="row")


PICK = """
import pytest
from pytest_probability import current_run

PASSES = {passes!r}

@pytest.mark.parametrize("item", list(PASSES))
def bench_pick(item):
    assert current_run().run <= PASSES[item]
"""


def _spec_shaped(report_path: Path, target: Path) -> None:
    """``report_path``'s rows with only the fields of the spec's example (no ``nodeid``),
    and its top level without ``schema_version``, written to ``target``."""
    document = json.loads(report_path.read_text(encoding="utf-8"))
    fields = ("case", "label", "passes", "fails", "errors", "total", "pass_rate", "status")
    rows = [
        {k: r[k] for k in fields if k in r} | {"cost": None, "usage": {}} for r in document["rows"]
    ]
    keep = ("created", "runs", "exit_status", "totals")
    target.write_text(json.dumps({**{k: document[k] for k in keep}, "rows": rows, "records": []}))


def test_a_report_without_node_ids_pairs_by_case_id(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(bench_pick=PICK.format(passes={"x": 10, "y": 9, "gone": 10}))
    pytester.runpytest("--prob-runs=10", "--prob-json=base.json")
    _spec_shaped(pytester.path / "base.json", pytester.path / "spec.json")
    pytester.makepyfile(bench_pick=PICK.format(passes={"x": 6, "y": 9, "new": 10}))
    sections = []
    for baseline in ("base.json", "spec.json"):
        result = pytester.runpytest("--prob-runs=10", f"--prob-baseline={baseline}")
        assert result.ret == 1  # report only: the failing runs fail, never a usage error
        sections.append(section(result.outlines, "probability: baseline"))
    assert (
        sections[0]
        == sections[1]
        == [
            "  pick  now − baseline  −20 pp  p=1  2 paired",
            "      pick::x  −40 pp [−69, −4]",
            "      pick::y  0 pp [−32, +32]",
            "      new (not compared): pick::new",
            "      removed (not compared): pick::gone",  # its function found by label
        ]
    )


def test_the_node_id_is_the_better_key_when_both_sides_have_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(bench_pick=PICK.format(passes={"x": 10}))
    rows = [
        # the same case under another case id (an earlier display): paired by node id
        {"nodeid": "bench_pick.py::bench_pick::x", "case": "pick::renamed", "label": "pick",
         "passes": 5, "fails": 5, "errors": 0, "total": 10},
        # the case id of this session's case x, but another node id: not used twice
        {"nodeid": "bench_old.py::bench_pick::x", "case": "pick::x", "label": "pick",
         "passes": 0, "fails": 10, "errors": 0, "total": 10},
    ]  # fmt: skip
    (pytester.path / "base.json").write_text(json.dumps({"rows": rows}))
    result = pytester.runpytest("--prob-runs=10", "--prob-baseline=base.json")
    lines = section(result.outlines, "probability: baseline")
    assert lines[0].startswith("  pick  now − baseline  +50 pp") and "1 paired" in lines[0]
    assert lines[-1] == "  1 baseline case(s) of functions that did not run: pick::x"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"passes": "7"}, 'rows[0].passes: expected a whole number >= 0, got "7"'),
        ({"total": 11}, "rows[0].total: expected passes + fails + errors = 10, got 11"),
        ({"case": None}, "rows[0].case: expected a non-empty string, got null"),
        (
            {"errors": DROP, "total": 6},
            "rows[0].total: expected total ≥ passes + fails = 10, got 6",
        ),
    ],
)
def test_a_corrupt_report_without_node_ids_is_a_usage_error(
    pytester: pytest.Pytester, change: dict[str, Any], message: str
) -> None:
    pytester.makepyfile(bench_pick=PICK.format(passes={"x": 1}).replace("run <=", "run >"))
    document = json.loads(SPEC_REPORT)
    document["rows"][0].update(change)
    document["rows"][0] = {k: v for k, v in document["rows"][0].items() if v is not DROP}
    (pytester.path / "old.json").write_text(json.dumps(document))
    result = pytester.runpytest("--prob-baseline=old.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == f"ERROR: --prob-baseline=old.json: {message}"
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


def test_aggregate_settings_are_read_leniently(tmp_path: Path) -> None:
    aggregates = [{"scope": "function", "ci": "odd", "seed": -1, "resamples": True}]
    baseline = read_baseline(write(tmp_path, json.dumps(report(aggregates=aggregates))))
    assert set(baseline.settings) == {"schema_version", "created", "runs", "exit_status"}
    baseline = read_baseline(write(tmp_path, json.dumps(report(aggregates={"x": 1}))))
    assert "confidence" not in baseline.settings


# -- errors: the file as a whole -------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    assert error_of(tmp_path / "main.json") == f"{tmp_path}/main.json: no such file"


def test_relative_path_is_named_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BaselineError) as info:
        read_baseline("main.json")
    assert str(info.value) == "main.json: no such file"
    assert (info.value.path, info.value.field, info.value.problem) == (
        "main.json",
        None,
        "no such file",
    )


def test_directory(tmp_path: Path) -> None:
    assert error_of(tmp_path) == f"{tmp_path}: is a directory, not a baseline file"


def test_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, json.dumps(report()))
    original = os.open

    def refusing_open(name: str | os.PathLike[str], flags: int, *args: int) -> int:
        if os.fspath(name) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(name))
        return original(name, flags, *args)

    monkeypatch.setattr(os, "open", refusing_open)
    assert error_of(path) == f"{path}: cannot read: permission denied"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_for_real(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(report()))
    path.chmod(0)
    try:
        assert error_of(path) == f"{path}: cannot read: permission denied"
    finally:
        path.chmod(0o644)


def test_other_read_errors(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert error_of(tmp_path / "file" / "main.json") == (
        f"{tmp_path}/file/main.json: cannot read: a part of its path is not a directory"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty file"),
        (b" \n\t\n", "empty file"),
        (b'{"rows": []}\xff', "not UTF-8 text: byte 0xff at offset 12"),
        (b"\xfe\xff\x00{", "not UTF-8 text: byte 0xfe at offset 0"),
        (b'{"rows": [}', "invalid JSON: Expecting value (line 1, column 11)"),
        (b'{"rows": []', "invalid JSON: Expecting ',' delimiter (line 1, column 12)"),
        (b'{"rows": [], "cost": NaN}', "invalid JSON: non-standard number NaN"),
        (b'{"a": ' + b"[" * 100_000, "invalid JSON: nested too deeply"),
        (
            b"[cases\n",
            "invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 7)",
        ),
        (b"format = \n", "invalid TOML: Invalid value (at line 1, column 10)"),
        (b"a = 1\na = 2\n", "invalid TOML: Cannot overwrite a value (at line 2, column 6)"),
        (b"[1, 2]", "top level: expected an object (a --prob-json report), got an array"),
        (b'  "report"\n', 'top level: expected an object (a --prob-json report), got "report"'),
        (b"42", "top level: expected an object (a --prob-json report), got 42"),
        (b"null", "top level: expected an object (a --prob-json report), got null"),
    ],
)
def test_unparseable_files(tmp_path: Path, content: bytes, problem: str) -> None:
    path = write(tmp_path, content)
    assert error_of(path) == f"{path}: {problem}"


# -- errors: a JSON report -------------------------------------------------------------------

INF = float("inf")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"runs": 3}, "rows: missing, not a --prob-json report"),
        (report(rows={}), "rows: expected an array of rows, got an object"),
        (report(rows=None), "rows: expected an array of rows, got null"),
        (
            report(schema_version=2),
            "schema_version: report schema 2 is newer than this plugin reads (1)",
        ),
        (report(schema_version="1"), 'schema_version: expected a whole number >= 1, got "1"'),
        (report(schema_version=True), "schema_version: expected a whole number >= 1, got true"),
        (report(created=20261130), "created: expected a string, got 20261130"),
        (report(runs=0), "runs: expected a whole number >= 1, got 0"),
        (report(runs=3.0), "runs: expected a whole number >= 1, got 3.0"),
        (report(exit_status=-1), "exit_status: expected a whole number >= 0, got -1"),
        (
            report(rows=[row(0), row(1), row(2), row(3, passes=-1)]),
            "rows[3].passes: expected a whole number >= 0, got -1",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, passes=True)]),
            "rows[3].passes: expected a whole number >= 0, got true",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, passes=2.0)]),
            "rows[3].passes: expected a whole number >= 0, got 2.0",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, passes="2")]),
            'rows[3].passes: expected a whole number >= 0, got "2"',
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, fails=None)]),
            "rows[3].fails: expected a whole number >= 0, got null",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, errors=[])]),
            "rows[3].errors: expected a whole number >= 0, got an array",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, total={})]),
            "rows[3].total: expected a whole number >= 0, got an object",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, total=4)]),
            "rows[3].total: expected passes + fails + errors = 3, got 4",
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, total=2)]),
            "rows[3].total: expected passes + fails + errors = 3, got 2",
        ),
        (report(rows=[row(0), row(3, nodeid=DROP, case=DROP)]), "rows[1].case: missing"),
        (
            report(rows=[row(0), row(3, nodeid="")]),
            'rows[1].nodeid: expected a non-empty string, got ""',
        ),
        (
            report(rows=[row(0), row(3, nodeid=3)]),
            "rows[1].nodeid: expected a non-empty string, got 3",
        ),
        (report(rows=[row(0), row(3, case=DROP)]), "rows[1].case: missing"),
        (
            report(rows=[row(0), row(3, case=False)]),
            "rows[1].case: expected a non-empty string, got false",
        ),
        (report(rows=[row(0), row(3, label=None)]), "rows[1].label: expected a string, got null"),
        (report(rows=[row(0), row(3, passes=DROP)]), "rows[1].passes: missing"),
        (
            report(rows=[row(0), row(3, fails=DROP, total=1)]),
            "rows[1].total: expected total ≥ passes + errors = 2, got 1",
        ),
        (
            report(rows=[row(0), row(3, errors=DROP, total=2)]),
            "rows[1].total: expected total ≥ passes + fails = 3, got 2",
        ),
        (
            report(rows=[row(0), row(3, errors=DROP, fails=DROP, total=1)]),
            "rows[1].total: expected total ≥ passes = 2, got 1",
        ),
        (report(rows=[row(0), row(3, total=DROP)]), "rows[1].total: missing"),
        (
            report(rows=[row(0), row(3, cost=-1)]),
            "rows[1].cost: expected a finite number >= 0 or null, got -1",
        ),
        (
            report(rows=[row(0), row(3, cost=-0.5)]),
            "rows[1].cost: expected a finite number >= 0 or null, got -0.5",
        ),
        (
            report(rows=[row(0), row(3, cost="0.1")]),
            'rows[1].cost: expected a finite number >= 0 or null, got "0.1"',
        ),
        (
            report(rows=[row(0), row(3, cost=True)]),
            "rows[1].cost: expected a finite number >= 0 or null, got true",
        ),
        (
            report(rows=[row(0), row(3, cost=INF)]),
            "rows[1].cost: expected a finite number >= 0 or null, got inf",
        ),
        (report(rows=[row(0), "a::1"]), 'rows[1]: expected an object, got "a::1"'),
        (report(rows=[row(0), [1]]), "rows[1]: expected an object, got an array"),
        (report(rows=[row(0), None]), "rows[1]: expected an object, got null"),
        (
            report(rows=[row(0), row(1), row(2), row(3, nodeid="bench_a.py::bench_a::1")]),
            'rows[3].nodeid: duplicate case key "bench_a.py::bench_a::1" (first in rows[1])',
        ),
        (
            report(rows=[row(0), row(1), row(2), row(3, case="a::1")]),
            'rows[3].case: duplicate case id "a::1" (first in rows[1])',
        ),
        # the first bad field wins, in document order
        (report(runs=0, rows=[row(0, passes=-1)]), "runs: expected a whole number >= 1, got 0"),
        (
            report(rows=[row(0, passes=-1, total=9), row(1, case=3)]),
            "rows[0].passes: expected a whole number >= 0, got -1",
        ),
        (
            report(rows=[row(0, total=9, cost=-1)]),
            "rows[0].total: expected passes + fails + errors = 3, got 9",
        ),
        (report(rows=[row(0, case=DROP, nodeid=DROP)]), "rows[0].case: missing"),
        # rows without a node id are keyed by their case id, which must then be unique
        (
            report(rows=[row(0), row(1, nodeid=DROP, case="a::0")]),
            'rows[1].case: duplicate case id "a::0" (first in rows[0])',
        ),
        (
            report(rows=[row(0), row(1, nodeid=DROP, case="bench_a.py::bench_a::0")]),
            'rows[1].case: duplicate case key "bench_a.py::bench_a::0" (first in rows[0])',
        ),
        (
            report(rows=[row(0, nodeid=DROP), row(1, nodeid=DROP, case="a::0")]),
            'rows[1].case: duplicate case id "a::0" (first in rows[0])',
        ),
        (
            report(rows=[row(0, nodeid=DROP, label=3)]),
            "rows[0].label: expected a string, got 3",
        ),
    ],
)
def test_bad_report(tmp_path: Path, document: dict[str, Any], message: str) -> None:
    text = json.dumps(document).replace("Infinity", "1e400")  # inf, as a strict reader sees it
    path = write(tmp_path, text)
    assert error_of(path) == f"{path}: {message}"


def test_error_fields(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(report(rows=[row(0), row(1), row(2), row(3, passes=-1)])))
    with pytest.raises(BaselineError) as info:
        read_baseline(path)
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.path, error.field, error.problem) == (
        str(path),
        "rows[3].passes",
        "expected a whole number >= 0, got -1",
    )
    assert f"--prob-baseline={error}" == (
        f"--prob-baseline={path}: rows[3].passes: expected a whole number >= 0, got -1"
    )


def test_long_strings_are_shortened(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(report(runs="x" * 100)))
    assert error_of(path) == f'{path}: runs: expected a whole number >= 1, got "{"x" * 55}..."'


# -- errors: a TOML baseline -----------------------------------------------------------------

HEAD = 'format = "pytest-probability baseline"\nversion = 1\n'
CASE = '[cases."a.py::bench_a"]\ncase = "a"\nlabel = "a"\npasses = 2\nfails = 1\nerrors = 0\ntotal = 3\n'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("version = 1\n[cases]\n", "format: missing, not a pytest-probability baseline"),
        ('[project]\nname = "x"\n', "format: missing, not a pytest-probability baseline"),
        (
            'format = "other"\nversion = 1\n[cases]\n',
            'format: expected "pytest-probability baseline", got "other"',
        ),
        (
            "format = 1\nversion = 1\n[cases]\n",
            'format: expected "pytest-probability baseline", got 1',
        ),
        ('format = "pytest-probability baseline"\n[cases]\n', "version: missing"),
        (
            'format = "pytest-probability baseline"\nversion = 2\n[cases]\n',
            "version: baseline version 2 is newer than this plugin reads (1)",
        ),
        (
            'format = "pytest-probability baseline"\nversion = 0\n[cases]\n',
            "version: expected a whole number >= 1, got 0",
        ),
        (
            'format = "pytest-probability baseline"\nversion = true\n[cases]\n',
            "version: expected a whole number >= 1, got true",
        ),
        (
            'format = "pytest-probability baseline"\nversion = "1"\n[cases]\n',
            'version: expected a whole number >= 1, got "1"',
        ),
        (
            'format = "pytest-probability baseline"\nversion = 1.0\n[cases]\n',
            "version: expected a whole number >= 1, got 1.0",
        ),
        (HEAD + "settings = 3\n[cases]\n", "settings: expected a table, got 3"),
        (HEAD, "cases: missing"),
        (HEAD + "[settings]\nruns = 3\n", "cases: missing"),
        (HEAD + "cases = []\n", "cases: expected a table of cases, got an array"),
        (HEAD + "[cases]\nsmoke = 3\n", "cases.smoke: expected a table, got 3"),
        (HEAD + '[cases.""]\ncase = "a"\n', 'cases."": empty case key'),
        (HEAD + CASE.replace("passes = 2\n", ""), 'cases."a.py::bench_a".passes: missing'),
        (HEAD + CASE.replace('case = "a"\n', ""), 'cases."a.py::bench_a".case: missing'),
        (HEAD + CASE.replace('label = "a"\n', ""), 'cases."a.py::bench_a".label: missing'),
        (HEAD + CASE.replace("total = 3\n", ""), 'cases."a.py::bench_a".total: missing'),
        (
            HEAD + CASE.replace("passes = 2", "passes = -1"),
            'cases."a.py::bench_a".passes: expected a whole number >= 0, got -1',
        ),
        (
            HEAD + CASE.replace("fails = 1", "fails = false"),
            'cases."a.py::bench_a".fails: expected a whole number >= 0, got false',
        ),
        (
            HEAD + CASE.replace("errors = 0", "errors = 0.0"),
            'cases."a.py::bench_a".errors: expected a whole number >= 0, got 0.0',
        ),
        (
            HEAD + CASE.replace("total = 3", "total = 4"),
            'cases."a.py::bench_a".total: expected passes + fails + errors = 3, got 4',
        ),
        (
            HEAD + CASE.replace('label = "a"', "label = 1979-05-27"),
            'cases."a.py::bench_a".label: expected a string, got 1979-05-27',
        ),
        (
            HEAD + CASE.replace('case = "a"', "case = {}"),
            'cases."a.py::bench_a".case: expected a non-empty string, got an object',
        ),
        (
            HEAD + CASE + "cost = nan\n",
            'cases."a.py::bench_a".cost: expected a finite number >= 0, got nan',
        ),
        (
            HEAD + CASE + "cost = -inf\n",
            'cases."a.py::bench_a".cost: expected a finite number >= 0, got -inf',
        ),
        (
            HEAD + CASE + "cost = -0.5\n",
            'cases."a.py::bench_a".cost: expected a finite number >= 0, got -0.5',
        ),
        (
            HEAD + CASE + 'cost = "0.5"\n',
            'cases."a.py::bench_a".cost: expected a finite number >= 0, got "0.5"',
        ),
        (
            HEAD
            + CASE
            + '[cases.smoke]\ncase = "a"\nlabel = "s"\npasses = 0\nfails = 0\nerrors = 0\ntotal = 0\n',
            'cases.smoke.case: duplicate case id "a" (first in cases."a.py::bench_a")',
        ),
        (
            HEAD + CASE + CASE,
            "invalid TOML: Cannot declare ('cases', 'a.py::bench_a') twice (at line 10, column 23)",
        ),
        # the first bad field wins: version before cases, passes before total
        (
            'format = "pytest-probability baseline"\nversion = 9\ncases = 1\n',
            "version: baseline version 9 is newer than this plugin reads (1)",
        ),
        (
            HEAD + CASE.replace("passes = 2", "passes = -1").replace("total = 3", "total = 0"),
            'cases."a.py::bench_a".passes: expected a whole number >= 0, got -1',
        ),
    ],
)
def test_bad_toml_baseline(tmp_path: Path, content: str, message: str) -> None:
    path = write(tmp_path, content, "baseline.toml")
    assert error_of(path) == f"{path}: {message}"


def test_toml_cost_may_be_a_whole_number(tmp_path: Path) -> None:
    path = write(tmp_path, HEAD + "[settings]\n" + CASE + "cost = 2\n", "b.toml")
    case = read_baseline(path).cases["a.py::bench_a"]
    assert case.cost == 2.0
    assert isinstance(case.cost, float)


def test_toml_extra_fields_are_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, "note = 'hand edited'\n" + HEAD + CASE + "skipped = 4\n", "b.toml")
    assert read_baseline(path).cases == {
        "a.py::bench_a": BaselineCase("a.py::bench_a", "a", "a", 2, 1, 0, 3, None)
    }


# -- atomic writing --------------------------------------------------------------------------


def test_failed_rename_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "b.toml"
    path.write_text("old\n")

    def fail(src: str, dst: str) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError) as info:
        write_baseline_toml(path, [make_case()], {})
    assert str(info.value) == f"could not write the baseline to {path}: Input/output error"
    assert isinstance(info.value.__cause__, OSError)
    assert os.listdir(tmp_path) == ["b.toml"]
    assert path.read_text() == "old\n"


def test_failed_sync_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(
        OSError, match=r"^could not write the baseline to .*b\.toml: No space left on device$"
    ):
        write_baseline_toml(tmp_path / "b.toml", [make_case()], {})
    assert os.listdir(tmp_path) == []


def test_interrupt_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_baseline_toml(tmp_path / "b.toml", [make_case()], {})
    assert os.listdir(tmp_path) == []


def test_unwritable_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = os.open

    def refuse(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if str(path).startswith(str(tmp_path)):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return original(path, flags, mode, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(OSError) as info:
        write_baseline_toml(tmp_path / "b.toml", [make_case()], {})
    assert (
        str(info.value) == f"could not write the baseline to {tmp_path}/b.toml: Permission denied"
    )
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_directory_for_real(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(
            OSError, match=r"^could not write the baseline to .*: Permission denied$"
        ):
            write_baseline_toml(locked / "b.toml", [make_case()], {})
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def test_missing_directory_is_created_and_impossible_targets_are_named(tmp_path: Path) -> None:
    write_baseline_toml(tmp_path / "nope" / "deeper" / "b.toml", [make_case()], {})
    assert read_baseline(tmp_path / "nope" / "deeper" / "b.toml").cases == {KEY: make_case()}
    assert os.listdir(tmp_path / "nope" / "deeper") == ["b.toml"]
    (tmp_path / "nope" / "deeper" / "b.toml").unlink()
    (tmp_path / "nope" / "deeper").rmdir()
    (tmp_path / "nope").rmdir()
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError) as info:
        write_baseline_toml(tmp_path / "file" / "b.toml", [], {})
    assert str(info.value) == (
        f"could not write the baseline to {tmp_path}/file/b.toml: '{tmp_path}/file' is not a directory"
    )
    with pytest.raises(OSError) as info:
        write_baseline_toml(tmp_path, [], {})
    assert str(info.value) == f"could not write the baseline to {tmp_path}: it is a directory"
    assert sorted(os.listdir(tmp_path)) == ["file"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full() -> None:
    with pytest.raises(OSError) as info:
        write_baseline_toml("/dev/full", [make_case()], {})
    assert str(info.value) == "could not write the baseline to /dev/full: No space left on device"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written into, never renamed over


def test_existing_file_keeps_its_mode_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    existing = tmp_path / "existing.toml"
    existing.write_text("old")
    existing.chmod(0o640)
    write_baseline_toml(existing, [make_case()], {})
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    previous = os.umask(0o027)
    try:
        write_baseline_toml(tmp_path / "new.toml", [make_case()], {})
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o640


def test_symlink_stays_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "b.toml"
    target.write_text("old")
    link = tmp_path / "b.toml"
    link.symlink_to(target)
    write_baseline_toml(link, [make_case()], {})
    assert link.is_symlink()
    assert read_baseline(target).cases == {KEY: make_case()}
    assert os.listdir(tmp_path / "real") == ["b.toml"]


def test_overwrites_an_existing_baseline(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    write_baseline_toml(path, [make_case()], {"runs": 10})
    write_baseline_toml(path, [make_case(passes=9, fails=0, errors=0)], {"runs": 9})
    baseline = read_baseline(path)
    assert baseline.cases[KEY].passes == 9
    assert baseline.settings == {"runs": 9}
    assert tomllib.loads(path.read_text())["format"] == BASELINE_FORMAT
    assert tomllib.loads(path.read_text())["version"] == BASELINE_VERSION


# -- purity ----------------------------------------------------------------------------------


def test_module_never_imports_pytest() -> None:
    code = (
        "import sys\n"
        "import pytest_probability.extensions.comparisons.baseline.files\n"
        "loaded = [m for m in sys.modules if m == 'pytest' or m.startswith('_pytest')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert baselines.__doc__ and "never imports pytest" in baselines.__doc__
