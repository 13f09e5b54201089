"""What every skill shares: the result type, the tick driver, motion primitives and
geometry readers. The skill families (`handling`, `instruments`, `closures`, `pouring`,
`mixing`, `pipetting`) import from here and from each other, never from the package
(`lablang.sim.skills`), which gathers them into the `SKILLS` table."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import numpy as np
from attrs import frozen

from lablang.sim.assets import GANTRY_Z, TCP_DROP
from lablang.sim.runtime import Runtime
from lablang.sim.state import ButtonTarget, SlotTarget, WellTarget, bottom_depth, lowest_point

SAFE_Z = 0.22  # m, TCP height for transit
SPEED = 0.35  # m/s, transit speed
SLOW = 0.08  # m/s, final approach
SETTLE_TOL = 0.002  # m


@frozen
class SkillResult:
    status: str  # "succeeded" | "failed" | "timed out"
    reason: str = ""
    detail: tuple[tuple[str, float | str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "succeeded"


def ok(**detail: float | str) -> SkillResult:
    return SkillResult("succeeded", "", tuple(sorted(detail.items())))


def fail(reason: str) -> SkillResult:
    return SkillResult("failed", reason)


Controller = Generator[None, None, SkillResult]


Motion = Generator[None, None, bool]


def run_skill(rt: Runtime, controller: Controller, timeout: float) -> SkillResult:
    """Drive a skill one control tick at a time until it returns or runs out of time."""
    limit = rt.ticks + math.ceil(timeout / rt.dt)
    while True:
        try:
            next(controller)
        except StopIteration as stop:
            result: SkillResult = stop.value
            return result
        rt.tick()
        if rt.ticks >= limit:
            controller.close()
            return SkillResult("timed out", f"no result after {timeout:g} s")


def move_tcp(
    rt: Runtime, goal: np.ndarray | list[float], speed: float = SPEED, settle: float = 1.0
) -> Motion:
    """Ramp the commanded TCP toward `goal`, then wait until the real TCP is within 2 mm."""
    gx, gy, gz = (float(v) for v in goal)
    step = speed * rt.dt
    cmd = rt.cmd
    while True:
        # plain floats: this runs every tick, and numpy's per-call overhead would dominate
        cx, cy, cz = cmd[0], cmd[1], cmd[2] - TCP_DROP + GANTRY_Z
        dx, dy, dz = gx - cx, gy - cy, gz - cz
        dist = math.sqrt(dx * dx + dy * dy + dz * dz)
        if dist <= step:
            rt.set_tcp((gx, gy, gz))
            break
        f = step / dist
        rt.set_tcp((cx + dx * f, cy + dy * f, cz + dz * f))
        yield
    tcp = rt.data.site_xpos[rt.tcp_site]
    for _ in range(math.ceil(settle / rt.dt)):
        ex, ey, ez = tcp[0] - gx, tcp[1] - gy, tcp[2] - gz
        if ex * ex + ey * ey + ez * ez < SETTLE_TOL * SETTLE_TOL:
            return True
        yield
    return False


CLEARANCE = 0.02  # m between a carried object's lowest point and the tops it passes over


def safe_height(rt: Runtime) -> float:
    """The TCP height at which the gripper, and what it holds, cross the bench: `SAFE_Z`,
    or higher when the held object hangs so far below the TCP that it would not clear the
    tallest free object standing on the bench by `CLEARANCE` (a 12.5 cm bottle carried at
    `SAFE_Z` cleared another one by 1 mm, and knocked it over when the pour brought it in).
    """
    if rt.held is None or rt.held not in rt.infos:
        return SAFE_Z
    hang = float(rt.tcp()[2]) - lowest_point(rt, rt.held)
    tops = [
        float(rt.data.xpos[rt.body_ids[name]][2]) + info.half_height
        for name, info in rt.infos.items()
        if info.free and name != rt.held and name not in rt.parked
    ]
    return max(SAFE_Z, max(tops, default=0.0) + hang + CLEARANCE)


def transit(rt: Runtime, xy: np.ndarray | list[float], z: float) -> Motion:
    """Up to a safe height, across, and down to z (the usual pick-and-place path)."""
    here = rt.cmd_tcp()
    high = safe_height(rt)
    if here[2] < high - 1e-6:
        yield from move_tcp(rt, [here[0], here[1], high], settle=0.0)
    yield from move_tcp(rt, [xy[0], xy[1], high], settle=0.0)
    return (yield from move_tcp(rt, [xy[0], xy[1], z]))


def wait_ticks(rt: Runtime, seconds: float) -> Generator[None, None, None]:
    for _ in range(max(0, round(seconds / rt.dt))):
        yield


def pads_close_on(rt: Runtime, owner: int, seconds: float, geom: int = -1) -> Motion:
    """Wait (at most `seconds`) until both pads touch an entity (or one geom of it, see
    `Runtime.pad_contacts`); whether they did."""
    for _ in range(round(seconds / rt.dt)):
        yield
        left, right = rt.pad_contacts(owner, geom)
        if left and right:
            return True
    return False


def set_tilt(rt: Runtime, angle: float) -> None:
    rt.cmd[4] = angle


def object_frame(rt: Runtime, name: str) -> tuple[np.ndarray, np.ndarray]:
    body = rt.body_ids[name]
    return rt.data.xpos[body].copy(), rt.data.xmat[body].reshape(3, 3).copy()


def object_bottom(rt: Runtime, name: str) -> np.ndarray:
    pos, R = object_frame(rt, name)
    return pos - R[:, 2] * bottom_depth(rt, name)


def target_point(rt: Runtime, target: Any) -> np.ndarray | None:
    """The world point an object's bottom is put down on for a place target."""
    d = rt.data
    match target:
        case SlotTarget(container=container, index=index):
            slots = rt.infos[container].slots
            if not 0 <= index < len(slots):
                return None
            return d.site(slots[index].site).xpos.copy()
        case str() if target in rt.infos and rt.infos[target].top_site:
            return d.site(rt.infos[target].top_site).xpos.copy()
        case _:
            return None


def grasped(rt: Runtime, name: str) -> bool:
    left, right = rt.pad_contacts(rt.entity_index[name])
    return (left and right) or rt.weld_active(name)


def point_of(rt: Runtime, target: Any) -> np.ndarray | None:
    if isinstance(target, str) and target in rt.body_ids:
        return rt.data.xpos[rt.body_ids[target]].copy()
    return target_point(rt, target)


def target_name(target: Any) -> str:
    match target:
        case SlotTarget(container=c, index=i):
            return f"{c}.slot[{i}]"
        case ButtonTarget(entity=e, button=b):
            return f"{e}.{b}"
        case WellTarget():
            return target.key
        case _:
            return str(target)


def closed_to(rt: Runtime, container: Any) -> str:
    """Why contents cannot go into or out of `container` (not an open container, or
    capped), or "" when they can."""
    info = rt.infos.get(container) if isinstance(container, str) else None
    if info is None or info.opening <= 0:
        return f"`{target_name(container)}` is not an open container"
    if rt.capped(container):
        return f"`{container}` is capped"
    return ""
