"""What a new user meets on the first day (issue 39): misuse errors that name the function
and show the user's line, not the plugin's frames."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

PLAIN = ("-p", "no:randomly", "-p", "no:asyncio", "-p", "no:cacheprovider")

MISUSE = """
from pytest_probability import current_run, record_cost, record_latency, record_usage

def test_current_run():
    current_run()

def test_record_usage():
    record_usage(model="m", input_tokens=1)

def test_record_cost():
    record_cost(1.0)

def test_record_latency():
    record_latency(1.0)
"""


@pytest.mark.parametrize("style", ["auto", "long"])
def test_a_helper_called_outside_a_bench_is_one_line_naming_it(
    pytester: pytest.Pytester, style: str
) -> None:
    pytester.makepyfile(test_misuse=MISUSE)
    result = pytester.runpytest(*PLAIN, f"--tb={style}")
    result.assert_outcomes(failed=4)
    errors = [line for line in result.outlines if line.startswith("E  ")]
    rest = "can only be called from inside a bench_* function while it runs (there is no "
    assert errors == [
        f"E       RuntimeError: {name}() {rest}bench run to attribute it to)"
        for name in ("current_run", "record_usage", "record_cost", "record_latency")
    ]
    shown = "\n".join(result.outlines)
    for internal in ("execution/context.py", "cost/recording.py", "latency/__init__.py"):
        assert internal not in shown
    # each failure shows the user's own line and nothing between it and the error
    for call in ("current_run()", 'record_usage(model="m", input_tokens=1)'):
        at = result.outlines.index(f">       {call}")
        assert result.outlines[at + 1].startswith("E       RuntimeError: ")


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        ('runs="3"', "runs='3': expected a number, not text: write 3 without quotes"),
        ('min_rate="0.5"', "min_rate='0.5': expected a number, not text: write 0.5 without quotes"),
        ("threads=1", "threads=1: expected True or False, got 1"),
        ('threads="yes"', "threads='yes': expected True or False, got 'yes'"),
        (
            'margin="0.1", baseline="a"',
            "margin='0.1': expected a number, not text: write 0.1 without quotes",
        ),
        ("equivalence=1, margin=0.1, baseline='a'", "equivalence=1: expected True or False, got 1"),
    ],
)
def test_a_mark_argument_of_the_wrong_type_is_a_collection_error(
    pytester: pytest.Pytester, mark: str, message: str
) -> None:
    pytester.makepyfile(
        bench_m=f"""
        import pytest

        @pytest.mark.probability({mark})
        @pytest.mark.parametrize("arm", ["a", "b"])
        def bench_a(arm):
            pass
        """
    )
    result = pytester.runpytest(*PLAIN)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    errors = [line for line in result.outlines if "probability mark argument" in line]
    assert errors == [f"bench_m.py::bench_a::a: probability mark argument {message}"]


def test_every_declared_dependency_is_imported() -> None:
    """The default install holds only what the plugin imports (issue 39 §6: the
    ``importlib-metadata`` backport was declared and never imported)."""
    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower().replace("-", "_")
        for requirement in project["dependencies"]
    }
    imported: set[str] = set()
    for package in ("core", "extensions"):
        for module in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.split(".")[0])
    assert declared == {"pytest", "pluggy", "tomli_w"}
    assert declared <= imported


def test_the_startup_benchmark_puts_the_bytecode_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``benchmarks/startup.py`` sets the plugin's ``__pycache__`` aside to measure cold
    starts; afterwards every file is back as it was and nothing it wrote is left."""
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("startup", root / "benchmarks" / "startup.py")
    assert spec is not None and spec.loader is not None
    startup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(startup)
    cache = tmp_path / "package" / "__pycache__"
    cache.mkdir(parents=True)
    kept = {cache / f"m{i}.cpython-311.pyc": f"bytes {i}".encode() for i in range(3)}
    for path, content in kept.items():
        path.write_bytes(content)
    monkeypatch.setattr(startup, "plugin_bytecode", lambda: sorted(cache.glob("*.pyc")))
    holder = tmp_path / "holder"
    holder.mkdir()
    with pytest.raises(KeyboardInterrupt), startup.bytecode_restored(holder):
        assert list(cache.glob("*.pyc")) == []  # set aside: every start compiles
        (cache / "new.cpython-311.pyc").write_bytes(b"written by a warm-up")
        raise KeyboardInterrupt
    assert {path: path.read_bytes() for path in cache.glob("*.pyc")} == kept
    assert list(holder.iterdir()) == []
