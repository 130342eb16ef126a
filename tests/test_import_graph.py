"""The import graph shows the design (issue 22, section 4): core, the services, the extensions.

Derived from the source with :mod:`ast` (every ``import``, at module level or inside a
function, except under ``if TYPE_CHECKING:``), so the rules hold for lazy imports too:

* an extension imports another extension only through its public surface: the package
  itself (its ``__init__``, which re-exports what others may use), its ``service`` module
  (the object other extensions look up) or its ``hookspecs``; never its internal modules;
* the kernel (``core/``) imports no extension, except the public façades: the two that
  re-export extension API for bench files (``pytest_probability`` and
  ``pytest_probability.texts``) and the command line (``python -m pytest_probability``);
* no module-level circular import anywhere (a cycle through a function-level import is a
  lazy load, not a cycle at import time).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "pytest_probability"
EXTENSIONS = f"{PACKAGE}.extensions"
PUBLIC_PARTS = {"service", "hookspecs"}
FACADES = {PACKAGE, f"{PACKAGE}.texts", f"{PACKAGE}.__main__"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    prefix = [PACKAGE] if parts[0] == "core" else [PACKAGE, "extensions"]
    parts = prefix + parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path
    for folder in ("core", "extensions")
    for path in sorted((ROOT / folder).rglob("*.py"))
}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(name: str, path: Path) -> Iterator[tuple[str, bool]]:
    """``(imported module, at module level)`` for every import of ours in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            inner = top and not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, inner
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                yield target, inner
                for alias in child.names:  # ``from package import module``
                    if f"{target}.{alias.name}" in MODULES:
                        yield f"{target}.{alias.name}", inner
            yield from walk(child, inner)

    for target, top in walk(tree, True):
        if target == PACKAGE or target.startswith(PACKAGE + "."):
            yield target, top


GRAPH = {name: sorted(set(imports(name, path))) for name, path in MODULES.items()}


def extension_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "extensions" else None


def public(module: str) -> bool:
    """The package of an extension, or its ``service`` or ``hookspecs`` module."""
    parts = module.split(".")
    return len(parts) == 3 or (len(parts) == 4 and parts[3] in PUBLIC_PARTS)


def test_the_graph_is_read_from_every_module() -> None:
    assert len(MODULES) > 150
    assert ("pytest_probability.kernel", True) in GRAPH["pytest_probability.plugin"]


def test_extensions_reach_each_other_only_through_their_public_surface() -> None:
    found = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        for target, _ in targets
        if extension_of(name) is not None
        and extension_of(target) not in (None, extension_of(name))
        and not public(target)
    ]
    assert found == []


def test_the_kernel_imports_no_extension_except_through_its_facades() -> None:
    found = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        for target, _ in targets
        if extension_of(name) is None
        and name not in FACADES
        and (extension_of(target) is not None or target == EXTENSIONS)
    ]
    assert found == []


def test_no_module_level_cycles() -> None:
    graph = {
        name: {target for target, top in targets if top and target in MODULES}
        for name, targets in GRAPH.items()
    }
    cycles = _strongly_connected(graph)
    assert [sorted(cycle) for cycle in cycles if len(cycle) > 1] == []


def test_a_private_import_would_be_found() -> None:
    """The rule is not vacuous: an internal module of another extension is not public."""
    assert not public("pytest_probability.extensions.gates.registry")
    assert public("pytest_probability.extensions.gates")
    assert public("pytest_probability.extensions.stopping.service")
    assert _strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) == [{"a", "b"}, {"c"}]


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative; components in the order they complete."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[set[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                result.append(component)
    return result
