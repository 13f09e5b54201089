"""The documentation's examples run and print what the documentation says."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

import lablang.scoring.aggregate
import lablang.scoring.lab
import lablang.scoring.matching
import lablang.scoring.normalize
import lablang.scoring.oligo_roles
import lablang.scoring.score
import lablang.scoring.similarity
import lablang.scoring.weights
from lablang.cli.scoring import score_command

DOC = Path("docs/scoring.md")


def test_python_examples_in_the_docs_run() -> None:
    """Every `>>>` example in docs/scoring.md gives the documented output."""
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


def test_console_examples_in_the_docs_print_what_they_show() -> None:
    """Each `$ lablang score ...` block prints exactly the lines shown under it."""
    blocks = re.findall(r"```console\n(.*?)```", DOC.read_text(), flags=re.S)
    assert blocks
    for block in blocks:
        command, *expected = block.rstrip("\n").split("\n")
        args = shlex.split(command.removeprefix("$ lablang score "))
        result = CliRunner().invoke(score_command, args)
        assert result.output.rstrip("\n").split("\n") == expected


@pytest.mark.parametrize(
    "module",
    [
        lablang.scoring.aggregate,
        lablang.scoring.lab,
        lablang.scoring.matching,
        lablang.scoring.normalize,
        lablang.scoring.oligo_roles,
        lablang.scoring.score,
        lablang.scoring.similarity,
        lablang.scoring.weights,
    ],
)
def test_docstring_examples_run(module: object) -> None:
    """The doctest examples in the public functions' docstrings pass."""
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0
