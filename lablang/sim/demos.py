"""Expert demonstrations as robomimic/LIBERO-style HDF5, written and read with h5py.

`write_demos(task, episodes, out)` runs the task's expert program on `episodes`
randomized instances (the seeds of `lablang certify` with the same base seed) and writes
`OUT/<task>_demo.hdf5`:

```
data                      attrs: total, env_args (JSON), task, task_hash, robot,
                          action_mode, cameras, steps, object_names, certificate (JSON)
data/demo_<i>             attrs: num_samples, seed, success, credit, trace_digest,
                          replay_exact, clipped_ticks, bindings (JSON)
  actions      (T, A)     float64, in the environment's action space (`action_mode`)
  rewards      (T,)       float64: 1 on the tick a step's success spec first holds
  dones        (T,)       int8: 1 on the last tick
  step_success (T, S)     bool: which steps have passed after each tick
  states       (T, N)     float64: MuJoCo's integration state before each tick
  bookkeeping  (E,)       UTF-8 JSON rows `[tick, op, args...]`: the skills' bookkeeping
                          operations (`lablang.sim.bookkeeping`) made before that tick
  obs/proprio  (T, J)     the robot's joint positions;   obs/tcp (T, 3)
  obs/objects  (T, 7K)    each free object's position and quaternion (object_names order)
  obs/<camera>_image (T, H, W, 3) uint8, e.g. front_image, wrist_image
```

Each observation is taken before the tick whose action follows it (robomimic's
convention). The certificate is computed from these very episodes, so its trace
digests are theirs. Replaying a demonstration in `lablang.sim.gym_env.LabEnv` (same
seed, robot and action mode; `replay`) reproduces its trajectory bit for bit, for every
task (`replay_exact` is true): the recorder applies each command through the same
function the environment uses, and before each action the replay applies that tick's
bookkeeping operations (contents moved by `pour` or `aspirate`, tips, caps, lids carried
by a constraint, the weld assist's grasps) through the same runtime methods the skills
called, in an environment whose own weld assist is off (the recorded welds replace it).
The action and the operations are the stream a replay follows; a policy acts by actions
alone.

Why this format and not LeRobot's: h5py writes and reads it exactly (float64 states and
actions, uint8 images, attributes) with no further dependency, and robomimic and LIBERO
loaders read this layout; the `lerobot` package pulls torch and datasets, and its video
encoding is lossy, so a faithful read-back test would not hold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from attrs import define, field

from lablang.sim.assets import FINGER_MAX
from lablang.sim.bookkeeping import MAX_OPS_PER_TICK, to_json
from lablang.sim.build import compile_scene
from lablang.sim.cameras import CAMERAS, CameraRig
from lablang.sim.catalog import ASSET_KINDS
from lablang.sim.certify import InstanceOutcome, certificate_of, instance_seeds, task_hash
from lablang.sim.env import apply_action, hold_action
from lablang.sim.episode import EpisodeResult, EpisodeRunner
from lablang.sim.model import Task
from lablang.sim.progress import progress
from lablang.sim.runtime import Runtime

MAX_EPISODES = 1000
MAX_IMAGE_SIDE = 512


@define
class Recording:
    """One episode's per-tick arrays (see the module docstring)."""

    result: EpisodeResult | None = None
    actions: list[np.ndarray] = field(factory=list)
    states: list[np.ndarray] = field(factory=list)
    proprio: list[np.ndarray] = field(factory=list)
    tcp: list[np.ndarray] = field(factory=list)
    objects: list[np.ndarray] = field(factory=list)
    images: dict[str, list[np.ndarray]] = field(factory=dict)
    times: list[float] = field(factory=list)  # simulated time after each tick
    # per tick, the bookkeeping operations the skills made before it (`bookkeeping.to_json`)
    bookkeeping: list[list[list[Any]]] = field(factory=list)
    clipped: int = 0  # ticks whose command exceeded the ee_delta bounds (clipped)


class RecordingRuntime(Runtime):
    """A runtime that, once armed, records the observation and the action of every tick
    and applies each command the way the environment applies that action."""

    recorder: Recorder | None = None

    def tick(self) -> None:
        if self.recorder is not None:
            self.recorder.before_tick(self)
        super().tick()
        if self.recorder is not None:
            self.recorder.recording.times.append(self.time)


class Recorder:
    def __init__(
        self,
        rt: Runtime,
        action_mode: str,
        cameras: Sequence[str],
        image_size: tuple[int, int],
        object_names: Sequence[str],
    ) -> None:
        from lablang.sim.gym_env import DELTA_SCALE, opening_to_grip

        self.rt = rt
        self.mode = action_mode
        self.cameras = tuple(cameras)
        self.rig = CameraRig(rt.model, *image_size) if cameras else None
        self.recording = Recording(images={c: [] for c in self.cameras})
        self.object_bodies = [rt.body_ids[name] for name in object_names]
        self.joint_qpos = [int(rt.model.joint(j).qposadr[0]) for j in rt.robot.joints]
        arm = rt.robot.joints[:-2]
        self.arm = len(arm)
        # the environment's joint-action bounds (`LabEnv`): the arm's ranges, the fingers'
        self.joint_low = np.array([rt.model.joint(j).range[0] for j in arm] + [0.0])
        self.joint_high = np.array([rt.model.joint(j).range[1] for j in arm] + [FINGER_MAX])
        self.clipped = 0  # ticks whose command an action could not express (|delta| > 1)
        self.applied = rt.cmd.copy()  # the command the last tick ran with
        self.state_kind = mujoco.mjtState.mjSTATE_INTEGRATION
        self.scale = DELTA_SCALE
        self.opening_to_grip = opening_to_grip

    def before_tick(self, rt: Runtime) -> None:
        from lablang.sim.gym_env import action_target

        d, rec = rt.data, self.recording
        rec.bookkeeping.append([to_json(op, args) for op, args in rt.journal or ()])
        rt.journal = []
        state = np.empty(mujoco.mj_stateSize(rt.model, self.state_kind))
        mujoco.mj_getState(rt.model, d, state, self.state_kind)
        rec.states.append(state)
        rec.proprio.append(d.qpos[self.joint_qpos].copy())
        rec.tcp.append(rt.tcp().copy())
        rec.objects.append(
            np.concatenate([np.concatenate([d.xpos[b], d.xquat[b]]) for b in self.object_bodies])
            if self.object_bodies
            else np.zeros(0)
        )
        if self.rig is not None:
            for camera in self.cameras:
                rec.images[camera].append(self.rig.render(d, camera))
        # the skill's command for this tick, expressed as an action ...
        wanted, command = hold_action(rt), rt.cmd.copy()
        joints = None
        if self.mode == "joint":
            rt._robot.write()  # the arm's joint targets for this command
            joints = d.ctrl[: self.arm].copy()
            action = np.concatenate([joints, [wanted[5]]])
        rt.cmd[:] = self.applied
        before = hold_action(rt)
        if self.mode == "ee_pose":
            action = wanted
        elif self.mode == "ee_delta":
            action = np.concatenate(
                [(wanted[:5] - before[:5]) / self.scale, [self.opening_to_grip(wanted[5])]]
            )
        if self.mode == "ee_delta" and float(np.abs(action[:5]).max()) > 1.0:
            self.clipped += 1
        # ... applied as the environment applies that action (the same arithmetic)
        target, joints = action_target(self.mode, before, action, self.joint_low, self.joint_high)
        apply_action(rt, target, joints)
        if joints is not None:
            # the joints carry the arm; the hand command stays the skill's, which its
            # next tick continues from (it drives no servo while the joints are given)
            rt.cmd[:5] = command[:5]
        self.applied = rt.cmd.copy()
        rec.actions.append(np.asarray(action, dtype=np.float64))

    def close(self) -> None:
        if self.rig is not None:
            self.rig.close()


def object_names(task: Task) -> tuple[str, ...]:
    return tuple(e.name for e in task.scene.entities if ASSET_KINDS[e.asset].role == "object")


def record_demo(
    task: Task,
    seed: int,
    action_mode: str = "ee_delta",
    cameras: Sequence[str] = ("front", "wrist"),
    image_size: tuple[int, int] = (128, 128),
) -> Recording:
    """Run the expert program once (instance `seed`) and record every tick."""
    rng = np.random.default_rng(seed)
    rt = RecordingRuntime(compile_scene(task.scene, rng))
    runner = EpisodeRunner(task, seed, runtime=rt)  # resets (settles) the runtime
    recorder = Recorder(rt, action_mode, cameras, image_size, object_names(task))
    rt.recorder = recorder
    rt.journal = []  # the skills' bookkeeping, from here on
    try:
        runner.run()
        result = runner.finish()
    finally:
        rt.recorder = None
        rt.journal = None
        recorder.close()
    recording = recorder.recording
    recording.result = result
    recording.clipped = recorder.clipped
    return recording


def _check_options(
    episodes: int, action_mode: str, cameras: Sequence[str], image_size: tuple[int, int]
) -> None:
    from lablang.sim.gym_env import ACTION_MODES

    if not 1 <= episodes <= MAX_EPISODES:
        raise ValueError(f"--episodes must be 1..{MAX_EPISODES}, not {episodes}")
    if action_mode not in ACTION_MODES:
        raise ValueError(f"unknown action mode `{action_mode}` (known: {', '.join(ACTION_MODES)})")
    for camera in cameras:
        if camera not in CAMERAS:
            raise ValueError(f"unknown camera `{camera}` (known: {', '.join(CAMERAS)})")
    if not all(8 <= side <= MAX_IMAGE_SIDE for side in image_size):
        raise ValueError(f"image sides must be 8..{MAX_IMAGE_SIDE} pixels, not {image_size}")


def write_demos(
    task: Task,
    episodes: int,
    out: str | Path,
    *,
    seed: int = 0,
    action_mode: str = "ee_delta",
    cameras: Sequence[str] = ("front", "wrist"),
    image_size: tuple[int, int] = (128, 128),
    source: str = "",
    show_progress: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Record `episodes` expert demonstrations and write them (atomically) as
    `out/<task>_demo.hdf5`; returns the file and the episodes' certificate."""
    import h5py

    _check_options(episodes, action_mode, cameras, image_size)
    seeds = instance_seeds(seed, episodes)
    recordings: list[Recording] = []
    for instance in progress(seeds, episodes, f"demos {task.name}", show_progress):
        recordings.append(record_demo(task, instance, action_mode, cameras, image_size))
    outcomes: list[Any] = [
        InstanceOutcome(s, r.result, work=r.result.work)
        for s, r in zip(seeds, recordings, strict=True)
        if r.result
    ]
    certificate = certificate_of(task, seed, seeds, outcomes)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task.name}_demo.hdf5"
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    steps = [s.name for s in task.steps]
    names = object_names(task)
    try:
        with h5py.File(partial, "w") as f:
            data = f.create_group("data")
            env_kwargs = {
                "robot": task.scene.robot,
                "action_mode": action_mode,
                "cameras": list(cameras),
                "image_size": list(image_size),
            }
            data.attrs["env_args"] = json.dumps(
                {
                    "env_name": f"lablang/{task.name}",
                    "type": "lablang",
                    "source": source,
                    "env_kwargs": env_kwargs,
                },
                sort_keys=True,
            )
            data.attrs["task"] = task.name
            data.attrs["task_hash"] = task_hash(task)
            data.attrs["robot"] = task.scene.robot
            data.attrs["action_mode"] = action_mode
            data.attrs["cameras"] = json.dumps(list(cameras))
            data.attrs["steps"] = json.dumps(steps)
            data.attrs["object_names"] = json.dumps(list(names))
            data.attrs["certificate"] = json.dumps(certificate, sort_keys=True)
            total = 0
            for i, (instance, rec) in enumerate(zip(seeds, recordings, strict=True)):
                assert rec.result is not None
                total += _write_demo(data.create_group(f"demo_{i}"), instance, rec, steps)
            data.attrs["total"] = total
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
    return path, certificate


def _write_demo(group: Any, seed: int, rec: Recording, steps: list[str]) -> int:
    import h5py

    result = rec.result
    assert result is not None
    ticks = len(rec.actions)
    rewards = np.zeros(ticks)
    success = np.zeros((ticks, len(steps)), dtype=bool)
    times = np.array(rec.times)
    for k, step in enumerate(result.steps):
        if step.status == "passed":
            tick = int(np.argmin(np.abs(times - step.end))) if ticks else 0
            rewards[tick] += 1.0
            success[tick:, k] = True
    dones = np.zeros(ticks, dtype=np.int8)
    if ticks:
        dones[-1] = 1
    group.attrs["num_samples"] = ticks
    group.attrs["seed"] = seed
    group.attrs["success"] = bool(result.succeeded)
    group.attrs["credit"] = float(result.credit)
    group.attrs["trace_digest"] = result.trace_digest
    group.attrs["replay_exact"] = True  # with the bookkeeping operations below
    group.attrs["clipped_ticks"] = rec.clipped
    group.attrs["bindings"] = json.dumps(dict(result.bindings), sort_keys=True)
    group.create_dataset("actions", data=np.array(rec.actions))
    group.create_dataset("rewards", data=rewards)
    group.create_dataset("dones", data=dones)
    group.create_dataset("step_success", data=success)
    group.create_dataset("states", data=np.array(rec.states))
    operations = [json.dumps([tick, *op]) for tick, ops in enumerate(rec.bookkeeping) for op in ops]
    group.create_dataset(
        "bookkeeping", data=np.array(operations, dtype=object), dtype=h5py.string_dtype()
    )
    obs = group.create_group("obs")
    obs.create_dataset("proprio", data=np.array(rec.proprio))
    obs.create_dataset("tcp", data=np.array(rec.tcp))
    obs.create_dataset("objects", data=np.array(rec.objects))
    for camera, frames in rec.images.items():
        obs.create_dataset(
            f"{camera}_image", data=np.array(frames, dtype=np.uint8), compression="gzip"
        )
    return ticks


def replay(path: str | Path, demo: int, task: Task) -> dict[str, np.ndarray]:
    """Replay demonstration `demo` of a file in a `LabEnv` (its seed, robot and action mode):
    the observed `proprio`, `tcp` and `objects` before each action, as recorded.

    Before each action the tick's recorded bookkeeping operations are applied, in a
    `LabEnv` whose weld assist is off (the recorded welds take its place). A file without
    them (written before they were recorded) is replayed with the assist on."""
    import h5py

    from lablang.sim.gym_env import LabEnv
    from lablang.sim.robots import with_robot

    with h5py.File(path, "r") as f:
        data = f["data"]
        kwargs = json.loads(data.attrs["env_args"])["env_kwargs"]
        group = data[f"demo_{demo}"]
        seed = int(group.attrs["seed"])
        actions = group["actions"][()]
        recorded = "bookkeeping" in group
        rows = group["bookkeeping"][()] if recorded else []
    per_tick = operations_per_tick(rows, len(actions))
    env = LabEnv(
        with_robot(task, kwargs["robot"]),
        action_mode=kwargs["action_mode"],
        weld_assist=not recorded,
    )
    obs, _ = env.reset(seed=seed)
    names = env.object_names
    seen: dict[str, list[np.ndarray]] = {"proprio": [], "tcp": [], "objects": []}
    for tick, action in enumerate(actions):
        seen["proprio"].append(obs["proprio"])
        seen["tcp"].append(obs["tcp"])
        seen["objects"].append(
            np.concatenate([obs["objects"][n] for n in names]) if names else np.zeros(0)
        )
        if tick in per_tick:
            env.apply_bookkeeping(per_tick[tick])
        obs, *_ = env.step(action)
    env.close()
    return {key: np.array(value) for key, value in seen.items()}


def operations_per_tick(rows: Any, ticks: int) -> dict[int, list[Any]]:
    """A file's bookkeeping rows (each `[tick, op, args...]` as JSON; untrusted), by tick:
    rows that are not JSON, ticks out of order or past the actions, or more operations
    than `MAX_OPS_PER_TICK` per tick raise `ValueError`."""
    if len(rows) > MAX_OPS_PER_TICK * max(ticks, 1):
        raise ValueError(f"{len(rows)} bookkeeping operations for {ticks} ticks")
    per_tick: dict[int, list[Any]] = {}
    last = 0
    for k, row in enumerate(rows):
        try:
            entry = json.loads(row.decode() if isinstance(row, bytes) else row)
        except (ValueError, AttributeError, TypeError) as err:
            raise ValueError(f"bookkeeping row {k} is not JSON: {err}") from None
        if not (isinstance(entry, list) and len(entry) >= 2 and type(entry[0]) is int):
            raise ValueError(f"bookkeeping row {k} is not `[tick, op, args...]`")
        tick = entry[0]
        if not last <= tick < ticks:
            raise ValueError(f"bookkeeping row {k}: tick {tick} is out of order or range")
        last = tick
        per_tick.setdefault(tick, []).append(entry[1:])
    return per_tick
