"""The examples in the agent scripts' docstrings run and give what they show.

(The package's own doctests, lablang/lsp included, run through pytest's
`--doctest-modules`; examples/ is not on that path.)"""

from __future__ import annotations

import doctest
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
