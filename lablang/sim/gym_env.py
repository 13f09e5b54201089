"""Gymnasium environments for lablang tasks: spaces, action modes, cameras, registration.

`LabEnv` is a `gymnasium.Env` around the task environment of `lablang.sim.env` (which
keeps the Labference records, the step success and the role bindings in `info`):

- `observation_space` is a `Dict`: `proprio` (the robot's joint positions), `tcp` (the
  tool centre point), `objects` (a `Dict` of each free object's position and quaternion)
  and, with `cameras=`, `images` (a `Dict` of RGB frames, uint8, `image_size`).
- `action_mode` picks the `action_space`:
  - `"ee_delta"` (what VLA policies emit): `Box(-1, 1, (6,))`, a change of the commanded
    hand pose per 20 ms tick, `[dx, dy, dz]` x 2 cm and `[dyaw, dtilt]` x 0.1 rad, then
    the gripper (+1 closed, -1 open). The hand has 5 degrees of freedom on both robots
    (x, y, z, yaw about the vertical, tilt about the finger axis): no pitch.
  - `"ee_pose"`: the absolute hand target `[x, y, z, yaw, tilt, grip]` (grip: the fingers'
    half-opening in metres), as `lablang.sim.env.TaskEnv` takes it.
  - `"joint"`: joint position targets of the arm (the Panda's 7 joints; the gantry's 5
    axes) and the fingers' half-opening; they bypass the inverse kinematics.
- `reset(seed=...)` draws the randomized instance from the seed (the same seed gives the
  same instance, bit for bit); `render()` with `render_mode="rgb_array"` returns the
  `front` camera at `render_size`.

`register_tasks(path)` registers every task of a `.lab` file (or a folder of them) as
`lablang/<task>`, so `gymnasium.make("lablang/<task>", robot="panda", ...)` builds it;
importing this module registers the example tasks of a source checkout, so
`gymnasium.make("lablang.sim.gym_env:lablang/move_tube")` works without a call.
(Gymnasium 1.x reads no plugin entry points, so registration is by import or call.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "lablang's Gymnasium environments need `gymnasium`, which is not installed; "
        "install lablang's `robot` extra: pip install 'lablang[robot]'"
    ) from err

from lablang.sim.assets import FINGER_MAX
from lablang.sim.build import compile_scene
from lablang.sim.cameras import CAMERAS, CameraRig
from lablang.sim.catalog import ASSET_KINDS, LABEL_MAX
from lablang.sim.env import ACTION_HIGH, ACTION_LOW, TaskEnv, checked_seed
from lablang.sim.model import Task, reads
from lablang.sim.robots import robot_named, with_robot

ACTION_MODES = ("ee_delta", "ee_pose", "joint")
DELTA_SCALE = np.array([0.02, 0.02, 0.02, 0.1, 0.1])  # per tick at |action| = 1: m, m, m, rad, rad
NAMESPACE = "lablang"
WORLD = 3.0  # m: positions stay within the floor's extent (the floor plane is 6 m wide)
DISPLAY_LIMIT = 1000.0  # g: a scale's display shows -999.9 .. 999.9 g
_FLAG = (np.array([-DISPLAY_LIMIT, 0.0]), np.array([DISPLAY_LIMIT, 1.0]))
_TWO = (np.array([-DISPLAY_LIMIT] * 2), np.array([DISPLAY_LIMIT] * 2))
# each instrument's `evidence` key and its bounds: a scale's display (g) and whether it
# has been stable for 3 s (0 or 1); a hot plate's or thermal block's thermometer and set
# temperature (C); a timer's count (s) and whether it runs (0 or 1); a labelled tube's
# label (its characters' code points, 0 after its end)
EVIDENCE_BOUNDS = {
    "scale": _FLAG,
    "stirrer": _TWO,
    "thermal_block": _TWO,
    "timer": _FLAG,
    "label": (np.zeros(LABEL_MAX), np.full(LABEL_MAX, 127.0)),
}
JOINT_MARGIN = 0.5  # m or rad beyond a joint's range still inside the observation space

__all__ = ["ACTION_MODES", "LabEnv", "make_gym_env", "register_tasks"]


MAX_SECONDS = 120.0  # the episode's time limit: `truncated` once it has passed


def grip_to_opening(grip: float) -> float:
    """The fingers' half-opening for a gripper action (+1 closed, -1 open).

    >>> grip_to_opening(1.0), grip_to_opening(-1.0)
    (0.0, 0.04)
    """
    return (1.0 - min(1.0, max(-1.0, grip))) / 2.0 * FINGER_MAX


def opening_to_grip(opening: float) -> float:
    """The gripper action whose half-opening is `opening` (the inverse of `grip_to_opening`)."""
    return 1.0 - 2.0 * opening / FINGER_MAX


def action_target(
    mode: str, hold: np.ndarray, action: np.ndarray, joint_low: np.ndarray, joint_high: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """The absolute hand target (and, in `joint` mode, the arm's joint targets) that an
    action of `mode` asks for, from the hand target `hold` commanded now."""
    if mode == "ee_pose":
        return action, None
    if mode == "ee_delta":
        step = np.clip(action, -1.0, 1.0)
        target = hold.copy()
        target[:5] = hold[:5] + step[:5] * DELTA_SCALE
        target[5] = grip_to_opening(float(step[5]))
        return target, None
    joints = np.clip(action, joint_low, joint_high)
    target = hold.copy()
    target[5] = joints[-1]
    return target, joints[:-1]


class LabEnv(gymnasium.Env[dict[str, Any], np.ndarray]):
    """One lablang task as a Gymnasium environment (see the module docstring)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        task: Task,
        *,
        robot: str | None = None,
        action_mode: str = "ee_pose",
        cameras: Sequence[str] = (),
        image_size: tuple[int, int] = (128, 128),
        render_mode: str | None = None,
        render_size: tuple[int, int] = (480, 640),
        max_seconds: float = MAX_SECONDS,
        weld_assist: bool = True,
    ) -> None:
        if action_mode not in ACTION_MODES:
            raise ValueError(
                f"unknown action mode `{action_mode}` (known: {', '.join(ACTION_MODES)})"
            )
        for camera in cameras:
            if camera not in CAMERAS:
                raise ValueError(f"unknown camera `{camera}` (known: {', '.join(CAMERAS)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be `rgb_array` or None, not `{render_mode}`")
        task = with_robot(task, robot)
        self.action_mode = action_mode
        self.cameras = tuple(cameras)
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.render_mode = render_mode
        self.render_size = (int(render_size[0]), int(render_size[1]))
        self.core = TaskEnv(task, max_seconds=max_seconds, weld_assist=weld_assist)
        self.robot = robot_named(task.scene.robot)
        self.object_names = tuple(
            e.name for e in task.scene.entities if ASSET_KINDS[e.asset].role == "object"
        )
        self.fixture_names = tuple(
            e.name
            for e in task.scene.entities
            if ASSET_KINDS[e.asset].role != "object" and e.asset != "table"
        )
        # the instruments whose display is evidence, by asset (`EVIDENCE_BOUNDS`)
        # and that the instruction says the agent reads (`model.reads`)
        self.evidence_names = {
            e.name: "label" if e.param("label", "") else e.asset
            for e in task.scene.entities
            if (e.asset in EVIDENCE_BOUNDS or e.param("label", "")) and reads(task, e.name)
        }
        # the scene compiled once for what the spaces need (the joints' ranges)
        probe = compile_scene(task.scene, np.random.default_rng(0)).model
        arm = self.robot.joints[:-2]
        self._joint_low = np.array([probe.joint(j).range[0] for j in arm] + [0.0])
        self._joint_high = np.array([probe.joint(j).range[1] for j in arm] + [FINGER_MAX])
        # joints may pass their limits a little (soft limits): the bounds leave room
        joints = self.robot.joints
        proprio_low = np.array([probe.joint(j).range[0] for j in joints]) - JOINT_MARGIN
        proprio_high = np.array([probe.joint(j).range[1] for j in joints]) + JOINT_MARGIN
        pose_low = np.array([-WORLD] * 3 + [-1.0] * 4)
        observation: dict[str, spaces.Space[Any]] = {
            "proprio": spaces.Box(proprio_low, proprio_high, dtype=np.float64),
            "tcp": spaces.Box(-WORLD, WORLD, shape=(3,), dtype=np.float64),
            "objects": spaces.Dict(
                {
                    name: spaces.Box(pose_low, -pose_low, dtype=np.float64)
                    for name in self.object_names
                }
            ),
        }
        if self.fixture_names:  # (Gymnasium refuses an empty Dict space)
            observation["fixtures"] = spaces.Dict(
                {
                    name: spaces.Box(pose_low, -pose_low, dtype=np.float64)
                    for name in self.fixture_names
                }
            )
        if self.evidence_names:
            observation["evidence"] = spaces.Dict(
                {
                    name: spaces.Box(*EVIDENCE_BOUNDS[asset], dtype=np.float64)
                    for name, asset in self.evidence_names.items()
                }
            )
        if self.cameras:
            height, width = self.image_size
            observation["images"] = spaces.Dict(
                {
                    camera: spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
                    for camera in self.cameras
                }
            )
        self.observation_space = spaces.Dict(observation)
        self.action_space = self._action_space()
        self._rig: CameraRig | None = None
        self._view: CameraRig | None = None

    def _action_space(self) -> spaces.Box:
        if self.action_mode == "ee_delta":
            return spaces.Box(-1.0, 1.0, shape=(6,), dtype=np.float64)
        if self.action_mode == "ee_pose":
            return spaces.Box(ACTION_LOW.copy(), ACTION_HIGH.copy(), dtype=np.float64)
        return spaces.Box(self._joint_low.copy(), self._joint_high.copy(), dtype=np.float64)

    # ------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            seed = checked_seed(seed)
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        obs, info = self.core.reset(seed=seed)
        self._close_rigs()
        return self.observation(obs), info

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        target, joints = self.core_action(np.asarray(action, dtype=np.float64))
        obs, reward, terminated, truncated, info = self.core.step(target, joints=joints)
        return self.observation(obs), float(reward), terminated, truncated, info

    def core_action(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The task environment's absolute hand target (and joint targets) for an action."""
        return action_target(
            self.action_mode, self.core.hold_action(), action, self._joint_low, self._joint_high
        )

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self.core.rt is None:
            return None
        if self._view is None:
            self._view = CameraRig(self.core.rt.model, *self.render_size)
        return self._view.render(self.core.rt.data, "front")

    def close(self) -> None:
        self._close_rigs()
        self.core.close()

    # ------------------------------------------------------------ the task environment

    @property
    def task(self) -> Task:
        """The task, with its roles bound to this episode's entities after `reset`."""
        return self.core.task

    @property
    def rt(self) -> Any:
        """The running simulation (`lablang.sim.runtime.Runtime`) of the current episode."""
        return self.core.rt

    def hold_action(self) -> np.ndarray:
        """An `ee_pose` action that keeps the hand where it is commanded now."""
        return self.core.hold_action()

    def apply_bookkeeping(self, operations: list[Any]) -> None:
        """Apply a demonstration's bookkeeping operations for the next step (see
        `lablang.sim.demos.replay`; `TaskEnv.apply_bookkeeping`)."""
        self.core.apply_bookkeeping(operations)

    def record_lines(self) -> list[str]:
        """The episode's persistent records (as `lablang simulate --record` writes them)."""
        return self.core.record_lines()

    def score(self) -> dict[str, Any]:
        """The episode's Labference score so far (`lablang.sim.records.score`)."""
        return self.core.score()

    @property
    def events(self) -> list[Any]:
        return self.core.events

    # ------------------------------------------------------------ internals

    def observation(self, core: dict[str, Any]) -> dict[str, Any]:
        """This environment's observation of a task environment's (`TaskEnv`) one: what
        a policy trained here sees of what `lablang evaluate` gives it."""
        obs: dict[str, Any] = {
            "proprio": np.asarray(core["proprio"], dtype=np.float64),
            "tcp": np.asarray(core["tcp"], dtype=np.float64),
            "objects": {name: core["objects"][name] for name in self.object_names},
        }
        if self.fixture_names:
            obs["fixtures"] = {name: core["fixtures"][name] for name in self.fixture_names}
        if self.evidence_names:
            obs["evidence"] = {
                name: np.clip(core["evidence"][name], *EVIDENCE_BOUNDS[asset])
                for name, asset in self.evidence_names.items()
            }
        if self.cameras:
            rt = self.core.rt
            assert rt is not None
            if self._rig is None:
                self._rig = CameraRig(rt.model, *self.image_size)
            obs["images"] = {camera: self._rig.render(rt.data, camera) for camera in self.cameras}
        return obs

    def _close_rigs(self) -> None:
        for rig in (self._rig, self._view):
            if rig is not None:
                rig.close()
        self._rig = self._view = None


def make_gym_env(path: str, task: str | None = None, **options: Any) -> LabEnv:
    """The `LabEnv` of a task in a `.lab` file (the entry point of registered tasks)."""
    from lablang.sim.loading import load_tasks

    tasks, report = load_tasks(path)
    if report.has_errors or not tasks:
        raise ValueError(f"`{path}` has errors or no task; run `lablang check {path}`")
    if task is None:
        if len(tasks) != 1:
            raise ValueError(f"`{path}` declares several tasks; name one ({', '.join(tasks)})")
        task = next(iter(tasks))
    if task not in tasks:
        raise ValueError(f"no task `{task}` in `{path}`")
    return LabEnv(tasks[task], **options)


def register_tasks(path: str | Path, namespace: str = NAMESPACE) -> list[str]:
    """Register every task of a `.lab` file (or of every `.lab` file in a folder) with
    Gymnasium as `<namespace>/<task>`; returns the ids (already registered ones too)."""
    from lablang.sim.loading import load_tasks

    root = Path(path)
    files = sorted(root.glob("*.lab")) if root.is_dir() else [root]
    ids: list[str] = []
    for file in files:
        tasks, report = load_tasks(file)
        if report.has_errors:
            raise ValueError(f"`{file}` has errors; run `lablang check {file}`")
        for name in tasks:
            env_id = f"{namespace}/{name}"
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point="lablang.sim.gym_env:make_gym_env",
                    kwargs={"path": str(file), "task": name},
                )
            ids.append(env_id)
    return ids


_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks"
if _EXAMPLES.is_dir():  # a source checkout: its example tasks are registered on import
    register_tasks(_EXAMPLES)
