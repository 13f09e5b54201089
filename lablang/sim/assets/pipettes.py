"""Pipetting equipment: the pipette (a free object with its tip), a tip box, a stand."""

from __future__ import annotations

import math

import mujoco

from lablang.sim.assets.info import AssetInfo, SlotInfo
from lablang.sim.assets.parts import GREY, G, box, cup_walls, free_body, grid, quat_z
from lablang.sim.catalog import SLOT_BORES
from lablang.sim.model import Entity

PIPETTE_BODY = (0.007, 0.035)  # radius, half length (of the shaft and its nose)
PIPETTE_NOSE = (0.003, 0.01)  # radius, length: the narrow cone a tip is pressed onto
PIPETTE_TIP = (0.0025, 0.015)


def build_pipette(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A single-channel pipette with its tip: the liquid it holds is in the ledger."""
    volume = float(entity.param("volume", 200e-9))
    (r, half), (nr, nose), (tr, thalf) = PIPETTE_BODY, PIPETTE_NOSE, PIPETTE_TIP
    body = free_body(spec, entity.name)
    # the shaft ends `nose` above the body's lower end; the nose below it is narrower than
    # a tip box's pitch less a tip (9 mm - 2.5 mm), so pressing it onto one tip never
    # rests the shaft on the tips beside it (a 7 mm shaft to the end touched them)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, nose / 2],
        size=[r, half - nose / 2, 0],
        mass=0.038,
        rgba=[0.9, 0.9, 0.92, 1.0],
        condim=4,
        friction=[1.2, 0.01, 0.001],
    )
    body.add_geom(
        name=f"{entity.name}_nose",
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -half + nose / 2],
        size=[nr, nose / 2, 0],
        mass=0.002,
        rgba=[0.8, 0.8, 0.84, 1.0],
        condim=4,
    )
    body.add_geom(
        name=f"{entity.name}_tip",
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -half - thalf],
        size=[tr, thalf, 0],
        mass=0.002,
        rgba=[0.95, 0.9, 0.5, 0.8],
        condim=4,
    )
    # a pipette declared with `tip: 0` starts bare: the runtime hides its tip geom
    return AssetInfo(
        entity.name,
        "pipette",
        entity.name,
        free=True,
        radius=r,
        half_height=half + 2 * thalf,
        grasp_z=0.02,
        capacity=volume,
        base_mass=0.042,
        bare=entity.param("tip", 1) == 0,
        tip_length=2 * thalf,
    )


TIP_TOP = 0.012  # m: how far a boxed tip stands above the box's top plate


def build_tip_box(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A box of pipette tips standing in holes of its top plate (rows of 6, 9 mm pitch).

    `slot[k]` is the k-th tip position; its site is at the tip's upper end (where a bare
    pipette's nose is pressed on). The runtime hides a tip once it is taken.
    """
    n = int(entity.param("slots", 12))
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    pitch, height = 0.009, 0.05
    tr, thalf = PIPETTE_TIP
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.006, rows * pitch / 2 + 0.006
    box(body, [0, 0, height / 2], [hx, hy, height / 2], [0.2, 0.45, 0.7, 1.0])
    info = AssetInfo(entity.name, "tip_box", entity.name, free=False, radius=max(hx, hy))
    for k, (x, y) in enumerate(grid(n, cols, pitch)):
        body.add_geom(
            name=f"{entity.name}_tip{k}",
            type=G.mjGEOM_CYLINDER,
            pos=[x, y, height + TIP_TOP - thalf],
            size=[tr, thalf, 0],
            rgba=[0.95, 0.9, 0.5, 0.8],
            condim=4,
        )
        body.add_site(name=f"{entity.name}_s{k}", pos=[x, y, height + TIP_TOP], size=[0.001, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", SLOT_BORES["tip_box"], TIP_TOP))
    return info


def build_pipette_stand(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """Deep wells that hold pipettes upright on their tips."""
    n = int(entity.param("slots", 2))
    pitch, bore, depth, base = 0.03, SLOT_BORES["pipette_stand"], 0.045, 0.01
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    hx, hy = n * pitch / 2 + 0.004, pitch / 2 + 0.004
    box(body, [0.0, 0.0, base / 2], [hx, hy, base / 2], GREY)
    info = AssetInfo(entity.name, "pipette_stand", entity.name, free=False, radius=hx)
    for k in range(n):
        slot = body.add_body(
            name=f"{entity.name}_slot{k}", pos=[(k - (n - 1) / 2) * pitch, 0, base]
        )
        cup_walls(slot, bore, depth, GREY)
        slot.add_site(name=f"{entity.name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", bore, depth))
    return info
