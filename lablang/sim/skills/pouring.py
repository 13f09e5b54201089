"""Pouring from a held container: liquids, and powders past their angle of repose."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lablang.sim.runtime import Runtime
from lablang.sim.skills.base import (
    SAFE_Z,
    Controller,
    SkillResult,
    fail,
    move_tcp,
    object_frame,
    ok,
    set_tilt,
    target_name,
    transit,
    wait_ticks,
)

POUR_TILT = 1.9  # rad, the most the wrist tilts while pouring
POUR_RATE = 20e-6  # m^3/s at full flow for a 50 mL vessel
POWDER_DENSITY = 600.0  # kg/m^3, bulk density of a free-flowing powder
POWDER_FLOW = 0.05  # a powder flows at this fraction of a liquid's volumetric rate
REPOSE_ANGLE = math.radians(35)  # a powder slides out only past its angle of repose


def lip_of(pos: np.ndarray, axis: np.ndarray, half_height: float, opening: float) -> np.ndarray:
    """A tilted container's lip: the point of its mouth's rim lowest in the tilt (its
    mouth's centre while it stands upright)."""
    lip = pos + axis * half_height
    downhill = np.array([axis[0], axis[1], 0.0])
    norm = float(np.linalg.norm(downhill))
    if norm > 1e-6:
        lip = lip + downhill / norm * opening
    return lip


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
        return fail(f"`{target_name(target)}` is not an open container")
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
        set_tilt(rt, tilt)
        pos, R = object_frame(rt, source)
        axis = R[:, 2]
        lip = lip_of(pos, axis, sinfo.half_height, sinfo.opening)
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
    set_tilt(rt, 0.0)
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


def skill_dispense_powder(rt: Runtime, source: str, target: Any, mass: float) -> Controller:
    """Tip powder from a held open container into another, past the angle of repose."""
    if mass <= 0:
        return fail("`dispense_powder` needs a positive mass")
    return (yield from skill_pour(rt, source, target, mass, powder=True))
