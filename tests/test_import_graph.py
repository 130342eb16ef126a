"""The import graph shows the design (issue 34): the kernel, the public API, the extensions.

Derived from the source with :mod:`ast` (every ``import``, at module level or inside a
function, except under ``if TYPE_CHECKING:``), and from the public API's table of names
(``pytest_probability.api`` imports each on first read, so each entry is an edge):

* an extension (``extensions/``) and a ``contrib/`` package import of ours only the public
  API (``pytest_probability.api``) and their own package: nothing of the kernel, nothing of
  another extension (they meet through hooks);
* the kernel (``core/``) imports no extension, except its façades: the public API, the
  package itself (bench helpers), ``pytest_probability.texts`` and the command line;
* no circular import anywhere, through function-level imports too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "pytest_probability"
EXTENSIONS = f"{PACKAGE}.extensions"
API = f"{PACKAGE}.api"
FACADES = {PACKAGE, API, f"{PACKAGE}.texts", f"{PACKAGE}.__main__"}


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT)
    parts = list(relative.with_suffix("").parts)
    if parts[0] == "contrib":  # contrib/DIST/src/PACKAGE/...
        parts = parts[3:]
    else:
        prefix = [PACKAGE] if parts[0] == "core" else [PACKAGE, "extensions"]
        parts = prefix + parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path
    for folder in ("core", "extensions")
    for path in sorted((ROOT / folder).rglob("*.py"))
}
CONTRIB = {
    module_name(path): path
    for path in sorted(ROOT.glob("contrib/*/src/*/**/*.py"))
    if "egg-info" not in str(path)
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
                submodules = [f"{target}.{a.name}" for a in child.names]
                modules = [m for m in submodules if m in MODULES or m in CONTRIB]
                # ``from package import module`` needs the module, not the package's names
                if len(modules) < len(submodules):
                    yield target, inner
                for module in modules:
                    yield module, inner
            yield from walk(child, inner)

    for target, top in walk(tree, True):
        if (
            target == PACKAGE
            or target.startswith(PACKAGE + ".")
            or (target.split(".")[0] == name.split(".")[0] and name in CONTRIB)
        ):
            yield target, top


def api_edges() -> set[str]:
    """The modules the public API's table names (read from its source)."""
    tree = ast.parse((ROOT / "core" / "api.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and node.elts and isinstance(node.elts[0], ast.Constant):
            first = node.elts[0].value
            if isinstance(first, str) and first.startswith(".") and first != ".api":
                found.add(PACKAGE + (first if first != "." else ""))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_names":
            found.add(PACKAGE + node.args[0].value)  # type: ignore[attr-defined]
    return found


GRAPH = {name: sorted(set(imports(name, path))) for name, path in MODULES.items()}
GRAPH[API] = sorted(set(GRAPH[API]) | {(target, False) for target in api_edges()})
CONTRIB_GRAPH = {name: sorted(set(imports(name, path))) for name, path in CONTRIB.items()}


def extension_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "extensions" else None


def allowed_for_extension(name: str, target: str) -> bool:
    """The public API, or the extension's own package."""
    return target == API or extension_of(target) == extension_of(name) is not None


def test_the_graph_is_read_from_every_module() -> None:
    assert len(MODULES) > 150
    assert ("pytest_probability.kernel", False) in GRAPH["pytest_probability.plugin"] or (
        "pytest_probability.kernel",
        True,
    ) in GRAPH["pytest_probability.plugin"]
    assert f"{EXTENSIONS}.metrics.registry" in {target for target, _ in GRAPH[API]}
    assert len(CONTRIB) >= 10


def violations() -> set[tuple[str, str]]:
    """``(module, imported module)`` pairs breaking the extension rule, without the package
    prefix ``pytest_probability.``."""
    return {
        (name.removeprefix(f"{PACKAGE}."), target.removeprefix(f"{PACKAGE}."))
        for name, targets in GRAPH.items()
        for target, _ in targets
        if extension_of(name) is not None and not allowed_for_extension(name, target)
    }


def test_extensions_import_only_the_public_api_and_their_own_package() -> None:
    assert sorted(violations()) == [], "imports past the public API"


def test_contrib_packages_import_only_the_public_api() -> None:
    found = [
        f"{name} imports {target}"
        for name, targets in CONTRIB_GRAPH.items()
        for target, _ in targets
        if (target == PACKAGE or target.startswith(PACKAGE + ".")) and target != API
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


def cycles() -> list[list[str]]:
    graph = {
        name: {target for target, _ in targets if target in MODULES or target in CONTRIB}
        for name, targets in {**GRAPH, **CONTRIB_GRAPH}.items()
    }
    return sorted(sorted(cycle) for cycle in _strongly_connected(graph) if len(cycle) > 1)


def test_no_circular_imports_even_through_function_level_imports() -> None:
    assert cycles() == []


def test_a_private_import_would_be_found() -> None:
    """The rules are not vacuous."""
    gates = f"{EXTENSIONS}.gates.plugin"
    assert not allowed_for_extension(gates, f"{EXTENSIONS}.intervals.service")
    assert not allowed_for_extension(gates, f"{PACKAGE}.kernel")
    assert allowed_for_extension(gates, f"{EXTENSIONS}.gates.rate")
    assert allowed_for_extension(gates, API)
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
