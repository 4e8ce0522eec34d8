"""The layout of the Python package stays as ARCHITECTURE.md describes it.

Read from the source with :mod:`ast` (nothing is imported), for every module under
``python/rankselect``:

- at most :data:`MAX_LINES` lines;
- no import circle between the package's modules (imports inside functions count; an
  import of ``a.b.c`` also runs the ``__init__`` of ``a`` and ``a.b``);
- imports go down the layers of :data:`LAYERS` (a module of one unit imports only units of
  lower layers);
- no private name (``_name``) or private module imported from outside the package that
  holds it, nor reached as ``module._name`` through an import;
- no ``importlib`` / ``__import__``: every import is explicit and visible to this test, except
  in :data:`DYNAMIC_IMPORTERS` (the table of moved module paths, which must import by name and
  lazily so that ``import rankselect`` does not import every module it names; its names are
  checked against the package by tests/test_public_paths.py).

Each check is also run on a small package built to break it, so that it can fail.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

import rankselect

PACKAGE_DIR = Path(rankselect.__file__).resolve().parent

MAX_LINES = 400

#: units (first component below ``rankselect``, or a dotted sub-folder given its own layer,
#: ``selection.wrapper``) from the bottom layer up; a unit may import only units of lower
#: layers (``__init__`` is the package's own ``__init__.py``)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_core", "exceptions"),
    ("_config", "_cli_guard"),  # _cli_guard: imports _core first (a bad RANKSELECT_SIMD)
    ("_validation",),
    ("data",),
    ("metrics",),
    ("_search",),  # scikit-learn's searches seen from a fit (imports no rankselect module)
    ("_base",),
    ("models",),
    ("selection",),
    ("analysis", "deploy"),  # deploy: the subset and its ranker as search-engine files
    ("selection.wrapper",),  # the ranker in the loop: uses analysis.inspection
    ("methods",),
    ("protocol", "dask"),
    ("plotting", "report"),
    ("cli", "_aliases"),
    ("__init__", "__main__"),
)


#: the modules allowed to import by name (importlib): the lazy table of moved module paths
DYNAMIC_IMPORTERS = frozenset({"rankselect._aliases"})


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name of the importing module
    target: str  # dotted module name that the statement imports (or takes a name from)
    name: Optional[str]  # the name taken from ``target`` (``from target import name``), if any
    line: int


# ------------------------------------------------------------------------- reading the source


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under ``root`` (the package dir)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    stubs = {".".join([package, *p.relative_to(root).with_suffix("").parts]) for p in root.rglob("*.pyi")}
    for name in stubs:  # the extension (_core) has a stub, not a .py file
        out.setdefault(name, root / (name.split(".", 1)[1].replace(".", "/") + ".pyi"))
    return out


def _is_package(name: str, files: dict[str, Path]) -> bool:
    return files[name].name == "__init__.py"


def _resolve(importer: str, files: dict[str, Path], module: Optional[str], level: int) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not _is_package(importer, files):
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _walk_runtime(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, except the bodies of ``if TYPE_CHECKING:`` blocks (never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                stack.extend(child.orelse)
            else:
                stack.append(child)


def imports(files: dict[str, Path], package: str) -> list[Import]:
    """Every import statement of the package's modules that reaches a module of the package."""
    out = []
    for name, path in files.items():
        if path.suffix != ".py":
            continue
        for node in _walk_runtime(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    out.append(Import(name, alias.name, None, node.lineno))
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(name, files, node.module, node.level)
                for alias in node.names:
                    out.append(Import(name, target, alias.name, node.lineno))
    return [i for i in out if i.target == package or i.target.startswith(package + ".")]


def _ancestors(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def edges(files: dict[str, Path], package: str) -> dict[str, set[str]]:
    """Module -> the package's modules that its imports run (an imported submodule, and the
    ``__init__`` of every package on its path that does not contain the importer)."""
    graph: dict[str, set[str]] = {m: set() for m in files}
    for imp in imports(files, package):
        targets = [imp.target]
        if imp.name is not None and f"{imp.target}.{imp.name}" in files:
            targets.append(f"{imp.target}.{imp.name}")
        for t in targets:
            for m in {t} | _ancestors(t):
                if m in files and m != imp.importer and m not in _ancestors(imp.importer):
                    graph[imp.importer].add(m)
    return graph


# ----------------------------------------------------------------------------------- checks


def long_modules(files: dict[str, Path], limit: int = MAX_LINES) -> list[str]:
    return [f"{n}: {len(p.read_text().splitlines())} lines" for n, p in files.items()
            if p.suffix == ".py" and len(p.read_text().splitlines()) > limit]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each with one
    circle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_circle(graph, sorted(component)))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _circle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest path from the component's first module back to itself (breadth first)."""
    start, members = component[0], set(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, v, start]
                if w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    return component  # pragma: no cover - a component always has a circle


def _unit(name: str, package: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> str:
    """The unit of module ``name``: the longest dotted sub-folder with its own layer
    (``selection.wrapper``), else the first component below the package."""
    parts = name.split(".")[1:]
    if not parts:
        return "__init__"
    units = {u for layer in layers for u in layer}
    for i in range(len(parts), 1, -1):
        if ".".join(parts[:i]) in units:
            return ".".join(parts[:i])
    return parts[0]


def upward_imports(graph: dict[str, set[str]], package: str,
                   layers: tuple[tuple[str, ...], ...] = LAYERS) -> list[str]:
    rank = {unit: i for i, layer in enumerate(layers) for unit in layer}
    bad = []
    for importer, targets in graph.items():
        a = _unit(importer, package, layers)
        for t in sorted(targets):
            b = _unit(t, package, layers)
            if a == b:
                continue
            if a not in rank or b not in rank:
                bad.append(f"{importer} -> {t}: unit {a if a not in rank else b!r} is not in LAYERS")
            elif rank[a] <= rank[b]:
                bad.append(f"{importer} -> {t}: {a!r} (layer {rank[a]}) may not import {b!r} (layer {rank[b]})")
    return bad


def _private_owner(path: str, files: dict[str, Path]) -> Optional[str]:
    """The package that holds the first private component of the dotted ``path`` (None if
    the path is public)."""
    parts = path.split(".")
    for i, part in enumerate(parts[1:], 1):
        if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
            holder = ".".join(parts[:i])
            return holder if (holder in files and _is_package(holder, files)) else holder.rpartition(".")[0]
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def private_imports(files: dict[str, Path], package: str) -> list[str]:
    bad = []
    for imp in imports(files, package):
        path = imp.target if imp.name is None else f"{imp.target}.{imp.name}"
        owner = _private_owner(path, files)
        if owner is not None and not _inside(imp.importer, owner):
            bad.append(f"{imp.importer}:{imp.line} imports {path} (private to {owner})")
    # module._name through a name bound to one of the package's modules
    for name, path in files.items():
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text())
        bound: dict[str, str] = {}
        for node in _walk_runtime(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(name, files, node.module, node.level)
                for alias in node.names:
                    if f"{target}.{alias.name}" in files:
                        bound[alias.asname or alias.name] = f"{target}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in files and alias.asname:
                        bound[alias.asname] = alias.name
        for node in _walk_runtime(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                path_ = f"{bound[node.value.id]}.{node.attr}"
                owner = _private_owner(path_, files)
                if owner is not None and not _inside(name, owner):
                    bad.append(f"{name}:{node.lineno} uses {path_} (private to {owner})")
    return bad


def dynamic_imports(files: dict[str, Path], allowed: frozenset[str] = frozenset()) -> list[str]:
    bad = []
    for name, path in files.items():
        if path.suffix != ".py" or name in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "importlib" for a in node.names):
                bad.append(f"{name}:{node.lineno}: import importlib")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "importlib":
                bad.append(f"{name}:{node.lineno}: from importlib import ...")
            elif isinstance(node, ast.Name) and node.id == "__import__":
                bad.append(f"{name}:{node.lineno}: __import__")
    return bad


# ------------------------------------------------------------------------- the package itself


@pytest.fixture(scope="module")
def files():
    return modules(PACKAGE_DIR, "rankselect")


def test_modules_are_at_most_400_lines(files):
    assert long_modules(files) == []


def test_rust_files_are_at_most_400_lines():
    from conftest import ROOT

    rust = sorted((ROOT / "rust").rglob("*.rs"))
    if not rust:
        pytest.skip("no Rust sources beside this installation (run from a checkout)")
    long = [(str(p.relative_to(ROOT)), n) for p in rust if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert long == []


def test_no_import_circle(files):
    assert cycles(edges(files, "rankselect")) == []


def test_imports_go_down_the_layers(files):
    assert upward_imports(edges(files, "rankselect"), "rankselect") == []


def test_no_private_name_crosses_a_package(files):
    assert private_imports(files, "rankselect") == []


def test_every_import_is_explicit(files):
    assert dynamic_imports(files, DYNAMIC_IMPORTERS) == []


def test_every_unit_has_a_layer(files):
    units = {_unit(m, "rankselect") for m in files}
    assert units <= {u for layer in LAYERS for u in layer}
    assert "models" in units and "cli" in units  # the walk found the package


# ------------------------------------------------------------------ the checks can fail


def _write(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        p = root / "pkg" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return modules(root / "pkg", "pkg")


def test_checks_catch_violations(tmp_path):
    files = _write(tmp_path, {
        "__init__.py": "from . import a\n",
        "_low.py": "X = 1\n",
        "a/__init__.py": "",
        "a/one.py": "from ..b.two import helper\nfrom .._low import X\n",
        "a/_hidden.py": "def _secret():\n    pass\n",
        "b/__init__.py": "",
        "b/two.py": ("def helper():\n    from ..a import one\n    from ..a._hidden import _secret\n"
                     "    from ..a import _hidden as h\n    return h._secret\n"),
        "b/three.py": "import importlib\nm = __import__('os')\n" + "x = 1\n" * 400,
    })
    graph = edges(files, "pkg")
    assert cycles(graph) == [["pkg.a.one", "pkg.b.two", "pkg.a.one"]]
    layers = (("_low",), ("a",), ("b",), ("__init__",))
    assert upward_imports(graph, "pkg", layers) == [
        "pkg.a.one -> pkg.b: 'a' (layer 1) may not import 'b' (layer 2)",
        "pkg.a.one -> pkg.b.two: 'a' (layer 1) may not import 'b' (layer 2)"]
    private = private_imports(files, "pkg")
    assert "pkg.b.two:3 imports pkg.a._hidden._secret (private to pkg.a)" in private
    assert "pkg.b.two:4 imports pkg.a._hidden (private to pkg.a)" in private
    assert "pkg.b.two:5 uses pkg.a._hidden._secret (private to pkg.a)" in private
    assert not any("_low" in p for p in private)  # a top-level private module is shared
    assert dynamic_imports(files) == ["pkg.b.three:1: import importlib", "pkg.b.three:2: __import__"]
    assert dynamic_imports(files, frozenset({"pkg.b.three"})) == []
    assert long_modules(files) == ["pkg.b.three: 402 lines"]


def test_a_sub_folder_with_its_own_layer(tmp_path):
    """``a.sub`` sits above ``b`` although ``a`` sits below it: ``a.sub`` may import ``b``,
    ``b`` may not import ``a.sub``, and ``a`` (its other modules) may not import ``b``."""
    files = _write(tmp_path, {
        "__init__.py": "",
        "a/__init__.py": "",
        "a/low.py": "from ..b import two\n",
        "a/sub/__init__.py": "",
        "a/sub/m.py": "from ...b import two\n",
        "b/__init__.py": "",
        "b/two.py": "",
        "b/three.py": "from ..a.sub import m\n",
    })
    layers = (("a",), ("b",), ("a.sub",), ("__init__",))
    assert _unit("pkg.a.sub.m", "pkg", layers) == "a.sub" and _unit("pkg.a.low", "pkg", layers) == "a"
    bad = upward_imports(edges(files, "pkg"), "pkg", layers)
    assert not any(b.startswith("pkg.a.sub.m ") for b in bad)
    assert "pkg.a.low -> pkg.b.two: 'a' (layer 0) may not import 'b' (layer 1)" in bad
    assert "pkg.b.three -> pkg.a.sub.m: 'b' (layer 1) may not import 'a.sub' (layer 2)" in bad
