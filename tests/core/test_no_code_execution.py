"""No code path of the package runs text as code: `.lab` files and data files are untrusted."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lablang"
BUILTINS = {"eval", "exec", "compile", "__import__"}


def _calls(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in BUILTINS:
            found.append((node.lineno, node.func.id))
        # `x.eval(...)` reads like Python's eval even when it is a library's method
        # (z3's `ModelRef.eval`): the project calls the `evaluate` spelling instead
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("eval", "exec"):
            found.append((node.lineno, f".{node.func.attr}"))
    return found


def test_the_package_calls_no_eval_exec_or_compile() -> None:
    """No module calls the eval/exec/compile builtins or a method spelled `.eval`/`.exec`."""
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, name in _calls(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == []


def test_the_scan_finds_an_eval_call() -> None:
    """The scan is not blind: a builtin eval and a `.eval` method call are both found."""
    assert _calls(ast.parse("eval('1')\nmodel.eval(x)\nmodel.evaluate(x)\n")) == [
        (1, "eval"),
        (2, ".eval"),
    ]
