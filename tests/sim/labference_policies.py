"""Scripted weighing policies for the Labference scorer's tests, each logging every decision.

A policy acts through `TaskEnv.step` (absolute hand targets) only. Where the fixtures are
(the pan, the tare button) is read from the runtime: these policies test the scorer, not
perception, so they are given that oracle context; the weights' poses come from the
observation. Each transfer grasps a weight, lifts it, carries it over the pan (2 cm either
side of the pan's centre, so that two weights never land on each other) and releases it
2 cm above the pan; `wrong` decisions grasp a weight the task does not require instead,
`drop` transfers open the gripper while the hand is still 10 cm short of the pan's rim, so
the weight falls to the table.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
from attrs import define, field

from lablang.sim.env import TaskEnv

CARRY_Z = 0.12  # m, hand height while carrying
SPOTS = ((-0.02, 0.0), (0.02, 0.0), (0.0, 0.02), (0.0, -0.02))  # offsets from the pan's centre
SHALLOW = 0.0025  # m a shallow press stops short: pushed in, never registered
STEP_TIMEOUT = 6.0  # s the policy waits for the step to pass after a release


@define
class Decision:
    """One logged decision: the weight grasped, whether it is required, whether dropped."""

    weight: str
    required: bool
    dropped: bool


@define
class ScriptedWeigher:
    """Tare, then one transfer per required weight, as its plan says."""

    required: tuple[str, ...]
    wrong: frozenset[int] = frozenset()  # decisions that grasp `spare` instead
    drop: frozenset[int] = frozenset()  # transfers released 10 cm short of the pan
    spare: str = "w5"
    tare: bool = True
    shallow: bool = False  # the tare press stops short: the button never registers
    retare: bool = False  # tare again once the first weight is on the pan
    log: list[Decision] = field(factory=list)

    def run(self, env: TaskEnv, seed: int, judge: Any = None) -> dict[str, Any]:
        """One episode to its end; returns the environment's score (against a bound
        contract's legal sets with `judge`)."""
        obs, info = env.reset(seed=seed)
        plan = self._plan(env)
        state = {"obs": obs, "info": info}
        for action in plan(state):
            obs, _r, terminated, truncated, info = env.step(action)
            state["obs"], state["info"] = obs, info
            if terminated or truncated:
                break
        else:
            # the plan is over: let the last reading settle and the steps be checked
            while not (terminated or truncated):
                obs, _r, terminated, truncated, info = env.step(env.hold_action())
        return env.score(judge)

    def _plan(self, env: TaskEnv) -> Any:
        def plan(state: dict[str, Any]) -> Generator[np.ndarray, None, None]:
            rt = env.rt
            assert rt is not None
            if self.tare:
                yield from _press(env, "scale", "tare", SHALLOW if self.shallow else 0.0)
            for k, weight in enumerate(self.required):
                chosen = self.spare if k in self.wrong else weight
                self.log.append(Decision(chosen, chosen == weight, k in self.drop))
                step = state["info"]["step"]
                yield from _transfer(env, state, chosen, SPOTS[k % len(SPOTS)], k in self.drop)
                start = rt.time
                while state["info"]["step"] == step and rt.time - start < STEP_TIMEOUT:
                    yield env.hold_action()
                if self.retare and k == 0:
                    yield from _press(env, "scale", "tare")

        return plan


def _goto(
    env: TaskEnv, xyz: Any, grip: float, speed: float = 0.3, settle: float = 0.3
) -> Generator[np.ndarray, None, None]:
    """Ramp the hand target to `xyz` (speed in m/s), then hold for `settle` seconds."""
    rt = env.rt
    assert rt is not None
    here = rt.cmd_tcp()
    goal = np.asarray(xyz, dtype=float)
    ticks = max(1, int(np.linalg.norm(goal - here) / (speed * 0.02)))
    for i in range(1, ticks + 1):
        yield np.array([*(here + (goal - here) * i / ticks), 0.0, 0.0, grip])
    for _ in range(int(settle / 0.02)):
        yield np.array([*goal, 0.0, 0.0, grip])


def _press(
    env: TaskEnv, entity: str, button: str, short: float = 0.0
) -> Generator[np.ndarray, None, None]:
    """Press a button with closed fingers (`short`: stop that much higher)."""
    rt = env.rt
    assert rt is not None
    top = rt.data.xpos[rt.model.body(f"{entity}_{button}").id] + [0, 0, 0.008]
    yield from _goto(env, [top[0], top[1], top[2] + 0.03], 0.0)
    low = top[2] + 0.0025 + short
    yield from _goto(env, [top[0], top[1], low], 0.0, speed=0.04, settle=0.4)
    yield from _goto(env, [top[0], top[1], CARRY_Z], 0.0, settle=0.0)


def _transfer(
    env: TaskEnv, state: dict[str, Any], name: str, spot: tuple[float, float], drop: bool
) -> Generator[np.ndarray, None, None]:
    rt = env.rt
    assert rt is not None
    info = rt.infos[name]
    opening = info.radius + 0.005
    x, y, z = state["obs"]["objects"][name][:3]
    yield from _goto(env, [x, y, CARRY_Z], opening)
    yield from _goto(env, [x, y, z + info.grasp_z], opening, speed=0.08)
    for _ in range(50):  # close until the grasp engages (at most 1 s)
        yield np.array([x, y, z + info.grasp_z, 0.0, 0.0, 0.0])
        if rt.held == name:
            break
    yield from _goto(env, [x, y, CARRY_Z], 0.0, settle=0.1)
    pan = rt.data.site_xpos[rt.site_ids[rt.infos["scale"].top_site]]
    over = np.array([pan[0] + spot[0], pan[1] + spot[1], pan[2] + 0.02 + info.half_height])
    if drop:
        # carried towards the pan, the hand stops 10 cm short of it and opens there as it is
        # sent on to the pan: the weight falls straight down to the table
        here = rt.cmd_tcp()
        way = (over[:2] - here[:2]) / np.linalg.norm(over[:2] - here[:2])
        short = 0.10 + rt.infos["scale"].radius + float(np.hypot(*spot))  # from the pan's rim
        yield from _goto(env, [*(over[:2] - short * way), CARRY_Z], 0.0)
        yield np.array([over[0], over[1], CARRY_Z, 0.0, 0.0, opening])
        yield from _goto(env, [over[0], over[1], CARRY_Z], opening)
        return
    yield from _goto(env, [over[0], over[1], CARRY_Z], 0.0)
    yield from _goto(env, over, 0.0, speed=0.08)
    yield from _goto(env, over, opening, settle=0.2)  # release 2 cm above the pan
    yield from _goto(env, [over[0], over[1], CARRY_Z], opening, settle=0.0)


def evaluate_hold(file: str, episodes: int, *extra: str) -> dict[str, Any]:
    """`lablang evaluate FILE` with the do-nothing policy for 1 s per episode, as JSON."""
    import json

    from click.testing import CliRunner

    from lablang.cli import main

    out = CliRunner().invoke(
        main,
        ["evaluate", file, "--policy", "lablang.sim.policies:hold", "--episodes",
         str(episodes), "--max-seconds", "1", "--no-progress", *extra],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    printed: dict[str, Any] = json.loads(out.output)
    return printed


def transfer_choices(score: dict[str, Any]) -> list[dict[str, Any]]:
    """A score's frozen choices that are transfers (not presses or lid moves)."""
    return [c for c in score["choice"]["frozen"] if c["operation"].startswith("transfer(")]
