"""The simulation modules form layers: state queries below the runtime, the runtime below
skills, skills below predicates; no module of a lower layer imports a higher one."""

from __future__ import annotations

import ast
from pathlib import Path

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


# the skill families, each importing only `base` and the families listed before it
SKILL_FAMILIES = ("base", "handling", "instruments", "closures", "pouring", "mixing", "pipetting")


def test_skill_families_import_downwards_and_never_the_package() -> None:
    """A skill family imports only `base` and earlier families, never `lablang.sim.skills`
    itself (the package gathers the families, so importing it from one is a cycle)."""
    package = SIM / "skills"
    assert {p.stem for p in package.glob("*.py")} == {"__init__", *SKILL_FAMILIES}
    for depth, family in enumerate(SKILL_FAMILIES):
        imported = _imported(package / f"{family}.py")
        assert "lablang.sim.skills" not in imported, family
        used = {n.split(".")[3] for n in imported if n.startswith("lablang.sim.skills.")}
        assert used <= set(SKILL_FAMILIES[:depth]), (family, used - set(SKILL_FAMILIES[:depth]))
