"""Skills on closures: a centrifuge's hinged lid (open_lid, close_lid) and a bottle's screw
cap (twist_cap, close_cap), which turn by the pads' friction alone."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from typing import Any

import numpy as np

from lablang.sim.assets import FINGER_MAX
from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    SLOW,
    Controller,
    Motion,
    fail,
    move_tcp,
    ok,
    pads_close_on,
    target_name,
    transit,
    wait_ticks,
)
from lablang.sim.state import CAP_CLOSED_TURNS, CAP_OPEN_TURNS, cap_turns, lid_angle, tilt


def _lid_geometry(rt: Runtime, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hinge point, the apparatus' frame, and the handle in the lid's frame at angle 0
    (`x` along the hinge, then its radius from the hinge)."""
    d, m = rt.data, rt.model
    info = rt.infos[name]
    hinge = d.site(info.lid_hinge_site).xpos.copy()
    frame = d.xmat[rt.body_ids[name]].reshape(3, 3).copy()
    handle0 = m.body(info.lid_handle).pos  # in the lid frame, at angle 0
    return hinge, frame, np.array([handle0[0], float(np.linalg.norm(handle0[1:]))])


def _handle_point(
    hinge: np.ndarray, frame: np.ndarray, handle: np.ndarray, angle: float
) -> np.ndarray:
    along, radius = handle
    local = np.array([along, -radius * math.cos(angle), radius * math.sin(angle)])
    return hinge + frame @ local


def grip_handle(rt: Runtime, name: str) -> Motion:
    """Close the fingers on an apparatus' handle (`lid_handle`: a lid's, a drawer's) and
    connect the hand to it; whether both pads touched it (else the fingers open again)."""
    handle_body = rt.model.body(rt.infos[name].lid_handle)
    handle = rt.data.xpos[handle_body.id].copy()
    rt.set_grip(0.02)
    yield from transit(rt, handle[:2], handle[2] + 0.03)
    yield from move_tcp(rt, handle, speed=SLOW, settle=0.3)
    rt.set_grip(0.0)
    if not (yield from pads_close_on(rt, -2, 0.6, int(handle_body.geomadr[0]))):
        rt.set_grip(0.02)
        return False
    rt.connect_lid(name)
    rt.set_lid_held(name)
    rt.set_grip(0.012)  # the connect constraint carries the handle; pads stay clear
    yield from wait_ticks(rt, 0.1)
    return True


def let_go_of_handle(rt: Runtime, name: str) -> Generator[None, None, None]:
    """Release the connected handle and open the fingers."""
    rt.release_lid(name)
    rt.set_lid_held(None)
    rt.set_grip(0.02)
    yield from wait_ticks(rt, 0.2)


def _swing_lid(rt: Runtime, name: str, goal_angle: float) -> Controller:
    info = rt.infos.get(name)
    if info is None or not info.lid_joint:
        return fail(f"`{name}` has no lid")
    if name in rt.lids_removed:
        return fail(f"the lid of `{name}` was removed")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`")
    hinge, frame, handle0 = _lid_geometry(rt, name)
    angle = lid_angle(rt, name)
    if not (yield from grip_handle(rt, name)):
        return fail(f"the fingers did not both touch the lid handle of `{name}`")
    rate = 0.8 * rt.dt  # rad per tick
    direction = 1.0 if goal_angle > angle else -1.0
    while (goal_angle - angle) * direction > 0:
        angle = angle + direction * min(rate, abs(goal_angle - angle))
        rt.set_tcp(_handle_point(hinge, frame, handle0, angle))
        yield
    yield from wait_ticks(rt, 0.3)
    yield from let_go_of_handle(rt, name)
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
    return (yield from _swing_lid(rt, target_name(centrifuge), 1.75))


def skill_close_lid(rt: Runtime, centrifuge: Any) -> Controller:
    if (
        isinstance(centrifuge, str)
        and centrifuge in rt.infos
        and rt.infos[centrifuge].lid_joint
        and lid_angle(rt, centrifuge) < 0.05
    ):
        return ok()
    return (yield from _swing_lid(rt, target_name(centrifuge), 0.03))


def _cap_hold(rt: Runtime, bottle: str) -> tuple[int, float, np.ndarray]:
    """A bottle's cap body, the fingers' opening around it, and the TCP's offset from the
    cap's centre for gripping it: the pads (30 mm tall, centred on the TCP) grip the cap's
    upper part only, their lower edge 2 mm above the cap's skirt, so they do not also grip
    (and turn) the bottle."""
    m = rt.model
    cap = m.body(f"{bottle}_cap").id
    cap_r, cap_half = (float(v) for v in m.geom_size[m.body_geomadr[cap]][:2])
    lift = np.array([0.0, 0.0, 0.015 - cap_half + 0.002])
    return cap, min(FINGER_MAX, cap_r + 0.006), lift


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
    cap, open_grip, lift = _cap_hold(rt, bottle)
    rt.set_grip(open_grip)
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
        removed = yield from pads_close_on(rt, owner, 0.5)
        if removed:
            rt.remove_cap(bottle)
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
        if not (yield from pads_close_on(rt, owner, 0.5)):
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
    cap, open_grip, lift = _cap_hold(rt, bottle)
    rt.set_grip(open_grip)
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
