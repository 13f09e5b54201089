"""`--lab-root` adds `.lab` module roots to the simulation verbs; `--path`, its old name
that read like a Python path, still works with a deprecation warning."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from lablang.cli import main

SCENE = """module bench
scene s {
  rack: tube_rack(slots: 4) on table at (0.2 m, -0.1 m)
  tube: tube_1_5ml() in rack.slot[2]
}
"""
TASK = """use bench.{s}
task lift in s {
  instruction: "Lift the tube out of the rack."
  step grasp { do { pick(tube) } success: grasped(tube) }
}
"""


def _files(tmp_path: Path) -> tuple[str, str]:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "bench.lab").write_text(SCENE)
    task = tmp_path / "task.lab"
    task.write_text(TASK)
    return str(task), str(lib)


def _evaluate(task: str, *extra: str):  # type: ignore[no-untyped-def]
    args = ["evaluate", task, "--policy", "lablang.sim.policies:hold", "--episodes", "1",
            "--max-seconds", "0.2", "--no-progress", *extra]  # fmt: skip
    return CliRunner().invoke(main, args)


def test_lab_root_imports_modules_without_a_warning(tmp_path: Path) -> None:
    """`--lab-root DIR` finds the scene module the task imports; nothing is deprecated."""
    task, lib = _files(tmp_path)
    out = _evaluate(task, "--lab-root", lib)
    assert out.exit_code == 0, out.output
    assert "deprecated" not in out.output


def test_path_still_works_and_says_it_is_deprecated(tmp_path: Path) -> None:
    """`--path DIR` gives the same roots and warns that it is for `.lab` modules, not
    Python, naming `--lab-root`."""
    task, lib = _files(tmp_path)
    out = _evaluate(task, "--path", lib)
    assert out.exit_code == 0, out.output
    assert "`lablang evaluate --path` is deprecated" in out.output
    assert "PYTHONPATH" in out.output and "--lab-root" in out.output


def test_without_the_root_the_import_is_a_diagnostic(tmp_path: Path) -> None:
    """Without a root the imported module is not found: exit 1 with a diagnostic."""
    task, _lib = _files(tmp_path)
    out = _evaluate(task)
    assert out.exit_code == 1
