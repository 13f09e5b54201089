"""`lablang demos` on a suite: one demonstrations file per task and binding, the seeds
recorded in demos.json and in each file."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

h5py = pytest.importorskip("h5py")

from click.testing import CliRunner  # noqa: E402

from lablang.cli.demos import demos_command  # noqa: E402
from lablang.sim.certify import instance_seeds  # noqa: E402


def test_docs_suite_demos_command_writes_one_file_per_binding_with_its_seeds(tmp_path: Path):
    """docs/sim.md's suite `lablang demos` line, on the colleague scenario's family with
    `--bindings heldout`, writes one robomimic file named by file stem and task, and
    demos.json lists it with its binding, held-out and coordination flags and the seeds
    `certify` would run, which are also the seeds the file records."""
    doc = Path("docs/sim.md").read_text("utf-8")
    (line,) = re.findall(r"^\$ lablang (demos examples/suite/[^\n]*)$", doc, re.M)
    args = shlex.split(line)[1:]
    out = tmp_path / "demos"
    args[args.index("--out") + 1] = str(out)
    result = CliRunner().invoke(demos_command, [*args, "--seed", "3", "--no-progress"])
    assert result.exit_code == 0, result.output
    index = json.loads((out / "demos.json").read_text())
    (row,) = index["tasks"]
    name = "load_after_colleague-wide"
    assert sorted(p.name for p in out.iterdir()) == [
        "colleague_spin.load_after_colleague-wide_demo.hdf5",
        "demos.json",
    ]
    seeds = list(instance_seeds(3, 1))
    assert (row["task"], row["binding"], row["heldout"], row["coordination"]) == (
        name,
        "wide",
        True,
        True,
    )
    assert (row["seeds"], row["succeeded"], index["seed"]) == (seeds, 1, 3)
    with h5py.File(out / row["path"], "r") as f:
        assert f["data"].attrs["task"] == name
        assert json.loads(f["data"].attrs["certificate"])["seeds"] == seeds


def test_demos_of_a_suite_refuse_minari_for_two_tasks_of_one_name(tmp_path: Path) -> None:
    """Minari names a dataset by its task: a suite of two files declaring one task name is
    refused with a message (exit 2) before anything runs; robomimic files are named by file."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.lab").write_text(
            Path("examples/tasks/move_tube.lab").read_text("utf-8")
        )
    args = [str(tmp_path / "a.lab"), str(tmp_path / "b.lab"), "--format", "minari"]
    result = CliRunner().invoke(demos_command, [*args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "`move_tube`" in result.output, result.output
