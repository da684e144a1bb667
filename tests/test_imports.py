"""Import hygiene: the layers of ``docs/architecture.md``, each importing only those below it.

core < runtime (the kernel generated code imports) < generated < api < bridges < the compiler's
stages < the applications (audit, cli). Using metrics needs numpy only: nothing below the
compiler imports it (nor sympy, jinja2, jsonschema, yaml). Every import names the ``metricc``
namespace: from the repository root ``import compiler.x`` would also work and yield a
second, distinct module object.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import metricc

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "runtime", "generated", "api", "bridges", "compiler", "audit", "cli")
BARE = set(PACKAGES) | {"specs"}
NUMPY_ONLY = ("core", "runtime", "generated", "api", "bridges")
APPLICATIONS = ("metricc.compiler", "metricc.audit", "metricc.cli")
HEAVY = ("sympy", "jinja2", "jsonschema", "yaml")


def _env() -> dict:
    root = str(Path(list(metricc.__path__)[0]).parent)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}


def _sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (REPO / package).rglob("*.py") if "__pycache__" not in p.parts)


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, including imports inside functions."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, "." * node.level + (node.module or "")))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_sources_are_found():
    names = {p.relative_to(REPO).as_posix() for p in _sources(*PACKAGES)}
    assert {"compiler/language/parse.py", "runtime/kernel.py", "generated/__init__.py", "generated/f1.py"} <= names


@pytest.mark.parametrize("package", PACKAGES)
def test_no_bare_package_imports(package):
    bad = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in _sources(package)
        for line, module in _imported(path)
        if module.split(".")[0] in BARE
    ]
    assert not bad, "import through the metricc namespace (metricc.compiler...):\n" + "\n".join(bad)


@pytest.mark.parametrize("package", NUMPY_ONLY)
def test_metrics_never_import_the_compiler_or_the_applications(package):
    bad = [
        f"{path.relative_to(REPO)}:{line}: {module}"
        for path in _sources(package)
        for line, module in _imported(path)
        if module.startswith(APPLICATIONS) or module.split(".")[0] in HEAVY
    ]
    assert not bad, "\n".join(bad)


def test_generated_modules_import_only_the_runtime():
    for path in _sources("generated"):
        modules = {module for _, module in _imported(path)}
        assert modules <= {"math", "metricc.runtime.gradient", "metricc.runtime.kernel", "metricc.runtime.registry",
                           "metricc.runtime.xp_kernel", "metricc.runtime.xp_scores", "metricc.runtime.xp_curves",
                           "metricc.generated.arrays"} | {
            f"metricc.generated.{p.stem}" for p in _sources("generated")
        }, path.name


_USE_METRICS = """
import sys
import numpy as np
import metricc.api
from metricc.generated import CATALOG
f1 = CATALOG["f1"].function
value = f1(np.array([5.0, 4.0]), np.array([2.0, 1.0]), np.array([1.0, 2.0]), np.array([4.0, 5.0]))
assert abs(float(value) - (10 / 13 + 8 / 11) / 2) < 1e-12, value  # macro F1 by hand
assert float(metricc.api.evaluate("mcc", matrix=[[5, 1], [2, 4]])["mcc"]) > 0
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r} or m.startswith({APPS!r}))
assert not loaded, loaded

import importlib, pkgutil
import metricc.audit, metricc.cli, metricc.compiler, metricc.core, metricc.generated, metricc.runtime
for package in (metricc.core, metricc.runtime, metricc.generated, metricc.api, metricc.compiler, metricc.audit, metricc.cli):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
bare = sorted(m for m in sys.modules if m.split(".")[0] in {BARE!r})
assert not bare, bare
print("ok")
""".replace("{HEAVY!r}", repr(set(HEAVY))).replace("{BARE!r}", repr(BARE)).replace("{APPS!r}", repr(APPLICATIONS))


def test_using_metrics_imports_numpy_only():
    result = subprocess.run([sys.executable, "-c", _USE_METRICS], capture_output=True, text=True,
                            env=_env(), cwd=REPO / "tests", timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


_PLOTS_ON_DEMAND = """
import importlib.util, sys
import metricc as mc
from metricc.cli import app
mc.evaluate("f1", matrix=[[5, 1], [2, 4]])
assert "matplotlib" not in sys.modules, "import metricc.runtime (or the command line) imported matplotlib"
if importlib.util.find_spec("matplotlib") is not None:
    assert mc.plot.confusion_matrix([[5, 1], [2, 4]]).axes
    assert "matplotlib" in sys.modules and "matplotlib.pyplot" not in sys.modules
print("ok")
"""


def test_matplotlib_is_imported_only_when_a_plot_is_drawn():
    """``mc.plot`` is resolved lazily; the figures never go through pyplot's global state."""
    result = subprocess.run([sys.executable, "-c", _PLOTS_ON_DEMAND], capture_output=True, text=True,
                            env=_env(), cwd=REPO / "tests", timeout=120)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


def test_the_compiler_names_table_lists_what_generated_code_imports():
    """The compiler keeps its own copy so that it never imports the runtime."""
    from metricc.compiler import names
    from metricc.compiler.emit.numpy_gradient import GRADIENT_HELPERS
    from metricc.runtime import gradient, kernel, registry

    assert names.RUNTIME_NAMES == frozenset(kernel.__all__) | frozenset(registry.__all__) | GRADIENT_HELPERS
    assert GRADIENT_HELPERS <= frozenset(gradient.__all__)


def test_the_runtime_lists_the_averaging_modes_of_the_language():
    from metricc.compiler.language.levels import Average
    from metricc.runtime.kernel import AVERAGES

    assert tuple(a.value for a in Average) == AVERAGES



# --- the module graph: no cycles, stages in pipeline order ------------------------------------

def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(("metricc", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def _graph() -> dict[str, set[str]]:
    """metricc module -> the metricc modules it imports (module-level or inside functions).

    ``from package import name`` depends on the submodule ``package.name`` when there is one,
    else on the package itself.
    """
    paths = _sources(*PACKAGES) + [REPO / "__init__.py", REPO / "__main__.py"]
    modules = {_module_name(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        name = _module_name(path)
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                          for alias in node.names}
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
                  and node.args and isinstance(node.args[0], ast.Constant)):
                found.add(node.args[0].value)  # importlib.import_module("metricc....") inside a function
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The layers, lowest first: a module may import its own layer and the layers below it, never
# one above (imports inside functions included). The longest matching prefix names the layer.
LAYERS = (
    ("metricc.core",),
    ("metricc.runtime",),
    ("metricc.generated",),
    ("metricc.api",),
    ("metricc.bridges",),
    ("metricc.compiler.errors", "metricc.compiler.names", "metricc.compiler.packages"),
    ("metricc.compiler.language",),
    ("metricc.compiler.analysis",),
    ("metricc.compiler.emit",),
    ("metricc.compiler.build", "metricc.compiler"),
    ("metricc.audit",),
    ("metricc.cli", "metricc.__main__", "metricc"),
)


def _layer(module: str) -> int | None:
    matches = [(len(prefix), rank) for rank, prefixes in enumerate(LAYERS) for prefix in prefixes
               if module == prefix or module.startswith(prefix + ".")]
    return max(matches)[1] if matches else None


def test_no_layer_imports_a_higher_one():
    higher = [f"{module} -> {other}" for module, imports in sorted(_graph().items()) for other in sorted(imports)
              if _layer(other) > _layer(module)]
    assert not higher, "\n".join(higher)


def test_the_layer_test_sees_a_back_edge():
    assert _layer("metricc.runtime.kernel") < _layer("metricc.generated.f1") < _layer("metricc.api.evaluate")
    assert _layer("metricc.compiler.emit.latex") < _layer("metricc.audit.identify") < _layer("metricc.cli.app")


def test_every_module_has_a_layer():
    assert [m for m in _graph() if _layer(m) is None] == []


def test_no_import_cycles():
    assert _cycles(_graph()) == []




def test_the_compiler_never_imports_the_metrics_it_writes():
    """The compiler reads specs and writes code; it shares only core with what it writes."""
    below = ("metricc.runtime", "metricc.generated", "metricc.api", "metricc.bridges")
    found = [f"{module} -> {other}" for module, imports in sorted(_graph().items()) if module.startswith("metricc.compiler")
             for other in sorted(imports) if other.startswith(below)]
    assert not found, "\n".join(found)


MAX_MODULE_LINES = 400  # one theme a module: past this, a module holds several (issue 26)


def test_no_hand_written_module_is_over_400_lines():
    long = [f"{p.relative_to(REPO)}: {n} lines" for p in _sources(*(set(PACKAGES) - {"generated"}))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not long, "split by theme:\n" + "\n".join(long)
