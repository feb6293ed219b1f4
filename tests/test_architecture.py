"""The package's layering, read from the import graph of the source (docs/architecture.md).

Every import counts — module level, inside functions, under TYPE_CHECKING and by name (`import_module("recdiv.x")`,
the experiment's `component("recdiv.x", ...)`) — and must point to the same or a
lower layer; the components (recommenders, rerankers, evaluation) do not import each other; runtime imports
(module and function level) form no cycle; package `__init__` modules are lazy facades; no module is over
600 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "recdiv"

#: lowest first; a module belongs to the layer of the longest prefix that names it
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("recdiv", "recdiv._lazy", "recdiv.config", "recdiv.errors", "recdiv.jit", "recdiv.progress",
              "recdiv.registry")),
    ("array models", ("recdiv.models.concentration",)),  # functions of arrays only, used by dataset statistics
    ("data", ("recdiv.data",)),
    ("aspects", ("recdiv.aspects",)),
    ("models", ("recdiv.models",)),
    ("components", ("recdiv.algorithms", "recdiv.diversifiers", "recdiv.eval")),
    ("testing", ("recdiv.testing",)),  # the kit for component authors: built on the components
    ("experiment", ("recdiv.experiment",)),
    ("front ends", ("recdiv.cli", "recdiv.__main__", "recdiv.explore")),  # the command line and the explorer
]
#: the components: siblings in one layer that must not import each other
COMPONENTS = ("recdiv.algorithms", "recdiv.diversifiers", "recdiv.eval")
#: inside recdiv.eval, lowest first
EVAL_LAYERS: list[tuple[str, ...]] = [
    ("recdiv.eval", "recdiv.eval.context", "recdiv.eval.measure", "recdiv.eval.params", "recdiv.eval.spellings"),
    ("recdiv.eval.metrics",),
    ("recdiv.eval.catalog", "recdiv.eval.stats", "recdiv.eval.tables", "recdiv.eval.charts"),
    ("recdiv.eval.evaluate", "recdiv.eval.io", "recdiv.eval.plots", "recdiv.eval.comparison", "recdiv.eval.html",
     "recdiv.eval.groups", "recdiv.eval.user_values"),
    ("recdiv.eval.meta",),
    ("recdiv.eval.results", "recdiv.eval.reference"),
]
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The recdiv module that `name` (a module or module.attribute) refers to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports_by_name(node: ast.AST) -> bool:
    """A call that imports a module named by a string constant: `importlib.import_module("recdiv.eval")`,
    `component("recdiv.eval", ...)` (recdiv.experiment.stages)."""
    return (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and ast.unparse(node.func).rpartition(".")[2]
            in ("import_module", "component"))


def _imports(module: str) -> list[tuple[str, str]]:
    """(target module, kind) for every import of a recdiv module; kind: top, function or type-checking."""
    tree = ast.parse(MODULES[module].read_text())
    out: list[tuple[str, str]] = []

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                assert child.level == 0, f"{module}: relative import"
                base = child.module or ""
                # `from package import module` names the module; `from module import name` the module
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in child.names]
            elif _imports_by_name(child):
                names = [child.args[0].value]  # importlib.import_module("recdiv.x"), the experiment's component(...)
            else:
                names = []
            for n in names:
                if n == "recdiv" or n.startswith("recdiv."):
                    target = _resolve(n)
                    if target and target != module:
                        out.append((target, kind))
            inner = kind
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and kind == "top":
                inner = "function"
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = "type-checking"
            visit(child, inner)

    visit(tree, "top")
    return sorted(set(out))


GRAPH = {m: _imports(m) for m in MODULES}


def _rank(module: str, layers) -> int:
    best, rank = -1, None
    for i, prefixes in enumerate(layers):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    assert rank is not None, f"{module} is in no layer: add it to tests/test_architecture.py"
    return rank


def _layer(module: str) -> int:
    return _rank(module, [prefixes for _, prefixes in LAYERS])


def _component(module: str) -> str | None:
    return next((c for c in COMPONENTS if module == c or module.startswith(c + ".")), None)


def test_every_module_has_a_layer():
    for m in MODULES:
        _layer(m)
        if m.startswith("recdiv.eval"):
            _rank(m, EVAL_LAYERS)


def test_nothing_below_imports_from_above():
    bad = []
    for m, edges in GRAPH.items():
        for target, kind in edges:
            if _layer(target) > _layer(m):
                bad.append(f"{m} -> {target} ({kind})")
            elif _component(m) and _component(target) and _component(m) != _component(target):
                bad.append(f"{m} -> {target} ({kind}): components do not import each other")
            elif m.startswith("recdiv.eval") and target.startswith("recdiv.eval") and \
                    _rank(target, EVAL_LAYERS) > _rank(m, EVAL_LAYERS):
                bad.append(f"{m} -> {target} ({kind}): upward inside recdiv.eval")
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    """Tarjan's strongly connected components over the runtime imports (module and function level)."""
    runtime = {m: sorted({t for t, kind in edges if kind != "type-checking"}) for m, edges in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in runtime[v]:
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in runtime:
        if v not in index:
            strongconnect(v)
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("package", sorted(m for m, p in MODULES.items() if p.name == "__init__.py"))
def test_package_inits_are_facades(package):
    """A package's `__init__` imports only the base layer or its own package's modules (so that importing one
    module of a package does not import the rest, and the command line starts fast)."""
    for target, _kind in GRAPH[package]:
        assert _layer(target) == 0 or target.startswith(package + "."), f"{package} imports {target}"


def test_no_module_over_600_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_lazy_facades_resolve():
    """Every name a facade offers lazily exists."""
    import importlib

    for m, path in MODULES.items():
        if path.name == "__init__.py":
            mod = importlib.import_module(m)
            for name in getattr(mod, "__all__", []):
                assert getattr(mod, name) is not None, f"{m}.{name}"


def test_imports_by_name_are_in_the_graph():
    """The experiment imports its components by name (for a clear error when one is missing): those count."""
    assert ("recdiv.data.load", "function") in GRAPH["recdiv.experiment.stages"]
    assert ("recdiv.eval", "function") in GRAPH["recdiv.experiment.stages"]
