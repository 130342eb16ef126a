"""``pytest --help`` with the plugin: every flag and ini key takes one line of help at 80
columns (the details are in docs/options.rst), so the plugin adds to the help about one line
per entry rather than several.

The help is read as pytest prints it: a flag is ``  --prob-x=METAVAR`` padded to column 24,
then its help wrapped to 56 characters, on the flag's line unless the flag is longer than 20
characters (argparse then starts the help on the next line); an ini key is ``  name
(type):``, its help after it unless that is longer than 21 characters.
"""

from __future__ import annotations

import re

import pytest
from pytest_probability import loader
from pytest_probability.options import OptionRegistry, declare_kernel_settings

pytestmark = pytest.mark.subprocess

#: the ini keys of the plugin, of its bundled extensions and of the contrib ones
#: (``prob_slowest``, ``prob_price_table``, ``texts_callable``, ``example_*``)
OURS = ("prob_", "texts_", "example_")
#: the help column (argparse's ``max_help_position``, which pytest's ini listing follows)
COLUMN = 24
INI_ENTRY = re.compile(r"  (\S+) \([^)]*\):")


def _help(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> list[str]:
    """The lines of ``pytest --help`` at 80 columns, in a subprocess (as a user sees it,
    with every installed extension)."""
    monkeypatch.setenv("COLUMNS", "80")
    result = pytester.runpytest_subprocess("--help", *args)
    assert result.ret == pytest.ExitCode.OK
    lines = result.outlines
    options = lines[: _ini_header(lines)]
    # the width is 80: pytest's own option help fills the lines up to it, not beyond
    assert max(len(line) for line in options) == 80
    return lines


def _ini_header(lines: list[str]) -> int:
    """The index of the line that starts the ini keys' listing."""
    return next(i for i, line in enumerate(lines) if line.startswith("[pytest] "))


def _entries(lines: list[str], start: re.Pattern[str]) -> dict[str, tuple[str, list[str]]]:
    """Each entry of a listing: its name -> (what ``start`` matched, the lines of its
    help). An entry starts with a line matching ``start``; its help is the rest of that
    line, if any, and every line after it up to the next entry."""
    entries: dict[str, tuple[str, list[str]]] = {}
    help_lines: list[str] = []
    for line in lines:
        match = start.match(line)
        if match:
            rest = line[match.end() :].strip()
            help_lines = [rest] if rest else []
            entries[match.group(1)] = (match.group(0).strip(), help_lines)
        elif entries:
            help_lines.append(line.strip())
    return entries


def _options(lines: list[str]) -> dict[str, tuple[str, list[str]]]:
    """The flags of the ``pytest-probability`` group (theirs and the installed extensions')."""
    first = lines.index("pytest-probability:") + 1
    last = lines.index("", first)
    return _entries(lines[first:last], re.compile(r"  (-\S+)"))


def _ini_keys(lines: list[str]) -> dict[str, tuple[str, list[str]]]:
    """The ini keys of the plugin and its extensions."""
    first = _ini_header(lines) + 1
    last = next(i for i in range(first, len(lines)) if lines[i].lower() == "environment variables:")
    while not lines[last - 1]:  # (the blank line before the environment variables)
        last -= 1
    every = _entries(lines[first:last], INI_ENTRY)
    return {name: entry for name, entry in every.items() if name.startswith(OURS)}


def _declared() -> tuple[set[str], set[str]]:
    """The flags and ini keys of the kernel and the bundled extensions."""
    kernel = OptionRegistry()
    declare_kernel_settings(kernel)
    specs = [(spec.cli, spec.ini) for spec in kernel.specs.values()]
    specs += [(o["cli"], o["ini"]) for entry in loader.catalog() for o in entry["options"]]
    return {cli for cli, _ in specs if cli}, {ini for _, ini in specs if ini}


def test_every_option_takes_one_help_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = _options(_help(pytester, monkeypatch))
    flags, _ = _declared()
    assert flags <= {name.split("=")[0] for name in options}, "the listing is not read whole"
    longer = {name: help_lines for name, help_lines in options.values() if len(help_lines) != 1}
    assert not longer, f"flags whose help is not one line at 80 columns: {longer}"


def test_every_ini_key_takes_one_help_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = _ini_keys(_help(pytester, monkeypatch))
    _, inis = _declared()
    assert inis <= set(keys), "the listing is not read whole"
    longer = {name: help_lines for name, help_lines in keys.values() if len(help_lines) != 1}
    assert not longer, f"ini keys whose help is not one line at 80 columns: {longer}"


def test_the_plugin_adds_about_one_line_per_entry(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-p no:probability`` leaves out the plugin and every extension with it. The plugin
    adds the group's title, the blank line closing the group, and for each flag and ini key
    its name and one line of help: one line in all, or two when the name is too long to
    leave room for the help beside it. With the contrib extensions installed that is 48
    flags (17 of them long) and 57 ini keys (44 long): 2 + 65 + 101 = 168 lines (281 when
    help texts wrapped over up to six lines and every ini key repeated its flag's help);
    with the bundled extensions only, 149 (251 then)."""
    with_plugin = _help(pytester, monkeypatch)
    without = _help(pytester, monkeypatch, "-p", "no:probability")
    options, keys = _options(with_plugin), _ini_keys(with_plugin)
    assert not _ini_keys(without)
    bound = (  # (a flag of up to 20 characters, an ini key's ``name (type):`` up to 21)
        2
        + sum(1 if len(name) <= COLUMN - 4 else 2 for name, _ in options.values())
        + sum(1 if len(name) <= COLUMN - 3 else 2 for name, _ in keys.values())
    )
    assert len(with_plugin) - len(without) <= bound
