"""Rules for the test suite itself.

No test compares a measured duration with a constant: on a busy 2-core machine such bounds
fail (three did: a render time, a scheduler's balance under real timing, a sleep window).
Speed is measured in ``benchmarks/``; tests count work instead (calls, lines, items, bytes;
:func:`helpers.count_work`), or use a recorded clock (``recorded_clock``).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: functions of the ``time`` module that read a clock
CLOCKS = {
    "time",
    "time_ns",
    "monotonic",
    "monotonic_ns",
    "perf_counter",
    "perf_counter_ns",
    "process_time",
    "process_time_ns",
    "thread_time",
    "thread_time_ns",
}
#: report fields that hold a measured duration
DURATION_KEYS = {"elapsed", "duration", "seconds", "latency"}
ORDERED = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _clock_names(tree: ast.AST) -> set[str]:
    """Names bound to clock functions by ``from time import perf_counter [as clock]``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "time":
            names.update(a.asname or a.name for a in node.names if a.name in CLOCKS)
    return names


class _Finder(ast.NodeVisitor):
    """Ordered comparisons between a measured time and anything but zero."""

    def __init__(self, clock_names: set[str]) -> None:
        self.clock_names = clock_names
        self.tainted: set[str] = set()
        self.found: list[int] = []

    def measured(self, node: ast.AST) -> bool:
        return any(self._reads_time(sub) for sub in ast.walk(node))

    def _reads_time(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                return func.id in self.clock_names
            return (
                isinstance(func, ast.Attribute)
                and func.attr in CLOCKS
                and isinstance(func.value, ast.Name)
                and func.value.id == "time"
            )
        if isinstance(node, ast.Name):
            return node.id in self.tainted
        return (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value in DURATION_KEYS
        )

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer = self.tainted
        self.tainted = set(outer)
        self.generic_visit(node)
        self.tainted = outer

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _assign(self, targets: list[ast.expr], value: ast.AST | None) -> None:
        if value is not None and self.measured(value):
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        self.tainted.add(sub.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assign(node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._assign([node.target], node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._assign([node.target], node.value)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if not isinstance(op, ORDERED):
                continue
            pair = (left, right)
            if any(self.measured(side) for side in pair) and not any(
                isinstance(side, ast.Constant) and side.value == 0 for side in pair
            ):
                self.found.append(node.lineno)
        self.generic_visit(node)


def timed_comparisons(source: str) -> list[int]:
    """Line numbers of ordered comparisons of a measured time (a clock reading, a name
    computed from one, or a report's ``elapsed``-like field) with anything but zero."""
    tree = ast.parse(source)
    finder = _Finder(_clock_names(tree))
    finder.visit(tree)
    found = set(finder.found)
    # bench files and conftests written by tests live in strings: check those too
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
            try:
                inner = timed_comparisons(textwrap.dedent(node.value))
            except (SyntaxError, ValueError):
                continue
            found.update(node.lineno + line - 1 for line in inner)
    return sorted(found)


def _test_sources() -> list[Path]:
    files = sorted((ROOT / "tests").rglob("*.py"))
    files += sorted(ROOT.glob("contrib/*/tests/**/*.py"))
    return [f for f in files if f.name != Path(__file__).name]


@pytest.mark.parametrize("path", _test_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_compares_a_measured_duration_with_a_constant(path: Path) -> None:
    found = timed_comparisons(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(ROOT)} lines {found}: a measured duration compared with a bound "
        "fails on a busy machine; count the work (helpers.count_work) or use recorded_clock"
    )


@pytest.mark.parametrize(
    "source",
    [
        "import time\nstart = time.perf_counter()\nf()\nassert time.perf_counter() - start < 0.5",
        "import time\nt0 = time.monotonic()\nelapsed = time.monotonic() - t0\nassert elapsed < 2",
        "from time import perf_counter as clock\nassert clock() - s >= 1.0",
        "import time\ndef f():\n    took = [time.time() - 1]\n    assert min(took) < 2.0",
        "r = load()\nassert 0.05 <= r['records'][0]['elapsed'] < 0.25",
        "import time\ndeadline = time.monotonic() + 30\nwhile time.monotonic() < deadline: pass",
        'BENCH = """\nimport time\n\ndef bench_t():\n    s = time.time()\n    assert s > 1\n"""',
    ],
)
def test_the_rule_finds_timed_assertions(source: str) -> None:
    assert timed_comparisons(source)


@pytest.mark.parametrize(
    "source",
    [
        "r = load()\nassert r['elapsed'] >= 0",
        "assert work.lines <= 4.4 * small.lines",
        "import time\nwhen = time.time() + 5\nformat(when)",
        "assert r['elapsed'] == pytest.approx(0.05)",
        "import time\ndef f():\n    t = time.time()\ndef g(t):\n    assert t < 3",
    ],
)
def test_the_rule_leaves_other_comparisons_alone(source: str) -> None:
    assert not timed_comparisons(source)
