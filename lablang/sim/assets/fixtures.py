"""Fixtures: what stands on the table and holds or works on objects (the table, racks, a
centrifuge, a thermal block, a scale, a well plate, a waste bin, a stirrer)."""

from __future__ import annotations

import math

import mujoco

from lablang.sim.assets.display import add_display
from lablang.sim.assets.info import AssetInfo, SlotInfo
from lablang.sim.assets.parts import (
    BLUE,
    DARK,
    GREY,
    G,
    add_button,
    box,
    cup_walls,
    grid,
    hinged_lid,
    lid_handle,
    quat_z,
)
from lablang.sim.catalog import SLOT_BORES
from lablang.sim.model import Entity


def build_table(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    body = spec.worldbody.add_body(name=entity.name, pos=[0.3, 0.0, 0.0])
    box(body, [0.0, 0.0, -0.025], [0.55, 0.55, 0.025], [0.75, 0.7, 0.62, 1.0])
    body.add_site(name=f"{entity.name}_top", pos=[0.0, 0.0, 0.0], size=[0.005, 0, 0])
    return AssetInfo(
        entity.name, "table", entity.name, free=False, radius=0.55, top_site=f"{entity.name}_top"
    )


def build_tube_rack(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    n = int(entity.param("slots", 6))
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    pitch, bore, depth, base = 0.025, SLOT_BORES["tube_rack"], 0.018, 0.01
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.004, rows * pitch / 2 + 0.004
    box(body, [0.0, 0.0, base / 2], [hx, hy, base / 2], BLUE)
    info = AssetInfo(entity.name, "tube_rack", entity.name, free=False, radius=max(hx, hy))
    for k, (x, y) in enumerate(grid(n, cols, pitch)):
        slot = body.add_body(name=f"{entity.name}_slot{k}", pos=[x, y, base])
        cup_walls(slot, bore, depth, BLUE)
        slot.add_site(name=f"{entity.name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", bore, depth))
    return info


def build_centrifuge(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    n = int(entity.param("slots", 8))
    name = entity.name
    ring = max(0.05, n * 0.024 / (2 * math.pi))
    housing_r = ring + 0.05
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    body.add_geom(type=G.mjGEOM_CYLINDER, pos=[0, 0, 0.03], size=[housing_r, 0.03, 0], rgba=GREY)
    rotor = body.add_body(name=f"{name}_rotor", pos=[0, 0, 0.06])
    rotor.add_joint(
        name=f"{name}_rotor_hinge",
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0, 0, 1],
        damping=0.05,
        frictionloss=0.02,
        armature=0.001,
    )
    rotor.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, 0.004],
        size=[ring + 0.02, 0.004, 0],
        mass=0.3,
        rgba=DARK,
    )
    info = AssetInfo(
        name, "centrifuge", name, free=False, radius=housing_r, rotor_joint=f"{name}_rotor_hinge"
    )
    bore, depth = SLOT_BORES["centrifuge"], 0.018
    for k in range(n):
        a = 2 * math.pi * k / n
        slot = rotor.add_body(
            name=f"{name}_slot{k}",
            pos=[ring * math.cos(a), ring * math.sin(a), 0.008],
            quat=quat_z(a),
        )
        cup_walls(slot, bore, depth, [0.4, 0.4, 0.45, 1.0])
        slot.add_site(name=f"{name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{name}_s{k}", bore, depth))
    # lid on a hinge at the back edge; closed = 0 rad, opens upward about -x
    lid_z = 0.13
    box(body, [0, housing_r + 0.008, (0.06 + lid_z) / 2], [0.02, 0.008, (lid_z - 0.06) / 2], GREY)
    lid = hinged_lid(body, name, [0, housing_r + 0.005, lid_z])
    lid.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, -(housing_r + 0.005), 0],
        size=[housing_r, 0.004, 0],
        mass=0.15,
        rgba=[0.55, 0.7, 0.85, 0.5],
    )
    handle = lid_handle(lid, name, [0, -(2 * housing_r + 0.005 + 0.012), 0])
    handle.add_site(name=f"{name}_handle_site", size=[0.002, 0, 0])
    lid.add_site(name=f"{name}_hinge_site", size=[0.002, 0, 0])
    info.lid_joint = f"{name}_lid_hinge"
    info.lid_handle = f"{name}_handle"
    info.lid_hinge_site = f"{name}_hinge_site"
    # start button on a console in front, outside the lid's sweep
    console = body.add_body(name=f"{name}_console", pos=[0.06, -(housing_r + 0.02), 0])
    box(console, [0, 0, 0.02], [0.03, 0.02, 0.02], GREY)
    info.buttons["start"] = add_button(spec, console, f"{name}_start", [0, 0, 0.04])
    return info


def build_thermal_block(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """An aluminium block with tube wells and a `set` button (the thermal model is in the runtime)."""
    n = int(entity.param("slots", 6))
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    pitch, bore, depth = 0.025, SLOT_BORES["thermal_block"], 0.018
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.006, rows * pitch / 2 + 0.006
    box(body, [0.0, 0.0, 0.01], [hx, hy + 0.02, 0.01], [0.7, 0.72, 0.75, 1.0])
    info = AssetInfo(
        entity.name, "thermal_block", entity.name, free=False, radius=max(hx, hy), heater=True
    )
    for k, (x, y) in enumerate(grid(n, cols, pitch)):
        slot = body.add_body(name=f"{entity.name}_slot{k}", pos=[x, y + 0.01, 0.02])
        cup_walls(slot, bore, depth, [0.75, 0.77, 0.8, 1.0])
        slot.add_site(name=f"{entity.name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", bore, depth))
    info.buttons["set"] = add_button(
        spec, body, f"{entity.name}_set", [hx - 0.012, -hy - 0.008, 0.02]
    )
    # the block's thermometer, upright past the +x edge facing the front camera (visual only)
    info.display = add_display(body, f"{entity.name}_display", [hx + 0.004, 0.0, 0.09])
    return info


def build_scale(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, 0.02], [0.07, 0.085, 0.02], GREY)
    pan = body.add_body(name=f"{name}_pan", pos=[0, 0.012, 0.04])
    pan.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, 0.003],
        size=[0.055, 0.003, 0],
        mass=0.1,
        rgba=[0.85, 0.85, 0.88, 1.0],
    )
    pan.add_site(name=f"{name}_pan_site", size=[0.002, 0, 0])
    pan.add_site(name=f"{name}_top", pos=[0, 0, 0.006], size=[0.002, 0, 0])
    spec.add_sensor(
        name=f"{name}_force",
        type=mujoco.mjtSensor.mjSENS_FORCE,
        objtype=mujoco.mjtObj.mjOBJ_SITE,
        objname=f"{name}_pan_site",
    )
    info = AssetInfo(
        name,
        "scale",
        name,
        free=False,
        radius=0.055,
        top_site=f"{name}_top",
        force_sensor=f"{name}_force",
    )
    info.buttons["tare"] = add_button(spec, body, f"{name}_tare", [0, -0.068, 0.04])
    # the display, upright at the +x edge facing the front camera (visual only)
    info.display = add_display(body, f"{name}_display", [0.075, 0.0, 0.094])
    return info


def build_well_plate(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """An SBS-footprint plate; wells are ledger containers whose mouths are sites (the
    plate is a solid block: liquid is handled at each well's mouth)."""
    n = int(entity.param("wells", 96))
    # 8 rows of 12 or 4 rows of 6
    cols, pitch, radius = (12, 0.009, 0.0034) if n == 96 else (6, 0.0193, 0.008)
    depth = 0.0108 if n == 96 else 0.0174
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, 0.0072], [0.0639, 0.0428, 0.0072], [0.92, 0.92, 0.95, 1.0])
    info = AssetInfo(
        entity.name,
        "well_plate",
        entity.name,
        free=False,
        radius=0.0639,
        well_radius=radius,
        well_depth=depth,
    )
    for k, (x, y) in enumerate(grid(n, cols, pitch)):
        body.add_site(
            name=f"{entity.name}_w{k}",
            pos=[x, y, 0.0144],
            size=[radius, 0.0005, 0],
            type=mujoco.mjtGeom.mjGEOM_CYLINDER,
            rgba=[0.6, 0.6, 0.7, 1],
        )
        info.wells.append(f"{entity.name}_w{k}")
    return info


def build_waste_bin(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """An open box that things are dropped into."""
    half, height, wall = 0.06, 0.08, 0.003
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=quat_z(yaw))
    colour = [0.3, 0.5, 0.3, 1.0]
    box(body, [0, 0, wall / 2], [half, half, wall / 2], colour)
    for sign in (-1.0, 1.0):
        box(body, [0, sign * (half - wall / 2), height / 2], [half, wall / 2, height / 2], colour)
        box(body, [sign * (half - wall / 2), 0, height / 2], [wall / 2, half, height / 2], colour)
    body.add_site(name=f"{entity.name}_top", pos=[0, 0, wall], size=[0.002, 0, 0])
    return AssetInfo(
        entity.name,
        "waste_bin",
        entity.name,
        free=False,
        radius=half - wall,
        top_site=f"{entity.name}_top",
        depth=height,
    )


def build_stirrer(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A magnetic stirrer with a hot plate: a surface, a `stir` toggle and a `set` button.

    The heating and the stirring are runtime models (see docs/sim.md): a container resting
    on the plate approaches the plate's temperature, and is mixed after 5 s of stirring.
    """
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, 0.03], [0.08, 0.1, 0.03], [0.9, 0.9, 0.9, 1.0])
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0.015, 0.062],
        size=[0.065, 0.002, 0],
        rgba=[0.75, 0.75, 0.78, 1.0],
        friction=[1.2, 0.01, 0.001],
    )
    body.add_site(name=f"{name}_top", pos=[0, 0.015, 0.064], size=[0.002, 0, 0])
    info = AssetInfo(
        name, "stirrer", name, free=False, radius=0.065, top_site=f"{name}_top", heater=True
    )
    info.buttons["stir"] = add_button(spec, body, f"{name}_stir", [-0.04, -0.078, 0.06])
    info.buttons["set"] = add_button(spec, body, f"{name}_set", [0.04, -0.078, 0.06])
    # the plate's thermometer, upright at the +x edge facing the front camera (visual only)
    info.display = add_display(body, f"{name}_display", [0.085, 0.0, 0.12])
    return info
