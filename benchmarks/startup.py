"""What installing the plugin costs a pytest run that does not use it.

    python benchmarks/startup.py [--rounds 7]

Runs a one-test suite with no bench files (``test_a.py``) in a fresh directory, with the
plugin (``pytest``), with the plugin but none of the installed third-party extensions (the
``contrib/`` packages, each blocked with ``-p no:probability.NAME``, which keeps it from
even being imported), and without the plugin (``pytest -p no:probability``), in both
bytecode modes:
cached (``__pycache__`` written by an unmeasured warm-up run) and
``PYTHONDONTWRITEBYTECODE=1`` with the plugin's own ``__pycache__`` set aside, so every
start compiles its modules (and, for modules pytest rewrites, re-rewrites them), as on a
fresh checkout or CI image; pytest's own modules keep their bytecode in both modes. Each
session is a child process; its CPU time (user + system, from ``os.wait4``) is read, the
two variants alternate round by round, and the best of the rounds of each is kept, so a
machine that other work shares moves both alike. Prints the best CPU time of each variant,
the difference (what the plugin adds) and how many ``pytest_probability`` modules the
plugin's session imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
IMPORTS = (
    "import sys, pytest; pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:randomly']);"
    "print(sorted(m for m in sys.modules if m.startswith('pytest_probability')))"
)


def cpu_seconds(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The child's user + system CPU time."""
    process = subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd}")
    return usage.ru_utime + usage.ru_stime


def modules_imported(cwd: Path, env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTS], cwd=cwd, env=env, capture_output=True, text=True
    )
    last = done.stdout.strip().splitlines()[-1]
    return list(eval(last))  # a list literal printed by the child


def third_party_blocks() -> list[str]:
    """``-p no:probability.NAME`` for every installed third-party extension."""
    from importlib.metadata import entry_points

    names = sorted({ep.name for ep in entry_points(group="pytest_probability.extensions")})
    return [arg for name in names for arg in ("-p", f"no:probability.{name}")]


def plugin_bytecode() -> list[Path]:
    """The plugin's cached bytecode files (``__pycache__`` beside its modules, wherever it
    is installed)."""
    import pytest_probability
    import pytest_probability.extensions

    found = {  # (installed, the extensions are inside the package: each file once)
        cached.resolve(): None
        for package in (pytest_probability, pytest_probability.extensions)
        for cached in Path(package.__file__).parent.rglob("__pycache__/*.pyc")
    }
    return list(found)


@contextlib.contextmanager
def bytecode_restored(holder: Path) -> Iterator[None]:
    """Set the plugin's cached bytecode aside in ``holder`` for the block, and afterwards
    (also after an error or Ctrl-C) delete what the block wrote and put every file back:
    the benchmark leaves the installation as it found it."""
    moved: list[tuple[Path, Path]] = []
    try:
        for cached in plugin_bytecode():
            kept = holder / f"{len(moved)}.pyc"
            shutil.move(cached, kept)
            moved.append((cached, kept))
        yield
    finally:
        for written in plugin_bytecode():
            written.unlink(missing_ok=True)
        for cached, kept in moved:
            shutil.move(kept, cached)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        suite.mkdir()
        (suite / "test_a.py").write_text("def test_a():\n    pass\n")
        with bytecode_restored(Path(tmp)):
            for mode in ("cached", "PYTHONDONTWRITEBYTECODE=1"):
                env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                if mode != "cached":
                    env["PYTHONDONTWRITEBYTECODE"] = "1"
                    for written in plugin_bytecode():  # (the cached mode's warm-up wrote it)
                        written.unlink()
                measure(mode, suite, env, rounds)
        names = modules_imported(suite, {k: v for k, v in os.environ.items()})
        print(f"pytest_probability modules imported by an unrelated session: {len(names)}")


def measure(mode: str, suite: Path, env: dict[str, str], rounds: int) -> None:
    """Print one line: the best CPU time of each variant over ``rounds`` starts."""
    variants = {
        "plugin": PYTEST,
        "alone": [*PYTEST, *third_party_blocks()],
        "no plugin": [*PYTEST, "-p", "no:probability"],
    }
    for args in variants.values():  # warm-up: writes __pycache__ in the cached mode
        cpu_seconds(args, suite, env)
    best = {name: float("inf") for name in variants}
    for _ in range(rounds):
        for name, args in variants.items():
            best[name] = min(best[name], cpu_seconds(args, suite, env))
    added = best["plugin"] - best["no plugin"]
    alone = best["alone"] - best["no plugin"]
    print(
        f"{mode:26}  plugin {best['plugin'] * 1000:6.0f} ms  "
        f"no plugin {best['no plugin'] * 1000:6.0f} ms  "
        f"added {alone * 1000:+5.0f} ms CPU alone, {added * 1000:+5.0f} ms with the "
        f"installed extensions ({len(third_party_blocks()) // 2})  (best of {rounds})"
    )


if __name__ == "__main__":
    main()
