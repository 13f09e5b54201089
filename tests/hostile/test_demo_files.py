"""A demonstration file (HDF5) is checked before it is used: dataset shapes against the file
and the episode length, `env_args` as bounded JSON, the seed as an integer in range; each a
`ValueError` naming the part, never a 2 GB read, a RecursionError or the simulator's error.

`replay` has no command of its own, so each file is replayed by `python -c` in a child held
by prlimit to 60 s of CPU and 1 GB of address space (the 640 KB file declaring 40M x 6
actions once took 2.1 GB and then stepped until killed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.bounded import ROOT

h5py = pytest.importorskip("h5py")

ENV_ARGS = json.dumps({"env_name": "t", "env_kwargs": {"robot": "panda", "action_mode": "joint"}})
SCRIPT = """
import sys
from lablang.sim import load_tasks
from lablang.sim.demos import replay
tasks, _ = load_tasks("examples/tasks/move_tube.lab")
try:
    replay(sys.argv[1], 0, next(iter(tasks.values())))
except ValueError as error:
    print("refused:", error)
    sys.exit(3)
"""


def _replay(path: Path) -> tuple[int, str]:
    done = subprocess.run(
        ["prlimit", "--cpu=60", f"--as={1024 * 1024 * 1024}", "--",
         sys.executable, "-c", SCRIPT, str(path)],
        capture_output=True, text=True, cwd=ROOT, check=False, timeout=600,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done.returncode, done.stdout.strip()


def _demo(path: Path, env_args: str = ENV_ARGS, seed: object = 3, **actions: object) -> Path:
    with h5py.File(path, "w") as f:
        data = f.create_group("data")
        data.attrs["env_args"] = env_args
        demo = data.create_group("demo_0")
        demo.attrs["seed"] = seed
        if actions:
            demo.create_dataset("actions", **actions)
        else:
            demo.create_dataset("actions", data=[[0.0] * 6] * 4)
    return path


def test_a_declared_shape_larger_than_the_file_is_refused_unread(tmp_path: Path) -> None:
    """Compressed, never-written 40M x 6 actions in a small file: refused by shape."""
    path = _demo(
        tmp_path / "huge.hdf5",
        shape=(40_000_000, 6), dtype="f8", chunks=(4096, 6), compression="gzip",
    )  # fmt: skip
    assert path.stat().st_size < 1_000_000
    code, out = _replay(path)
    assert code == 3, out
    assert out.startswith("refused: `demo_0/actions` has 40000000 rows, more than `MAX_DEMO_TICKS`")


def test_unallocated_storage_within_the_tick_bound_is_refused(tmp_path: Path) -> None:
    """800k x 6 declared (within the tick bound) with nothing stored: refused by the file."""
    path = _demo(tmp_path / "empty.hdf5", shape=(800_000, 6), dtype="f8", chunks=(4096, 6))
    code, out = _replay(path)
    assert code == 3, out
    assert "refused: `demo_0/actions` declares shape (800000, 6) (38400000 bytes)" in out


def test_deep_env_args_are_a_located_error(tmp_path: Path) -> None:
    """`env_args` nested 100,000 deep is refused by the bounded JSON reader, naming it."""
    path = _demo(tmp_path / "deep.hdf5", env_args="[" * 100_000 + "]" * 100_000)
    code, out = _replay(path)
    assert code == 3, out
    assert out.startswith("refused: `data.attrs[env_args]`")


@pytest.mark.parametrize("seed", [-1, 2**40])
def test_a_seed_out_of_range_is_a_located_error(tmp_path: Path, seed: int) -> None:
    """A negative or huge seed names the demonstration and the range, before any simulation."""
    code, out = _replay(_demo(tmp_path / "seed.hdf5", seed=seed))
    assert code == 3, out
    assert out == (
        f"refused: the seed of `demo_0` is {seed}; a seed is an integer from 0 to 4294967295"
    )


@pytest.mark.parametrize("seed", [-1, 2**40, 1.5, True])
def test_the_environments_refuse_a_bad_seed_with_one_message(seed: object) -> None:
    """`TaskEnv.reset` and `LabEnv.reset` refuse a negative, huge or non-integer seed with
    the same ValueError (it was Gymnasium's or numpy's own error, or accepted)."""
    pytest.importorskip("gymnasium")
    from lablang.sim import load_tasks
    from lablang.sim.env import TaskEnv
    from lablang.sim.gym_env import LabEnv

    tasks, _ = load_tasks(str(ROOT / "examples" / "tasks" / "move_tube.lab"))
    task = next(iter(tasks.values()))
    message = f"the seed is {seed!r}; a seed is an integer from 0 to 4294967295"
    for env in (TaskEnv(task), LabEnv(task)):
        with pytest.raises(ValueError) as refused:
            env.reset(seed=seed)  # type: ignore[arg-type]
        assert str(refused.value) == message
        env.close()


def test_a_deep_bookkeeping_row_is_a_located_error() -> None:
    """A bookkeeping row nested 100,000 deep names the row and the depth limit."""
    from lablang.sim.demos import operations_per_tick

    with pytest.raises(ValueError, match=r"^bookkeeping row 1 is not JSON: nests arrays"):
        operations_per_tick(['[0, "weld", 1]', "[" * 100_000 + "]" * 100_000], 3)
