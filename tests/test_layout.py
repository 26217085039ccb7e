"""The package's layout holds (docs/architecture.md): layers import only downwards, the
evaluator sits below the server, no module imports itself back through others, a task
kind's folder never reaches into another kind's, every package says what it owns, no
module grows past 400 lines, and every package is installed.

The import graph is grimp's (every import, including those inside functions and under
TYPE_CHECKING); each check is a function of that graph, and each is shown to fail on the
real graph with one offending import added.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path

import grimp
import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]
#: Lowest first; a module imports from its own layer and the layers before it. The two in
#: one tuple are siblings: neither imports the other.
LAYERS: tuple[str | tuple[str, ...], ...] = (
    "catalog",
    "tasks",
    "policies",
    ("server", "evaluator"),
    "clients",
)
LAYER_NAMES = ("catalog", "tasks", "policies", "server", "evaluator", "clients")
KINDS = ("recommendation", "ranking", "stream")
MAX_LINES = 400


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        *(f"taurec.{layer}" for layer in LAYER_NAMES),
        include_external_packages=False,
        exclude_type_checking_imports=False,
        cache_dir=None,
    )


def _rank(module: str) -> tuple[int, str]:
    layer = module.split(".")[1]
    for rank, entry in enumerate(LAYERS):
        if layer == entry or (isinstance(entry, tuple) and layer in entry):
            return rank, layer
    raise AssertionError(f"{module} is in no layer")


def _imports(graph: grimp.ImportGraph) -> Iterable[tuple[str, str]]:
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            yield importer, imported


def upward_imports(graph: grimp.ImportGraph) -> list[str]:
    """Imports of a higher layer, or of a sibling layer, as 'importer -> imported'."""
    found = []
    for importer, imported in _imports(graph):
        (rank, layer), (their_rank, their_layer) = _rank(importer), _rank(imported)
        if their_rank > rank or (their_rank == rank and their_layer != layer):
            found.append(f"{importer} -> {imported}")
    return found


def _kind_of(module: str) -> str | None:
    return next((part for part in module.split(".")[2:] if part in KINDS), None)


def cross_kind_imports(graph: grimp.ImportGraph) -> list[str]:
    """Imports from one task kind's folder into another kind's, in any layer."""
    found = []
    for importer, imported in _imports(graph):
        mine, theirs = _kind_of(importer), _kind_of(imported)
        if mine and theirs and mine != theirs:
            found.append(f"{importer} -> {imported}")
    return found


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Sets of modules that import one another in a circle (strongly connected), each
    sorted; a module importing itself is not counted."""
    modules = sorted(graph.modules)
    index = {m: i for i, m in enumerate(modules)}
    rows, cols = [], []
    for importer, imported in _imports(graph):
        rows.append(index[importer])
        cols.append(index[imported])
    n = len(modules)
    matrix = csr_array((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, labels = connected_components(matrix, directed=True, connection="strong")
    members: dict[int, list[str]] = {}
    for module, label in zip(modules, labels, strict=True):
        members.setdefault(int(label), []).append(module)
    return sorted(group for group in members.values() if len(group) > 1)


def test_the_evaluator_imports_nothing_from_the_server_or_the_clients(graph):
    reach_up = [
        f"{importer} -> {imported}"
        for importer, imported in _imports(graph)
        if importer.startswith("taurec.evaluator")
        and imported.startswith(("taurec.server", "taurec.clients"))
    ]
    assert reach_up == []


def test_layers_import_only_downwards(graph):
    assert upward_imports(graph) == []


def test_no_module_imports_itself_back_through_others(graph):
    assert import_circles(graph) == []


def test_no_task_kind_reaches_into_another_kinds_folder(graph):
    assert cross_kind_imports(graph) == []


def _with_import(
    graph: grimp.ImportGraph,
    importer: str,
    imported: str,
    check: Callable[[grimp.ImportGraph], list],
) -> list:
    """What `check` finds on the graph with one more import, then the graph as it was."""
    graph.add_import(importer=importer, imported=imported)
    try:
        return check(graph)
    finally:
        graph.remove_import(importer=importer, imported=imported)


def test_the_checks_catch_an_evaluator_module_importing_the_server(graph):
    offence = ("taurec.evaluator.logs", "taurec.server.app")
    found = _with_import(graph, *offence, upward_imports)
    assert sorted(found) == sorted([*upward_imports(graph), " -> ".join(offence)])


def test_the_checks_catch_an_import_circle(graph):
    # tasks.suite imports tasks.kinds (the registry); the registry importing a suite back
    # closes a circle
    found = _with_import(graph, "taurec.tasks.kinds", "taurec.tasks.suite", import_circles)
    assert len(found) == len(import_circles(graph)) + 1
    assert any({"taurec.tasks.kinds", "taurec.tasks.suite"} <= set(group) for group in found)


def test_the_checks_catch_one_kind_importing_another(graph):
    offence = ("taurec.server.stream.app", "taurec.server.ranking.tools")
    found = _with_import(graph, *offence, cross_kind_imports)
    assert sorted(found) == sorted([*cross_kind_imports(graph), " -> ".join(offence)])


def _sources() -> list[Path]:
    return sorted(p for layer in LAYER_NAMES for p in (ROOT / layer).rglob("*.py"))


def test_every_package_says_what_it_owns():
    unsaid = {}
    for init in sorted(p for p in _sources() if p.name == "__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        if len(doc.split()) < 6 or "placeholder" in doc.lower():
            unsaid[str(init.relative_to(ROOT))] = doc
    assert unsaid == {}


def test_no_module_is_longer_than_400_lines():
    long = {}
    for path in _sources():
        lines = path.read_text().count("\n")
        if lines > MAX_LINES:
            long[str(path.relative_to(ROOT))] = lines
    assert long == {}


def test_every_package_is_installed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(project["tool"]["setuptools"]["packages"])
    on_disk = {
        "taurec." + ".".join(p.parent.relative_to(ROOT).parts)
        for p in _sources()
        if p.name == "__init__.py"
    }
    assert listed == on_disk


def test_every_module_imports():
    failures = {}
    for path in _sources():
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = "taurec." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            importlib.import_module(name)
        except Exception as exc:
            failures[name] = f"{type(exc).__name__}: {exc}"
    assert failures == {}
