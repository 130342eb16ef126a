"""What installing the plugin costs a session that does not use it (issue 22, section 1).

Speed itself is measured in benchmarks/startup.py; these tests check the properties that
make it cheap, by counting modules and reading pytest's own import hook, never by timing:
the plugin's modules stay out of assertion rewriting, and a session with no bench files
imports none of the machinery of features it does not use.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook
from pytest_probability import rewriting

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_MODULES = sorted(
    path for folder in ("core", "extensions") for path in (ROOT / folder).rglob("*.py")
)

#: Machinery a session that does not use its feature must not import: the HTML page and
#: Markdown summary writers, the planner, the judge's HTTP client, the bootstrap, and the
#: comparisons' engines (fixed-run and sequential).
HEAVY = (
    "pytest_probability.extensions.html.markup",
    "pytest_probability.extensions.html.svg",
    "pytest_probability.extensions.html.render",
    "pytest_probability.extensions.markdown.markup",
    "pytest_probability.extensions.markdown.render",
    "pytest_probability.extensions.plan.session",
    "pytest_probability.extensions.plan.power",
    "pytest_probability.extensions.plan.tomlfile",
    "pytest_probability.extensions.texts.client",
    "pytest_probability.extensions.texts.transport",
    "pytest_probability.extensions.texts.evaluate",
    "pytest_probability.extensions.intervals.sampling",
    "pytest_probability.extensions.comparisons.engine",
    "pytest_probability.extensions.comparisons.paired",
    "pytest_probability.extensions.comparisons.signflip",
    "pytest_probability.extensions.comparisons.sequential",
    "pytest_probability.extensions.comparisons.seqruntime",
    "pytest_probability.extensions.comparisons.seqmean",
    "pytest_probability.extensions.comparisons.seqdiff",
    "pytest_probability.extensions.comparisons.regression",
)

IMPORTED = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
print(json.dumps({
    "code": int(code),
    "modules": sorted(m for m in sys.modules if m.startswith("pytest_probability")),
    "rewritten": sorted(
        m for m, module in list(sys.modules.items())
        if m.startswith("pytest_probability.")
        and type(getattr(module, "__loader__", None)).__name__ == "AssertionRewritingHook"
    ),
}))
"""


def _unrelated_session(tmp_path: Path) -> dict[str, object]:
    """A one-test suite with no bench files, run in a child with only this plugin loaded
    (third-party extensions, such as the contrib examples, are not ours to count)."""
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            IMPORTED,
            "-q",
            "-p",
            "pytest_probability.plugin",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("path", PLUGIN_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_plugin_module_opts_out_of_assertion_rewriting(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring is not None and "PYTEST_DONT_REWRITE" in docstring


def test_the_package_is_taken_off_pytests_rewrite_list(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = AssertionRewritingHook(pytestconfig)
    hook.mark_rewrite("pytest_probability", "some_other_plugin")
    assert hook._is_marked_for_rewrite("pytest_probability.kernel", _state(pytestconfig))
    monkeypatch.setattr(sys, "meta_path", [hook, *sys.meta_path])
    assert rewriting.keep_plugin_out_of_rewriting() == 1
    assert not hook._is_marked_for_rewrite("pytest_probability.kernel", _state(pytestconfig))
    assert not hook._is_marked_for_rewrite("pytest_probability", _state(pytestconfig))
    assert hook._is_marked_for_rewrite("some_other_plugin.module", _state(pytestconfig))
    assert rewriting.keep_plugin_out_of_rewriting() == 0  # nothing left to take off


def test_without_pytests_hook_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sys, "meta_path", [f for f in sys.meta_path if not isinstance(f, AssertionRewritingHook)]
    )
    assert rewriting.keep_plugin_out_of_rewriting() == 0


def _state(config: pytest.Config) -> object:
    from _pytest.assertion import AssertionState
    from _pytest.assertion.rewrite import assertstate_key

    return config.stash.get(assertstate_key, None) or AssertionState(config, "rewrite")


@pytest.mark.subprocess
def test_an_unrelated_session_imports_no_heavy_machinery(tmp_path: Path) -> None:
    found = _unrelated_session(tmp_path)
    assert found["code"] == 0
    modules = set(found["modules"])  # type: ignore[arg-type]
    assert "pytest_probability.kernel" in modules  # the plugin did load
    assert sorted(modules.intersection(HEAVY)) == []


@pytest.mark.subprocess
def test_only_the_package_and_its_first_modules_are_rewritten(tmp_path: Path) -> None:
    """Modules imported before the package takes itself off the list (the package's own
    first imports) are rewritten; every later one loads through Python's own import."""
    found = _unrelated_session(tmp_path)
    assert set(found["rewritten"]) <= {  # type: ignore[arg-type]
        "pytest_probability.lazy",
        "pytest_probability.rewriting",
    }


def test_a_plain_import_of_the_plugin_loads_no_heavy_machinery() -> None:
    code = (
        "import sys, json; import pytest_probability.plugin; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pytest_probability'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(json.loads(done.stdout))
    assert "pytest_probability.plugin" in modules
    assert sorted(modules.intersection(HEAVY)) == []
