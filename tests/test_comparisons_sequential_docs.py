"""The seeded examples of sequential comparisons in the docs, replayed exactly (issue 25).

Each test takes the bench file from the page's ``python`` block as it is written, runs the
page's command, and finds every line of the page's console block in the output, in order
(``...`` stands for lines left out; only the duration of the last line is free); the full
run the page quotes gives the verdict and the exit status the page says.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from helpers import section

DOCS = Path(__file__).resolve().parent.parent / "docs"
DURATION = re.compile(r" in \d+\.\d+s$")


def blocks(page: str, heading: str) -> tuple[str, list[str]]:
    """The first ``python`` block after ``heading`` in ``docs/page`` (its text) and the first
    ``console`` block after that (its lines), both without their indent."""
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    found: dict[str, list[str]] = {}
    lines = text[start:].splitlines()
    for index, line in enumerate(lines):
        kind = line.removeprefix(".. code-block:: ").strip() if line.startswith(".. code") else ""
        if kind in ("python", "console") and kind not in found:
            body: list[str] = []
            for following in lines[index + 1 :]:
                if following.startswith("   :"):
                    continue
                if following and not following.startswith("   "):
                    break
                body.append(following[3:])
            while body and not body[0]:
                body.pop(0)
            while body and not body[-1]:
                body.pop()
            found[kind] = body
        if len(found) == 2:
            break
    return "\n".join(found["python"]) + "\n", found["console"]


def commands(console: list[str]) -> list[tuple[dict[str, str], list[str]]]:
    """``(environment, pytest arguments)`` of each ``$`` line."""
    found = []
    for line in console:
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            env = dict(word.split("=", 1) for word in words[: words.index("pytest")])
            found.append((env, words[words.index("pytest") + 1 :]))
    return found


def assert_shown_in_order(outlines: list[str], console: list[str], after: str) -> None:
    """Every line of the console block after the ``$`` line ``after`` (up to the next ``$``)
    is a line of the output, in order; ``...`` skips any lines."""
    shown = console[console.index(after) + 1 :]
    shown = shown[: next((i for i, line in enumerate(shown) if line.startswith("$ ")), None)]
    position = 0
    for line in shown:
        if line == "...":
            continue
        if DURATION.search(line):
            wanted = DURATION.sub("", line)
            matches = [i for i in range(position, len(outlines)) if DURATION.search(outlines[i])]
            assert matches and DURATION.sub("", outlines[matches[-1]]) == wanted, line
            position = matches[-1] + 1
            continue
        assert line in outlines[position:], f"not shown in order: {line!r}"
        position = outlines.index(line, position) + 1


def test_the_comparisons_page_example(pytester: pytest.Pytester) -> None:
    """docs/comparisons.rst, "Stopping a comparison early": 20 tickets, a 30-point better
    prompt, stopped after 4 of 20 rounds with PASS."""
    code, console = blocks("comparisons.rst", "Stopping a comparison early")
    pytester.makepyfile(bench_triage=code)
    ((env, args),) = commands(console)[:1]
    assert env == {}
    result = pytester.runpytest(*args)
    assert result.ret == 0
    assert_shown_in_order(result.outlines, console, f"$ pytest {shlex.join(args)}")


def test_the_baseline_page_example(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/baseline.rst, "Under sequential stopping": a broken prompt against last night's
    report, stopped after 4 of 20 rounds with FAIL; running every run gives the same
    verdict and exit status, with the numbers the page quotes."""
    code, console = blocks("baseline.rst", "Under sequential stopping")
    pytester.makepyfile(bench_triage=code)
    (base_env, base_args), (env, args) = commands(console)
    assert base_env == {} and env == {"PROMPT": "v2"}
    pytester.runpytest(*base_args)
    monkeypatch.setenv("PROMPT", "v2")
    stopped = pytester.runpytest(*args)
    assert stopped.ret == 1
    assert_shown_in_order(stopped.outlines, console, f"$ PROMPT=v2 pytest {shlex.join(args)}")
    full = pytester.runpytest(*[arg for arg in args if arg != "--prob-stop=sequential"])
    assert full.ret == 1
    line = section(full.outlines, "probability: baseline")[0]  # (-q: then the summary)
    assert line == "  triage  now − baseline  −44 pp [−52, −36]  p<0.001  12 paired  ≥−5 pp  FAIL"
