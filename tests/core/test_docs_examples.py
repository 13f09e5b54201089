"""Every documented `lablang` command runs: help `Example:` lines, README and docs/*.md.

Lines are discovered generically (any command's help, any Markdown file in docs/), so a
new command or document is covered without touching this file. Each example runs in a
temporary copy of the repository, where its outputs are written.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from lablang.cli import VERBS, main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Verbs whose exit status 1 reports a finding (protocols differ, a log is incorrect), the
# way `diff` and `git diff --exit-code` do, rather than a failure to run.
# verbs whose documented findings have their own exit codes: diff 1 (they differ); monitor
# 2 (an incorrect choice) and 3 (a violated invariant); certify 1 (not certified: the
# documented vacuous task of docs/sim.md); verify 1 (a violation: docs/contracts.md's lasso)
# and 3 (a claim only bounded by the depth)
FINDING_VERBS = {"diff": {0, 1}, "monitor": {0, 2, 3}, "certify": {0, 1}, "verify": {0, 1, 3}}
OUTPUT_OPTIONS = {"-o", "--output", "--out", "--record"}
INPUT_SUFFIXES = (".lab", ".json", ".jsonl", ".yaml", ".yml")


def help_examples() -> list[tuple[str, str]]:
    """(where, commands) for each `Example:` line of each command's help (continuations joined).

    `A && B` is one example run in order, so an example can first make the file it reads.
    """
    found = []
    for verb in sorted(VERBS):
        command = main.get_command(click.Context(main), verb)
        assert command is not None
        lines = (command.help or "").splitlines()
        for index, line in enumerate(lines):
            if not line.lstrip().startswith("Example:"):
                continue
            text = line.split("Example:", 1)[1].strip()
            indent = len(line) - len(line.lstrip())
            for follow in lines[index + 1 :]:
                if not follow.strip() or len(follow) - len(follow.lstrip()) <= indent:
                    break
                text += " " + follow.strip()
            quoted = re.match(r"`([^`]+)`", text)
            found.append((f"lablang {verb} --help", quoted.group(1) if quoted else text))
    return found


def document_examples() -> list[tuple[str, str]]:
    """(where, commands) for each `$ lablang ...` line and each sh block line naming `lablang`."""
    found = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        for tag, block in re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
            for line in block.splitlines():
                if line.startswith("$ lablang "):
                    found.append((name, line[2:]))
                elif tag in ("sh", "bash", "shell") and re.search(r"(^|&& )lablang ", line):
                    found.append((name, line.strip()))
    return found


EXAMPLES = help_examples() + document_examples()


def test_examples_are_found_in_help_and_documents() -> None:
    """Discovery finds examples in many commands' help and in the README and several docs."""
    sources = {where for where, _ in EXAMPLES}
    assert sum(where.endswith("--help") for where in sources) >= 10
    assert "README.md" in sources
    assert sum(where.startswith("docs/") for where in sources) >= 3


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository's files, so examples write their outputs there."""
    target = tmp_path_factory.mktemp("checkout") / "lablang"
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git", "node_modules", "__pycache__", "*.vsix", ".mypy_cache", ".ruff_cache"
        ),
        symlinks=True,
    )
    return target


def _input_paths(args: list[str]) -> list[str]:
    """Arguments that name an input file: a path with a known suffix, not an output option's value."""
    paths = []
    for previous, arg in zip(["", *args], args, strict=False):
        if previous in OUTPUT_OPTIONS or arg.startswith("-"):
            continue
        if arg.endswith(INPUT_SUFFIXES) and not arg.startswith("{"):
            paths.append(arg)
    return paths


@pytest.mark.parametrize(("where", "command"), EXAMPLES, ids=[f"{w}: {c}" for w, c in EXAMPLES])
def test_documented_example_runs(where: str, command: str, checkout: Path) -> None:
    """Each `lablang` command of an example names files that exist and runs without a usage error or crash."""
    steps = [part.strip() for part in command.split("&&")]
    for step in [s for s in steps if s.startswith("lablang ")]:
        _run(where, step, checkout)


def _run(where: str, command: str, checkout: Path) -> None:
    args = shlex.split(command, comments=True)
    assert args[0] == "lablang"
    assert args[1] in VERBS, f"{where}: no command `{args[1]}`"
    missing = [p for p in _input_paths(args[2:]) if not (checkout / p).exists()]
    assert not missing, f"{where}: `{command}` names missing files {missing}"
    # a process of its own, as a user runs it: no state (a Ray session, loggers) leaks
    # from one example into another or into the other tests
    done = subprocess.run(
        [sys.executable, "-m", "lablang", *args[1:]],
        cwd=checkout,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
        check=False,
    )
    allowed = FINDING_VERBS.get(args[1], {0})
    output = done.stdout + done.stderr
    assert "Traceback" not in done.stderr, f"{where}: `{command}` crashed:\n{done.stderr}"
    assert done.returncode in allowed, f"{where}: `{command}` exited {done.returncode}:\n{output}"
    assert "E0000" not in output


def _table_usages() -> list[str]:
    """Each `lablang VERB ...` code span in the README's command table."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    return [span.replace("\\|", "|") for span in re.findall(r"`(lablang [^`]+)`", table)]


@pytest.mark.parametrize("usage", _table_usages())
def test_command_table_names_real_options_and_choices(usage: str) -> None:
    """Every option the README's command table shows exists on its verb, with the choices shown."""
    words = usage.split()
    command = main.get_command(click.Context(main), words[1])
    assert command is not None, f"no command `{words[1]}`"
    options = {name: param for param in command.params for name in param.opts}
    for index, word in enumerate(words[2:], start=2):
        name = word.strip("[],")
        if not name.startswith("-") or name in ("-", "--"):
            continue
        assert name in options, f"`{usage}`: `{words[1]}` has no option `{name}`"
        value = words[index + 1].strip("[],") if index + 1 < len(words) else ""
        param_type = options[name].type
        if "|" in value and isinstance(param_type, click.Choice):
            assert set(value.split("|")) <= set(param_type.choices), usage
