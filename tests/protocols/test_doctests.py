"""The examples in the docstrings of the protocol and rubric modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "lablang.protocols.quantities",
    "lablang.protocols.model",
    "lablang.protocols.checks",
    "lablang.protocols.diff",
    "lablang.protocols.task",
    "lablang.rubrics.model",
    "lablang.rubrics.evaluate",
    "lablang.rubrics.grading",
    "lablang.rubrics.prompts",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    """Every docstring example of the module passes (and each module has at least one)."""
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
