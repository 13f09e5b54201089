"""The simulation modules form layers: state queries below the runtime, the runtime below
skills, skills below predicates; no module of a lower layer imports a higher one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import lablang.sim

SIM = Path(lablang.sim.__file__).parent

# each module may import (at any depth, including inside functions) only modules listed
# before it
LAYERS = ("model", "assets", "state", "actors", "runtime", "skills", "predicates")


def _imported(path: Path) -> set[str]:
    """The modules a file imports (at any depth), as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _sim_imports(module: str) -> set[str]:
    """The `lablang.sim` modules a module (or any file of a package) imports, by their
    first name below `lablang.sim`."""
    package = SIM / module
    paths = sorted(package.glob("*.py")) if package.is_dir() else [SIM / f"{module}.py"]
    names = set().union(*(_imported(path) for path in paths))
    return {
        name.removeprefix("lablang.sim.").split(".")[0]
        for name in names
        if name.startswith("lablang.sim.")
    }


def test_state_runtime_skills_predicates_import_only_downwards() -> None:
    """No module in the state -> runtime -> skills -> predicates chain imports one above it."""
    for depth, module in enumerate(LAYERS):
        above = set(LAYERS[depth + 1 :])
        assert not _sim_imports(module) & above, (module, _sim_imports(module) & above)


def test_the_layer_check_sees_imports_inside_functions() -> None:
    """The checker counts a lazy import in a function body (the form the old cycle took)."""
    assert "predicates" in _sim_imports("episode")
    assert "state" in _sim_imports("runtime")


# the parts of a package, each importing only the parts listed before it
PACKAGE_PARTS = {
    "skills": (
        "base",
        "handling",
        "instruments",
        "closures",
        "pouring",
        "mixing",
        "pipetting",
        "apparatus",
        "scooping",
    ),
    "assets": (
        "info",
        "parts",
        "display",
        "gripper",
        "fixtures",
        "apparatus",
        "objects",
        "pipettes",
    ),
}


@pytest.mark.parametrize("package", sorted(PACKAGE_PARTS))
def test_package_parts_import_downwards_and_never_the_package(package: str) -> None:
    """A part of `skills` or `assets` imports only the parts listed before it, never the
    package itself (the package gathers its parts, so importing it from one is a cycle)."""
    parts = PACKAGE_PARTS[package]
    folder = SIM / package
    prefix = f"lablang.sim.{package}"
    assert {p.stem for p in folder.glob("*.py")} == {"__init__", *parts}
    for depth, part in enumerate(parts):
        imported = _imported(folder / f"{part}.py")
        assert prefix not in imported, part
        used = {n.split(".")[3] for n in imported if n.startswith(prefix + ".")}
        assert used <= set(parts[:depth]), (part, used - set(parts[:depth]))


def _module_graph() -> dict[str, set[str]]:
    """Every module of `lablang.sim` (a package's parts by their dotted names below it) and
    the modules of `lablang.sim` it imports, at any depth (in functions and under
    `TYPE_CHECKING` too: a type-only import still makes the modules know each other)."""
    modules: dict[str, Path] = {}
    for path in SIM.rglob("*.py"):
        parts = path.relative_to(SIM).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    modules["__init__"] = modules.pop("")
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for imported in _targets(node, modules):
                if imported != name:
                    targets.add(imported)
        graph[name] = targets
    return graph


def _targets(node: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The `lablang.sim` modules one import statement imports: `from lablang.sim import
    model` imports `model`, `from lablang.sim import load_tasks` the package itself
    (`__init__`), and `import lablang.sim.x` or `from lablang.sim.x import y` imports `x`."""
    if isinstance(node, ast.ImportFrom) and node.module:
        if node.module == "lablang.sim":
            return {a.name if a.name in modules else "__init__" for a in node.names}
        below = node.module.removeprefix("lablang.sim.")
        if node.module.startswith("lablang.sim.") and below in modules:
            inner = {f"{below}.{a.name}" for a in node.names} & set(modules)
            return inner or {below}
    elif isinstance(node, ast.Import):
        return {a.name.removeprefix("lablang.sim.") for a in node.names} & set(modules)
    return set()


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_in_lablang_sim() -> None:
    """No two modules of `lablang.sim` import each other, directly or through others (the
    runtime's robots and journal read it through `rig.Rig`; certify and suite run their
    instances through `instances`)."""
    assert _circles(_module_graph()) == []


def test_the_circle_check_finds_a_circle() -> None:
    """The check reports a circle through three modules and none in a chain."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_module_graph_sees_type_only_lazy_and_package_imports() -> None:
    """`robots.base` knows `rig` (a `TYPE_CHECKING` import), `suite` knows `env` (an import
    inside a function), and the package knows `gym_env` (its `make_env` imports it)."""
    graph = _module_graph()
    assert "rig" in graph["robots.base"] and "env" in graph["suite"]
    assert "gym_env" in graph["__init__"] and "__init__" not in graph["gym_env"]
