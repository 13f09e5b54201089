"""The package-level layering of lablang (docs/architecture.md): every import goes down the
layers, the backends do not import each other, heavy libraries stay in their one package,
and no two modules import each other in a circle.

Imports are read from the source at any depth (inside functions and `TYPE_CHECKING`
blocks too: a lazy import is how a circle hides), together with the two kinds of import
that name their modules in data: a package's `lazy_exports` table (`from lablang.scoring
import score_files` imports `lablang.scoring.score`) and a package that imports every
module of its folder (`lablang.molecular.ops`, its operation registry). A module is not
taken to import its parent packages (Python initialises them first, whatever they hold).
The circle check also counts imports by a name computed at run time, from the registry
tables that name their modules (`REGISTRY_IMPORTS`, `NAMED_IMPORTS`; a test pins that no
other module imports by a computed name). The layering counts import statements only: the
driver reaching the backends through `BACKEND_CHECKS` is how a lower layer calls a higher
one without depending on it.
"""

from __future__ import annotations

import ast as pyast
import functools
import importlib
import re
from collections.abc import Iterable
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]

# The layers, bottom first: a unit (a package or a module directly under lablang/,
# `lablang` itself for the package root) imports only units of lower layers. The table in
# docs/architecture.md is this one (a test below compares them).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("lablang",),
    (
        "source",
        "units",
        "limits",
        "output",
        "exports",
        "guarded",
        "links",
        "spreadsheet",
        "records",
    ),
    ("ast", "diagnostics", "datafile", "executors"),
    ("syntax",),
    ("resolve", "check"),
    ("driver",),
    ("fmt",),
    ("molecular", "protocols", "rubrics", "contracts", "scoring", "sim"),
    ("export_targets", "spec_tables", "limits_doc", "bound", "trace", "modification", "annealing"),
    ("export", "spec"),
    ("agent",),
    ("lsp",),
    ("cli",),
    ("__main__",),
)
# Units of one layer that may import each other: resolving and checking are one stage
# pair (`check` reads resolve's `Program`; `resolve` suggests names with
# `check.names.did_you_mean`). Every other layer's units are independent.
MUTUAL = {frozenset(("resolve", "check"))}
BACKENDS = LAYERS[7]
# The imports between backends (siblings), each with its reason. Only shrink this list:
# the test below fails for an entry that no longer imports.
SIBLING_IMPORTS = {
    ("lablang.molecular.builder.common", "lablang.scoring.library_chars"): (
        "W0406 reads the Task 1 grader's score characters, one copy in a module with no "
        "imports, without loading the grader"
    ),
    ("lablang.molecular.draw_common", "lablang.scoring.library_chars"): (
        "a placeholder is coloured by what its role means to the Task 1 grader (every "
        "barcode role a barcode), read from the same one copy W0406 reads"
    ),
    ("lablang.scoring.lab", "lablang.molecular"): (
        "a `.lab` answer is checked and exported as LibStructBench documents by the "
        "molecular backend before it is scored (imported when a `.lab` file is scored)"
    ),
}
# Third-party libraries only one unit may import.
OWNED_LIBRARIES = {
    "lark": "syntax",
    "mujoco": "sim",
    "z3": "contracts",
    "pygls": "lsp",
    "lsprotocol": "lsp",
    "click": "cli",
}
# Packages that import every module of their folder when imported.
FOLDER_IMPORTERS = {"lablang.molecular.ops"}
# Modules that import a module by a name computed at run time (`importlib.import_module`).
# The circle check counts what each imports: the modules a registry table names (every
# string `module` or `module:attribute` in it, at any depth), or the modules it builds a
# name for. `UNCOUNTED_IMPORTS` says why the rest add nothing to count.
REGISTRY_IMPORTS = {  # importer: (module of the table, the table's name)
    "lablang.driver": ("lablang.driver", "BACKEND_CHECKS"),
    "lablang.export": ("lablang.export_targets", "EXPORTERS"),
    "lablang.limits_doc": ("lablang.limits", "BACKEND_LIMITS"),
    "lablang.lsp.hover": ("lablang.lsp.hover", "OPERATION_DOCS"),
    "lablang.cli.group": ("lablang.cli.verbs", "VERBS"),
}
NAMED_IMPORTS = {  # importer: the modules whose names it builds (`lablang.{kind}s.front`)
    "lablang.cli.protocols": ("lablang.protocols.front", "lablang.rubrics.front"),
}
UNCOUNTED_IMPORTS = {
    "lablang.exports": "the lazy_exports tables, counted in the packages that declare them",
    "lablang.molecular.ops": "the modules of its folder, counted by FOLDER_IMPORTERS",
    "lablang.executors.units": "a unit's function, which the caller names at run time",
}


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module of `package` under `root`, by dotted name."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@functools.cache
def _tree(path: Path) -> pyast.Module:
    """A module's syntax tree, parsed once for all the tests."""
    return pyast.parse(path.read_text("utf-8"))


def _lazy_table(tree: pyast.Module) -> set[str]:
    """The modules named by a `lazy_exports(package, TABLE)` call's table."""
    tables = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, pyast.Assign)
        for target in node.targets
        if isinstance(target, pyast.Name)
    }
    found = set()
    for node in pyast.walk(tree):
        if isinstance(node, pyast.Call) and getattr(node.func, "id", None) == "lazy_exports":
            table = node.args[1]
            value = tables.get(table.id) if isinstance(table, pyast.Name) else table
            assert isinstance(value, pyast.Dict), "lazy_exports takes a dict literal"
            for entry in value.values:
                assert isinstance(entry, pyast.Constant) and isinstance(entry.value, str)
                found.add(entry.value)
    return found


def imports_of(name: str, path: Path, modules: Iterable[str]) -> set[str]:
    """The modules (of `modules`) that module `name` at `path` imports, at any depth."""
    known = set(modules)
    tree = _tree(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in pyast.walk(tree):
        if isinstance(node, pyast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, pyast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    found.add(f"{source}.{alias.name}")
                elif source in known:
                    found.add(source)
    found |= _lazy_table(tree) & known
    if name in FOLDER_IMPORTERS:
        found |= {m for m in known if m.rpartition(".")[0] == name}
    found.discard(name)
    return found


def import_graph(root: Path = ROOT, package: str = "lablang") -> nx.DiGraph:
    """Modules as nodes, an edge from each module to each module it imports."""
    files = module_files(root, package)
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        graph.add_edges_from((name, imported) for imported in imports_of(name, path, files))
    return graph


def _named_modules(value: object, known: set[str]) -> set[str]:
    """The modules of `known` that the strings in a registry table name, at any depth."""
    if isinstance(value, str):
        name = value.partition(":")[0]
        return {name} if name in known else set()
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list | tuple | set | frozenset):
        return set().union(*(_named_modules(v, known) for v in value))
    return set()


def computed_edges(modules: Iterable[str]) -> set[tuple[str, str]]:
    """(importer, imported) for each import by a computed name that the tables above say."""
    known = set(modules)
    edges = set()
    for importer, (where, table) in REGISTRY_IMPORTS.items():
        named = _named_modules(getattr(importlib.import_module(where), table), known)
        assert named, f"{where}.{table} names no lablang module"
        edges |= {(importer, m) for m in named - {importer}}
    for importer, named in NAMED_IMPORTS.items():
        assert set(named) <= known, named
        edges |= {(importer, m) for m in named}
    return edges


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """Each set of modules that import each other in a circle, sorted."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


@pytest.fixture(scope="module")
def static_graph() -> nx.DiGraph:
    """The import graph of lablang's import statements (and lazy-export tables)."""
    return import_graph()


@pytest.fixture(scope="module")
def graph(static_graph: nx.DiGraph) -> nx.DiGraph:
    """The import graph of lablang, computed imports included."""
    found = static_graph.copy()
    found.add_edges_from(computed_edges(found.nodes))
    return found


def unit(module: str) -> str:
    """The layer unit of a module: its first name below `lablang` (`lablang` for the root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


LEVEL = {u: depth for depth, layer in enumerate(LAYERS) for u in layer}


def test_no_import_circle_among_lablang_modules(graph: nx.DiGraph) -> None:
    """No two modules of lablang import each other, directly or through others (lablang/sim
    included: its circles are gone, see tests/sim/test_layers.py)."""
    assert circles(graph) == []


def test_the_circle_check_finds_a_circle_through_a_lazy_import(tmp_path: Path) -> None:
    """A circle closed by an import inside a function is found, and so is one closed
    through a package's lazy-export table."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        'from lablang.exports import lazy_exports\n__getattr__ = lazy_exports("pkg", {"f": "pkg.c"})\n'
    )
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from pkg.b import g\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg import a\ng = 1\n")
    (tmp_path / "pkg" / "c.py").write_text("from . import d\nf = 1\n")
    (tmp_path / "pkg" / "d.py").write_text("from pkg import f\n")
    found = circles(import_graph(tmp_path, "pkg"))
    assert found == [["pkg", "pkg.c", "pkg.d"], ["pkg.a", "pkg.b"]]


def test_the_reports_import_nothing_back_from_what_they_report() -> None:
    """The batch scorer's and the bench harness's reports import only the records they
    are given (and atomic output and CSV cells), never the module that produces them."""
    files = module_files(ROOT, "lablang")
    for report, allowed in (
        ("lablang.scoring.report", {"lablang.scoring.attempts"}),
        (
            "lablang.agent.bench_report",
            {"lablang.agent.rounds", "lablang.output", "lablang.spreadsheet"},
        ),
    ):
        assert imports_of(report, files[report], files) <= allowed, report


def test_every_unit_is_in_one_layer() -> None:
    """Each package and module directly under lablang/ appears in exactly one layer, and
    every unit a layer names exists."""
    units = {unit(m) for m in module_files(ROOT, "lablang")}
    listed = [u for layer in LAYERS for u in layer]
    assert len(listed) == len(set(listed))
    assert set(listed) - units == set(), "gone: remove from LAYERS and docs/architecture.md"
    assert units - set(listed) == set(), "new: place in LAYERS and docs/architecture.md"


def layer_violations(edges: Iterable[tuple[str, str]]) -> list[str]:
    """The imports that do not go down the layers (or are unlisted sibling imports)."""
    wrong = []
    for importer, imported in edges:
        a, b = unit(importer), unit(imported)
        if a == b or frozenset((a, b)) in MUTUAL:
            continue
        if a not in LEVEL or b not in LEVEL:  # a new unit: place it in LAYERS
            wrong.append(f"{importer} -> {imported}: {a if a not in LEVEL else b} in no layer")
        elif LEVEL[b] >= LEVEL[a] and (importer, imported) not in SIBLING_IMPORTS:
            wrong.append(f"{importer} -> {imported}")
    return wrong


def test_imports_go_down_the_layers(static_graph: nx.DiGraph) -> None:
    """A unit imports only units of lower layers (resolve and check also each other), and
    a backend imports another backend only where SIBLING_IMPORTS says why."""
    assert layer_violations(static_graph.edges) == []


def test_the_layer_check_finds_upward_sibling_and_unplaced_imports() -> None:
    """An import up the layers, one between two backends not in SIBLING_IMPORTS and one
    from a unit in no layer are each reported; a listed sibling import is not."""
    edges = [
        ("lablang.syntax.parser", "lablang.driver"),
        ("lablang.molecular.front", "lablang.sim.catalog"),
        ("lablang.newthing", "lablang.source"),
        ("lablang.scoring.lab", "lablang.molecular"),
        ("lablang.check", "lablang.resolve"),
    ]
    assert layer_violations(edges) == [
        "lablang.syntax.parser -> lablang.driver",
        "lablang.molecular.front -> lablang.sim.catalog",
        "lablang.newthing -> lablang.source: newthing in no layer",
    ]


def test_every_sibling_import_is_still_made(static_graph: nx.DiGraph) -> None:
    """Each SIBLING_IMPORTS entry is an import the code still makes between two backends,
    so the list cannot outlive the import."""
    for importer, imported in SIBLING_IMPORTS:
        assert static_graph.has_edge(importer, imported), (importer, imported)
        assert unit(importer) in BACKENDS and unit(imported) in BACKENDS


def test_heavy_libraries_are_imported_by_their_one_package() -> None:
    """lark only in syntax, mujoco only in sim, z3 only in contracts, pygls and lsprotocol
    only in lsp, click only in cli."""
    wrong = []
    for name, path in module_files(ROOT, "lablang").items():
        for node in pyast.walk(_tree(path)):
            if isinstance(node, pyast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, pyast.ImportFrom) and not node.level and node.module:
                roots = {node.module.split(".")[0]}
            else:
                continue
            wrong += [
                f"{name} imports {r}"
                for r in roots
                if r in OWNED_LIBRARIES and OWNED_LIBRARIES[r] != unit(name)
            ]
    assert wrong == []


def test_computed_imports_are_made_only_by_the_listed_modules() -> None:
    """Only the modules of REGISTRY_IMPORTS, NAMED_IMPORTS and UNCOUNTED_IMPORTS import by
    a computed name (`importlib.import_module`, `__import__`), so a new one is added to
    the circle check."""
    pattern = re.compile(r"\bimport_module\(|\b__import__\(")
    found = {
        name
        for name, path in module_files(ROOT, "lablang").items()
        if pattern.search(path.read_text("utf-8"))
    }
    assert found == {*REGISTRY_IMPORTS, *NAMED_IMPORTS, *UNCOUNTED_IMPORTS}


def test_the_circle_check_counts_imports_by_registry(graph: nx.DiGraph) -> None:
    """The graph has the driver's import of each backend's front end, the CLI group's of
    each verb's module, and the limits listing's of the backends' constants."""
    assert graph.has_edge("lablang.driver", "lablang.contracts.front")
    assert graph.has_edge("lablang.cli.group", "lablang.cli.sim")
    assert graph.has_edge("lablang.limits_doc", "lablang.scoring.score")
