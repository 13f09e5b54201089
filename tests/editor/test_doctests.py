"""The examples in the editor modules' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = [
    "lablang.lsp.analysis",
    "lablang.lsp.complete",
    "lablang.lsp.hover",
    "lablang.lsp.incremental",
    "lablang.lsp.navigate",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples_pass(name: str):
    """Every doctest in the module passes (and there is at least one)."""
    result = doctest.testmod(importlib.import_module(name), verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_llguidance_grammar_script_examples_pass():
    """The derivation script's doctest passes."""
    spec = importlib.util.spec_from_file_location(
        "llguidance_grammar", ROOT / "examples" / "agent" / "llguidance_grammar.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
