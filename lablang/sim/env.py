"""A policy interface in the Gymnasium convention: `reset()` and `step(action)`.

Observations: the robot's joint positions (proprioception), the TCP position, every
free object's pose (position and quaternion), every fixture's pose (`fixtures`: where the
randomized scale or rack stands), what the instruments show (`evidence`: each scale's
display in grams and whether it has been stable for 3 s, each hot plate's thermometer and
set temperature, each bench timer's count and whether it runs, each labelled tube's label,
as their seven-segment displays show them to a camera), and optionally
a camera image.
Actions: an end-effector target `[x, y, z, yaw, tilt, grip]` (metres, radians, and the
half-opening of the fingers in metres), applied for one 20 ms control tick.
The weld assist behaves as for the expert's skills: it engages only when both pads have
touched an object for 0.1 s while the fingers close (as `pick` waits), and lets go when
they open; so the expert's commands, replayed as actions, grasp on the same tick.

`info` carries the current step, which steps have passed (in order), `step_success`
(every step: has it passed), a simulator fault if one happened, and `events`: the Labference
records this action produced, kept apart as `choice`, `execution` and `completion` (see
`lablang.sim.records`), and `coordination` (a scripted event's trigger, premature touches
of its fixture while a step waits for it, and the first touch after it). A policy's choices are read from what the gripper does: a grasp is
a `pick` choice of the object (confirmed at once), a release is a `place` choice of the
slot or surface the object is released over, scored against the target the task's program
calls for in the actual state (its measured target), and physically confirmed or not
0.5 s later. Rewards are 1 for each step that passes. `env.record_lines()` is the
episode's persistent record (the same format as `lablang simulate --record`), which
`lablang replay` re-scores.

>>> from lablang.sim import load_tasks
>>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
>>> env = make_env(tasks["move_tube"])
>>> obs, info = env.reset(seed=0)
>>> sorted(obs), info["step"]
(['evidence', 'fixtures', 'objects', 'proprio', 'tcp'], 'move')
>>> obs, reward, terminated, truncated, info = env.step(env.hold_action())
>>> reward, terminated, info["passed"], info["step_success"]
(0.0, False, [], {'move': False})
>>> sorted(info["events"])
['choice', 'completion', 'coordination', 'execution']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lablang.sim.assets.display import label_codes
from lablang.sim.bookkeeping import apply as apply_operations
from lablang.sim.build import compile_scene
from lablang.sim.catalog import MAX_EPISODE_WORK
from lablang.sim.episode import observation
from lablang.sim.labference import CHOICES, OUTCOMES, TransferWatch
from lablang.sim.model import Step, Task, bind_task, reads
from lablang.sim.predicates import Evaluator, SpecError
from lablang.sim.records import Event, event_json, record_lines
from lablang.sim.runtime import Runtime, SimFault
from lablang.sim.stepwise import episode_metrics, task_metrics
from lablang.sim.success import StepProgress

ACTION_LOW = np.array([-0.2, -0.5, 0.01, -3.1, -2.1, 0.0])
ACTION_HIGH = np.array([0.8, 0.5, 0.55, 3.1, 2.1, 0.04])


MAX_SEED = 2**32 - 1  # the command line's range (`--seed`) and the instance seeds' dtype


def checked_seed(value: Any, where: str = "the seed") -> int:
    """`value` as a seed: an integer from 0 to `MAX_SEED`, else `ValueError` saying so (not
    numpy's, Gymnasium's or the simulator's own error from deeper down).

    >>> checked_seed(7), checked_seed(np.uint32(7))
    (7, 7)
    """
    seed = value.item() if isinstance(value, np.integer) else value
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{where} is {seed!r}; a seed is an integer from 0 to {MAX_SEED}")
    return seed


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
        self._unbound = task  # roles (`randomize role from [...]`) are bound at each reset
        self.max_seconds = max_seconds
        self.camera = camera
        self.weld_assist = weld_assist
        self.rt: Runtime | None = None
        self.read: set[str] = set()  # the entities whose evidence the agent observes
        self._renderer: Any = None
        self._progress: StepProgress | None = None  # the one judge of success (`success`)
        self.seed = 0
        self.events: list[Event] = []
        self.observations: list[dict[str, Any]] = []
        self._new: list[Event] = []
        self.watch: TransferWatch | None = None  # reads grasps, releases and presses
        self._coordination_seen = 0
        self._touch_ticks: dict[str, int] = {}  # ticks of two-pad contact while closing

    # ------------------------------------------------------------ gymnasium API

    def reset(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        seed = 0 if seed is None else checked_seed(seed)
        built = compile_scene(self._unbound.scene, np.random.default_rng(seed))
        self.task = bind_task(self._unbound, built.bindings)
        self.rt = Runtime(built, weld_assist=self.weld_assist)
        # evidence is what the instruction says the agent reads (`model.reads`)
        self.read = {n for n in built.infos if reads(self._unbound, n)}
        contents: dict[str, list[tuple[str, float, str]]] = {}
        for entity in self.task.scene.entities:
            for item in entity.contents:
                contents.setdefault(entity.name, []).append(
                    (item.substance, item.amount, item.kind)
                )
        self.rt.reset(contents)
        self.seed = seed
        self.events, self.observations, self._new = [], [], []
        self.watch = TransferWatch(self.rt, self.task, lambda: self._step, self._emit)
        self.rt.watchers.append(self.watch)
        self._progress = StepProgress(self.rt, self.task.steps, self.watch, self._passed_step)
        self._coordination_seen = 0
        self._touch_ticks = {}
        self._arm()
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        return self._observation(), self._info(None)

    def step(
        self, action: np.ndarray, joints: np.ndarray | None = None
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """One tick towards the hand target `action`; with `joints`, the arm's joint targets
        are given instead (they bypass the inverse kinematics) and `action` sets the grip."""
        rt = self.rt
        if rt is None or self._progress is None:
            raise RuntimeError("call reset() before step()")
        target = apply_action(rt, action, joints)
        self._new = []
        try:
            self._assist(float(target[5]))
            rt.tick()
            self._coordination()
        except SimFault as fault:
            detail = f"{fault.kind}: {fault.detail}"
            self._emit(Event("fault", rt.time, self._current(), detail=detail))
            return self._observation(), 0.0, True, False, self._info(detail)
        reward = float(self._progress.advance())
        steps = self.task.steps
        terminated = self._progress.terminated
        spent = rt.work > MAX_EPISODE_WORK
        truncated = not terminated and (rt.time >= self.max_seconds or spent)
        if truncated:
            self._emit(
                Event(
                    "completion",
                    rt.time,
                    steps[self._step].name,
                    confirmed=False,
                    status="failed",
                    detail=f"E0713: the episode's physics budget of {MAX_EPISODE_WORK:,} work "
                    "units is spent"
                    if spent
                    else f"not passed within {self.max_seconds:g} s",
                )
            )
            self.observations.append(observation(rt, steps[self._step].name))
        return self._observation(), reward, terminated, truncated, self._info(None)

    @property
    def _step(self) -> int:
        return self._progress.index if self._progress is not None else 0

    @property
    def _passed(self) -> list[str]:
        return self._progress.passed if self._progress is not None else []

    def _passed_step(self, step: Step) -> None:
        """`StepProgress` passed `step` (its index has moved on): record it, arm the next."""
        assert self.rt is not None
        self._emit(Event("completion", self.rt.time, step.name, confirmed=True, status="passed"))
        if self.watch is not None:
            self.watch.seen.passed(step.name)  # a step's spec read its observations (`record`)
        self.observations.append(observation(self.rt, step.name))
        self._arm()

    def hold_action(self) -> np.ndarray:
        """The action that keeps the gripper where it is commanded now."""
        assert self.rt is not None
        return hold_action(self.rt)

    def apply_bookkeeping(self, operations: list[Any]) -> None:
        """Apply recorded bookkeeping operations (`lablang.sim.bookkeeping`: contents moved,
        tips, caps, lids, welds) before the next step, as a demonstration's replay does; an
        operation that does not fit the scene raises `ValueError`. Replays run with
        `weld_assist=False`: the recorded welds take the assist's place."""
        if self.rt is None:
            raise RuntimeError("call reset() before apply_bookkeeping()")
        apply_operations(self.rt, operations)

    def record_lines(self) -> list[str]:
        """The episode so far as persistent records (header, events, observations, score)."""
        steps = [s.name for s in self.task.steps]
        header = {
            "task": self.task.name,
            "seed": self.seed,
            "steps": steps,
            "policy": True,
            "sim_time": round(self.rt.time, 6) if self.rt else 0.0,
        }
        if self.task.contract is not None:
            header["contract"] = self.task.contract.to_json()
        self._resolve_pending()
        required = [o.key for o in self.watch.required] if self.watch else []
        return record_lines(header, self.events, self.observations, steps, required)

    def score(self, judge: Any = None) -> dict[str, Any]:
        """The episode's Labference score so far (`lablang.sim.records.score`); with
        `judge`, against a bound contract's legal sets (`lablang.bound.judge_for`)."""
        from lablang.sim.records import json_roundtrip, score

        self._resolve_pending()
        required = [o.key for o in self.watch.required] if self.watch else []
        steps = [s.name for s in self.task.steps]
        return json_roundtrip(score(steps, self.events, required, judge))

    def _resolve_pending(self) -> None:
        if self.watch is not None and self.rt is not None:
            self.watch.resolve(float("inf"))

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    # ------------------------------------------------------------ internals

    def _assist(self, grip: float) -> None:
        rt = self.rt
        assert rt is not None
        if not self.weld_assist:  # holds come from recorded welds, if any (a replay)
            return
        if rt.held is not None:
            if grip > rt.infos[rt.held].radius + 0.001:
                rt.release_weld(rt.held)
                rt.held = None
            return
        # as the expert's `pick`: the weld engages once both pads have touched the object
        # for 0.1 s while the fingers close (the tick of first contact and 5 more)
        for name, info in rt.infos.items():
            touching = False
            if info.free and grip < info.radius:
                left, right = rt.pad_contacts(rt.entity_index[name])
                touching = left and right
            count = self._touch_ticks.get(name, 0) + 1 if touching else 0
            self._touch_ticks[name] = count
            if count > ASSIST_TICKS:
                self._touch_ticks.clear()
                rt.activate_weld(name)
                rt.held = name
                return

    # ------------------------------------------------------------ Labference records

    def _current(self) -> str:
        steps = self.task.steps
        return steps[self._step].name if self._step < len(steps) else steps[-1].name

    def _emit(self, event: Event) -> None:
        self.events.append(event)
        self._new.append(event)

    def _arm(self) -> None:
        steps = self.task.steps
        if self.rt is not None and self._step < len(steps):
            step = steps[self._step]
            if step.trigger is not None:
                self.rt.arm(step.trigger)
            if step.alternatives and self.watch is not None:
                # the program the expert would run here, chosen from the evidence now:
                # the policy is held to its obligations
                for guard, calls in step.alternatives:
                    try:
                        if guard is None or Evaluator(self.rt).holds(guard):
                            self.watch.choose(step.name, calls)
                            break
                    except SpecError:
                        continue

    def _coordination(self) -> None:
        rt = self.rt
        assert rt is not None
        log = rt.coordination
        for kind, time, name, entity in log[self._coordination_seen :]:
            detail = name
            if kind == "response":
                start = next(t for k, t, n, _ in log if k == "trigger" and n == name)
                detail = f"{name}: {time - start:.2f} s after the trigger"
            self._emit(Event(kind, time, self._current(), object=entity, detail=detail))
        self._coordination_seen = len(log)

    def _observation(self) -> dict[str, Any]:
        rt = self.rt
        assert rt is not None
        m, d = rt.model, rt.data
        proprio = np.array([d.qpos[m.joint(j).qposadr[0]] for j in rt.robot.joints])
        objects = {}
        for name, info in rt.infos.items():
            if info.free:
                body = rt.body_ids[name]
                objects[name] = np.concatenate([d.xpos[body], d.xquat[body]])
        obs: dict[str, Any] = {
            "proprio": proprio,
            "tcp": rt.tcp().copy(),
            "objects": objects,
            "fixtures": fixture_poses(rt),
            "evidence": {k: v for k, v in evidence(rt).items() if k in self.read},
        }
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
            "step_success": {s.name: s.name in self._passed for s in steps},
            # `randomize role from [...]`: the entity each role names in this episode
            "bindings": dict(self.rt.built.bindings) if self.rt else {},
            # choices are transfers, executions their outcomes and button presses
            "events": {
                part: [event_json(e) for e in self._new if e.kind in kinds]
                for part, kinds in _INFO_PARTS.items()
            }
            | {
                "coordination": [
                    event_json(e)
                    for e in self._new
                    if e.kind in ("trigger", "premature", "response")
                ]
            },
        }


def fixture_poses(rt: Runtime) -> dict[str, np.ndarray]:
    """Each fixture's pose (position and quaternion): where the randomized scale or rack is."""
    d = rt.data
    return {
        name: np.concatenate([d.xpos[rt.body_ids[name]], d.xquat[rt.body_ids[name]]])
        for name, info in rt.infos.items()
        if not info.free and name != "table" and name in rt.body_ids
    }


def evidence(rt: Runtime) -> dict[str, np.ndarray]:
    """What the agent reads off the instruments, as drawn on their seven-segment displays
    (`lablang.sim.assets.display`): each scale's display in grams and whether it has been
    constant for the 3 s a reading needs (1.0) or not (0.0); each hot plate's thermometer
    in degrees C and the temperature it is set to; each bench timer's count in seconds and
    whether it is running (1.0) or not (0.0); each labelled tube's label, the code points
    of its characters and 0.0 after its end (`assets.display.label_codes`)."""
    out = {
        name: np.array([state.reading(), 1.0 if rt.scale_stable(name) else 0.0])
        for name, state in rt.scales.items()
    }
    for name in rt.thermometers.segments:
        out[name] = np.array([rt.thermometers.reading(name), rt.setpoint[name]])
    for name in rt.timers.segments:
        out[name] = np.array([rt.timers.reading(name), 1.0 if rt.timers.running(name) else 0.0])
    for name, text in rt.labels.text.items():
        out[name] = np.array(label_codes(text))
    return out


def hold_action(rt: Runtime) -> np.ndarray:
    """The hand target `[x, y, z, yaw, tilt, grip]` the runtime is commanded to now."""
    cmd = rt.cmd
    return np.array([*rt.cmd_tcp(), cmd[3], cmd[4], cmd[5]])


def apply_action(rt: Runtime, action: np.ndarray, joints: np.ndarray | None = None) -> np.ndarray:
    """Command a hand target (clipped to the action bounds) for the next tick, or the arm's
    joint targets with the target's grip; returns the clipped target. Recording and
    replaying demonstrations go through this one function, so both command the same bits."""
    target = np.clip(np.asarray(action, dtype=float), ACTION_LOW, ACTION_HIGH)
    if joints is None:
        rt.set_tcp(target[:3])
        rt.cmd[3], rt.cmd[4] = target[3], target[4]
    else:
        rt.drive_joints(np.asarray(joints, dtype=float))
    rt.set_grip(float(target[5]))
    return target


_INFO_PARTS = {
    "choice": CHOICES,
    "execution": (*OUTCOMES, "press"),
    "completion": ("completion",),
}
ASSIST_TICKS = 5  # ticks of two-pad contact after the first before the weld assist engages


def make_env(task: Task, **options: Any) -> TaskEnv:
    """A Gymnasium-style environment for a task (see the module docstring)."""
    return TaskEnv(task, **options)


def evaluate_episode(
    task: Task, policy: Any, seed: int, max_seconds: float = 120.0, judge: Any = None
) -> tuple[dict[str, Any], list[str]]:
    """One seeded episode of `policy(observation, info) -> action`: its outcome and records
    (scored against a bound contract's legal sets with `judge`, `lablang.bound.judge_for`)."""
    env = make_env(task, max_seconds=max_seconds)
    obs, info = env.reset(seed=seed)
    terminated = truncated = False
    while not (terminated or truncated):
        obs, _reward, terminated, truncated, info = env.step(policy(obs, info))
    lines = list(env.record_lines())
    episode_score = env.score(judge)
    env.close()
    outcome = {
        "seed": seed,
        "passed": info["passed"],
        "fault": info["fault"],
        "time": round(info["time"], 4),
        "score": episode_score,
        "stepwise": episode_metrics(task, env.events, episode_score),
    }
    return outcome, lines


def evaluation_of(
    task: Task, episodes: int, seed: int, outcomes: list[dict[str, Any]], scenario: str = ""
) -> dict[str, Any]:
    """Aggregate episode outcomes (in seed order); a lost episode is listed, not dropped.
    `stepwise` holds SciVLABench's metrics (`lablang.sim.stepwise`); `scenario` names the
    task's source scenario for their intervals."""
    names = [s.name for s in task.steps]
    passed = dict.fromkeys(names, 0)
    done = [o for o in outcomes if "lost" not in o]
    for outcome in done:
        for name in outcome["passed"]:
            passed[name] += 1
    credits = [len(o["passed"]) / len(names) for o in done] + [0.0] * (len(outcomes) - len(done))
    return {
        "task": task.name,
        "episodes": episodes,
        "seed": seed,
        "steps": names,
        "step_pass_rates": {n: round(passed[n] / episodes, 6) for n in names},
        "mean_credit": round(sum(credits) / episodes, 6),
        "success_rate": round(sum(c == 1.0 for c in credits) / episodes, 6),
        "labference": labference_totals([o["score"] for o in done]),
        "stepwise": task_metrics(task, episodes, [o["stepwise"] for o in done], scenario),
        "outcomes": [o for o in outcomes if "lost" not in o],
        "lost_episodes": [o["lost"] for o in outcomes if "lost" in o],
    }


def labference_totals(scores: list[dict[str, Any]]) -> dict[str, int]:
    """Choice, execution and completion summed over episodes (fixed denominators)."""
    return {
        "opportunities": sum(s["choice"]["opportunities"] for s in scores),
        "reached": sum(s["choice"]["reached"] for s in scores),
        "correct": sum(s["choice"]["correct"] for s in scores),
        "executed": sum(s["execution"]["executed"] for s in scores),
        "episodes": len(scores),
        "completed": sum(s["completion"]["status"] != "incomplete" for s in scores),
        "clean": sum(s["completion"]["status"] == "clean" for s in scores),
    }


def evaluate_policy(
    task: Task,
    policy: Any,
    episodes: int = 10,
    seed: int = 0,
    max_seconds: float = 120.0,
    records_dir: Path | None = None,
    judge: Any = None,
) -> dict[str, Any]:
    """Run `policy(observation, info) -> action` for `episodes` seeded instances (with
    `judge`, choices are scored against a bound contract: `lablang.bound.judge_for`).

    Returns per-step pass rates (ordered credit, as in certification), the mean credit,
    the success rate and each episode's outcome with its Labference score. With
    `records_dir`, each episode's records are written there as `SEED.jsonl`. (On
    several processes or Ray: `lablang.sim.suite.evaluate_suite`.)
    """
    from lablang.sim.instances import instance_seeds
    from lablang.sim.records import write_records

    outcomes = []
    for instance_seed in instance_seeds(seed, episodes):
        outcome, lines = evaluate_episode(task, policy, instance_seed, max_seconds, judge)
        if records_dir is not None:
            write_records(records_dir / f"{instance_seed}.jsonl", lines)
        outcomes.append(outcome)
    return evaluation_of(task, episodes, seed, outcomes)
