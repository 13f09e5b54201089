"""Pipetting: aspirate, dispense, transfer and mix_by_pipetting move liquid only when the
tip is really in the liquid or inside the target; attach_tip and eject_tip handle tips."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from attrs import frozen

from lablang.sim.assets import PIPETTE_BODY
from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    SLOW,
    Controller,
    Motion,
    closed_to,
    fail,
    move_tcp,
    object_frame,
    ok,
    target_name,
    target_point,
    transit,
    wait_ticks,
)
from lablang.sim.state import SlotTarget, WellTarget, bottom_depth, ledger_key


def _tip(rt: Runtime, pipette: str) -> np.ndarray:
    pos, R = object_frame(rt, pipette)
    return pos - R[:, 2] * bottom_depth(rt, pipette)


@frozen
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


def _needs_tip(rt: Runtime, pipette: str) -> str:
    if rt.tips.get(pipette, True):
        return ""
    return f"`{pipette}` has no tip (attach one with `attach_tip`)"


def _check_liquid_handling(rt: Runtime, pipette: str, container: Any) -> str:
    if rt.held != pipette or rt.infos[pipette].asset != "pipette":
        return f"the gripper is not holding the pipette `{pipette}`"
    if not rt.tips.get(pipette, True):
        return _needs_tip(rt, pipette)
    if isinstance(container, WellTarget):
        return ""
    return closed_to(rt, container)


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
        return fail(f"`{target_name(source)}` holds less than {volume * 1e9:.1f} uL")
    # aim 4 mm below the surface, but never closer than 2 mm to the floor
    yield from _tip_into(rt, pipette, source, lambda v: max(v.floor + 0.002, v.level - 0.004))
    inside, tip_z = _tip_inside(rt, pipette, source)
    level = _vessel(rt, source).level
    if not inside or tip_z >= level:
        here = rt.cmd_tcp()
        yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
        return fail(f"the tip of `{pipette}` did not reach the liquid in `{target_name(source)}`")
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
            f"the tip of `{pipette}` was not inside `{target_name(target)}`; "
            f"{amount * 1e9:.1f} uL spilled"
        )
    return ok(dispensed_ul=round(amount * 1e9, 6))


def skill_transfer(
    rt: Runtime, pipette: str, source: Any, target: Any, volume: float
) -> Controller:
    """Aspirate a volume from one container and dispense it into another."""
    drawn = yield from skill_aspirate(rt, pipette, source, volume)
    if not drawn.ok:
        return drawn
    return (yield from skill_dispense(rt, pipette, target, volume))


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
        return fail(f"`{target_name(container)}` holds no liquid to mix")
    for k in range(times):
        drawn = yield from skill_aspirate(rt, pipette, container, volume)
        if not drawn.ok:
            return fail(f"cycle {k + 1}: {drawn.reason}")
        expelled = yield from skill_dispense(rt, pipette, container)
        if not expelled.ok:
            return fail(f"cycle {k + 1}: {expelled.reason}")
    rt.mark_mixed(ledger_key(container))
    return ok(cycles=times, volume_ul=round(volume * 1e9, 6))


def _nose(rt: Runtime, pipette: str) -> np.ndarray:
    """The lower end of a pipette's body (where a tip sits)."""

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
        return fail(f"`{target_name(position)}` is not a position of a tip box")
    if not rt.boxed_tips[position.container][position.index]:
        return fail(f"`{target_name(position)}` holds no tip")
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
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], SAFE_Z], settle=0.0)
    if rt.tips[pipette]:
        # the tip stood 18 mm deep in its hole, which the box's solid block does not
        # model: shown on the nose before it is lifted out, it lay inside the block and
        # the contact shoved the pipette over in the grasp (7 deg more with every tip)
        rt.show_geom(rt.tip_geoms[pipette], True)
    if not rt.tips[pipette]:
        return fail(
            f"the nose of `{pipette}` did not seat on the tip at `{target_name(position)}`"
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
        return fail(f"`{target_name(bin_)}` is not a waste bin")
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
