"""Skills that work an instrument through its buttons: press_button, tare, start_centrifuge,
set_temperature and incubate (a thermal block), read_scale and weigh."""

from __future__ import annotations

from typing import Any

from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    SLOW,
    Controller,
    fail,
    move_tcp,
    ok,
    target_name,
    transit,
    wait_ticks,
)
from lablang.sim.skills.handling import skill_place, skill_put_on_scale
from lablang.sim.state import ButtonTarget, SlotTarget, balanced, lid_angle


def skill_press_button(rt: Runtime, target: Any) -> Controller:
    if not isinstance(target, ButtonTarget) or (target.entity, target.button) not in rt.buttons:
        return fail(f"`{target_name(target)}` is not a button")
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
    return (
        ok() if pressed else fail(f"`{target_name(target)}` did not travel far enough to register")
    )


def skill_tare(rt: Runtime, scale: Any) -> Controller:
    if not (isinstance(scale, str) and scale in rt.scales):
        return fail(f"`{target_name(scale)}` is not a scale")
    result = yield from skill_press_button(rt, ButtonTarget(scale, "tare"))
    return result


def skill_start_centrifuge(rt: Runtime, centrifuge: Any) -> Controller:
    if not (
        isinstance(centrifuge, str)
        and rt.infos.get(centrifuge)
        and rt.infos[centrifuge].rotor_joint
    ):
        return fail(f"`{target_name(centrifuge)}` is not a centrifuge")
    if centrifuge in rt.lids_removed:
        return fail(f"the lid of `{centrifuge}` was removed")
    if lid_angle(rt, centrifuge) > 0.05:
        return fail(f"the lid of `{centrifuge}` is open")
    if not balanced(rt, centrifuge):
        return fail(f"the rotor of `{centrifuge}` is not balanced")
    return (yield from skill_press_button(rt, ButtonTarget(centrifuge, "start")))


def skill_set_temperature(rt: Runtime, block: Any, celsius: float) -> Controller:
    """Dial a setpoint into a thermal block and press its `set` button."""
    if not (isinstance(block, str) and block in rt.setpoint):
        return fail(f"`{target_name(block)}` is not a thermal block")
    if not 4.0 <= celsius <= 99.0:
        return fail(f"a thermal block runs between 4 C and 99 C, not {celsius:g} C")
    rt.set_pending_setpoint(block, celsius)
    result = yield from skill_press_button(rt, ButtonTarget(block, "set"))
    return result


def skill_incubate(rt: Runtime, obj: str, slot: Any, duration: float) -> Controller:
    """Put a held object into a thermal block's well and leave it there for a while."""
    if not (isinstance(slot, SlotTarget) and rt.infos[slot.container].heater):
        return fail(f"`{target_name(slot)}` is not a well of a thermal block")
    placed = yield from skill_place(rt, obj, slot, need_slot=True)
    if not placed.ok:
        return placed
    yield from wait_ticks(rt, duration)
    return ok(temperature=round(rt.temperature[obj], 3))


def skill_read_scale(rt: Runtime, scale: Any) -> Controller:
    """Wait until the scale's display has been steady for its stable window; report it."""
    if not (isinstance(scale, str) and scale in rt.scales):
        return fail(f"`{target_name(scale)}` is not a scale")
    while not rt.scale_stable(scale):
        yield
    return ok(reading_g=rt.scales[scale].reading())


def skill_weigh(rt: Runtime, obj: str, scale: Any) -> Controller:
    """Put a held object on a scale and read the stable display."""
    placed = yield from skill_put_on_scale(rt, obj, scale)
    if not placed.ok:
        return placed
    return (yield from skill_read_scale(rt, scale))
