"""Every example task's demonstrations, with both robots, replayed to exactly their labels.

For each example task (examples/tasks/) and robot (gantry, Panda), `write_demos` records
`--episodes` expert demonstrations (no images) and each is replayed from the file in
`LabEnv` (`lablang.sim.demos.replay`): the replay must give bit-identical observations
(proprio, tcp, objects) and exactly the file's `rewards` and `dones`, the environment
terminating on the demonstration's last tick. Prints one line per task and robot (ticks,
seconds) and the totals; exits 1 if any demonstration does not replay exactly.

CI runs one demonstration of every task with the gantry and of four with the Panda
(tests/sim/test_demos.py); this is the full sweep. `--smoke`: `move_tube` only, both
robots, one demonstration (tests/core/test_benchmarks.py runs it).

Run: `python benchmarks/demo_replay.py [--episodes N]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from lablang.sim import load_tasks
from lablang.sim.demos import replay, write_demos
from lablang.sim.robots import with_robot

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("proprio", "tcp", "objects", "rewards", "dones")


def sweep(name: str, robot: str, episodes: int, folder: Path) -> tuple[int, int, int, float]:
    """(demonstrations, exact replays, ticks, seconds) of one task with one robot."""
    tasks, _ = load_tasks(ROOT / "examples" / "tasks" / f"{name}.lab")
    task = next(iter(tasks.values()))
    t0 = time.perf_counter()
    path, _ = write_demos(with_robot(task, robot), episodes, folder, cameras=())
    exact = ticks = 0
    for demo in range(episodes):
        with h5py.File(path, "r") as f:
            group = f[f"data/demo_{demo}"]
            recorded = {k: group["obs"][k][()] for k in KEYS[:3]}
            recorded |= {k: group[k][()] for k in KEYS[3:]}
            terminated = bool(group["terminated"][()][-1])
        replayed = replay(path, demo, task)
        ticks += len(recorded["rewards"])
        exact += terminated and all(np.array_equal(replayed[k], recorded[k]) for k in KEYS)
    return episodes, exact, ticks, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="move_tube only, one episode")
    args = parser.parse_args()
    names = sorted(p.stem for p in (ROOT / "examples" / "tasks").glob("*.lab"))
    if args.smoke:
        names, args.episodes = ["move_tube"], 1
    total = exact = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            for robot in ("gantry", "panda"):
                count, ok, ticks, seconds = sweep(name, robot, args.episodes, Path(scratch))
                total, exact = total + count, exact + ok
                print(f"{name:24} {robot:6}: {ok}/{count} exact, {ticks} ticks, {seconds:.1f} s")
    print(f"replayed exactly, rewards and dones included: {exact} of {total} demonstrations")
    sys.exit(0 if exact == total else 1)


if __name__ == "__main__":
    main()
