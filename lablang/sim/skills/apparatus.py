"""Skills on bench apparatus with moving parts: pressing a held tube on a vortex mixer's
cup (vortex), and pulling a drawer's tray out by its handle and pushing it back
(open_drawer, close_drawer). An incubator's door is a hinged lid (`open_lid`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    SLOW,
    Controller,
    fail,
    move_tcp,
    object_bottom,
    ok,
    target_name,
    transit,
    wait_ticks,
)
from lablang.sim.skills.closures import grip_handle, let_go_of_handle
from lablang.sim.state import DRAWER_CLOSED, DRAWER_OPEN, drawer_travel

VORTEX_MIX_TIME = 2.0  # s on the running cup that mix a tube's contents
VORTEX_ORBIT = 0.002  # m: the radius of the cup's orbit, which the held tube follows
VORTEX_HZ = 5.0
CUP_PRESS = 0.006  # m: 1 mm past the cup's 5 mm stop (it runs from 3 mm down)
DRAWER_PULL = 0.12  # m `open_drawer` pulls the tray out


def skill_vortex(rt: Runtime, obj: str, mixer: Any, duration: float) -> Controller:
    """Press a held, closed tube down on a vortex mixer's cup (which runs while it is
    pressed 3 mm or more) and hold it there for `duration`, following the cup's orbit; the
    contents count as mixed after 2 s on the running cup."""
    info = rt.infos.get(mixer) if isinstance(mixer, str) else None
    if info is None or "cup" not in info.buttons or info.asset != "vortex_mixer":
        return fail(f"`{target_name(mixer)}` is not a vortex mixer")
    if rt.held != obj:
        return fail(f"the gripper is not holding `{obj}`")
    if not rt.capped(obj) and rt.ledger.total(obj) > 0:
        return fail(f"`{obj}` is open; vortexing it would spill its contents")
    cup = rt.data.site(f"{mixer}_cup_top").xpos.copy()
    hold = rt.tcp().copy() - object_bottom(rt, obj)  # the TCP above the tube's bottom
    above = cup + hold + [0.0, 0.0, 0.015]
    press = cup + hold - [0.0, 0.0, CUP_PRESS]
    yield from transit(rt, above[:2], above[2])
    yield from move_tcp(rt, press, speed=SLOW / 2, settle=0.3)
    running = 0.0
    start = rt.time
    mixer_index = rt.entity_index[mixer]
    while rt.time - start < duration:
        t = rt.time - start
        phase = 2 * math.pi * VORTEX_HZ * t
        r = VORTEX_ORBIT * min(1.0, t / 0.2)  # ramp the orbit in, as `swirl` does
        rt.set_tcp(press + np.array([r * math.cos(phase) - r, r * math.sin(phase), 0.0]))
        yield
        if rt.buttons[(mixer, "cup")][1] and mixer_index in rt.touching(obj):
            running += rt.dt
    yield from move_tcp(rt, above, settle=0.3)
    if running == 0.0:
        return fail(f"`{obj}` did not press the cup of `{mixer}` down far enough to run it")
    if running < VORTEX_MIX_TIME - 1e-9:
        return fail(
            f"`{obj}` was on the running cup of `{mixer}` for {running:.1f} s; "
            f"vortexing mixes after {VORTEX_MIX_TIME:g} s"
        )
    if rt.ledger.total(obj) > 0:
        rt.mark_mixed(obj)
    return ok(vortexed_s=round(running, 3))


def _is_drawer(rt: Runtime, drawer: Any) -> bool:
    return isinstance(drawer, str) and drawer in rt.infos and bool(rt.infos[drawer].drawer_joint)


def _slide_drawer(rt: Runtime, drawer: Any, goal: float) -> Controller:
    """Grip a drawer's handle, move it along the slide until the tray is `goal` (m) out,
    let go and lift the hand clear."""
    if not _is_drawer(rt, drawer):
        return fail(f"`{target_name(drawer)}` is not a drawer")
    if rt.held is not None:
        return fail(f"the gripper holds `{rt.held}`; it needs empty fingers to work a drawer")
    frame = rt.data.xmat[rt.body_ids[drawer]].reshape(3, 3)
    pull = frame @ np.array([0.0, -1.0, 0.0])
    if not (yield from grip_handle(rt, drawer)):
        return fail(f"the fingers did not both touch the handle of `{drawer}`")
    handle = rt.data.xpos[rt.model.body(rt.infos[drawer].lid_handle).id].copy()
    travel = drawer_travel(rt, drawer)
    yield from move_tcp(rt, handle + pull * (goal - travel), speed=SLOW, settle=0.3)
    yield from wait_ticks(rt, 0.2)
    yield from let_go_of_handle(rt, drawer)
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], max(here[2] + 0.03, SAFE_Z)], settle=0.0)
    return ok(travel_m=round(drawer_travel(rt, drawer), 4))


def skill_open_drawer(rt: Runtime, drawer: Any) -> Controller:
    """Pull a drawer's tray 12 cm out by its handle; open from 10 cm."""
    if _is_drawer(rt, drawer) and drawer_travel(rt, drawer) >= DRAWER_OPEN:
        return ok()
    result = yield from _slide_drawer(rt, drawer, DRAWER_PULL)
    if result.ok and drawer_travel(rt, drawer) < DRAWER_OPEN:
        travel = drawer_travel(rt, drawer)
        return fail(f"the tray of `{drawer}` came out {travel * 100:.1f} cm, not 10 cm")
    return result


def skill_close_drawer(rt: Runtime, drawer: Any) -> Controller:
    """Push a drawer's tray home by its handle; closed within 5 mm."""
    if _is_drawer(rt, drawer) and drawer_travel(rt, drawer) <= DRAWER_CLOSED:
        return ok()
    result = yield from _slide_drawer(rt, drawer, 0.0)
    if result.ok and drawer_travel(rt, drawer) > DRAWER_CLOSED:
        travel = drawer_travel(rt, drawer)
        return fail(f"the tray of `{drawer}` is still {travel * 1000:.0f} mm out")
    return result
