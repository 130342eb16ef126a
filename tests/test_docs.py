"""The documentation keeps up with the code: every hook, option, JSON field and page.

Each test fails naming what is undocumented. The option and JSON checks run the plugin
with third-party extensions switched off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``), so only what
this distribution ships (the kernel and the bundled extensions) is required here.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import pytest_probability.hookspecs
from pytest_probability.loader import BUNDLED

DOCS = Path(__file__).resolve().parent.parent / "docs"
LITERAL = re.compile(r"``(.+?)``", re.DOTALL)
AUTOFUNCTION = re.compile(r"^\.\. autofunction:: (\S+)\s*$", re.MULTILINE)


def _doc(name: str) -> str:
    path = DOCS / name
    assert path.is_file(), f"docs/{name} is missing"
    return path.read_text(encoding="utf-8")


def _literals(text: str) -> list[str]:
    """The contents of every ``inline literal`` of a reST text (line breaks folded)."""
    return [" ".join(found.split()) for found in LITERAL.findall(text)]


def _hookspec_modules() -> list[ModuleType]:
    modules = [pytest_probability.hookspecs]
    modules += [importlib.import_module(f"{package}.hookspecs") for _, package in BUNDLED]
    return modules


def _hookspecs() -> list[tuple[str, str]]:
    """(module name, hook name) of every hook specification the distribution ships."""
    found = []
    for module in _hookspec_modules():
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and hasattr(obj, "pytest_spec"):
                found.append((module.__name__, name))
    return sorted(found)


def _isolated(monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    """Arguments loading only this distribution's plugin, without third-party extensions."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return ("-p", "pytest_probability.plugin")


# -- (a) hooks ------------------------------------------------------------------------------
def test_hookspecs_are_found() -> None:
    names = {name for _, name in _hookspecs()}
    assert "pytest_prob_addoption" in names, "hookspec discovery found nothing"


@pytest.mark.parametrize(("module", "hook"), _hookspecs(), ids=[h for _, h in _hookspecs()])
def test_every_hook_is_documented(module: str, hook: str) -> None:
    documented = set(AUTOFUNCTION.findall(_doc("hooks.rst")))
    assert f"{module}.{hook}" in documented, (
        f"hook {hook} (defined in {module}) is not documented in docs/hooks.rst: "
        f"add a section with '.. autofunction:: {module}.{hook}'"
    )


def test_hooks_page_documents_no_stale_hooks() -> None:
    specs = {f"{module}.{hook}" for module, hook in _hookspecs()}
    stale = sorted(set(AUTOFUNCTION.findall(_doc("hooks.rst"))) - specs)
    assert not stale, f"docs/hooks.rst documents hooks that no longer exist: {stale}"


# -- (b) options ----------------------------------------------------------------------------
def _mentioned(token: str, literals: list[str], *, suffix: str = "") -> bool:
    """``token`` as a whole word in some literal; with ``suffix``, directly followed by it."""
    end = re.escape(suffix) if suffix else r"(?![\w-])"
    pattern = re.compile(rf"(?<![\w.-]){re.escape(token)}{end}")
    return any(pattern.search(literal) for literal in literals)


def test_every_option_is_documented(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = pytester.parseconfig(*_isolated(monkeypatch))
    kernel = config.pluginmanager.get_plugin("probability.kernel")
    assert kernel is not None, "the plugin did not register its kernel"
    specs = kernel.options.specs
    assert "runs" in specs, f"the option registry looks empty: {sorted(specs)}"
    literals = _literals(_doc("options.rst"))
    missing = []
    for spec in specs.values():
        if spec.cli and not _mentioned(spec.cli, literals):
            missing.append(f"command-line flag ``{spec.cli}`` (setting {spec.name!r})")
        if spec.ini and not _mentioned(spec.ini, literals):
            missing.append(f"ini key ``{spec.ini}`` (setting {spec.name!r})")
        if spec.mark and not _mentioned(spec.mark, literals, suffix="="):
            missing.append(f"mark key ``{spec.mark}=`` (setting {spec.name!r})")
    assert not missing, "docs/options.rst does not mention:\n  " + "\n  ".join(missing)


# -- (c) JSON fields ------------------------------------------------------------------------
JSON_BENCH = """
import pytest
from pytest_probability import record_cost, record_usage


@pytest.mark.parametrize("kind", ["passing", "failing", "erroring"])
def bench_kinds(kind):
    if kind == "failing":
        assert kind == "passing"
    if kind == "erroring":
        raise ConnectionError("upstream timed out")


@pytest.mark.probability(min_rate=0.5)
@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.probability(min_passes=1))])
def bench_more(n):
    record_usage(model="m", input_tokens=3, output_tokens=1, cost=0.001)
    record_cost(0.0001)
"""

BROKEN_EXTENSION = """
def pytest_prob_run_finished(item, record):
    raise KeyError("broken on purpose")


def pytest_prob_build_report(report, results, config):
    raise ZeroDivisionError("broken on purpose")
"""

#: Where each part of the report is documented: a heading of docs/json.rst.
JSON_SECTIONS = {
    "top level": "Top level",
    "totals": "``totals``",
    "rows[]": "``rows[]``",
    "records[]": "``records[]``",
    "records[].steps[]": "``records[].steps[]``",
    "records[].steps[].usage[]": "``records[].steps[].usage[]``",
    "usage{}": "``usage`` objects",
    "rows[].ci": "``rows[].ci``",
    "aggregates[]": "``aggregates[]``",
    "aggregates[].ci": "``aggregates[].ci``",
    "aggregates[].width_factor": "``aggregates[].width_factor``",
    "rows[].gate": "``rows[].gate``",
    "rows[].gate.checks[]": "``rows[].gate.checks[]``",
    "gates": "``gates``",
}


def _json_sections(text: str) -> dict[str, list[str]]:
    """The literals under each documented heading of docs/json.rst."""
    lines = text.splitlines()
    headings = [
        index
        for index in range(1, len(lines))
        if lines[index - 1].strip()
        and re.fullmatch(r"([=\-~^])\1{2,}", lines[index].strip())
        and len(lines[index].strip()) >= len(lines[index - 1].strip())
    ]
    sections: dict[str, list[str]] = {}
    for position, underline in enumerate(headings):
        title = lines[underline - 1].strip()
        end = headings[position + 1] - 1 if position + 1 < len(headings) else len(lines)
        sections[title] = _literals("\n".join(lines[underline + 1 : end]))
    return sections


def _report_keys(report: dict[str, Any]) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {part: set() for part in JSON_SECTIONS}
    keys["top level"] |= set(report)
    keys["totals"] |= set(report["totals"])
    usage_maps = [report["totals"].get("usage") or {}]
    for row in report["rows"]:
        keys["rows[]"] |= set(row)
        usage_maps.append(row.get("usage") or {})
    for record in report["records"]:
        keys["records[]"] |= set(record)
        usage_maps.append(record.get("usage") or {})
        for step in record["steps"]:
            keys["records[].steps[]"] |= set(step)
            for entry in step.get("usage") or []:
                keys["records[].steps[].usage[]"] |= set(entry)
    for usage in usage_maps:
        for totals in usage.values():
            keys["usage{}"] |= set(totals)
    for row in report["rows"]:
        keys["rows[].ci"] |= set(row.get("ci", {}))
    for line in report.get("aggregates", []):
        keys["aggregates[]"] |= set(line)
        keys["aggregates[].ci"] |= set(line["ci"])
        keys["aggregates[].width_factor"] |= set(line["width_factor"])
    gated = [row["gate"] for row in report["rows"] if "gate" in row]
    assert gated, "no row has a gate: JSON_BENCH must gate a function"
    for gate in gated:
        keys["rows[].gate"] |= set(gate)
        for check in gate["checks"]:
            keys["rows[].gate.checks[]"] |= set(check)
    keys["gates"] |= set(report["gates"])
    return keys


def _run_report(pytester: pytest.Pytester, args: tuple[str, ...]) -> dict[str, Any]:
    pytester.makepyfile(bench_kinds=JSON_BENCH)
    # prob_min_inputs=2 gives both function-level and Overall aggregates
    pytester.runpytest(*args, "--prob-runs=2", "--prob-json=r.json", "-o", "prob_min_inputs=2")
    path = pytester.path / "r.json"
    assert path.is_file(), "the plugin wrote no JSON report"
    report = json.loads(path.read_text(encoding="utf-8"))
    assert [a["scope"] for a in report["aggregates"]] == ["function", "function", "overall"]
    return report


def _assert_json_documented(report: dict[str, Any]) -> None:
    sections = _json_sections(_doc("json.rst"))
    missing = []
    for part, keys in _report_keys(report).items():
        heading = JSON_SECTIONS[part]
        if heading not in sections:
            missing.append(f"the section {heading!r} (for the {part} fields)")
            continue
        missing += [
            f"``{key}`` under {heading!r} ({part})"
            for key in sorted(keys)
            if key not in sections[heading]
        ]
    assert not missing, "docs/json.rst does not document:\n  " + "\n  ".join(missing)


def test_every_json_field_is_documented(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _run_report(pytester, _isolated(monkeypatch))
    outcomes = {record["outcome"] for record in report["records"]}
    assert outcomes == {"pass", "fail", "error"}, f"unexpected outcomes {outcomes}"
    _assert_json_documented(report)


def test_json_warning_fields_are_documented(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(BROKEN_EXTENSION)
    report = _run_report(pytester, (*_isolated(monkeypatch), "-W", "ignore"))
    assert "warnings" in report, "a failing extension left no top-level 'warnings'"
    _assert_json_documented(report)


# -- (d) pages ------------------------------------------------------------------------------
def _toctree_entries(text: str) -> set[str]:
    entries: set[str] = set()
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip() != ".. toctree::":
            continue
        for entry in lines[index + 1 :]:
            if entry.strip() and not entry.startswith((" ", "\t")):
                break
            stripped = entry.strip()
            if stripped and not stripped.startswith(":"):
                match = re.fullmatch(r"(?:.*<(.+)>|(.+))", stripped)
                assert match is not None
                entries.add((match.group(1) or match.group(2)).strip())
    return entries


def _pages() -> set[str]:
    return {
        path.relative_to(DOCS).with_suffix("").as_posix()
        for path in DOCS.rglob("*.rst")
        if "_build" not in path.relative_to(DOCS).parts
    } - {"index"}


def test_every_page_is_in_the_toctree() -> None:
    entries = _toctree_entries(_doc("index.rst"))
    missing = sorted(_pages() - entries)
    assert not missing, f"docs/index.rst's toctree does not list these pages: {missing}"
    dangling = sorted(entries - _pages())
    assert not dangling, f"docs/index.rst's toctree lists pages that do not exist: {dangling}"


# -- the build itself -------------------------------------------------------------------------
def _needs_sphinx() -> None:
    """Skip without Sphinx, except in tests/run-all.sh's docs leg (``PROB_NEEDS_SPHINX``),
    which runs the two builds and where a missing Sphinx is a failure."""
    if os.environ.get("PROB_NEEDS_SPHINX"):
        import sphinx  # noqa: F401
    else:
        pytest.importorskip("sphinx")


def _sphinx(
    tmp_path: Path, *, python_args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``sphinx-build -W -b html`` on docs/ into ``tmp_path``."""
    command = [sys.executable, *python_args, "-m", "sphinx", "-W", "-q", "-E", "-b", "html"]
    return subprocess.run(
        [*command, str(DOCS), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_docs_build_without_warnings(tmp_path: Path) -> None:
    _needs_sphinx()
    result = _sphinx(tmp_path)
    assert result.returncode == 0, f"sphinx-build -W failed:\n{result.stdout}\n{result.stderr}"


def test_docs_build_without_the_plugin_installed(tmp_path: Path) -> None:
    """``python -S`` skips the site-packages ``.pth`` files, so the editable install's finder
    is absent and docs/conf.py must assemble the package from core/ and extensions/."""
    _needs_sphinx()
    env = {"PYTHONPATH": sysconfig.get_paths()["purelib"], "PATH": "/usr/bin:/bin"}
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import pytest_probability"],
        capture_output=True,
        env=env,
    )
    if probe.returncode == 0:
        pytest.skip("pytest_probability is importable without site .pth files here")
    result = _sphinx(tmp_path, python_args=("-S",), env=env)
    assert result.returncode == 0, (
        f"sphinx-build -W failed without an installed plugin:\n{result.stdout}\n{result.stderr}"
    )
    hooks = (tmp_path / "html" / "hooks.html").read_text(encoding="utf-8")
    assert "pytest_prob_row_status" in hooks and "Called once per row" in hooks, (
        "autodoc rendered no hook docstrings from the source tree"
    )


def test_every_field_of_the_history_summary_is_documented(tmp_path: Path) -> None:
    """``python -m pytest_probability history --json`` (docs/history.rst, "The JSON
    summary"): every key of a real summary, with a skipped file and a gone case, is named
    under its heading."""
    from history_sessions import generate
    from pytest_probability.__main__ import main

    truth = generate(tmp_path / "h", sessions=4, cases=10, changes={0: 0.0})
    (tmp_path / "h" / "broken.json").write_text("[]", encoding="utf-8")
    latest = json.loads(truth.files[-1].read_text(encoding="utf-8"))
    latest["rows"] = latest["rows"][:-1]  # (a case of the session before is gone)
    truth.files[-1].write_text(json.dumps(latest), encoding="utf-8")
    assert main(["history", str(tmp_path / "h"), "--json", str(tmp_path / "s.json")]) == 0
    summary = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert summary["skipped"] and summary["gone"]
    compared = [move for move in summary["moves"] if move["previous"] and move["window"]]
    parts = {
        "The JSON summary": set(summary),
        "``sessions[]``": {key for session in summary["sessions"] for key in session},
        "``moves[]``": {key for move in summary["moves"] for key in move},
        "``moves[].latest``": {key for move in summary["moves"] for key in move["latest"]},
        "``moves[].previous`` and ``moves[].window``": {
            key for move in compared for key in (*move["previous"], *move["window"])
        },
    }
    nested = {key for move in compared for key in move["previous"]["since"]}
    parts["``moves[].previous`` and ``moves[].window``"] |= nested
    sections = _json_sections(_doc("history.rst"))
    missing = [
        f"``{key}`` under {heading!r}"
        for heading, keys in parts.items()
        for key in sorted(keys)
        if key not in sections.get(heading, [])
    ]
    assert not missing, "docs/history.rst does not document:\n  " + "\n  ".join(missing)
