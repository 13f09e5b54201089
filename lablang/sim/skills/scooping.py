"""Powder by the scoop: `scoop` takes a dose from an open container of powder into a held
scoop's bowl, `empty_scoop` tips the bowl out over a target.

A powder is a mass in the contents ledger (bulk density `catalog.POWDER_DENSITY`), not
simulated grains: the scoop takes exactly the dose asked (a levelled measure) when its
bowl is inside the source's mouth and its floor below the powder's surface, up to what
the bowl holds; the dose leaves the bowl when the bowl is tipped past 90 degrees, and
counts in the target only if the bowl's mouth is then wholly over the target's opening
and above its rim; otherwise all of it is spilled. Every change moves mass, so a scale sees it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lablang.sim.catalog import POWDER_DENSITY, SCOOP_WALL
from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SLOW,
    Controller,
    closed_to,
    fail,
    move_tcp,
    object_bottom,
    object_frame,
    ok,
    safe_height,
    set_tilt,
    transit,
    wait_ticks,
)

TIP_TILT = 1.9  # rad: how far the wrist tips the bowl (past 90 degrees: the dose falls)
RELEASE_INCLINE = math.pi / 2  # the bowl's axis this far from vertical: the dose leaves


def bowl_of(rt: Runtime, scoop: str) -> tuple[np.ndarray, np.ndarray]:
    """The centre of the bowl's floor and the scoop's axis, now."""
    _, R = object_frame(rt, scoop)
    return object_bottom(rt, scoop) + R[:, 2] * SCOOP_WALL, R[:, 2]


def _mouth(rt: Runtime, container: str) -> tuple[np.ndarray, float, float]:
    """An open container's rim centre, floor height and powder surface height."""
    info = rt.infos[container]
    pos, R = object_frame(rt, container)
    rim = pos + R[:, 2] * info.half_height
    floor = float((pos - R[:, 2] * info.half_height)[2]) + 0.002
    area = math.pi * (info.fill_radius or info.opening) ** 2
    return rim, floor, floor + rt.ledger.total(container) / POWDER_DENSITY / area


def _holding_scoop(rt: Runtime, scoop: str) -> str:
    if rt.held != scoop or rt.infos[scoop].asset != "scoop":
        return f"the gripper is not holding the scoop `{scoop}`"
    return ""


def _lift(rt: Runtime) -> Controller:
    here = rt.cmd_tcp()
    yield from move_tcp(rt, [here[0], here[1], safe_height(rt)], speed=SLOW, settle=0.0)
    return ok()


def skill_scoop(rt: Runtime, scoop: str, source: Any, mass: float) -> Controller:
    """Dip the held scoop into a container of powder and take `mass` of it."""
    problem = _holding_scoop(rt, scoop) or closed_to(rt, source)
    if problem:
        return fail(problem)
    if mass <= 0:
        return fail("`scoop` needs a positive mass")
    amounts = rt.ledger.amounts.get(source, {})
    if not amounts or any(rt.ledger.kinds.get(k, "liquid") != "powder" for k in amounts):
        return fail(f"`{source}` holds no powder, or not only powder")
    if rt.ledger.total(source) + 1e-12 < mass:
        return fail(
            f"`{source}` holds {rt.ledger.total(source) * 1e3:.2f} g, less than {mass * 1e3:.2f} g"
        )
    info = rt.infos[scoop]
    room = info.capacity * POWDER_DENSITY - rt.ledger.total(scoop)
    if mass > room + 1e-12:
        return fail(f"the bowl of `{scoop}` holds at most {room * 1e3:.2f} g more")
    sinfo = rt.infos[source]
    if sinfo.opening < info.radius + 0.002:
        return fail(f"the bowl of `{scoop}` does not fit the mouth of `{source}`")
    rim, floor, level = _mouth(rt, source)
    floor_of_bowl, _ = bowl_of(rt, scoop)
    offset = rt.tcp() - floor_of_bowl
    yield from transit(rt, (rim + offset)[:2], float(rim[2]) + 0.02 + offset[2])
    # the bowl's rim at the surface (it fills as it goes under), never closer than 2 mm to
    # the floor
    goal = max(floor + 0.002, level - info.depth)
    yield from move_tcp(
        rt, [rim[0] + offset[0], rim[1] + offset[1], goal + offset[2]], speed=SLOW, settle=0.3
    )
    floor_of_bowl, _ = bowl_of(rt, scoop)
    rim, floor, level = _mouth(rt, source)
    radial = float(np.hypot(floor_of_bowl[0] - rim[0], floor_of_bowl[1] - rim[1]))
    if radial + info.radius > sinfo.opening or float(floor_of_bowl[2]) >= level:
        yield from _lift(rt)
        return fail(f"the bowl of `{scoop}` did not reach the powder in `{source}`")
    total = rt.ledger.total(source)
    for substance, amount in sorted(amounts.items()):
        share = mass * amount / total
        rt.add_contents(source, substance, -share)
        rt.add_contents(scoop, substance, share)
    yield from wait_ticks(rt, 0.3)
    yield from _lift(rt)
    return ok(scooped_g=round(mass * 1e3, 6))


def skill_empty_scoop(rt: Runtime, scoop: str, target: Any) -> Controller:
    """Tip the held scoop's dose out over an open container; what misses it is spilled."""
    problem = _holding_scoop(rt, scoop) or closed_to(rt, target)
    if problem:
        return fail(problem)
    dose = dict(rt.ledger.amounts.get(scoop, {}))
    if not dose:
        return fail(f"`{scoop}` holds nothing")
    info, tinfo = rt.infos[scoop], rt.infos[target]
    rim = _mouth(rt, target)[0]
    floor_of_bowl, _ = bowl_of(rt, scoop)
    offset = rt.tcp() - floor_of_bowl
    above = float(rim[2]) + 0.015
    yield from transit(rt, (rim + offset)[:2], above + offset[2])
    released: bool | None = None
    tilt = 0.0
    for _ in range(round(8.0 / rt.dt)):
        tilt = (
            min(TIP_TILT, tilt + 0.8 * rt.dt) if released is None else max(0.0, tilt - 1.5 * rt.dt)
        )
        set_tilt(rt, tilt)
        floor_of_bowl, axis = bowl_of(rt, scoop)
        # closed loop: keep the bowl over the target's centre and above its rim while it
        # swings out with the wrist, at most 5 mm per tick
        err = np.array(
            [
                rim[0] - floor_of_bowl[0],
                rim[1] - floor_of_bowl[1],
                max(0.0, above - float(floor_of_bowl[2])),
            ]
        )
        rt.set_tcp(rt.cmd_tcp() + np.clip(0.3 * err, -0.005, 0.005))
        yield
        if released is not None:
            if tilt <= 0.0:
                break
            continue
        incline = math.acos(max(-1.0, min(1.0, float(axis[2]))))
        if incline < RELEASE_INCLINE:
            continue
        radial = float(np.hypot(floor_of_bowl[0] - rim[0], floor_of_bowl[1] - rim[1]))
        # the bowl's whole mouth over the target's opening, and above its rim
        released = radial + info.fill_radius <= tinfo.opening and floor_of_bowl[2] > rim[2]
        for substance, amount in sorted(dose.items()):
            rt.add_contents(scoop, substance, -amount)
            if released:
                rt.add_contents(target, substance, amount)
            else:
                rt.spill(scoop, amount)
    set_tilt(rt, 0.0)
    yield from wait_ticks(rt, 0.3)
    yield from _lift(rt)
    grams = sum(dose.values()) * 1e3
    if released is None:
        return fail(f"`{scoop}` could not be tipped far enough to empty it")
    if not released:
        return fail(f"spilled {grams:.2f} g outside `{target}`: the bowl was not over it")
    return ok(emptied_g=round(grams, 6))
