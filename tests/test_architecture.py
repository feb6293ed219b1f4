"""The package's layering, read from the import graph of the source (docs/architecture.md).

Every import counts — module level, inside functions, under TYPE_CHECKING and by name (`import_module("recdiv.x")`)
— and must point to the same or a lower layer; the components (recommenders, rerankers, evaluation) do not import
each other; imports form no cycle at any level (TYPE_CHECKING included); no code imports a recdiv module by a
string (the one lookup by name in code is `recdiv.jit.kernel(MODULE, name)`, whose MODULE is the key of the
ahead-of-time build and is imported only when no build has the kernel: an edge of the graph like any import);
package `__init__` modules are lazy facades; no module is over 600 lines; no function of
`recdiv.experiment` is over 60 lines.
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
    ("arrays", ("recdiv.arrays",)),  # functions of plain arrays only (Gini, entropy), used by dataset statistics
    ("data", ("recdiv.data",)),
    ("aspects", ("recdiv.aspects",)),
    ("models", ("recdiv.models",)),
    ("components", ("recdiv.algorithms", "recdiv.diversifiers", "recdiv.eval")),
    ("testing", ("recdiv.testing",)),  # the kit for component authors: built on the components
    # other tools' interfaces to recdiv: each imports its host library, nothing in recdiv imports them
    ("interop", ("recdiv.ir_measures", "recdiv.lenskit")),
    # what each command does, as library functions over the components (the command line's handlers call them)
    ("workflows", ("recdiv.workflows",)),
    ("experiment", ("recdiv.experiment",)),
    ("front ends", ("recdiv.cli", "recdiv.__main__", "recdiv.explore")),  # the command line and the explorer
]
#: the components: siblings in one layer that must not import each other
COMPONENTS = ("recdiv.algorithms", "recdiv.diversifiers", "recdiv.eval")
#: inside recdiv.eval, lowest first
EVAL_LAYERS: list[tuple[str, ...]] = [
    ("recdiv.eval", "recdiv.eval.context", "recdiv.eval.measure", "recdiv.eval.params", "recdiv.eval.spellings",
     "recdiv.eval.partial"),
    ("recdiv.eval.metrics",),
    ("recdiv.eval.catalog", "recdiv.eval.stats", "recdiv.eval.tables", "recdiv.eval.charts"),
    ("recdiv.eval.evaluate", "recdiv.eval.io", "recdiv.eval.plots", "recdiv.eval.comparison", "recdiv.eval.html",
     "recdiv.eval.groups", "recdiv.eval.user_values", "recdiv.eval.ingest", "recdiv.eval.stream",
     "recdiv.eval.ray_backend", "recdiv.eval.report"),
    ("recdiv.eval.meta",),
    ("recdiv.eval.results", "recdiv.eval.reference"),
]
#: inside recdiv.experiment, lowest first (docs/architecture.md, "The experiment package")
EXPERIMENT_LAYERS: list[tuple[str, ...]] = [
    ("recdiv.experiment", "recdiv.experiment.spec"),
    ("recdiv.experiment.storage",),
    ("recdiv.experiment.plan",),
    ("recdiv.experiment.tasks",),
    ("recdiv.experiment.execution",),
    ("recdiv.experiment.analyses",),
    ("recdiv.experiment.report",),
    ("recdiv.experiment.run",),
]
#: layered packages and their inner layers
INNER_LAYERS = {"recdiv.eval": EVAL_LAYERS, "recdiv.experiment": EXPERIMENT_LAYERS}
MAX_LINES = 600
MAX_FUNCTION_LINES = {"recdiv.experiment": 60}


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
    """A call that imports a module named by a string constant: `importlib.import_module("recdiv.eval")`."""
    return (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and ast.unparse(node.func).rpartition(".")[2]
            in ("import_module", "__import__"))


def _kernel_module(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The kernel module named by a `recdiv.jit.kernel(MODULE, name)` call (a string, or a module-level constant
    holding one): the ahead-of-time build's key, which `kernel` imports when no build has the kernel."""
    if not (isinstance(node, ast.Call) and node.args and ast.unparse(node.func).rpartition(".")[2] == "kernel"):
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    return constants.get(arg.id) if isinstance(arg, ast.Name) else None


def _imports(module: str) -> list[tuple[str, str]]:
    """(target module, kind) for every import of a recdiv module; kind: top, function or type-checking."""
    tree = ast.parse(MODULES[module].read_text())
    out: list[tuple[str, str]] = []
    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}

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
                names = [child.args[0].value]  # importlib.import_module("recdiv.x")
            elif kernel_module := _kernel_module(child, constants):
                names = [kernel_module]  # recdiv.jit.kernel("recdiv.x_kernels", name): imported when not built
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
        for package, layers in INNER_LAYERS.items():
            if m.startswith(package):
                _rank(m, layers)


def test_nothing_below_imports_from_above():
    bad = []
    for m, edges in GRAPH.items():
        for target, kind in edges:
            if _layer(target) > _layer(m):
                bad.append(f"{m} -> {target} ({kind})")
            elif _component(m) and _component(target) and _component(m) != _component(target):
                bad.append(f"{m} -> {target} ({kind}): components do not import each other")
            else:
                for package, layers in INNER_LAYERS.items():
                    if _inside(m, package) and _inside(target, package) and \
                            _rank(target, layers) > _rank(m, layers):
                        bad.append(f"{m} -> {target} ({kind}): upward inside {package}")
    assert not bad, "\n".join(bad)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_no_import_cycles():
    """Tarjan's strongly connected components over every import (module level, function level, TYPE_CHECKING)."""
    runtime = {m: sorted({t for t, _kind in edges}) for m, edges in GRAPH.items()}
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


def test_no_python_file_of_the_repository_over_600_lines():
    """The limit holds anywhere in the repository (tests, bench scripts, examples), not only in the package."""
    repo = ROOT.parent
    files = [p for p in repo.rglob("*.py") if not any(part.startswith(".") or part in ("build", "node_modules")
                                                      for part in p.relative_to(repo).parts)]
    long = {str(p.relative_to(repo)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert len(files) > len(MODULES) and not long, f"files over {MAX_LINES} lines: {long}"


def test_lazy_facades_resolve():
    """Every name a facade offers lazily exists."""
    import importlib

    for m, path in MODULES.items():
        if path.name == "__init__.py":
            mod = importlib.import_module(m)
            for name in getattr(mod, "__all__", []):
                assert getattr(mod, name) is not None, f"{m}.{name}"


def test_no_module_imports_recdiv_by_name():
    """recdiv's own modules are imported by import statements (which the graph and the tools see), never by a string
    given to `importlib.import_module`. (Lazy tables — the facades' exports, the command table, the registries'
    deferred entries — name modules as data and import them through one function each.)"""
    by_name = []
    for m, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if _imports_by_name(node) and node.args[0].value.startswith("recdiv"):
                by_name.append(f"{m}:{node.lineno} {ast.unparse(node)}")
    assert not by_name, "\n".join(by_name)


def test_no_long_functions():
    """No function of the packages in `MAX_FUNCTION_LINES` is longer than its limit (docstring included)."""
    long = []
    for m, path in MODULES.items():
        limit = next((n for p, n in MAX_FUNCTION_LINES.items() if _inside(m, p)), None)
        if limit is None:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > limit:
                long.append(f"{m}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not long, f"functions over their limit: {long}"


def test_the_checks_see_what_they_forbid():
    """The graph holds imports at every level and by name, so the tests above can fail."""
    assert ("recdiv.algorithms.registry", "function") in GRAPH["recdiv.experiment.tasks.model"]
    tree = ast.parse('import importlib\nimportlib.import_module("recdiv.eval")')
    assert any(_imports_by_name(n) for n in ast.walk(tree))
    # the numba kernel modules that `recdiv.jit.kernel` imports by their ahead-of-time key are edges too
    assert ("recdiv.diversifiers.greedy_kernels", "function") in GRAPH["recdiv.diversifiers.mmr"]
    assert ("recdiv.eval.metrics.intents_kernels", "function") in GRAPH["recdiv.eval.metrics.intents"]
