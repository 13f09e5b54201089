"""Expert demonstrations as robomimic HDF5, written and read with h5py.

`write_demos(task, episodes, out)` runs the task's expert program on `episodes`
randomized instances (the seeds of `lablang certify` with the same base seed), labels
each by replaying its actions in `LabEnv` (`label_demo`: it ends at the tick the
environment terminates, with the environment's rewards, terminations and truncations)
and writes `OUT/<task>_demo.hdf5`:

```
data                      attrs: total, env_args (JSON, robomimic's gym metadata), task,
                          task_hash, robot, action_mode, cameras, steps, object_names,
                          certificate (JSON)
data/demo_<i>             attrs: num_samples, seed, success, credit, trace_digest,
                          replay_exact, clipped_ticks, held_ticks, bindings (JSON)
  actions      (T, A)     float64, in the environment's action space (`action_mode`)
  rewards      (T,)       float64: what `LabEnv.step` returned (1 per step passed)
  dones        (T,)       int8: terminated or truncated; terminated, truncated (T,) bool
  step_success (T, S)     bool: which steps have passed after each tick
  states       (T, N)     float64: MuJoCo's integration state before each tick
  bookkeeping  (E,)       UTF-8 JSON rows `[tick, op, args...]`: the skills' bookkeeping
                          operations (`lablang.sim.bookkeeping`) made before that tick
  obs/proprio  (T, J)     the robot's joint positions;   obs/tcp (T, 3)
  obs/objects  (T, 7K)    each free object's position and quaternion (object_names order)
  obs/<camera>_image (T, H, W, 3) uint8, only with cameras
  next_obs/...            the same keys: the observation after each action
mask/train, mask/valid    demo names (bytes): a seeded split (`split_masks`)
```

Each observation is taken before the tick whose action follows it (robomimic's
convention). The certificate is computed from these very episodes, so its trace
digests are theirs. Replaying a demonstration in `lablang.sim.gym_env.LabEnv` (same
seed, robot and action mode; `replay`) reproduces its trajectory, rewards and dones bit
for bit, for every task (`replay_exact` says the labelling replay matched the recording):
the recorder applies each command through the same function the environment uses, and
before each action the replay applies that tick's bookkeeping operations (contents moved
by `pour` or `aspirate`, tips, caps, lids carried by a constraint, the weld assist's
grasps) through the same runtime methods the skills called, in an environment whose own
weld assist is off (the recorded welds replace it). The action and the operations are
the stream a replay follows; a policy acts by actions alone. `record_demos` is where
every writer starts (`lablang.sim.minari_dataset` writes the same demonstrations for
Minari).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from attrs import define, evolve, field, frozen

from lablang.sim.assets import FINGER_MAX
from lablang.sim.bookkeeping import MAX_OPS_PER_TICK, to_json
from lablang.sim.build import compile_scene
from lablang.sim.cameras import CAMERAS
from lablang.sim.catalog import ASSET_KINDS, MAX_EPISODE_TIME
from lablang.sim.certify import InstanceOutcome, certificate_of, instance_seeds, task_hash
from lablang.sim.env import apply_action, hold_action
from lablang.sim.episode import EpisodeResult, EpisodeRunner
from lablang.sim.model import Task
from lablang.sim.progress import progress
from lablang.sim.runtime import Runtime

MAX_EPISODES = 1000
NAMESPACE = "lablang"  # the Gymnasium namespace `gym_env.register_tasks` registers tasks in
GYM_TYPE = 2  # robomimic's `EnvType.GYM_TYPE` (robomimic/envs/env_base.py)
# a demonstration is at most MAX_EPISODE_TIME long, at one 2 ms physics step per tick
MAX_DEMO_TICKS = int(MAX_EPISODE_TIME / 0.002)
MAX_ENV_ARGS_BYTES = 65536
# how much larger a dataset may be than its stored data (gzip inflates at most ~1032x)
MAX_INFLATION = 1100
MAX_INFLATION_SLACK = 65536
MAX_IMAGE_SIDE = 512
MAX_DEMO_BYTES = 16 * 1024**3  # bytes of one demonstration file `replay` opens
MAX_DEMO_OBJECTS = 100_000  # groups, datasets and links of one file walked for links out


class DemoFileError(ValueError):
    """A demonstration file that is refused before anything of it is used (the message
    says why: not a regular file, too big, or storage or links outside the file)."""


@define
class Recording:
    """One episode's per-tick arrays (see the module docstring)."""

    result: EpisodeResult | None = None
    actions: list[np.ndarray] = field(factory=list)
    states: list[np.ndarray] = field(factory=list)
    proprio: list[np.ndarray] = field(factory=list)
    tcp: list[np.ndarray] = field(factory=list)
    objects: list[np.ndarray] = field(factory=list)
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
        object_names: Sequence[str],
    ) -> None:
        from lablang.sim.gym_env import DELTA_SCALE, opening_to_grip

        self.rt = rt
        self.mode = action_mode
        self.recording = Recording()
        self.object_bodies = [rt.body_ids[name] for name in object_names]
        self.joint_qpos = [int(rt.model.joint(j).qposadr[0]) for j in rt.robot.joints]
        arm = rt.robot.joints[:-2]
        self.arm = len(arm)
        # the environment's joint-action bounds (`LabEnv`): the arm's ranges, the fingers'
        self.joint_low = np.array([rt.model.joint(j).range[0] for j in arm] + [0.0])
        self.joint_high = np.array([rt.model.joint(j).range[1] for j in arm] + [FINGER_MAX])
        self.clipped = 0  # ticks whose command an action could not express (|delta| > 1)
        self.applied = rt.cmd.copy()  # the command the last tick ran with
        self.scale = DELTA_SCALE
        self.opening_to_grip = opening_to_grip

    def before_tick(self, rt: Runtime) -> None:
        from lablang.sim.gym_env import action_target

        d, rec = rt.data, self.recording
        rec.bookkeeping.append([to_json(op, args) for op, args in rt.journal or ()])
        rt.journal = []
        rec.states.append(integration_state(rt))
        rec.proprio.append(d.qpos[self.joint_qpos].copy())
        rec.tcp.append(rt.tcp().copy())
        rec.objects.append(
            np.concatenate([np.concatenate([d.xpos[b], d.xquat[b]]) for b in self.object_bodies])
            if self.object_bodies
            else np.zeros(0)
        )
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


def object_names(task: Task) -> tuple[str, ...]:
    return tuple(e.name for e in task.scene.entities if ASSET_KINDS[e.asset].role == "object")


def record_demo(task: Task, seed: int, action_mode: str = "ee_delta") -> Recording:
    """Run the expert program once (instance `seed`) and record every tick."""
    rng = np.random.default_rng(seed)
    rt = RecordingRuntime(compile_scene(task.scene, rng))
    runner = EpisodeRunner(task, seed, runtime=rt)  # resets (settles) the runtime
    recorder = Recorder(rt, action_mode, object_names(task))
    rt.recorder = recorder
    rt.journal = []  # the skills' bookkeeping, from here on
    try:
        runner.run()
        result = runner.finish()
    finally:
        rt.recorder = None
        rt.journal = None
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


@frozen(eq=False)  # numpy arrays: compared by the tests, field by field
class Demo:
    """One demonstration as the environment labels it: the expert's recording cut at the
    tick `LabEnv` terminates, and per tick what the environment returned for its action."""

    seed: int
    recording: Recording  # cut to `ticks` ticks
    obs: dict[str, np.ndarray]  # per key, the `ticks + 1` observations (the last: after)
    env_obs: list[dict[str, Any]]  # the same `ticks + 1` observations as `LabEnv` gave them
    rewards: np.ndarray
    terminated: np.ndarray  # bool, as `LabEnv.step` returned it
    truncated: np.ndarray  # bool, as `LabEnv.step` returned it
    step_success: np.ndarray
    replay_exact: bool  # the environment's observations are the recording's, bit for bit
    # ticks after the expert stopped, held still until the environment ended the episode
    held_ticks: int = 0

    @property
    def ticks(self) -> int:
        return len(self.rewards)

    @property
    def success(self) -> bool:
        """The expert succeeded, which includes the environment's own judge terminating its
        run (`EpisodeResult.succeeded`); a replay that matched ends `terminated` with it."""
        assert self.recording.result is not None
        return bool(self.ticks and self.terminated[-1]) and self.recording.result.succeeded


def replay_steps(
    env: Any, seed: int, actions: Any, per_tick: dict[int, list[Any]]
) -> Iterator[tuple[dict[str, Any], float, bool, bool, dict[str, Any]]]:
    """Reset `env` to `seed`, then step it through `actions`, applying each tick's
    bookkeeping operations before its action; yields the reset's observation (with reward
    0) and then each step's `(obs, reward, terminated, truncated, info)`, stopping at the
    tick the environment terminates or truncates. Writing and replaying share it."""
    obs, info = env.reset(seed=seed)
    yield obs, 0.0, False, False, info
    for tick, action in enumerate(actions):
        if tick in per_tick:
            env.apply_bookkeeping(per_tick[tick])
        step = env.step(action)
        yield step
        if step[2] or step[3]:
            return


def flat_observation(
    obs: dict[str, Any], names: Sequence[str], cameras: Sequence[str]
) -> dict[str, np.ndarray]:
    """A `LabEnv` observation as the file's `obs/<key>` rows: proprio, tcp, the objects'
    poses in `names` order, and `<camera>_image` for each camera."""
    flat = {
        "proprio": obs["proprio"],
        "tcp": obs["tcp"],
        "objects": np.concatenate([obs["objects"][n] for n in names]) if names else np.zeros(0),
    }
    for camera in cameras:
        flat[f"{camera}_image"] = obs["images"][camera]
    return flat


def label_demo(
    task: Task,
    seed: int,
    recording: Recording,
    action_mode: str,
    cameras: Sequence[str] = (),
    image_size: tuple[int, int] = (128, 128),
    max_seconds: float | None = None,
) -> Demo:
    """The recording replayed in `LabEnv` (its weld assist off, the recorded operations
    applied): the environment's rewards, terminations and observations label it, and it
    ends where the environment ends the episode (one definition of success for both:
    `lablang.sim.success`). If the expert stopped first (it failed), the demonstration
    goes on with the action that holds the hand still (`hold_after`) until the
    environment itself terminates or truncates (its time limit, `max_seconds`: LabEnv's
    default unless given), so every label is one the environment gives."""
    from lablang.sim.gym_env import MAX_SECONDS, LabEnv

    env = LabEnv(
        task,
        action_mode=action_mode,
        cameras=cameras,
        image_size=image_size,
        weld_assist=False,
        max_seconds=MAX_SECONDS if max_seconds is None else max_seconds,
    )
    names = env.object_names
    per_tick = {t: ops for t, ops in enumerate(recording.bookkeeping) if ops}
    frames: list[dict[str, np.ndarray]] = []
    raw: list[dict[str, Any]] = []
    rewards, terminated, truncated, success = [], [], [], []
    steps = [s.name for s in task.steps]
    held: list[np.ndarray] = []  # the hold actions after the expert stopped
    held_states: list[np.ndarray] = []  # MuJoCo's state before each of them
    held_times: list[float] = []  # simulated time after each of them

    def label(k: int, step: tuple[Any, float, bool, bool, dict[str, Any]]) -> None:
        obs, reward, term, trunc, info = step
        frames.append(flat_observation(obs, names, cameras))
        raw.append(obs)
        if k:
            rewards.append(reward)
            terminated.append(term)
            truncated.append(trunc)
            success.append([info["step_success"][s] for s in steps])

    try:
        for k, step in enumerate(replay_steps(env, seed, recording.actions, per_tick)):
            label(k, step)
        if recording.actions and not (terminated and (terminated[-1] or truncated[-1])):
            # the expert stopped before the environment ended the episode
            hold = hold_after(recording.actions[-1], action_mode)
            while not (terminated and (terminated[-1] or truncated[-1])):
                held_states.append(integration_state(env.rt))
                held.append(hold)
                label(len(rewards) + 1, env.step(hold))
                held_times.append(env.rt.time)
    finally:
        env.close()
    ticks = len(rewards)
    recorded = ticks - len(held)
    cut = _cut(recording, recorded)
    if held:
        cut = evolve(
            cut,
            actions=[*cut.actions, *held],
            states=[*cut.states, *held_states],
            proprio=[*cut.proprio, *(f["proprio"] for f in frames[recorded:ticks])],
            tcp=[*cut.tcp, *(f["tcp"] for f in frames[recorded:ticks])],
            objects=[*cut.objects, *(f["objects"] for f in frames[recorded:ticks])],
            times=[*cut.times, *held_times],
            bookkeeping=[*cut.bookkeeping, *([] for _ in held)],
        )
    obs_arrays = {key: np.array([f[key] for f in frames]) for key in frames[0]}
    exact = all(
        np.array_equal(
            obs_arrays[key][:recorded],
            np.array(getattr(recording, key)[:recorded]).reshape(recorded, -1),
        )
        for key in ("proprio", "tcp", "objects")
    )
    return Demo(
        seed,
        cut,
        obs_arrays,
        raw,
        np.array(rewards, dtype=np.float64),
        np.array(terminated, dtype=bool),
        np.array(truncated, dtype=bool),
        np.array(success, dtype=bool).reshape(ticks, len(steps)),
        exact,
        len(held),
    )


def hold_after(action: np.ndarray, action_mode: str) -> np.ndarray:
    """The action that holds the hand where `action` left it: the same absolute target in
    `ee_pose` and `joint` modes, no motion (and the same grip) in `ee_delta`.

    >>> hold_after(np.array([0.5, -0.2, 0.0, 0.0, 0.1, 1.0]), "ee_delta").tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    """
    hold = np.array(action, dtype=np.float64)
    if action_mode == "ee_delta":
        hold[:-1] = 0.0
    return hold


def integration_state(rt: Runtime) -> np.ndarray:
    """MuJoCo's integration state of a runtime now (a demonstration's `states` row)."""
    kind = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.empty(mujoco.mj_stateSize(rt.model, kind))
    mujoco.mj_getState(rt.model, rt.data, state, kind)
    return state


def _cut(recording: Recording, ticks: int) -> Recording:
    return evolve(
        recording,
        actions=recording.actions[:ticks],
        states=recording.states[:ticks],
        proprio=recording.proprio[:ticks],
        tcp=recording.tcp[:ticks],
        objects=recording.objects[:ticks],
        times=recording.times[:ticks],
        bookkeeping=recording.bookkeeping[:ticks],
    )


def record_demos(
    task: Task,
    episodes: int,
    seed: int = 0,
    action_mode: str = "ee_delta",
    cameras: Sequence[str] = (),
    image_size: tuple[int, int] = (128, 128),
    show_progress: bool = False,
) -> tuple[list[Demo], dict[str, Any]]:
    """Record and label `episodes` expert demonstrations (the seeds `certify` would run
    from `seed`); returns them and the certificate of these very episodes. Every writer
    (`write_demos`, `lablang.sim.minari_dataset.write_minari`) starts here."""
    _check_options(episodes, action_mode, cameras, image_size)
    seeds = instance_seeds(seed, episodes)
    demos: list[Demo] = []
    for instance in progress(seeds, episodes, f"demos {task.name}", show_progress):
        recording = record_demo(task, instance, action_mode)
        demos.append(label_demo(task, instance, recording, action_mode, cameras, image_size))
    outcomes: list[Any] = [
        InstanceOutcome(d.seed, d.recording.result, work=d.recording.result.work)
        for d in demos
        if d.recording.result
    ]
    return demos, certificate_of(task, seed, seeds, outcomes)


def env_args(
    task: Task, action_mode: str, cameras: Sequence[str], image_size: tuple[int, int], source: str
) -> dict[str, Any]:
    """`data.attrs["env_args"]` as robomimic reads it (`EnvBase.serialize`): the Gymnasium
    id `register_tasks` registers, robomimic's `EnvType.GYM_TYPE` and `gym.make`'s kwargs;
    `source`, the task file's absolute path, is what to pass `register_tasks` first."""
    return {
        "env_name": f"{NAMESPACE}/{task.name}",
        "type": GYM_TYPE,
        "source": str(Path(source).resolve()) if source else "",
        "env_kwargs": {
            "robot": task.scene.robot,
            "action_mode": action_mode,
            "cameras": list(cameras),
            "image_size": list(image_size),
        },
    }


def split_masks(count: int, valid_fraction: float, seed: int) -> dict[str, list[str]]:
    """robomimic's filter keys: a seeded split of `demo_0..` into `train` and `valid`
    (`round(valid_fraction * count)` demonstrations in `valid`).

    >>> split_masks(4, 0.5, 0)
    {'train': ['demo_1', 'demo_3'], 'valid': ['demo_0', 'demo_2']}
    """
    if not 0.0 <= valid_fraction <= 1.0:
        raise ValueError(f"--valid-fraction must be from 0 to 1, not {valid_fraction}")
    order = np.random.default_rng(seed).permutation(count)
    valid = sorted(int(i) for i in order[: round(valid_fraction * count)])
    train = sorted(set(range(count)) - set(valid))
    return {"train": [f"demo_{i}" for i in train], "valid": [f"demo_{i}" for i in valid]}


def write_demos(
    task: Task,
    episodes: int,
    out: str | Path,
    *,
    seed: int = 0,
    action_mode: str = "ee_delta",
    cameras: Sequence[str] = (),
    image_size: tuple[int, int] = (128, 128),
    valid_fraction: float = 0.1,
    source: str = "",
    show_progress: bool = False,
    name: str = "",
) -> tuple[Path, dict[str, Any]]:
    """Record `episodes` expert demonstrations and write them (atomically) as
    `out/<name>_demo.hdf5` (`name` defaults to the task's); returns the file and the
    episodes' certificate."""
    import h5py

    masks = split_masks(episodes, valid_fraction, seed)
    demos, certificate = record_demos(
        task, episodes, seed, action_mode, cameras, image_size, show_progress
    )
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name or task.name}_demo.hdf5"
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    steps = [s.name for s in task.steps]
    try:
        # libver "latest": robomimic's reader opens the file with swmr=True
        with h5py.File(partial, "w", libver="latest") as f:
            data = f.create_group("data")
            args = env_args(task, action_mode, cameras, image_size, source)
            data.attrs["env_args"] = json.dumps(args, sort_keys=True)
            data.attrs["task"] = task.name
            data.attrs["task_hash"] = task_hash(task)
            data.attrs["robot"] = task.scene.robot
            data.attrs["action_mode"] = action_mode
            data.attrs["cameras"] = json.dumps(list(cameras))
            data.attrs["steps"] = json.dumps(steps)
            data.attrs["object_names"] = json.dumps(list(object_names(task)))
            data.attrs["certificate"] = json.dumps(certificate, sort_keys=True)
            total = 0
            for i, demo in enumerate(demos):
                total += _write_demo(data.create_group(f"demo_{i}"), demo)
            data.attrs["total"] = total
            for key, names in masks.items():
                f.create_dataset(f"mask/{key}", data=np.array(names, dtype="S"))
        os.replace(partial, path)
    finally:
        if partial.exists():
            partial.unlink()
    return path, certificate


def _write_demo(group: Any, demo: Demo) -> int:
    import h5py

    result, rec, ticks = demo.recording.result, demo.recording, demo.ticks
    assert result is not None
    group.attrs["num_samples"] = ticks
    group.attrs["seed"] = demo.seed
    group.attrs["success"] = demo.success
    group.attrs["credit"] = float(result.credit)
    group.attrs["trace_digest"] = result.trace_digest
    group.attrs["replay_exact"] = demo.replay_exact
    group.attrs["clipped_ticks"] = rec.clipped
    group.attrs["held_ticks"] = demo.held_ticks  # held still after the expert stopped
    group.attrs["bindings"] = json.dumps(dict(result.bindings), sort_keys=True)
    group.create_dataset("actions", data=np.array(rec.actions).reshape(ticks, -1))
    group.create_dataset("rewards", data=demo.rewards)
    group.create_dataset("dones", data=(demo.terminated | demo.truncated).astype(np.int8))
    group.create_dataset("terminated", data=demo.terminated)
    group.create_dataset("truncated", data=demo.truncated)
    group.create_dataset("step_success", data=demo.step_success)
    group.create_dataset("states", data=np.array(rec.states))
    operations = [json.dumps([tick, *op]) for tick, ops in enumerate(rec.bookkeeping) for op in ops]
    group.create_dataset(
        "bookkeeping", data=np.array(operations, dtype=object), dtype=h5py.string_dtype()
    )
    for part, frames in (("obs", slice(0, ticks)), ("next_obs", slice(1, ticks + 1))):
        obs = group.create_group(part)
        for key, values in demo.obs.items():
            images = key.endswith("_image")
            obs.create_dataset(key, data=values[frames], compression="gzip" if images else None)
    return ticks


def replay(path: str | Path, demo: int, task: Task) -> dict[str, np.ndarray]:
    """Replay demonstration `demo` of a file in a `LabEnv` (its seed, robot and action mode):
    the observed `proprio`, `tcp` and `objects` before each action, and the `rewards` and
    `dones` the environment returned, to compare with the file's.

    Before each action the tick's recorded bookkeeping operations are applied, in a
    `LabEnv` whose weld assist is off (the recorded welds take its place). A file without
    them (written before they were recorded) is replayed with the assist on."""
    import h5py

    from lablang.sim.gym_env import LabEnv
    from lablang.sim.robots import with_robot

    with open_demo_file(path) as f:
        data = f["data"]
        kwargs = env_kwargs(data.attrs["env_args"])
        group = data[f"demo_{demo}"]
        seed = demo_seed(group.attrs["seed"], demo)
        file_bytes = f.id.get_filesize()
        actions = read_dataset(group["actions"], f"demo_{demo}/actions", file_bytes, h5py)
        recorded = "bookkeeping" in group
        rows = (
            read_dataset(group["bookkeeping"], f"demo_{demo}/bookkeeping", file_bytes, h5py)
            if recorded
            else []
        )
    per_tick = operations_per_tick(rows, len(actions))
    env = LabEnv(
        with_robot(task, kwargs["robot"]),
        action_mode=kwargs["action_mode"],
        weld_assist=not recorded,
    )
    seen: dict[str, list[Any]] = {
        "proprio": [],
        "tcp": [],
        "objects": [],
        "rewards": [],
        "dones": [],
    }
    try:
        for k, (obs, reward, term, trunc, _) in enumerate(
            replay_steps(env, seed, actions, per_tick)
        ):
            if k:
                seen["rewards"].append(reward)
                seen["dones"].append(int(term or trunc))
            if k < len(actions):
                for key, value in flat_observation(obs, env.object_names, ()).items():
                    seen[key].append(value)
    finally:
        env.close()
    return {key: np.array(value) for key, value in seen.items()}


@contextlib.contextmanager
def open_demo_file(path: str | Path) -> Iterator[Any]:
    """The HDF5 file at `path`, opened for reading by the guarded opener (a regular file,
    at most `MAX_DEMO_BYTES`; h5py reads the very descriptor that was checked) and
    refused with `DemoFileError` if any dataset keeps its data in other files (external
    storage, virtual datasets) or any link leads into another file (external links)."""
    import h5py

    from lablang.guarded import Refused, open_guarded

    try:
        handle = open_guarded(path, None, max_bytes=MAX_DEMO_BYTES, limit="MAX_DEMO_BYTES")
    except Refused as refused:
        raise DemoFileError(refused.message) from None
    with handle:
        try:
            f = h5py.File(handle, "r")
        except OSError as error:
            raise DemoFileError(f"`{Path(path).name}` is not an HDF5 file: {error}") from None
        with f:
            outside = _outside_the_file(f, h5py)
            if outside:
                raise DemoFileError(f"`{Path(path).name}` refers outside itself: {outside}")
            yield f


def _outside_the_file(root: Any, h5py: Any) -> str | None:
    """The first object of the file whose data or link lies in another file, or None."""
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[Any] = set()
    walked = 0
    while stack:
        group, where = stack.pop()
        for name in group:  # the names of the links, followed by none of them yet
            walked += 1
            if walked > MAX_DEMO_OBJECTS:
                return f"more than {MAX_DEMO_OBJECTS} objects (the limit is `MAX_DEMO_OBJECTS`)"
            here = f"{where}/{name}"
            link = group.get(name, getlink=True)
            if isinstance(link, h5py.ExternalLink):
                return f"`{here}` is an external link to `{link.filename}`"
            if isinstance(link, h5py.SoftLink):
                continue  # a path inside this file, walked where it points
            item = group.get(name)
            if isinstance(item, h5py.Dataset):
                if item.external:
                    return f"dataset `{here}` stores its data in `{item.external[0][0]}`"
                if item.is_virtual:
                    return f"dataset `{here}` is virtual (its data is in other files)"
            elif isinstance(item, h5py.Group) and item not in seen:
                seen.add(item)
                stack.append((item, here))
    return None


def env_kwargs(attribute: Any) -> dict[str, Any]:
    """`data.attrs["env_args"]` of a demonstration file (untrusted): at most
    `MAX_ENV_ARGS_BYTES` of JSON, nested at most as deep as the JSON reader allows, with
    `env_kwargs.robot` and `env_kwargs.action_mode` strings; else `ValueError` naming it."""
    from lablang.datafile import DataFileError, load_json

    where = "`data.attrs[env_args]`"
    text = attribute.decode("utf-8", "replace") if isinstance(attribute, bytes) else attribute
    if not isinstance(text, str):
        raise ValueError(f"{where} is not a JSON string")
    if len(text) > MAX_ENV_ARGS_BYTES:
        raise ValueError(f"{where} is longer than {MAX_ENV_ARGS_BYTES} characters")
    try:
        args = load_json(text, "env_args")
    except DataFileError as error:  # deep nesting, bad JSON: located by the reader
        raise ValueError(f"{where}: {error}") from None
    kwargs = args.get("env_kwargs") if isinstance(args, dict) else None
    if not isinstance(kwargs, dict) or not all(
        isinstance(kwargs.get(key), str) for key in ("robot", "action_mode")
    ):
        raise ValueError(f"{where} has no `env_kwargs` with `robot` and `action_mode` strings")
    return kwargs


def demo_seed(attribute: Any, demo: int) -> int:
    """A demonstration's `seed` attribute (`checked_seed`), else `ValueError` naming it."""
    from lablang.sim.env import checked_seed

    return checked_seed(attribute, f"the seed of `demo_{demo}`")


def read_dataset(dataset: Any, where: str, file_bytes: int, h5py: Any) -> Any:
    """A dataset's values, read only when its declared shape fits the file: at most
    `MAX_DEMO_TICKS` rows, and no more bytes than its stored data can hold (a compressed or
    unallocated dataset of 640 KB once declared 40M x 6 actions: 2.1 GB read, then
    stepped until killed); else `ValueError` naming it and its shape."""
    shape = dataset.shape or ()
    rows = shape[0] if shape else 1
    if rows > MAX_DEMO_TICKS:
        raise ValueError(
            f"`{where}` has {rows} rows, more than `MAX_DEMO_TICKS` ({MAX_DEMO_TICKS})"
        )
    variable = h5py.check_string_dtype(dataset.dtype) or h5py.check_vlen_dtype(dataset.dtype)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    # a variable-length element's data lives in the file's heap: at least a byte each
    declared = count if variable else count * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if declared > file_bytes or (
        not variable and declared > stored * MAX_INFLATION + MAX_INFLATION_SLACK
    ):
        raise ValueError(
            f"`{where}` declares shape {tuple(shape)} ({declared} bytes) but the file holds "
            f"{stored} bytes of it ({file_bytes} in all)"
        )
    return dataset[()]


def operations_per_tick(rows: Any, ticks: int) -> dict[int, list[Any]]:
    """A file's bookkeeping rows (each `[tick, op, args...]` as JSON; untrusted), by tick:
    rows that are not JSON, ticks out of order or past the actions, or more operations
    than `MAX_OPS_PER_TICK` per tick raise `ValueError`."""
    if len(rows) > MAX_OPS_PER_TICK * max(ticks, 1):
        raise ValueError(f"{len(rows)} bookkeeping operations for {ticks} ticks")
    from lablang.datafile import DataFileError, load_json

    per_tick: dict[int, list[Any]] = {}
    last = 0
    for k, row in enumerate(rows):
        try:  # the bounded JSON reader: a row nested 100,000 deep is refused, not a crash
            entry = load_json(row.decode() if isinstance(row, bytes) else row)
        except (ValueError, AttributeError, TypeError, DataFileError) as err:
            raise ValueError(f"bookkeeping row {k} is not JSON: {err}") from None
        if not (isinstance(entry, list) and len(entry) >= 2 and type(entry[0]) is int):
            raise ValueError(f"bookkeeping row {k} is not `[tick, op, args...]`")
        tick = entry[0]
        if not last <= tick < ticks:
            raise ValueError(f"bookkeeping row {k}: tick {tick} is out of order or range")
        last = tick
        per_tick.setdefault(tick, []).append(entry[1:])
    return per_tick
