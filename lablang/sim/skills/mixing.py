"""Mixing a container: shaking, inverting and swirling it in the gripper, or stirring it on
a magnetic stirrer; each counts as mixed only if the motion really was vigorous enough."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import Controller, fail, move_tcp, ok, target_name, wait_ticks
from lablang.sim.skills.instruments import skill_press_button
from lablang.sim.state import ButtonTarget, on, tilt

SHAKE_AMPLITUDE = 0.012  # m
SHAKE_HZ = 3.0
MIXING_ACCELERATION = 2.0  # m/s^2 RMS of the container's own motion that counts as mixing


def _agitate(
    rt: Runtime, obj: str, duration: float, path: Callable[[float], np.ndarray], verb: str = "mix"
) -> Controller:
    """Move a held container along `path(t)` (offsets from where it is); it counts as mixed
    only if its measured RMS acceleration reaches `MIXING_ACCELERATION`."""
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    centre = rt.cmd_tcp()
    body = rt.body_ids[obj]
    velocities = []
    start = rt.time
    while rt.time - start < duration:
        rt.set_tcp(centre + path(rt.time - start))
        yield
        velocities.append(rt.data.cvel[body][3:].copy())
    yield from move_tcp(rt, centre, settle=0.5)
    if len(velocities) < 3:
        return fail(f"too short to {verb}")
    accel = np.diff(np.array(velocities), axis=0) / rt.dt
    rms = float(np.sqrt((accel**2).sum(axis=1).mean()))
    if rms < MIXING_ACCELERATION:
        return fail(f"`{obj}` moved too gently to mix ({rms:.2f} m/s^2 RMS)")
    if rt.ledger.total(obj) > 0:
        rt.mark_mixed(obj)
    return ok(rms_acceleration=round(rms, 3))


def skill_shake(rt: Runtime, obj: str, duration: float) -> Controller:
    """Shake a held container side to side; it counts as mixed only if it really moved."""

    def side_to_side(t: float) -> np.ndarray:
        return np.array([0.0, SHAKE_AMPLITUDE * math.sin(2 * math.pi * SHAKE_HZ * t), 0.0])

    return (yield from _agitate(rt, obj, duration, side_to_side, "shake"))


def skill_invert(rt: Runtime, obj: str, count: float) -> Controller:
    """Turn a held, capped tube upside down and back `count` times."""
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    times = int(count)
    if times != count or not 1 <= times <= 50:
        return fail("`invert` takes a whole number of inversions from 1 to 50")
    if not rt.capped(obj) and rt.ledger.total(obj) > 0:
        return fail(f"`{obj}` is open; inverting it would spill its contents")
    done = 0
    for _ in range(times):
        reached = 0.0
        for goal in (2.1, 0.0):
            while abs(rt.cmd[4] - goal) > 1e-9:
                step = 3.0 * rt.dt
                rt.cmd[4] = (
                    goal
                    if abs(goal - rt.cmd[4]) <= step
                    else rt.cmd[4] + math.copysign(step, goal - rt.cmd[4])
                )
                yield
                reached = max(reached, tilt(rt, obj))
            yield from wait_ticks(rt, 0.2)
        if reached > math.radians(100):
            done += 1
    if done < times:
        return fail(f"only {done} of {times} inversions turned `{obj}` past 100 degrees")
    if rt.ledger.total(obj) > 0:
        rt.mark_mixed(obj)
    return ok(inversions=done)


SWIRL_RADIUS = 0.01  # m
SWIRL_HZ = 3.0


def skill_swirl(rt: Runtime, obj: str, duration: float) -> Controller:
    """Swirl a held container in small horizontal circles (a flask's usual mixing)."""

    def circle(t: float) -> np.ndarray:
        phase = 2 * math.pi * SWIRL_HZ * t
        # ramp the radius in over the first 0.2 s so the motion starts without a jerk
        r = SWIRL_RADIUS * min(1.0, t / 0.2)
        return np.array([r * math.cos(phase) - r, r * math.sin(phase), 0.0])

    return (yield from _agitate(rt, obj, duration, circle))


def skill_stir(rt: Runtime, stirrer: Any, duration: float) -> Controller:
    """Switch a magnetic stirrer on, let it stir the container resting on it, switch it off.

    The container counts as mixed after 5 s of stirring (the runtime's stirring model).
    """
    info = rt.infos.get(stirrer) if isinstance(stirrer, str) else None
    if info is None or "stir" not in info.buttons:
        return fail(f"`{target_name(stirrer)}` is not a stirrer")
    loads = [
        name
        for name, other in rt.infos.items()
        if other.free and rt.ledger.total(name) > 0 and on(rt, name, stirrer)
    ]
    if not loads:
        return fail(f"no container with contents rests on `{stirrer}`")
    if stirrer not in rt.running:
        started = yield from skill_press_button(rt, ButtonTarget(stirrer, "stir"))
        if not started.ok:
            return started
    yield from wait_ticks(rt, duration)
    stopped = yield from skill_press_button(rt, ButtonTarget(stirrer, "stir"))
    if not stopped.ok:
        return stopped
    unmixed = [name for name in loads if name not in rt.ledger.mixed]
    if unmixed:
        return fail(
            f"`{unmixed[0]}` was stirred for {rt.stirred.get(unmixed[0], 0.0):.1f} s; "
            "mixing takes 5 s on a running stirrer"
        )
    return ok(stirred_s=round(min(rt.stirred.get(n, 0.0) for n in loads), 3))
