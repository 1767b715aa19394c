"""The package's architecture: its modules import one another without a circle, never upward
(:data:`LAYERS`) and never into another subpackage's internals (one module per idea, sized by the
idea) - counting every ``import`` / ``from ... import`` at any level (module top, ``if
TYPE_CHECKING:``, inside a function), each mapped to the irrepro module it names."""

import ast
import graphlib
from pathlib import Path

import pytest

import irrepro

PACKAGE = Path(irrepro.__file__).parent


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
    _write_package(pkg, {"__init__.py": "", **source})
    assert [set(c) for c in circles(import_graph(pkg))] == expected


#: The package's layers, lowest first, by top-level module: a module imports its own layer and those
#: below, never one above (the package's root holds ``__version__`` and imports only ``errors``).
LAYERS = (
    {"irrepro", "errors", "_env", "_text", "escape", "_lazy", "_spread",
     "parallel", "stats", "_rule", "_measure_names"},
    {"data", "_outputs", "_user_inputs"},
    {"measures"},
    {"significance", "simulation", "corpus_bootstrap", "sensitivity", "topic_split", "standardize",
     "known_truth", "design", "reproduce"},
    {"plots"},
    {"book"},
    {"report", "cli"},
)  # fmt: skip
#: Upward imports the check finds today: module -> the module it imports (a list that may only shrink).
KNOWN_UPWARD: set[str] = set()


def _top(module: str) -> str:
    """The top-level module under the package's root (``irrepro.data._runs`` -> ``data``; the root
    itself is ``irrepro``, whatever the package's name)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "irrepro"


def _served(files: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Package -> {name: the submodule its ``__init__`` imports the name from}."""
    out: dict[str, dict[str, str]] = {}
    for name, path in files.items():
        if path.name == "__init__.py":
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                    for a in node.names:
                        out.setdefault(name, {})[a.asname or a.name] = f"{name}.{node.module}"
    return out


def import_edges(package: Path = PACKAGE) -> list[tuple[str, str, int, bool]]:
    """(module, irrepro module it imports, line, inside a function) for every import anywhere in a
    module's source; ``from pkg import name`` and ``_lazy.module("pkg")``'s ``.name`` resolved to the
    submodule ``pkg`` serves ``name`` from."""
    files = {_module_name(p, package): p for p in package.rglob("*.py")}
    modules, served = set(files), _served(files)
    edges: list[tuple[str, str, int, bool]] = []
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        lazy = {}  # variable -> module of a `_lazy.module("...")` call
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "module"
                and node.value.args
                and isinstance(node.value.args[0], ast.Constant)
            ):
                lazy.update({t.id: node.value.args[0].value for t in node.targets if isinstance(t, ast.Name)})

        stack: list[tuple[ast.AST, bool]] = [(tree, False)]
        while stack:
            node, in_function = stack.pop()
            inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            targets: set[str] = set()
            if isinstance(node, ast.ImportFrom):
                for source in _imports(node, name, is_package, modules):
                    targets |= {served.get(source, {}).get(a.name, source) for a in node.names}
            elif isinstance(node, ast.Import):
                targets = _imports(node, name, is_package, modules)
            elif (
                isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in lazy
            ):
                source = _known(lazy[node.value.id], modules)
                targets = {served.get(source, {}).get(node.attr, source)} if source else set()
            edges += [(name, t, getattr(node, "lineno", 0), inside) for t in sorted(targets)]
            stack += [(child, inside) for child in ast.iter_child_nodes(node)]
    return [e for e in edges if e[0] != e[1]]


def _is_rows(module: str) -> bool:
    return any(part.startswith("_rows") for part in module.split("."))


def upward_imports(package: Path = PACKAGE) -> dict[str, list[str]]:
    """``"module -> imported"`` -> where (``line``, ``line (in a function)``) for each import of a
    higher layer (:data:`LAYERS`); a ``_rows`` module's import of the book's builders is none."""
    rank = {top: i for i, layer in enumerate(LAYERS) for top in layer}
    found: dict[str, list[str]] = {}
    for module, target, line, in_function in import_edges(package):
        a, b = _top(module), _top(target)
        if rank[b] <= rank[a]:
            continue
        if _is_rows(module) and b == "book":  # a chapter's rows are built with the book's builders
            continue
        found.setdefault(f"{module} -> {target}", []).append(
            f"{line}{' (in a function)' if in_function else ''}"
        )
    return found


def test_every_top_level_module_has_a_layer():
    tops = {_top(m) for m in import_graph()}
    assert tops == set().union(*LAYERS), tops ^ set().union(*LAYERS)


def test_no_upward_import():
    """No module imports a higher layer, at any level; the upward imports found today are listed
    (:data:`KNOWN_UPWARD`) and the list must shrink, never grow."""
    found = upward_imports()
    assert len(import_edges()) > 500  # the edges are read at all
    assert set(found) == KNOWN_UPWARD, {k: found.get(k) for k in set(found) ^ KNOWN_UPWARD}


def _write_package(pkg, files: dict[str, str]) -> None:
    """A fake package for the checks' own tests: ``files`` maps each module's path to its source."""
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)


@pytest.mark.parametrize(
    "source, expected",
    [
        ({"data/__init__.py": "", "data/sim.py": "def f():\n    from ..measures import m\n"}, {"pkg.data.sim -> pkg.measures"}),
        ({"data/__init__.py": "", "data/sim.py": "from pkg.measures import m\n"}, {"pkg.data.sim -> pkg.measures"}),
        ({"data/__init__.py": "", "data/sim.py": "def f():\n    import pkg.book\n"}, {"pkg.data.sim -> pkg.book"}),
        ({"measures/x.py": "def f():\n    from ..data import d\n"}, set()),
        ({"stats.py": "from . import _lazy\nb = _lazy.module('pkg.book')\ndef f():\n    return b.judge\n"},
         {"pkg.stats -> pkg.book._rule"}),
        ({"design/_rows.py": "def f():\n    from ..book import rate\n"}, set()),
    ],
    ids=["in-function", "module-level", "import-statement", "downward", "lazy", "rows-builder"],
)  # fmt: skip
def test_an_upward_import_fails_the_check_at_any_level(tmp_path, source, expected):
    """The check itself: an upward import inside a function is found as one at the module's top."""
    pkg = tmp_path / "pkg"
    base = {
        "__init__.py": "",
        "_lazy.py": "",
        "measures/__init__.py": "",
        "book/__init__.py": "from ._rows import rate\nfrom ._rule import judge\n",
        "book/_rows.py": "rate = 1\n",
        "book/_rule.py": "judge = 1\n",
        "design/__init__.py": "",
    }
    _write_package(pkg, {**base, **source})
    assert set(upward_imports(pkg)) == expected


#: Imports that reach into another top-level module's internals (a private name, or a name from a
#: private module of it) found today: each mixes two ideas, and the list must shrink, never grow.
KNOWN_PRIVATE = {
    "irrepro.stats -> irrepro.parallel._chunks",
    "irrepro._outputs -> irrepro.data._fetch._umask",
    "irrepro.sensitivity -> irrepro.significance._samples.all_pairs",
    "irrepro.sensitivity -> irrepro.significance._samples.baseline_pairs",
    "irrepro.sensitivity -> irrepro.significance._samples.bootstrap_samples",
    "irrepro.sensitivity.study -> irrepro.significance._samples._as_matrix",
    "irrepro.sensitivity.study -> irrepro.significance._samples._check_pairs",
    "irrepro.sensitivity.study -> irrepro.significance._samples._check_samples",
    "irrepro.sensitivity.study -> irrepro.significance._samples._summary",
    "irrepro.sensitivity.study -> irrepro.significance._samples.bootstrap_samples",
    "irrepro.sensitivity.study -> irrepro.significance._samples.bootstrap_summaries",
    "irrepro.cli._compare -> irrepro.significance._names.DEFAULT_B",
    "irrepro.cli._compare -> irrepro.significance.comparison._check_resamples",
    "irrepro.cli._compare -> irrepro.significance.comparison._comparisons",
    "irrepro.cli._compare -> irrepro.significance.comparison._test_resamples",
    "irrepro.cli._eval -> irrepro.measures.evaluation._rows",
    "irrepro.cli._eval -> irrepro.measures.evaluation._trec_eval_text",
    "irrepro.cli._reproduce -> irrepro.reproduce._undefined",
    "irrepro.cli._standardize -> irrepro.measures.trec_names._trec_eval_calls",
    "irrepro.corpus_bootstrap._rows -> irrepro.stats._lazy",
    "irrepro.corpus_bootstrap.intervals -> irrepro.parallel._chunks",
    "irrepro.data._runset -> irrepro.parallel._chunks",
    "irrepro.design._anova -> irrepro.data._matrices.ScoreMatrix",
    "irrepro.design._power -> irrepro.data._matrices.ScoreMatrix",
    "irrepro.design._power -> irrepro.significance._names.CLASSICAL",
    "irrepro.design._power -> irrepro.significance.result._correction",
    "irrepro.design._sizes -> irrepro.significance._names.RESAMPLING",
    "irrepro.design._sizes -> irrepro.significance._names.TESTS",
    "irrepro.design._sizes -> irrepro.significance._samples.bootstrap_samples",
    "irrepro.design._sizes -> irrepro.significance.effects._ve_weighted",
    "irrepro.known_truth._copula_cache -> irrepro.data._common.CacheError",
    "irrepro.known_truth._copula_cache -> irrepro.data._fetch.cache_dir",
    "irrepro.known_truth._copula_cache -> irrepro.data._fetch.atomic_write",
    "irrepro.known_truth._copula_cache -> irrepro.data._fetch.recorded_sha256_problem",
    "irrepro.known_truth._copula_cache -> irrepro.data._fetch.sha256_record",
    "irrepro.known_truth._papers -> irrepro.data._matrices._checked_scores",
    "irrepro.known_truth._papers -> irrepro.parallel._spread",
    "irrepro.known_truth._rows -> irrepro.book._rows._agresti_coull_se",
    "irrepro.measures.evaluation -> irrepro.data._columns._np",
    "irrepro.measures.evaluation -> irrepro.data._columns._pa_strings",
    "irrepro.measures.judgments -> irrepro.data._columns._places",
    "irrepro.report -> irrepro.data._common._release_memory",
    "irrepro.report -> irrepro.parallel._lazy",
    "irrepro.report._settings -> irrepro.significance.comparison._comparisons",
    "irrepro.report -> irrepro.significance._lazy",
    "irrepro.report._page -> irrepro.corpus_bootstrap.sampler._lists_of",
    "irrepro.report._page -> irrepro.corpus_bootstrap.sampler._release_tables",
    "irrepro.reproduce -> irrepro.significance._samples._counts",
    "irrepro.reproduce -> irrepro.significance._samples.bootstrap_samples",
    "irrepro.reproduce -> irrepro.data._common.look_alike",
    "irrepro.reproduce -> irrepro.data._runs._assemble",
    "irrepro.reproduce -> irrepro.data._runs._read_runs",
    "irrepro.significance._samples -> irrepro.data._matrices._checked_scores",
    "irrepro.significance.bootstrap -> irrepro.parallel._spread",
    "irrepro.simulation._collection -> irrepro.data._matrices._checked_scores",
    "irrepro.standardize._scores -> irrepro.data._matrices._checked_scores",
    "irrepro.topic_split._swap -> irrepro.data._matrices._checked_scores",
    "irrepro.topic_split._sets -> irrepro.data._matrices._checked_scores",
}


def private_reaches(package: Path = PACKAGE) -> set[str]:
    """``"module -> source.name"`` for each import, at any level, of a private name (``_x``), or of a
    name from a private module (``data._files``), of another top-level module; the shared private
    top-level modules (``_text``, ``_spread``, ...) are the package's common helpers, not ideas
    of a subpackage."""
    files = {_module_name(p, package): p for p in package.rglob("*.py")}
    modules, found = set(files), set()
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            for source in _imports(node, name, path.name == "__init__.py", modules):
                top = _top(source)
                if top == _top(name) or top.startswith("_"):
                    continue
                inner = any(part.startswith("_") for part in source.split(".")[2:])
                for a in node.names:
                    if (inner or a.name.startswith("_")) and not a.name.startswith("__"):
                        found.add(f"{name} -> {source}.{a.name}")
    return found


def test_no_module_reaches_into_another_subpackages_internals():
    """One module per idea: a module uses another subpackage through its public names, so that the
    two ideas stay apart (this replaces a cap on module length, which split ideas to fit it). The
    reaches found today are listed (:data:`KNOWN_PRIVATE`); the list must shrink, never grow."""
    found = private_reaches()
    new = found - KNOWN_PRIVATE
    assert not new, f"imports of another subpackage's private names or modules: {sorted(new)}"
    gone = KNOWN_PRIVATE - found
    assert not gone, f"no longer found - remove them from KNOWN_PRIVATE: {sorted(gone)}"


@pytest.mark.parametrize(
    "source, expected",
    [
        ({"design/x.py": "def f():\n    from ..data._files import atomic_write\n"}, {"pkg.design.x -> pkg.data._files.atomic_write"}),
        ({"design/x.py": "from ..data import _umask\n"}, {"pkg.design.x -> pkg.data._umask"}),
        ({"design/x.py": "from ..data import read_run\n"}, set()),
        ({"design/x.py": "from .._text import slug\n"}, set()),
        ({"data/x.py": "from ._files import _umask\n"}, set()),
    ],
    ids=["private-module-in-function", "private-name", "public-name", "shared-helper", "own-subpackage"],
)  # fmt: skip
def test_a_reach_into_another_subpackage_fails_the_check(tmp_path, source, expected):
    pkg = tmp_path / "pkg"
    base = {
        "__init__.py": "",
        "_text.py": "",
        "data/__init__.py": "",
        "data/_files.py": "",
        "design/__init__.py": "",
    }
    _write_package(pkg, {**base, **source})
    assert private_reaches(pkg) == expected
