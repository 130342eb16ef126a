"""What a new user reaches for first, made to work or explained: a test function with its
own ``probability(...)`` mark is collected as a bench function (:func:`marked_test`), and a
session given ``--prob-*`` options without any bench run ends with one line saying what the
options apply to, naming the ``bench_*`` functions it found in files collected as tests
(:func:`no_bench_line`).

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Sequence
from typing import Any

import pytest

from ..formatting.terminal_text import ProbabilityWarning

#: The prefix of bench functions (``cases.BENCH_PREFIX``, not imported: a session without
#: bench files imports none of the collection's modules)
BENCH_PREFIX = "bench_"


def has_probability_mark(obj: Any) -> bool:
    """Whether the function ``obj`` carries its own ``probability(...)`` mark."""
    return any(
        getattr(mark, "name", None) == "probability" for mark in getattr(obj, "pytestmark", ())
    )


def marked_test(collector: pytest.Collector, name: str, obj: Any) -> bool:
    """Whether ``name`` is a test function of a module that carries its own
    ``probability(...)`` mark, to be collected as a bench function. A marked test method of
    a class stays a plain test, with one warning saying so (bench functions are module
    functions)."""
    if not inspect.isfunction(obj) or name.startswith(BENCH_PREFIX):
        return False
    if not has_probability_mark(obj) or not collector.funcnamefilter(name):  # type: ignore[attr-defined]
        return False
    if isinstance(collector, pytest.Module):
        return True
    workerinput = getattr(collector.config, "workerinput", None)
    if workerinput is not None and workerinput.get("workerid") != "gw0":
        return False  # (every worker collects the class: the first one speaks for them)
    code = obj.__code__
    warnings.warn_explicit(
        ProbabilityWarning(
            f"{collector.nodeid}::{name}: the probability mark is ignored on a method: a bench "
            "function is a module-level function (move it out of the class to run its cases "
            "N times)"
        ),
        ProbabilityWarning,
        code.co_filename,
        code.co_firstlineno,
    )
    return False


def bench_to_collect(
    collector: pytest.Collector, name: str, obj: Any, patterns: Sequence[str], strays: list[str]
) -> bool:
    """Whether pytest's collection of ``name`` is the kernel's to make a bench function of:
    a marked test function of a module (:func:`marked_test`), or a marked ``bench_*``
    function of a file collected as tests; an unmarked one of those is noted in ``strays``
    (a bench file, matching ``patterns``, collects its bench functions itself)."""
    stray = stray_bench(collector, name, obj)
    if stray is None:
        return marked_test(collector, name, obj)
    if any(collector.path.match(pattern) for pattern in patterns):
        return False
    if has_probability_mark(obj):
        return True
    strays.append(stray)
    return False


def stray_bench(collector: pytest.Collector, name: str, obj: Any) -> str | None:
    """``bench_answer in tests/test_qa.py`` for a ``bench_*`` function of a module that
    pytest collects as tests (not a bench file: its functions are not run), else ``None``."""
    if (
        name.startswith(BENCH_PREFIX)
        and inspect.isfunction(obj)
        and isinstance(collector, pytest.Module)
        and obj.__module__ == collector.obj.__name__
    ):
        return f"{name} in {collector.nodeid}"
    return None


def print_no_bench_line(terminalreporter: Any, strays: Sequence[str]) -> None:
    """Print :func:`no_bench_line`, when there is one."""
    line = no_bench_line(terminalreporter.config, strays)
    if line is not None:
        terminalreporter.write_line(line, yellow=True)


def no_bench_line(config: pytest.Config, strays: Sequence[str]) -> str | None:
    """The line for a session that ran no bench run although ``--prob-*`` options were
    given (``None`` when none was): what they apply to, how to make a bench, and the
    ``bench_*`` functions found in test files (the first three)."""
    given = [str(arg).split("=", 1)[0] for arg in config.invocation_params.args]
    options = list(dict.fromkeys(arg for arg in given if arg.startswith("--prob-")))
    if not options:
        return None
    patterns = " ".join(config.getini("prob_pattern") or ["bench_*.py"])
    shown = ", ".join(options[:3]) + (f" and {len(options) - 3} more" if len(options) > 3 else "")
    line = (
        f"probability: no bench run in this session, so {shown} did nothing: the options apply "
        f"to bench_* functions in files matching {patterns} (ini prob_pattern) and to test "
        "functions marked @pytest.mark.probability(...)"
    )
    if strays:
        more = f" and {len(strays) - 3} more" if len(strays) > 3 else ""
        line += (
            f"; found {', '.join(strays[:3])}{more}, in a file collected as tests: move it to "
            "a bench file, or mark it"
        )
    return line
