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
    "skills": ("base", "handling", "instruments", "closures", "pouring", "mixing", "pipetting"),
    "assets": ("info", "parts", "display", "gripper", "fixtures", "objects", "pipettes"),
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
