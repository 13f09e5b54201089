"""The examples in the contracts package's docstrings run and show what they claim."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "lablang.contracts.model",
    "lablang.contracts.semantics",
    "lablang.contracts.checks",
    "lablang.contracts.front",
    "lablang.contracts.replay",
    "lablang.contracts.render",
    "lablang.contracts.observed",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_pass(name: str) -> None:
    """Every doctest in the module passes."""
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
