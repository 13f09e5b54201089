"""Every example in docs/contracts.md works as shown."""

from __future__ import annotations

import os
import re
import shlex

import pytest
from click.testing import CliRunner

from lablang.cli import main
from tests.contracts.loading import ROOT, compile_text

DOC = (ROOT / "docs" / "contracts.md").read_text("utf-8")
BLOCKS = re.findall(r"(<!-- golden: (\S+) -->\n)?```(\w+)\n(.*?)```", DOC, re.S)


def blocks(kind: str) -> list[str]:
    return [body for _, _, lang, body in BLOCKS if lang == kind]


@pytest.mark.parametrize("body", blocks("lab"))
def test_lab_examples_compile(body: str) -> None:
    """Each `lab` example compiles without diagnostics and matches its file in examples/."""
    contracts, report = compile_text(body)
    assert not list(report), [d.message for d in report]
    assert contracts
    files = [p.read_text("utf-8") for p in (ROOT / "examples" / "contracts").glob("*.lab")]
    assert body in files


@pytest.mark.parametrize("body", blocks("python"))
def test_python_examples_run(body: str) -> None:
    """Each `python` example runs (its asserts hold) from the repository root."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(body, "docs/contracts.md", "exec"), {})  # the doc is ours, not user input
    finally:
        os.chdir(cwd)


def _sessions() -> list[tuple[str, str]]:
    result = []
    for body in blocks("console"):
        for chunk in body.split("$ ")[1:]:
            command, _, output = chunk.partition("\n")
            result.append((command, output))
    return result


@pytest.mark.parametrize(("command", "output"), _sessions())
def test_console_examples_print_what_is_shown(command: str, output: str) -> None:
    """Each `$ lablang ...` example prints exactly the output shown under it."""
    args = shlex.split(command)
    assert args[0] == "lablang"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, args[1:])
    finally:
        os.chdir(cwd)
    assert result.output == output


@pytest.mark.parametrize(("path", "body"), [(p, b) for _, p, lang, b in BLOCKS if p])
def test_golden_excerpts_are_current(path: str, body: str) -> None:
    """A counterexample quoted in the docs is the current golden file."""
    assert body == (ROOT / path).read_text("utf-8")
