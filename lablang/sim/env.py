"""A policy interface in the Gymnasium convention: `reset()` and `step(action)`.

Observations: the gantry's joint positions (proprioception), the TCP position, every
free object's pose (position and quaternion), and optionally a camera image.
Actions: an end-effector target `[x, y, z, yaw, tilt, grip]` (metres, radians, and the
half-opening of the fingers in metres), applied for one 20 ms control tick.
The weld assist behaves as for the expert's skills: it engages only when both pads
touch an object while the fingers close, and lets go when they open.

`info` carries the index of the current step, which steps have passed (in order), and a
simulator fault if one happened. Rewards are 1 for each step that passes.

Partial: Labference event records (choice, execution, completion separately) are not
produced yet, and there is no `lablang evaluate` verb on top of this.

>>> from lablang.sim import load_tasks
>>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
>>> env = make_env(tasks["move_tube"])
>>> obs, info = env.reset(seed=0)
>>> sorted(obs), info["step"]
(['objects', 'proprio', 'tcp'], 'move')
>>> obs, reward, terminated, truncated, info = env.step(env.hold_action())
>>> reward, terminated, info["passed"]
(0.0, False, [])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lablang.sim.build import compile_scene
from lablang.sim.model import Task
from lablang.sim.predicates import Evaluator, SpecError
from lablang.sim.runtime import Runtime, SimFault

ACTION_LOW = np.array([-0.2, -0.5, 0.01, -3.1, -2.1, 0.0])
ACTION_HIGH = np.array([0.8, 0.5, 0.55, 3.1, 2.1, 0.04])


class TaskEnv:
    """One task as an environment; each `reset` draws a new randomized instance."""

    def __init__(
        self,
        task: Task,
        *,
        max_seconds: float = 120.0,
        camera: bool = False,
        weld_assist: bool = True,
    ) -> None:
        self.task = task
        self.max_seconds = max_seconds
        self.camera = camera
        self.weld_assist = weld_assist
        self.rt: Runtime | None = None
        self._renderer: Any = None
        self._evaluator: Evaluator | None = None
        self._step = 0
        self._passed: list[str] = []

    # ------------------------------------------------------------ gymnasium API

    def reset(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        seed = 0 if seed is None else seed
        built = compile_scene(self.task.scene, np.random.default_rng(seed))
        self.rt = Runtime(built, weld_assist=self.weld_assist)
        contents: dict[str, list[tuple[str, float, str]]] = {}
        for entity in self.task.scene.entities:
            for item in entity.contents:
                contents.setdefault(entity.name, []).append(
                    (item.substance, item.amount, item.kind)
                )
        self.rt.reset(contents)
        self._evaluator = Evaluator(self.rt)
        self._step = 0
        self._passed = []
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        return self._observation(), self._info(None)

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        rt = self.rt
        if rt is None or self._evaluator is None:
            raise RuntimeError("call reset() before step()")
        target = np.clip(np.asarray(action, dtype=float), ACTION_LOW, ACTION_HIGH)
        rt.set_tcp(target[:3])
        rt.cmd[3], rt.cmd[4] = target[3], target[4]
        rt.set_grip(float(target[5]))
        try:
            self._assist(float(target[5]))
            rt.tick()
        except SimFault as fault:
            info = self._info(f"{fault.kind}: {fault.detail}")
            return self._observation(), 0.0, True, False, info
        reward = 0.0
        steps = self.task.steps
        while self._step < len(steps):
            spec = steps[self._step].success
            try:
                holds = spec is None or self._evaluator.holds(spec)
            except SpecError:
                holds = False
            if not holds:
                break
            self._passed.append(steps[self._step].name)
            self._step += 1
            self._evaluator = Evaluator(rt)
            reward += 1.0
        terminated = self._step == len(steps)
        truncated = not terminated and rt.time >= self.max_seconds
        return self._observation(), reward, terminated, truncated, self._info(None)

    def hold_action(self) -> np.ndarray:
        """The action that keeps the gripper where it is commanded now."""
        assert self.rt is not None
        cmd = self.rt.cmd
        return np.array([*self.rt.cmd_tcp(), cmd[3], cmd[4], cmd[5]])

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # ------------------------------------------------------------ internals

    def _assist(self, grip: float) -> None:
        rt = self.rt
        assert rt is not None
        if rt.held is not None:
            if grip > rt.infos[rt.held].radius + 0.001:
                rt.release_weld(rt.held)
                rt.held = None
            return
        if not self.weld_assist:
            return
        for name, info in rt.infos.items():
            if info.free and grip < info.radius:
                left, right = rt.pad_contacts(rt.entity_index[name])
                if left and right:
                    rt.activate_weld(name)
                    rt.held = name
                    return

    def _observation(self) -> dict[str, Any]:
        rt = self.rt
        assert rt is not None
        m, d = rt.model, rt.data
        proprio = np.array(
            [d.qpos[m.joint(j).qposadr[0]] for j in ("gx", "gy", "gz", "gyaw", "gtilt", "fl", "fr")]
        )
        objects = {}
        for name, info in rt.infos.items():
            if info.free:
                body = rt.body_ids[name]
                objects[name] = np.concatenate([d.xpos[body], d.xquat[body]])
        obs: dict[str, Any] = {"proprio": proprio, "tcp": rt.tcp().copy(), "objects": objects}
        if self.camera:
            import mujoco

            if self._renderer is None:
                self._renderer = mujoco.Renderer(m, height=120, width=160)
            self._renderer.update_scene(d, camera="overview")
            obs["image"] = self._renderer.render().copy()
        return obs

    def _info(self, fault: str | None) -> dict[str, Any]:
        steps = self.task.steps
        return {
            "step": steps[self._step].name if self._step < len(steps) else None,
            "passed": list(self._passed),
            "time": self.rt.time if self.rt else 0.0,
            "fault": fault,
        }


def make_env(task: Task, **options: Any) -> TaskEnv:
    """A Gymnasium-style environment for a task (see the module docstring)."""
    return TaskEnv(task, **options)


def evaluate_policy(
    task: Task, policy: Any, episodes: int = 10, seed: int = 0, max_seconds: float = 120.0
) -> dict[str, Any]:
    """Run `policy(observation, info) -> action` for `episodes` seeded instances.

    Returns per-step pass rates (ordered credit, as in certification), the mean credit,
    the success rate and each episode's outcome.
    """
    from lablang.sim.certify import instance_seeds

    names = [s.name for s in task.steps]
    passed = dict.fromkeys(names, 0)
    outcomes = []
    for instance_seed in instance_seeds(seed, episodes):
        env = make_env(task, max_seconds=max_seconds)
        obs, info = env.reset(seed=instance_seed)
        terminated = truncated = False
        while not (terminated or truncated):
            obs, _reward, terminated, truncated, info = env.step(policy(obs, info))
        env.close()
        for name in info["passed"]:
            passed[name] += 1
        outcomes.append(
            {
                "seed": instance_seed,
                "passed": info["passed"],
                "fault": info["fault"],
                "time": round(info["time"], 4),
            }
        )
    credits = [len(o["passed"]) / len(names) for o in outcomes]
    return {
        "task": task.name,
        "episodes": episodes,
        "seed": seed,
        "steps": names,
        "step_pass_rates": {n: passed[n] / episodes for n in names},
        "mean_credit": sum(credits) / episodes,
        "success_rate": sum(c == 1.0 for c in credits) / episodes,
        "outcomes": outcomes,
    }
