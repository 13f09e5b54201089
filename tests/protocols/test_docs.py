"""docs/protocols.md: every `lab`, `console` and `python` example on the page works as shown."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from lablang.cli import main
from lablang.driver import check_text

ROOT = Path(__file__).parents[2]
PAGE = (ROOT / "docs" / "protocols.md").read_text()
BLOCKS = re.findall(r"```(lab|console|python)\n(.*?)```", PAGE, flags=re.S)


def _blocks(kind: str) -> list[str]:
    return [body for k, body in BLOCKS if k == kind]


def test_the_page_has_examples_of_each_kind():
    """The page shows .lab, console and Python examples (and so this test covers them)."""
    assert [len(_blocks(k)) for k in ("lab", "console", "python")] >= [5, 4, 2]


@pytest.mark.parametrize("body", _blocks("lab"))
def test_lab_examples_check_as_annotated(body):
    """A `lab` example checks clean, or yields exactly the codes of its `# expect:` line."""
    first = body.splitlines()[0]
    expected = (
        first.removeprefix("# expect:").replace(",", " ").split()
        if first.startswith("# expect:")
        else []
    )
    assert [d.code for d in check_text(body).report] == expected


@pytest.mark.parametrize("body", _blocks("console"))
def test_console_examples_print_what_the_page_shows(body, monkeypatch):
    """Each `$ lablang ...` command exits as documented (0; `diff` 1 when the protocols
    differ) and prints exactly the lines that follow it."""
    monkeypatch.chdir(ROOT)
    lines = body.rstrip("\n").split("\n")
    assert lines[0].startswith("$ lablang ")
    args = shlex.split(lines[0])[2:]
    result = CliRunner().invoke(main, args)
    differs = args[0] == "diff" and "--task" not in args
    assert result.exit_code == (1 if differs else 0), result.output
    if lines[1:]:
        assert result.stdout.rstrip("\n").split("\n") == lines[1:]


@pytest.mark.parametrize("body", _blocks("python"))
def test_python_examples_run(body, monkeypatch):
    """Each `python` example runs (its asserts hold) from the repository root."""
    assert "assert " in body  # the example states what it shows
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    exec(compile(body, "docs/protocols.md", "exec"), namespace)  # our own docs, not user input
