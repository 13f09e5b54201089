"""Skills: tick-driven controllers with structured results.

A skill is a generator: it writes the gripper's servo targets on the runtime,
then `yield`s to let one control tick of physics run, and finally returns a
`SkillResult`. The runtime's driver (`run_skill`) counts ticks and turns an
overlong skill into a timeout. Skills read simulator state ("privileged
perception") and re-read their targets before the final approach, because
containers such as rotors can move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import Any

import attrs
import numpy as np

from lablang.sim.assets import FINGER_MAX, GANTRY_Z, TCP_DROP
from lablang.sim.runtime import Runtime
from lablang.sim.state import (
    CAP_CLOSED_TURNS,
    CAP_OPEN_TURNS,
    ButtonTarget,
    SlotTarget,
    WellTarget,
    balanced,
    cap_turns,
    ledger_key,
    lid_angle,
    on,
    slot_of,
    tilt,
)

SAFE_Z = 0.22  # m, TCP height for transit
SPEED = 0.35  # m/s, transit speed
SLOW = 0.08  # m/s, final approach
SETTLE_TOL = 0.002  # m
# room beside a placed object for the open fingers: a pad's outer face stands 11 mm out
# from the object's side when the gripper opens to release it, plus 3 mm of margin
FINGER_ROOM = 0.014  # m


@attrs.frozen(slots=True)
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


# ---------------------------------------------------------------- motion primitives


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


def transit(rt: Runtime, xy: np.ndarray | list[float], z: float) -> Motion:
    """Up to a safe height, across, and down to z (the usual pick-and-place path)."""
    here = rt.cmd_tcp()
    if here[2] < SAFE_Z - 1e-6:
        yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    yield from move_tcp(rt, [xy[0], xy[1], SAFE_Z], settle=0.0)
    return (yield from move_tcp(rt, [xy[0], xy[1], z]))


def wait_ticks(rt: Runtime, seconds: float) -> Generator[None, None, None]:
    for _ in range(max(0, round(seconds / rt.dt))):
        yield


def _set_tilt(rt: Runtime, angle: float) -> None:
    rt.cmd[4] = angle


# ---------------------------------------------------------------- geometry readers


def object_frame(rt: Runtime, name: str) -> tuple[np.ndarray, np.ndarray]:
    body = rt.body_ids[name]
    return rt.data.xpos[body].copy(), rt.data.xmat[body].reshape(3, 3).copy()


def object_bottom(rt: Runtime, name: str) -> np.ndarray:
    pos, R = object_frame(rt, name)
    return pos - R[:, 2] * rt.infos[name].half_height


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


# ---------------------------------------------------------------- skills


def skill_move_to(rt: Runtime, target: Any, height: float = 0.05) -> Controller:
    point = _point_of(rt, target)
    if point is None:
        return fail(f"`{_name(target)}` has no position to move to")
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
    for _ in range(round(0.6 / rt.dt)):
        yield
        left, right = rt.pad_contacts(owner)
        if left and right:
            break
    else:
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
        return fail(f"`{_name(target)}` is not a slot")
    point = target_point(rt, target)
    if point is None:
        return fail(f"`{_name(target)}` is not a place an object can be put")
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
        return fail(f"`{_name(bin_)}` is not a waste bin")
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
        return fail(f"`{_name(scale)}` is not a scale")
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


def skill_press_button(rt: Runtime, target: Any) -> Controller:
    if not isinstance(target, ButtonTarget) or (target.entity, target.button) not in rt.buttons:
        return fail(f"`{_name(target)}` is not a button")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`; it needs empty fingers to press")
    body = rt.model.body(f"{target.entity}_{target.button}").id
    top = rt.data.xpos[body] + [0, 0, 0.008]
    rt.set_grip(0.0)
    pad_below = 0.007  # the closed pads reach this far below the TCP
    yield from transit(rt, top[:2], top[2] + pad_below + 0.02)
    before = len(rt.events)
    yield from move_tcp(
        rt, [top[0], top[1], top[2] + pad_below - 0.0045], speed=SLOW / 2, settle=0.4
    )
    yield from wait_ticks(rt, 0.1)
    pressed = any(e[1] == f"{target.entity}.{target.button}" for e in rt.events[before:])
    yield from move_tcp(rt, [top[0], top[1], SAFE_Z], settle=0.0)
    rt.set_grip(0.02)
    return ok() if pressed else fail(f"`{_name(target)}` did not travel far enough to register")


def skill_tare(rt: Runtime, scale: Any) -> Controller:
    if not (isinstance(scale, str) and scale in rt.scales):
        return fail(f"`{_name(scale)}` is not a scale")
    result = yield from skill_press_button(rt, ButtonTarget(scale, "tare"))
    return result


def skill_start_centrifuge(rt: Runtime, centrifuge: Any) -> Controller:
    if not (
        isinstance(centrifuge, str)
        and rt.infos.get(centrifuge)
        and rt.infos[centrifuge].rotor_joint
    ):
        return fail(f"`{_name(centrifuge)}` is not a centrifuge")
    if centrifuge in rt.lids_removed:
        return fail(f"the lid of `{centrifuge}` was removed")
    if lid_angle(rt, centrifuge) > 0.05:
        return fail(f"the lid of `{centrifuge}` is open")
    if not balanced(rt, centrifuge):
        return fail(f"the rotor of `{centrifuge}` is not balanced")
    return (yield from skill_press_button(rt, ButtonTarget(centrifuge, "start")))


def _lid_geometry(rt: Runtime, name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """Hinge point, the centrifuge frame, and the hinge-to-handle radius."""
    d, m = rt.data, rt.model
    info = rt.infos[name]
    hinge = d.site(info.lid_hinge_site).xpos.copy()
    frame = d.xmat[rt.body_ids[name]].reshape(3, 3).copy()
    handle0 = m.body(info.lid_handle).pos  # in the lid frame, at angle 0
    return hinge, frame, float(np.linalg.norm(handle0))


def _handle_point(hinge: np.ndarray, frame: np.ndarray, radius: float, angle: float) -> np.ndarray:
    local = np.array([0.0, -radius * math.cos(angle), radius * math.sin(angle)])
    return hinge + frame @ local


def _swing_lid(rt: Runtime, name: str, goal_angle: float) -> Controller:
    info = rt.infos.get(name)
    if info is None or not info.lid_joint:
        return fail(f"`{name}` has no lid")
    if name in rt.lids_removed:
        return fail(f"the lid of `{name}` was removed")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`")
    hinge, frame, radius = _lid_geometry(rt, name)
    angle = lid_angle(rt, name)
    handle = rt.data.xpos[rt.model.body(info.lid_handle).id].copy()
    rt.set_grip(0.02)
    yield from transit(rt, handle[:2], handle[2] + 0.03)
    yield from move_tcp(rt, handle, speed=SLOW, settle=0.3)
    rt.set_grip(0.0)
    handle_geom = int(rt.model.body(info.lid_handle).geomadr[0])
    for _ in range(round(0.6 / rt.dt)):
        yield
        left, right = rt.pad_contacts(-2, handle_geom)
        if left and right:
            break
    else:
        rt.set_grip(0.02)
        return fail(f"the fingers did not both touch the lid handle of `{name}`")
    rt.connect_lid(name)
    rt.set_lid_held(name)
    rt.set_grip(0.012)  # the connect constraint carries the handle; pads stay clear
    yield from wait_ticks(rt, 0.1)
    rate = 0.8 * rt.dt  # rad per tick
    direction = 1.0 if goal_angle > angle else -1.0
    while (goal_angle - angle) * direction > 0:
        angle = angle + direction * min(rate, abs(goal_angle - angle))
        rt.set_tcp(_handle_point(hinge, frame, radius, angle))
        yield
    yield from wait_ticks(rt, 0.3)
    rt.release_lid(name)
    rt.set_lid_held(None)
    rt.set_grip(0.02)
    yield from wait_ticks(rt, 0.2)
    here = rt.cmd_tcp()
    away = here + frame @ np.array([0.0, -0.05, 0.0])
    yield from move_tcp(rt, [away[0], away[1], max(here[2], SAFE_Z) + 0.03], settle=0.0)
    yield from wait_ticks(rt, 0.3)
    final = lid_angle(rt, name)
    return ok(angle=round(final, 4))


def skill_open_lid(rt: Runtime, centrifuge: Any) -> Controller:
    if (
        isinstance(centrifuge, str)
        and centrifuge in rt.infos
        and rt.infos[centrifuge].lid_joint
        and lid_angle(rt, centrifuge) > 1.2
    ):
        return ok()
    return (yield from _swing_lid(rt, _name(centrifuge), 1.75))


def skill_close_lid(rt: Runtime, centrifuge: Any) -> Controller:
    if (
        isinstance(centrifuge, str)
        and centrifuge in rt.infos
        and rt.infos[centrifuge].lid_joint
        and lid_angle(rt, centrifuge) < 0.05
    ):
        return ok()
    return (yield from _swing_lid(rt, _name(centrifuge), 0.03))


POUR_TILT = 1.9  # rad, the most the wrist tilts while pouring
POUR_RATE = 20e-6  # m^3/s at full flow for a 50 mL vessel
POWDER_DENSITY = 600.0  # kg/m^3, bulk density of a free-flowing powder
POWDER_FLOW = 0.05  # a powder flows at this fraction of a liquid's volumetric rate
REPOSE_ANGLE = math.radians(35)  # a powder slides out only past its angle of repose


def skill_pour(
    rt: Runtime, source: str, target: Any, amount: float, *, powder: bool = False
) -> Controller:
    """Tilt a held container over an open one; contents move only while the lip is over it.

    With `powder`, `amount` is a mass; the powder stands at its bulk density and flows only
    once the source is tilted past the powder's angle of repose as well.
    """
    if rt.held != source:
        return fail(f"the gripper is not holding `{source}`")
    tinfo = rt.infos.get(target) if isinstance(target, str) else None
    if tinfo is None or tinfo.opening <= 0:
        return fail(f"`{_name(target)}` is not an open container")
    sinfo = rt.infos[source]
    if rt.capped(source):
        return fail(f"`{source}` is capped; it cannot be poured from")
    kinds = {rt.ledger.kinds.get(k, "liquid") for k in rt.ledger.amounts.get(source, {})}
    wanted = "powder" if powder else "liquid"
    if kinds and kinds != {wanted}:
        return fail(f"`{source}` holds {' and '.join(sorted(kinds))}, not only {wanted}")
    unit, factor = ("g", 1e3) if powder else ("mL", 1e6)
    have = rt.ledger.total(source)
    if have + 1e-15 < amount:
        return fail(
            f"`{source}` holds {have * factor:.2f} {unit}, less than {amount * factor:.2f} {unit}"
        )
    tpos, tR = object_frame(rt, target)
    rim = tpos + tR[:, 2] * tinfo.half_height
    spos = rt.data.xpos[rt.body_ids[source]]
    lift = rim[2] + 0.03 + (rt.tcp()[2] - (spos[2] - sinfo.half_height))
    yield from transit(rt, [rim[0], rim[1] - 0.03], lift)
    moved = spilled = 0.0
    tilt = 0.0
    area = math.pi * (sinfo.fill_radius or sinfo.opening) ** 2
    rate = POUR_RATE * (sinfo.capacity / 50e-6) ** (2 / 3)
    density = POWDER_DENSITY if powder else 1.0  # level = amount / density / area
    if powder:
        rate *= POWDER_DENSITY * POWDER_FLOW
    substance = max(rt.ledger.amounts.get(source, {"": 0.0}).items(), key=lambda kv: kv[1])[0]
    for _ in range(round(12.0 / rt.dt)):
        done = moved + spilled >= amount - 1e-15
        tilt = max(0.0, tilt - 1.5 * rt.dt) if done else min(POUR_TILT, tilt + 0.6 * rt.dt)
        _set_tilt(rt, tilt)
        pos, R = object_frame(rt, source)
        axis = R[:, 2]
        downhill = np.array([axis[0], axis[1], 0.0])
        norm = float(np.linalg.norm(downhill))
        lip = pos + axis * sinfo.half_height
        if norm > 1e-6:
            lip = lip + downhill / norm * sinfo.opening
        if not done:
            # closed loop: keep the lip over the target's centre, high enough that the
            # tilted source's body clears the target's rim; at most 5 mm per tick
            cmd = rt.cmd_tcp()
            err = np.array(
                [rim[0] - lip[0], rim[1] - lip[1], max(0.0, rim[2] + sinfo.radius + 0.012 - lip[2])]
            )
            rt.set_tcp(cmd + np.clip(0.3 * err, -0.005, 0.005))
        yield
        if done and tilt <= 0.0:
            break
        if done:
            continue
        level = rt.ledger.total(source) / density / area
        incline = math.acos(max(-1.0, min(1.0, float(axis[2]))))
        threshold = math.atan2(max(sinfo.depth - level, 0.0), 2 * sinfo.opening)
        if powder:
            threshold = max(threshold, REPOSE_ANGLE)
        if incline <= threshold:
            continue
        flow = min(rate * rt.dt * min(1.0, (incline - threshold) / 0.3), amount - moved - spilled)
        over = float(np.hypot(lip[0] - rim[0], lip[1] - rim[1])) < tinfo.opening - 0.002
        rt.add_contents(source, substance, -flow)
        if over and lip[2] > rim[2]:
            rt.add_contents(target, substance, flow)
            moved += flow
        else:
            rt.spill(source, flow)
            spilled += flow
    _set_tilt(rt, 0.0)
    yield from wait_ticks(rt, 0.3)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    if spilled > 0:
        return fail(f"spilled {spilled * factor:.2f} {unit} of `{substance}` outside `{target}`")
    if moved + 1e-12 < amount:
        return SkillResult(
            "timed out", f"poured {moved * factor:.2f} of {amount * factor:.2f} {unit}"
        )
    return ok(**{f"poured_{unit.lower()}": round(moved * factor, 6)})


def skill_set_temperature(rt: Runtime, block: Any, celsius: float) -> Controller:
    """Dial a setpoint into a thermal block and press its `set` button."""
    if not (isinstance(block, str) and block in rt.setpoint):
        return fail(f"`{_name(block)}` is not a thermal block")
    if not 4.0 <= celsius <= 99.0:
        return fail(f"a thermal block runs between 4 C and 99 C, not {celsius:g} C")
    rt.set_pending_setpoint(block, celsius)
    result = yield from skill_press_button(rt, ButtonTarget(block, "set"))
    return result


def skill_incubate(rt: Runtime, obj: str, slot: Any, duration: float) -> Controller:
    """Put a held object into a thermal block's well and leave it there for a while."""
    if not (isinstance(slot, SlotTarget) and rt.infos[slot.container].heater):
        return fail(f"`{_name(slot)}` is not a well of a thermal block")
    placed = yield from skill_place(rt, obj, slot, need_slot=True)
    if not placed.ok:
        return placed
    yield from wait_ticks(rt, duration)
    return ok(temperature=round(rt.temperature[obj], 3))


SHAKE_AMPLITUDE = 0.012  # m
SHAKE_HZ = 3.0
MIXING_ACCELERATION = 2.0  # m/s^2 RMS of the container's own motion that counts as mixing


def skill_shake(rt: Runtime, obj: str, duration: float) -> Controller:
    """Shake a held container side to side; it counts as mixed only if it really moved."""
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    centre = rt.cmd_tcp()
    body = rt.body_ids[obj]
    velocities = []
    start = rt.time
    while rt.time - start < duration:
        phase = 2 * math.pi * SHAKE_HZ * (rt.time - start)
        rt.set_tcp(centre + np.array([0.0, SHAKE_AMPLITUDE * math.sin(phase), 0.0]))
        yield
        velocities.append(rt.data.cvel[body][3:].copy())
    yield from move_tcp(rt, centre, settle=0.5)
    if len(velocities) < 3:
        return fail("too short to shake")
    accel = np.diff(np.array(velocities), axis=0) / rt.dt
    rms = float(np.sqrt((accel**2).sum(axis=1).mean()))
    if rms < MIXING_ACCELERATION:
        return fail(f"`{obj}` moved too gently to mix ({rms:.2f} m/s^2 RMS)")
    if rt.ledger.total(obj) > 0:
        rt.mark_mixed(obj)
    return ok(rms_acceleration=round(rms, 3))


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


# ---------------------------------------------------------------- skills added for the families


def skill_dispense_powder(rt: Runtime, source: str, target: Any, mass: float) -> Controller:
    """Tip powder from a held open container into another, past the angle of repose."""
    if mass <= 0:
        return fail("`dispense_powder` needs a positive mass")
    return (yield from skill_pour(rt, source, target, mass, powder=True))


def _agitate(
    rt: Runtime, obj: str, duration: float, path: Callable[[float], np.ndarray]
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
        return fail("too short to mix")
    accel = np.diff(np.array(velocities), axis=0) / rt.dt
    rms = float(np.sqrt((accel**2).sum(axis=1).mean()))
    if rms < MIXING_ACCELERATION:
        return fail(f"`{obj}` moved too gently to mix ({rms:.2f} m/s^2 RMS)")
    if rt.ledger.total(obj) > 0:
        rt.mark_mixed(obj)
    return ok(rms_acceleration=round(rms, 3))


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
        return fail(f"`{_name(stirrer)}` is not a stirrer")
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


def _needs_tip(rt: Runtime, pipette: str) -> str:
    if rt.tips.get(pipette, True):
        return ""
    return f"`{pipette}` has no tip (attach one with `attach_tip`)"


def skill_mix_by_pipetting(rt: Runtime, pipette: str, container: Any, cycles: float) -> Controller:
    """Draw part of a container's liquid up and expel it back, `cycles` times."""
    times = int(cycles)
    if times != cycles or not 1 <= times <= 20:
        return fail("`mix_by_pipetting` takes a whole number of cycles from 1 to 20")
    problem = _check_liquid_handling(rt, pipette, container)
    if problem:
        return fail(problem)
    if rt.ledger.total(pipette) > 0:
        return fail(f"`{pipette}` already holds liquid")
    volume = min(0.8 * rt.infos[pipette].capacity, 0.5 * rt.ledger.total(ledger_key(container)))
    if volume <= 0:
        return fail(f"`{_name(container)}` holds no liquid to mix")
    for k in range(times):
        drawn = yield from skill_aspirate(rt, pipette, container, volume)
        if not drawn.ok:
            return fail(f"cycle {k + 1}: {drawn.reason}")
        expelled = yield from skill_dispense(rt, pipette, container)
        if not expelled.ok:
            return fail(f"cycle {k + 1}: {expelled.reason}")
    rt.mark_mixed(ledger_key(container))
    return ok(cycles=times, volume_ul=round(volume * 1e9, 6))


def skill_transfer(
    rt: Runtime, pipette: str, source: Any, target: Any, volume: float
) -> Controller:
    """Aspirate a volume from one container and dispense it into another."""
    drawn = yield from skill_aspirate(rt, pipette, source, volume)
    if not drawn.ok:
        return drawn
    return (yield from skill_dispense(rt, pipette, target, volume))


def _nose(rt: Runtime, pipette: str) -> np.ndarray:
    """The lower end of a pipette's body (where a tip sits)."""
    from lablang.sim.assets import PIPETTE_BODY

    pos, R = object_frame(rt, pipette)
    return pos - R[:, 2] * PIPETTE_BODY[1]


def skill_attach_tip(rt: Runtime, pipette: str, position: Any) -> Controller:
    """Press a held, bare pipette's nose onto a tip standing in a tip box; the tip stays on
    only if the nose came down on it (contact, within 1 mm of its axis)."""
    if rt.held != pipette or rt.infos[pipette].asset != "pipette":
        return fail(f"the gripper is not holding the pipette `{pipette}`")
    if rt.tips.get(pipette, False):
        return fail(f"`{pipette}` already carries a tip")
    if not (isinstance(position, SlotTarget) and position.container in rt.boxed_tips):
        return fail(f"`{_name(position)}` is not a position of a tip box")
    if not rt.boxed_tips[position.container][position.index]:
        return fail(f"`{_name(position)}` holds no tip")
    top = target_point(rt, position)
    assert top is not None
    offset = rt.tcp() - _nose(rt, pipette)
    yield from transit(rt, (top + offset)[:2], top[2] + 0.02 + offset[2])
    # press 3 mm past the tip's top: the tip stops the nose, so contact is made if aligned
    yield from move_tcp(rt, top + offset - [0, 0, 0.003], speed=SLOW / 2, settle=0.4)
    geom = rt.box_tip_geoms[position.container][position.index]
    owner = rt.entity_index[pipette]
    d = rt.data
    touched = any(
        (a == geom and rt._owner_list[b] == owner) or (b == geom and rt._owner_list[a] == owner)
        for a, b in (d.contact.geom.tolist() if d.ncon else ())
    )
    nose = _nose(rt, pipette)
    aligned = float(np.hypot(nose[0] - top[0], nose[1] - top[1])) <= 0.001
    if touched and aligned:
        rt.take_boxed_tip(position.container, position.index)
        rt.show_geom(geom, False)
        rt.set_tip(pipette, True)
        rt.show_geom(rt.tip_geoms[pipette], True)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    if not rt.tips[pipette]:
        return fail(
            f"the nose of `{pipette}` did not seat on the tip at `{_name(position)}`"
            + ("" if touched else " (no contact)")
        )
    return ok()


def skill_eject_tip(rt: Runtime, pipette: str, bin_: Any) -> Controller:
    """Eject a held pipette's tip into a waste bin (with any liquid left in it)."""
    if rt.held != pipette or rt.infos[pipette].asset != "pipette":
        return fail(f"the gripper is not holding the pipette `{pipette}`")
    if not rt.tips.get(pipette, False):
        return fail(f"`{pipette}` has no tip to eject")
    info = rt.infos.get(bin_) if isinstance(bin_, str) else None
    if info is None or info.asset != "waste_bin":
        return fail(f"`{_name(bin_)}` is not a waste bin")
    floor = rt.data.site(info.top_site).xpos.copy()
    offset = rt.tcp() - _tip(rt, pipette)
    yield from transit(rt, floor[:2], floor[2] + info.depth + 0.02 + offset[2])
    tip = _tip(rt, pipette)
    if float(np.hypot(tip[0] - floor[0], tip[1] - floor[1])) > info.radius - 0.005:
        return fail(f"the tip of `{pipette}` is not over `{bin_}`")
    rt.set_tip(pipette, False)
    rt.show_geom(rt.tip_geoms[pipette], False)
    for substance, amount in sorted(rt.ledger.amounts.get(pipette, {}).items()):
        rt.add_contents(pipette, substance, -amount)
        rt.add_contents(bin_, substance, amount)
    yield from wait_ticks(rt, 0.3)
    return ok()


def skill_read_scale(rt: Runtime, scale: Any) -> Controller:
    """Wait until the scale's display has been steady for its stable window; report it."""
    if not (isinstance(scale, str) and scale in rt.scales):
        return fail(f"`{_name(scale)}` is not a scale")
    while not rt.scale_stable(scale):
        yield
    return ok(reading_g=rt.scales[scale].reading())


def skill_weigh(rt: Runtime, obj: str, scale: Any) -> Controller:
    """Put a held object on a scale and read the stable display."""
    placed = yield from skill_put_on_scale(rt, obj, scale)
    if not placed.ok:
        return placed
    return (yield from skill_read_scale(rt, scale))


def skill_twist_cap(rt: Runtime, bottle: str, turns: float) -> Controller:
    """Unscrew a standing bottle's cap by `turns` turns, in quarter-turn strokes: grip the
    cap, turn the wrist 90 degrees, let go, turn back. The cap turns only by friction
    between the pads and the cap, against the thread's friction."""
    info = rt.infos.get(bottle)
    if info is None or not info.cap_joint:
        return fail(f"`{bottle}` has no screw cap")
    if bottle in rt.uncapped:
        return fail(f"the cap of `{bottle}` is already off")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`; it needs empty fingers to twist a cap")
    count = int(turns)
    if count != turns or not 1 <= count <= 5:
        return fail("`twist_cap` takes a whole number of turns from 1 to 5")
    start = cap_turns(rt, bottle)
    goal = min(start + count, CAP_OPEN_TURNS)
    cap = rt.model.body(f"{bottle}_cap").id
    cap_r = float(rt.model.geom_size[rt.model.body_geomadr[cap]][0])
    open_grip = min(FINGER_MAX, cap_r + 0.006)
    rt.set_grip(open_grip)
    cap_half = float(rt.model.geom_size[rt.model.body_geomadr[cap]][1])
    # the pads (30 mm tall, centred on the TCP) grip the cap's upper part only: their lower
    # edge stays 2 mm above the cap's skirt, so they do not also grip (and turn) the bottle
    lift = np.array([0.0, 0.0, 0.015 - cap_half + 0.002])
    centre = rt.data.xpos[cap].copy()
    yield from transit(rt, centre[:2], centre[2] + 0.04)
    yield from move_tcp(rt, rt.data.xpos[cap] + lift, speed=SLOW, settle=0.3)
    owner = rt.entity_index[bottle]
    yield from _cap_strokes(
        rt, owner, open_grip, 1.0, lambda: cap_turns(rt, bottle) < goal - 0.02, 8 * count + 4
    )
    done = cap_turns(rt, bottle) - start
    removed = False
    if cap_turns(rt, bottle) >= CAP_OPEN_TURNS - 0.02:
        # free of the thread: grip the cap and lift it off (then it is gone, see remove_cap)
        rt.set_grip(0.0)
        for _ in range(round(0.5 / rt.dt)):
            yield
            left, right = rt.pad_contacts(owner)
            if left and right:
                rt.remove_cap(bottle)
                removed = True
                break
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    rt.set_grip(open_grip)
    yield from wait_ticks(rt, 0.2)
    # a removed cap reached the end of the thread (the closing fingers may have turned it
    # back a hair before it was lifted off: that is not a shortfall)
    if not removed and cap_turns(rt, bottle) < goal - 0.02:
        return fail(f"the cap of `{bottle}` turned only {done:.2f} of {goal - start:.2f} turns")
    if goal >= CAP_OPEN_TURNS and not removed:
        return fail(f"the cap of `{bottle}` is free of the thread but could not be gripped")
    return ok(turns=round(done, 3), cap="removed" if removed else "on")


# a cap's stroke turns the wrist a quarter turn; it starts only with this much room left
STROKE_ROOM = math.pi / 2 + 0.2
# how close (rad) the hand's yaw must be to its command before a stroke grips or lets go:
# the gantry's yaw servo stays within 0.06 rad at a stroke's ends, so it never waits
YAW_FOLLOW = 0.07


def _cap_strokes(
    rt: Runtime, owner: int, open_grip: float, sign: float, more: Callable[[], bool], limit: int
) -> Generator[None, None, None]:
    """Quarter-turn strokes on a cap while `more()`: grip, turn the wrist 90 degrees (`sign`
    +1 unscrews, -1 screws on), let go, turn back; stops when the pads find nothing.

    A wrist with less than a quarter turn (and a margin) left in the stroke's direction
    (the Panda's joint 7 stops at ±2.9 rad) first turns the open hand a quarter turn the
    other way around the cap, as a real arm re-grasps: the strokes then start there."""
    home_yaw = float(rt.cmd[3])
    if rt.yaw_room(sign) < STROKE_ROOM and rt.yaw_room(-sign) >= STROKE_ROOM:
        for k in range(1, 26):
            rt.cmd[3] = home_yaw - sign * (math.pi / 2) * k / 25
            yield
        home_yaw = float(rt.cmd[3])
        yield from wait_ticks(rt, 0.2)
    strokes = 0
    while more() and strokes < limit:
        strokes += 1
        rt.set_grip(0.0)
        for _ in range(round(0.5 / rt.dt)):
            yield
            left, right = rt.pad_contacts(owner)
            if left and right:
                break
        else:
            break
        for k in range(1, 26):  # a quarter turn in 0.5 s
            rt.cmd[3] = home_yaw + sign * (math.pi / 2) * k / 25
            yield
        yield from _await_yaw(rt)  # the whole quarter turn, before the fingers let go
        rt.set_grip(open_grip)
        yield from wait_ticks(rt, 0.2)
        for k in range(1, 16):
            rt.cmd[3] = home_yaw + sign * (math.pi / 2) * (1 - k / 15)
            yield
        yield from _await_yaw(rt)  # back where the stroke starts, before the fingers close


def _await_yaw(rt: Runtime) -> Generator[None, None, None]:
    """Wait (at most 1 s) until the hand has turned to within `YAW_FOLLOW` of its commanded
    yaw: the Panda's wrist follows a stroke's 3 rad/s up to 0.6 rad behind (its servo's 6 N m
    against the joint's damping), so gripping or letting go at once lost most of a stroke."""
    hand = rt.hand_body
    for _ in range(round(1.0 / rt.dt)):
        R = rt.data.xmat[hand]
        if abs(math.remainder(math.atan2(R[3], R[0]) - float(rt.cmd[3]), math.tau)) <= YAW_FOLLOW:
            return
        yield


def skill_close_cap(rt: Runtime, bottle: str) -> Controller:
    """Screw a bottle's cap back on: a removed cap is set back on the neck (free on the
    thread, 1.5 turns out), then turned home in quarter-turn strokes by friction alone,
    until it is within 0.05 turns of closed; a loose cap is just turned home."""
    info = rt.infos.get(bottle)
    if info is None or not info.cap_joint:
        return fail(f"`{bottle}` has no screw cap")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`; it needs empty fingers to close a cap")
    if bottle not in rt.uncapped and cap_turns(rt, bottle) <= CAP_CLOSED_TURNS:
        return ok(turns=0.0)
    if tilt(rt, bottle) > math.radians(10):
        return fail(f"`{bottle}` is not standing upright")
    m = rt.model
    cap = m.body(f"{bottle}_cap").id
    cap_r = float(m.geom_size[m.body_geomadr[cap]][0])
    cap_half = float(m.geom_size[m.body_geomadr[cap]][1])
    open_grip = min(FINGER_MAX, cap_r + 0.006)
    rt.set_grip(open_grip)
    lift = np.array([0.0, 0.0, 0.015 - cap_half + 0.002])  # as in twist_cap: the cap only
    yield from transit(rt, rt.data.xpos[cap][:2], rt.data.xpos[cap][2] + 0.04)
    if bottle in rt.uncapped:
        rt.replace_cap(bottle, CAP_OPEN_TURNS)
        yield from wait_ticks(rt, 0.1)
    yield from move_tcp(rt, rt.data.xpos[cap] + lift, speed=SLOW, settle=0.3)
    start = cap_turns(rt, bottle)
    yield from _cap_strokes(
        rt,
        rt.entity_index[bottle],
        open_grip,
        -1.0,
        lambda: cap_turns(rt, bottle) > CAP_CLOSED_TURNS,
        4 * math.ceil(start) + 6,
    )
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    yield from wait_ticks(rt, 0.2)
    left = cap_turns(rt, bottle)
    if left > CAP_CLOSED_TURNS:
        return fail(f"the cap of `{bottle}` is still {left:.2f} turns open")
    return ok(turns=round(start - left, 3))


def _tip(rt: Runtime, pipette: str) -> np.ndarray:
    pos, R = object_frame(rt, pipette)
    return pos - R[:, 2] * rt.infos[pipette].half_height


@attrs.frozen(slots=True)
class _Vessel:
    centre: np.ndarray  # of the mouth
    rim: float
    floor: float
    level: float
    opening: float
    hollow: bool


def _vessel(rt: Runtime, container: Any) -> _Vessel:
    """Where a container's mouth, floor and liquid surface are, now."""
    if isinstance(container, WellTarget):
        plate = rt.infos[container.plate]
        mouth = rt.data.site(plate.wells[container.index]).xpos.copy()
        floor = float(mouth[2]) - plate.well_depth
        area = math.pi * plate.well_radius**2
        level = floor + rt.ledger.total(container.key) / area
        return _Vessel(mouth, float(mouth[2]), floor, level, plate.well_radius, False)
    info = rt.infos[container]
    pos, R = object_frame(rt, container)
    rim = pos + R[:, 2] * info.half_height
    floor = float((pos - R[:, 2] * info.half_height)[2]) + 0.002
    level = floor + rt.ledger.total(container) / (math.pi * (info.fill_radius or info.opening) ** 2)
    return _Vessel(rim, float(rim[2]), floor, level, info.opening, info.hollow)


def _tip_into(rt: Runtime, pipette: str, container: Any, depth_goal: Any) -> Motion:
    """Bring the pipette's tip over the container's mouth and down to a height."""
    vessel = _vessel(rt, container)
    offset = rt.tcp() - _tip(rt, pipette)
    yield from transit(rt, (vessel.centre + offset)[:2], vessel.rim + 0.02 + offset[2])
    goal_z = depth_goal(vessel)
    goal = [vessel.centre[0] + offset[0], vessel.centre[1] + offset[1], goal_z + offset[2]]
    return (yield from move_tcp(rt, goal, speed=SLOW, settle=0.4))


def _tip_inside(rt: Runtime, pipette: str, container: Any) -> tuple[bool, float]:
    """Whether the tip is within the mouth and below the rim (at the mouth of solid
    containers, whose interior is not modelled); and its height."""
    vessel = _vessel(rt, container)
    tip = _tip(rt, pipette)
    radial = float(np.hypot(tip[0] - vessel.centre[0], tip[1] - vessel.centre[1]))
    top = vessel.rim if vessel.hollow else vessel.rim + 0.004
    inside = radial < vessel.opening - 0.001 and vessel.floor - 0.001 < tip[2] < top
    return inside, float(tip[2])


def _check_liquid_handling(rt: Runtime, pipette: str, container: Any) -> str:
    if rt.held != pipette or rt.infos[pipette].asset != "pipette":
        return f"the gripper is not holding the pipette `{pipette}`"
    if not rt.tips.get(pipette, True):
        return _needs_tip(rt, pipette)
    if isinstance(container, WellTarget):
        return ""
    info = rt.infos.get(container) if isinstance(container, str) else None
    if info is None or info.opening <= 0:
        return f"`{_name(container)}` is not an open container"
    if rt.capped(container):
        return f"`{container}` is capped"
    return ""


def skill_aspirate(rt: Runtime, pipette: str, source: Any, volume: float) -> Controller:
    """Draw liquid into the pipette; it moves only if the tip is below the liquid's surface."""
    problem = _check_liquid_handling(rt, pipette, source)
    if problem:
        return fail(problem)
    room = rt.infos[pipette].capacity - rt.ledger.total(pipette)
    if volume > room + 1e-15:
        return fail(f"`{pipette}` holds at most {rt.infos[pipette].capacity * 1e9:.0f} uL")
    key = ledger_key(source)
    if rt.ledger.total(key) + 1e-15 < volume:
        return fail(f"`{_name(source)}` holds less than {volume * 1e9:.1f} uL")
    # aim 4 mm below the surface, but never closer than 2 mm to the floor
    yield from _tip_into(rt, pipette, source, lambda v: max(v.floor + 0.002, v.level - 0.004))
    inside, tip_z = _tip_inside(rt, pipette, source)
    level = _vessel(rt, source).level
    if not inside or tip_z >= level:
        here = rt.cmd_tcp()
        yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
        return fail(f"the tip of `{pipette}` did not reach the liquid in `{_name(source)}`")
    amounts = rt.ledger.amounts[key]
    total = sum(amounts.values())
    for substance, amount in sorted(amounts.items()):
        share = volume * amount / total
        rt.add_contents(key, substance, -share)
        rt.set_kind(substance, "liquid")
        rt.add_contents(pipette, substance, share)
    yield from wait_ticks(rt, 0.5)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    return ok(aspirated_ul=round(volume * 1e9, 6))


def skill_dispense(
    rt: Runtime, pipette: str, target: Any, volume: float | None = None
) -> Controller:
    """Expel liquid from the pipette; what is not released inside the target is spilled."""
    problem = _check_liquid_handling(rt, pipette, target)
    if problem:
        return fail(problem)
    have = rt.ledger.total(pipette)
    amount = have if volume is None else volume
    if amount <= 0 or have + 1e-15 < amount:
        return fail(f"`{pipette}` holds {have * 1e9:.1f} uL, not {amount * 1e9:.1f} uL")
    # the tip goes 5 mm below the rim, or to 2 mm above the floor for shallow vessels
    yield from _tip_into(
        rt,
        pipette,
        target,
        lambda v: max(v.floor + 0.002, v.rim - 0.005) if v.hollow else v.rim + 0.0015,
    )
    inside, _tip_z = _tip_inside(rt, pipette, target)
    amounts = rt.ledger.amounts.get(pipette, {})
    for substance, held in sorted(amounts.items()):
        share = amount * held / have
        rt.add_contents(pipette, substance, -share)
        if inside:
            rt.add_contents(ledger_key(target), substance, share)
        else:
            rt.spill(pipette, share)
    yield from wait_ticks(rt, 0.5)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    if not inside:
        return fail(
            f"the tip of `{pipette}` was not inside `{_name(target)}`; "
            f"{amount * 1e9:.1f} uL spilled"
        )
    return ok(dispensed_ul=round(amount * 1e9, 6))


def _point_of(rt: Runtime, target: Any) -> np.ndarray | None:
    if isinstance(target, str) and target in rt.body_ids:
        return rt.data.xpos[rt.body_ids[target]].copy()
    return target_point(rt, target)


def _name(target: Any) -> str:
    match target:
        case SlotTarget(container=c, index=i):
            return f"{c}.slot[{i}]"
        case ButtonTarget(entity=e, button=b):
            return f"{e}.{b}"
        case WellTarget():
            return target.key
        case _:
            return str(target)


# name -> (controller, timeout in simulated seconds); signatures are in `catalog`
SkillFn = Callable[..., Controller]
SKILLS: dict[str, tuple[SkillFn, float]] = {
    "move_to": (skill_move_to, 8.0),
    "home": (skill_home, 8.0),
    "pick": (skill_pick, 10.0),
    "place": (skill_place, 12.0),
    "release": (skill_release, 4.0),
    "insert_into_slot": (skill_insert_into_slot, 12.0),
    "remove_from_slot": (skill_remove_from_slot, 10.0),
    "open_lid": (skill_open_lid, 15.0),
    "close_lid": (skill_close_lid, 15.0),
    "press_button": (skill_press_button, 8.0),
    "start_centrifuge": (skill_start_centrifuge, 8.0),
    "put_on_scale": (skill_put_on_scale, 12.0),
    "discard": (skill_discard, 10.0),
    "tare": (skill_tare, 8.0),
    "pour": (skill_pour, 20.0),
    "wait": (skill_wait, 600.0),
    "aspirate": (skill_aspirate, 15.0),
    "dispense": (skill_dispense, 15.0),
    "set_temperature": (skill_set_temperature, 8.0),
    "incubate": (skill_incubate, 612.0),
    "shake": (skill_shake, 62.0),
    "invert": (skill_invert, 120.0),
    "swirl": (skill_swirl, 62.0),
    "stir": (skill_stir, 630.0),
    "mix_by_pipetting": (skill_mix_by_pipetting, 400.0),
    "attach_tip": (skill_attach_tip, 12.0),
    "eject_tip": (skill_eject_tip, 10.0),
    "transfer": (skill_transfer, 30.0),
    "dispense_powder": (skill_dispense_powder, 30.0),
    "read_scale": (skill_read_scale, 15.0),
    "weigh": (skill_weigh, 25.0),
    "twist_cap": (skill_twist_cap, 40.0),
    "close_cap": (skill_close_cap, 40.0),
}
