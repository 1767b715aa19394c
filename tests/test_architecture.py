"""The package's architecture: no module of irrepro is longer than 500 lines, and its modules import
one another without a circle - counting every ``import`` / ``from ... import`` at any level (module
top, ``if TYPE_CHECKING:``, inside a function), each mapped to the irrepro module it names."""

import ast
import graphlib
from pathlib import Path

import pytest

import irrepro

PACKAGE = Path(irrepro.__file__).parent
MAX_LINES = 500


def _module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _known(name: str, modules: set[str]) -> str | None:
    """The deepest irrepro module that ``name`` is or lies in (``irrepro.data.RunSet`` ->
    ``irrepro.data``); None outside irrepro."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str]) -> set[str]:
    if isinstance(node, ast.Import):
        named = [a.name for a in node.names]
    else:
        if node.level:  # relative: from the module's package, one level up per further dot
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        # `from pkg import sub` imports the submodule; `from mod import name` the module
        named = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
    return {m for m in (_known(n, modules) for n in named) if m}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the irrepro modules it imports anywhere in its source (itself left out)."""
    files = {_module_name(p, package): p for p in package.rglob("*.py")}
    modules = set(files)
    graph = {}
    for name, path in files.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= _imports(node, name, path.name == "__init__.py", modules)
        graph[name] = found - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm): each is a
    set of modules that import one another in a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # recursion depth <= number of modules (about 100)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    graph = import_graph()
    assert "irrepro.data._runs" in graph["irrepro.data"] and len(graph) > 50  # the graph is read at all
    found = [sorted(c) for c in circles(graph)]
    assert not found, f"modules importing one another in a circle: {found}"
    # and the package imports in dependency order (no cycle graphlib would refuse)
    order = list(graphlib.TopologicalSorter(graph).static_order())
    assert set(order) == set(graph)


@pytest.mark.parametrize(
    "source, expected",
    [
        ({"a.py": "from . import b\n", "b.py": "def f():\n    from .a import g\n"}, [{"pkg.a", "pkg.b"}]),
        (
            {
                "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import X\n",
                "b.py": "import pkg.a\n",
            },
            [{"pkg.a", "pkg.b"}],
        ),
        (
            {
                "__init__.py": "from .sub import f\n",
                "sub/__init__.py": "",
                "sub/m.py": "from .. import g\n",
                "a.py": "import os\n",
            },
            [],
        ),
        (
            {"__init__.py": "from .m import f\n", "m.py": "from . import a\n", "a.py": "from pkg import m\n"},
            [{"pkg.a", "pkg.m"}],
        ),
    ],
    ids=["function-local", "type-checking", "no-circle", "from-package-import-module"],
)
def test_circles_are_found_at_any_level(tmp_path, source, expected):
    """The check itself: a circle through a function-local or TYPE_CHECKING import is one."""
    pkg = tmp_path / "pkg"
    for name, text in source.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    (pkg / "__init__.py").touch()
    assert [set(c) for c in circles(import_graph(pkg))] == expected


def test_no_module_is_longer_than_500_lines():
    lengths = {
        str(p.relative_to(PACKAGE.parent)): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")
    }
    long = {m: n for m, n in lengths.items() if n > MAX_LINES}
    assert not long, f"modules longer than {MAX_LINES} lines: {long}"
