"""The demo suite's documentation replays: every ``$ pytest …`` console block in
examples/README.md and the README's demo block print what the demo prints today."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the only things allowed to differ from one machine to the next
TIMING = re.compile(r" in \d+\.\d+s( \(\d+:\d\d:\d\d\))?$")


def console_blocks(markdown: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of each ```` ```console ```` block that starts with a
    ``$ pytest`` command."""
    blocks = []
    for body in re.findall(r"```console\n(.*?)```", markdown, flags=re.DOTALL):
        lines = body.rstrip("\n").split("\n")
        if lines and lines[0].startswith("$ pytest "):
            blocks.append((lines[0][2:], lines[1:]))
    return blocks


def _normal(lines: list[str]) -> list[str]:
    out = [TIMING.sub(" in <time>", line.rstrip()) for line in lines]
    # pytest's own differences between versions: a failure's title line (pytest < 8 joins a
    # nested node with a dot, bench_classify.phone_number, and the underscores fill the width
    # around it), and the blank "E" line pytest >= 8 puts before an assertion's diff
    out = [re.sub(r"^_+ (bench_\w+)(?:\.|::)(\S+) _+$", r"_ \1::\2 _", line) for line in out]
    return [line for line in out if line != "E"]


def _replay(command: str) -> list[str]:
    args = shlex.split(command)
    assert args[0] == "pytest"
    # pytest prints the short summary's messages whole on CI (CI or BUILD_NUMBER set) and cuts
    # them to the width elsewhere: the README shows what a user's terminal prints
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k not in ("CI", "BUILD_NUMBER")
    }
    env["PYTEST_ADDOPTS"] = "-p no:cacheprovider -p no:randomly"
    env["COLUMNS"] = "80"
    done = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.stdout.rstrip("\n").split("\n")


EXAMPLES = console_blocks((ROOT / "examples" / "README.md").read_text(encoding="utf-8"))
README = console_blocks((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readmes_have_demo_blocks() -> None:
    assert len(EXAMPLES) == 3
    assert [command for command, _ in README][:1] == [
        "pytest examples/ --prob-runs=10 -q --tb=no -rN"
    ]


@pytest.mark.subprocess
@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_examples_readme_replays(command: str, expected: list[str]) -> None:
    assert _normal(_replay(command)) == _normal(expected)


@pytest.mark.subprocess
def test_readme_demo_block_is_the_demo_table() -> None:
    command, expected = README[0]
    printed = _normal(_replay(command))
    # the README shows the table and what follows it ("..." stands for the progress lines)
    assert expected[0] == "..."
    start = printed.index(
        "================================= probability =================================="
    )
    assert printed[start : start + len(expected) - 1] == _normal(expected[1:])
