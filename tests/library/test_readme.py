"""The commands of examples/README.md work as the tour says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ._data import EXAMPLES, ROOT, needs_data

README = (EXAMPLES / "README.md").read_text()


def commands() -> list[str]:
    """The tour's shell commands in order, except those that change the repository
    (`scripts/`), run the tests, or read a here-document."""
    found = re.findall(r"^\$ (.*?)[ \t]*(?:# [^\n]*)?$", README, re.M)
    skip = ("python scripts/", "python -m pytest", "python - ")
    return [c for c in found if not c.startswith(skip)]


def test_readme_commands_run_in_order(tmp_path: Path) -> None:
    """Each command of the tour runs (with /tmp replaced by a scratch folder); the check of
    the deliberately wrong file exits 1 with E0404, every other command exits 0."""
    cmds = commands()
    assert len(cmds) >= 10
    python = sys.executable
    for command in cmds:
        line = command.replace("/tmp/", f"{tmp_path}/").replace("python -m", f"{python} -m")
        done = subprocess.run(
            ["bash", "-c", line], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        if "wrong.lab" in command and " check " in command:
            # diagnostics go to stderr, as in every verb
            assert done.returncode == 1 and "E0404" in done.stderr, (command, done.stderr)
        else:
            assert done.returncode == 0, (command, done.stdout[-500:], done.stderr[-500:])


@needs_data
def test_readme_scoring_snippet_prints_one() -> None:
    """The tour's scoring snippet prints 1.0 for the Drop-seq answer."""
    snippet = re.search(r"python - <<'EOF'\n(.*?)\nEOF\n1\.0", README, re.S)
    assert snippet is not None
    done = subprocess.run(
        [sys.executable, "-c", snippet.group(1)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.strip() == "1.0", done.stderr


def test_examples_answers_and_stdlib_are_in_canonical_layout() -> None:
    """`lablang fmt --check` leaves every example, answer and stdlib module as it is."""
    files = sorted(
        [*EXAMPLES.glob("*.lab"), *(EXAMPLES / "answers").glob("*.lab"), *ROOT.glob("stdlib/*.lab")]
    )
    assert len(files) >= 20
    done = subprocess.run(
        [sys.executable, "-m", "lablang", "fmt", "--check", *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
