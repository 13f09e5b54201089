"""The README's two commands and CI's script stay in step."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", quick, re.S)]


def test_readme_quick_start_gives_exactly_two_commands() -> None:
    """The quick start has one install-and-run command and one test command."""
    commands = _readme_commands()
    assert len(commands) == 2, commands
    assert commands[0].startswith("pip install . && lablang ")
    assert "python -m pytest" in commands[1]


def test_ci_runs_the_readme_test_command_in_a_fresh_venv() -> None:
    """`.ci/run` creates a new virtual environment, activates it and runs the README's test command verbatim."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    venv_at = next(i for i, line in enumerate(lines) if line.startswith("python3 -m venv "))
    activate_at = next(i for i, line in enumerate(lines) if line.endswith('/bin/activate"'))
    test_command = _readme_commands()[1]
    assert test_command in lines
    assert venv_at < activate_at < lines.index(test_command)


def test_ci_fails_when_any_part_of_the_readme_test_command_fails() -> None:
    """`.ci/run` exits non-zero when a step before the last of the README's `&&` chain fails
    (which `set -e` alone lets pass): the command with its first step made to fail, run with
    the script's own status check after it, stops the script."""
    import subprocess

    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    at = lines.index(_readme_commands()[1])
    check = next(line for line in lines[at + 1 :] if line and not line.startswith("#"))
    assert check.startswith("status=$?"), f"no status check after the README's command: {check}"
    failing = "false && true && true"
    run = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{failing}\n{check}\necho reached"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0 and "reached" not in run.stdout, (check, run.stdout)


def test_test_extras_list_the_wheel_build_requirements() -> None:
    """The `test` extra (with the `test-core` it includes) names every build requirement
    (hatchling, the pinned lark) that `pip wheel --no-build-isolation` needs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    assert "lablang[test-core]" in extras["test"]
    for requirement in project["build-system"]["requires"]:
        assert requirement in extras["test"] + extras["test-core"], requirement


def test_the_core_tests_ci_runs_on_every_python_exist_and_are_collected() -> None:
    """Each path of conftest.py's CORE exists and lies under a path that `.ci/run`'s
    `pytest -m core` line collects, so no core test silently drops out of those jobs."""
    from conftest import CORE

    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (collected,) = re.findall(r"python -m pytest -m core ([^)&|]+)", script)
    folders = [f"{folder.rstrip('/')}/" for folder in collected.split()]
    for path in CORE:
        assert (ROOT / path).exists(), f"conftest.py's CORE names a missing {path}"
        assert any(path.startswith(folder) for folder in folders), (path, folders)
