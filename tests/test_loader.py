"""Extension loading: bundled order, -p no:, third-party entry points, broken extensions."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from helpers import SPEC_BENCH, section, third_party_blocks
from pytest_probability import loader


def install_fake_extension(root: Path, name: str, module: str, source: str) -> None:
    """A distribution on sys.path (dist-info + module) registering into our entry-point group."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"fake_{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fake-{name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{loader.ENTRY_POINT_GROUP}]\n{name} = {module}\n")


GOOD_EXTENSION = """
from pytest_probability.parsers import parse_bool

def pytest_prob_addoption(options):
    options.add("hello", parse=parse_bool, default=False, cli="--prob-hello",
                flag_value=True, owner="hello")

def pytest_prob_build_report(report, results, config):
    options = config.pluginmanager.get_plugin("probability.kernel").options
    if options.session_value("hello"):
        report.add_section("hello", [f"  {len(results)} cases"], order=50)
        report.set_json("hello", {"cases": len(results)})

def pytest_prob_row_status(case, config):
    return None
"""


def test_bundled_extensions_register_in_order(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig(*third_party_blocks())
    assert (
        not [  # none at start-up: they register when the session needs them
            n for n, _ in config.pluginmanager.list_name_plugin() if n[12:] in dict(loader.BUNDLED)
        ]
    )
    loader.register_all(config.pluginmanager)
    names = [name for name, _ in loader.BUNDLED]
    registered = [
        n for n, _ in config.pluginmanager.list_name_plugin() if n.startswith("probability.")
    ]
    assert [n.removeprefix("probability.") for n in registered if n[12:] in names] == names
    assert config.pluginmanager.get_plugin("probability.kernel") is not None


def test_third_party_extension_loads_from_entry_point(pytester: pytest.Pytester) -> None:
    install_fake_extension(pytester.path, "hello", "hello_ext", GOOD_EXTENSION)
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    result = pytester.runpytest_subprocess("--prob-hello", "--prob-json=r.json")
    assert section(result.outlines, "probability: hello") == ["  5 cases"]
    # disabling a bundled extension whose hook it implements does not abort pytest
    result = pytester.runpytest_subprocess("--prob-hello", "-p", "no:probability.fractions")
    assert section(result.outlines, "probability: hello") == ["  5 cases"]
    # its own -p no: flag disables it (and so its option)
    result = pytester.runpytest_subprocess("-p", "no:probability.hello")
    assert "= probability: hello" not in result.stdout.str()


def test_autoload_disabled_skips_third_party(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_extension(pytester.path, "hello", "hello_ext", GOOD_EXTENSION)
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "pytest_probability.plugin", "--prob-hello")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert any("unrecognized arguments: --prob-hello" in line for line in result.errlines)
    result = pytester.runpytest_subprocess("-p", "pytest_probability.plugin")
    assert section(result.outlines)[-1] == "  Overall: 4/5 passed (80%)"


def test_broken_third_party_extension_is_a_clean_usage_error(pytester: pytest.Pytester) -> None:
    install_fake_extension(
        pytester.path, "broken", "broken_ext", "raise ImportError('needs numpy 9')\n"
    )
    pytester.makepyfile(bench_spec=SPEC_BENCH)
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    message = " ".join(result.errlines)
    assert (
        "pytest-probability extension 'broken' (entry point 'broken_ext' from fake-broken) "
        "failed to load: ImportError: needs numpy 9. Fix or uninstall it, or run pytest with "
        "-p no:probability.broken to disable it."
    ) in message
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result = pytester.runpytest_subprocess("-p", "no:probability.broken", "--prob-runs=2")
    assert section(result.outlines)[-1] == "  Overall: 7/10 passed (70%)"
    # without the kernel, third-party extensions never load
    result = pytester.runpytest_subprocess("-p", "no:probability")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_package_list_matches_the_folders() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[1]
    declared = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = set()
    for base, package in (
        ("core", "pytest_probability"),
        ("extensions", "pytest_probability.extensions"),
    ):
        for init in (root / base).rglob("__init__.py"):
            parts = init.parent.relative_to(root / base).parts
            found.add(".".join((package, *parts)))
    assert declared == found
    assert (root / "core" / "py.typed").exists()


def test_entry_points_are_those_the_standard_library_finds() -> None:
    """The loader's cheaper scan finds what ``entry_points(group=...)`` finds, in order, in
    the environment running the tests (the contrib extensions are installed in it)."""
    from importlib import metadata

    def described(found: Any) -> list[tuple[str, str, str]]:
        return [(ep.name, ep.value, ep.dist.name if ep.dist else "") for ep in found]

    assert described(loader.extension_entry_points()) == described(
        metadata.entry_points(group=loader.ENTRY_POINT_GROUP)
    )


def test_only_distributions_declaring_the_group_are_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Entry points are parsed only for distributions whose ``entry_points.txt`` names the
    group, and a distribution shadowed by one of the same name earlier on the path is
    skipped, as the standard library does."""
    from importlib import metadata

    parsed: list[str] = []

    class Fake(metadata.Distribution):
        def __init__(self, name: str, text: str | None) -> None:
            self._fake_name, self._text = name, text

        @property
        def _normalized_name(self) -> str:
            return self._fake_name

        def read_text(self, filename: str) -> str | None:
            return self._text if filename == "entry_points.txt" else None

        def locate_file(self, path: Any) -> Any:
            raise NotImplementedError

        @property
        def entry_points(self) -> metadata.EntryPoints:
            parsed.append(self._fake_name)
            return super().entry_points

    ours = "[pytest_probability.extensions]\nmine = mine.plugin\n"
    dists = [
        Fake("plain", "[console_scripts]\nx = x:main\n"),
        Fake("none", None),
        Fake("mine", ours + "[pytest11]\nother = mine.other\n"),
        Fake("mine", "[pytest_probability.extensions]\nold = old.plugin\n"),  # shadowed
    ]
    monkeypatch.setattr(metadata, "distributions", lambda: iter(dists))
    found = loader.extension_entry_points()
    assert [(ep.name, ep.value) for ep in found] == [("mine", "mine.plugin")]
    assert parsed == ["mine"]
