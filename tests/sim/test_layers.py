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


def _sim_imports(module: str) -> set[str]:
    tree = ast.parse((SIM / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("lablang.sim."):
                found.add(node.module.removeprefix("lablang.sim.").split(".")[0])
            elif node.module == "lablang.sim":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("lablang.sim."):
                    found.add(alias.name.removeprefix("lablang.sim.").split(".")[0])
    return found


def test_state_runtime_skills_predicates_import_only_downwards() -> None:
    """No module in the state -> runtime -> skills -> predicates chain imports one above it."""
    for depth, module in enumerate(LAYERS):
        above = set(LAYERS[depth + 1 :])
        assert not _sim_imports(module) & above, (module, _sim_imports(module) & above)


def test_the_layer_check_sees_imports_inside_functions() -> None:
    """The checker counts a lazy import in a function body (the form the old cycle took)."""
    assert "predicates" in _sim_imports("episode")
    assert "state" in _sim_imports("runtime")
