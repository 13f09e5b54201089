"""Skills that move objects: pick, place (on a surface, in a slot, on a scale), discard,
release, and the empty-handed moves (move_to, home, wait)."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import numpy as np

from lablang.sim.assets import FINGER_MAX, TCP_DROP
from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    SETTLE_TOL,
    SLOW,
    Controller,
    fail,
    grasped,
    move_tcp,
    object_bottom,
    object_frame,
    ok,
    pads_close_on,
    point_of,
    target_name,
    target_point,
    transit,
    wait_ticks,
)
from lablang.sim.state import SlotTarget, lid_angle, slot_of

# room beside a placed object for the open fingers: a pad's outer face stands 11 mm out
# from the object's side when the gripper opens to release it, plus 3 mm of margin
FINGER_ROOM = 0.014  # m


def skill_move_to(rt: Runtime, target: Any, height: float = 0.05) -> Controller:
    point = point_of(rt, target)
    if point is None:
        return fail(f"`{target_name(target)}` has no position to move to")
    reached = yield from transit(rt, point[:2], point[2] + height + TCP_DROP * 0)
    return ok() if reached else fail("the gripper did not reach the target")


def skill_pick(rt: Runtime, obj: str) -> Controller:
    info = rt.infos.get(obj)
    if info is None or not info.free:
        return fail(f"`{obj}` cannot be picked (it is not a free object)")
    if rt.held is not None:
        return fail(f"the gripper already holds `{rt.held}`")
    pos, R = object_frame(rt, obj)
    if R[2, 2] < math.cos(math.radians(30)):
        return fail(
            f"`{obj}` is not upright (tilted {math.degrees(math.acos(min(1, R[2, 2]))):.0f} deg)"
        )
    rt.set_grip(min(FINGER_MAX, info.radius + 0.005))
    grasp = pos + R[:, 2] * info.grasp_z
    yield from transit(rt, grasp[:2], grasp[2] + 0.04)
    pos, R = object_frame(rt, obj)  # re-read: the object may have moved
    grasp = pos + R[:, 2] * info.grasp_z
    yield from move_tcp(rt, grasp, speed=SLOW, settle=0.3)
    rt.set_grip(0.0)
    owner = rt.entity_index[obj]
    if not (yield from pads_close_on(rt, owner, 0.6)):
        rt.set_grip(info.radius + 0.005)
        yield from move_tcp(rt, [grasp[0], grasp[1], SAFE_Z], settle=0.0)
        return fail(f"the fingers did not both touch `{obj}`")
    yield from wait_ticks(rt, 0.1)
    if rt.weld_assist:
        rt.activate_weld(obj)
    rt.set_held(obj)
    top = rt.cmd_tcp()
    yield from move_tcp(rt, [top[0], top[1], SAFE_Z], speed=SLOW * 2, settle=0.0)
    if not grasped(rt, obj):
        rt.set_held(None)
        return fail(f"`{obj}` slipped out of the gripper while lifting")
    return ok()


def skill_place(rt: Runtime, obj: str, target: Any, *, need_slot: bool = False) -> Controller:
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    if need_slot and not isinstance(target, SlotTarget):
        return fail(f"`{target_name(target)}` is not a slot")
    point = target_point(rt, target)
    if point is None:
        return fail(f"`{target_name(target)}` is not a place an object can be put")
    if (
        isinstance(target, SlotTarget)
        and rt.infos[target.container].lid_joint
        and target.container not in rt.lids_removed
        and lid_angle(rt, target.container) < 1.0
    ):
        return fail(f"the lid of `{target.container}` is not open")
    clearance = 0.003
    if isinstance(target, str):
        spot = _free_spot(rt, obj, target)
        if spot is None:
            return fail(f"there is no free spot on `{target}` for `{obj}`")
        point = point + spot
    # the actual TCP-to-bottom offset of this grasp, measured now
    offset = rt.tcp() - object_bottom(rt, obj)
    above = point + offset + [0, 0, clearance + 0.03]
    yield from transit(rt, above[:2], above[2])
    for _ in range(round(3.0 / rt.dt)):  # final approach, re-reading the target each tick
        reread = target_point(rt, target)
        assert reread is not None
        if isinstance(target, SlotTarget):
            point = reread
        offset = rt.tcp() - object_bottom(rt, obj)
        goal = point + offset + [0, 0, clearance]
        current = rt.cmd_tcp()
        delta = goal - current
        dist = float(np.linalg.norm(delta))
        step = SLOW * rt.dt
        rt.set_tcp(goal if dist <= step else current + delta * (step / dist))
        yield
        blocker = _blocked(rt, obj, target, point)
        if blocker:
            here = rt.cmd_tcp()
            yield from move_tcp(rt, [here[0], here[1], SAFE_Z], speed=SLOW * 2, settle=0.0)
            return fail(f"`{obj}` ran into `{blocker}` above the target")
        if dist <= step and float(np.linalg.norm(rt.tcp() - goal)) < SETTLE_TOL:
            break
    yield from _release(rt, obj)
    return ok()


def _free_spot(rt: Runtime, obj: str, surface: str) -> np.ndarray | None:
    """An offset on a surface's top where `obj` fits beside what already rests there, with
    room for the open fingers between them (`FINGER_ROOM`)."""
    info = rt.infos[surface]
    top = rt.data.site(info.top_site).xpos
    radius = rt.infos[obj].radius
    others = []
    for name, other in rt.infos.items():
        if other.free and name != obj:
            pos = rt.data.xpos[rt.body_ids[name]]
            if abs(pos[2] - top[2]) < 0.08 and np.hypot(*(pos[:2] - top[:2])) < info.radius + 0.02:
                others.append((pos[:2] - top[:2], other.radius))
    reach = max(0.0, info.radius - radius - 0.004)
    candidates = [(0.0, 0.0)] + [
        (r * math.cos(a), r * math.sin(a))
        for r in (reach * 0.55, reach)
        for a in np.linspace(0, 2 * math.pi, 8, endpoint=False)
    ]
    for cx, cy in candidates:
        if all(np.hypot(cx - p[0], cy - p[1]) > radius + r + FINGER_ROOM for p, r in others):
            return np.array([cx, cy, 0.0])
    return None


def _blocked(rt: Runtime, obj: str, target: Any, point: np.ndarray) -> str:
    """What the held object hits before it reaches the target's floor ("" if nothing)."""
    if object_bottom(rt, obj)[2] < point[2] + 0.006:
        return ""
    allowed = {rt.gripper_index}
    if isinstance(target, SlotTarget):
        allowed.add(rt.entity_index[target.container])
    elif isinstance(target, str) and target in rt.entity_index:
        allowed.add(rt.entity_index[target])
    hits = sorted(rt.touching(obj) - allowed)
    return rt.owner_names[hits[0]] if hits else ""


def _release(rt: Runtime, obj: str) -> Generator[None, None, None]:
    rt.release_weld(obj)
    rt.set_grip(min(FINGER_MAX, rt.infos[obj].radius + 0.005))
    rt.set_held(None)
    yield from wait_ticks(rt, 0.2)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], speed=SLOW * 2, settle=0.0)


def skill_discard(rt: Runtime, obj: str, bin_: Any) -> Controller:
    """Drop a held object into a waste bin from 3 cm above its rim."""
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    info = rt.infos.get(bin_) if isinstance(bin_, str) else None
    if info is None or info.asset != "waste_bin":
        return fail(f"`{target_name(bin_)}` is not a waste bin")
    floor = rt.data.site(info.top_site).xpos
    offset = rt.tcp() - object_bottom(rt, obj)
    yield from transit(rt, floor[:2], floor[2] + info.depth + 0.03 + offset[2])
    yield from _release(rt, obj)
    yield from wait_ticks(rt, 0.5)
    return ok()


def skill_insert_into_slot(rt: Runtime, obj: str, slot: Any) -> Controller:
    return (yield from skill_place(rt, obj, slot, need_slot=True))


def skill_put_on_scale(rt: Runtime, obj: str, scale: Any) -> Controller:
    if not (isinstance(scale, str) and scale in rt.scales):
        return fail(f"`{target_name(scale)}` is not a scale")
    return (yield from skill_place(rt, obj, scale))


def skill_remove_from_slot(rt: Runtime, obj: str, slot: Any = None) -> Controller:
    where = slot_of(rt, obj)
    if where is None:
        return fail(f"`{obj}` is not in a slot")
    if isinstance(slot, SlotTarget) and slot != where:
        return fail(f"`{obj}` is in {where.container}.slot[{where.index}], not slot[{slot.index}]")
    return (yield from skill_pick(rt, obj))


def skill_release(rt: Runtime, obj: str | None = None) -> Controller:
    if rt.held is None:
        return fail("the gripper holds nothing")
    if obj is not None and obj != rt.held:
        return fail(f"the gripper holds `{rt.held}`, not `{obj}`")
    yield from _release(rt, rt.held)
    return ok()


def skill_wait(rt: Runtime, duration: float) -> Controller:
    yield from wait_ticks(rt, duration)
    return ok()


def skill_home(rt: Runtime) -> Controller:
    reached = yield from transit(rt, [0.3, -0.25], SAFE_Z)
    return ok() if reached else fail("the gripper did not reach its home pose")
