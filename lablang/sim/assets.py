"""Procedural lab assets built with MuJoCo's MjSpec from primitives (no downloads).

Each builder adds one entity to a spec and returns an `AssetInfo` that records the
geometry the predicates and skills need (slot bores, grasp heights, openings), so
that tolerances come from the asset's geometry rather than from constants.

Dimensions are metres, masses kilograms. The table top is the plane z = 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import attrs
import mujoco
import numpy as np

from lablang.sim.model import Entity

G = mujoco.mjtGeom
STEEL_DENSITY = 7950.0  # kg/m^3, stainless steel calibration weights


@attrs.define
class SlotInfo:
    site: str  # the site at the centre of the slot floor, z up
    bore: float  # half-width of the square bore
    depth: float


@attrs.define
class AssetInfo:
    """What the runtime knows about one built entity."""

    name: str
    asset: str
    body: str
    free: bool  # has a free joint (can be picked)
    slots: list[SlotInfo] = attrs.field(factory=list)
    radius: float = 0.0  # footprint radius (objects) or pan/opening radius
    half_height: float = 0.0  # body origin to bottom / top (objects)
    grasp_z: float = 0.0  # grasp point above the body origin
    top_site: str = ""  # where objects are put on this entity (scale pan, surfaces)
    opening: float = 0.0  # inner radius of an open container (beaker)
    depth: float = 0.0  # inner depth of an open container
    capacity: float = 0.0  # m^3
    base_mass: float = 0.0
    lid_joint: str = ""
    lid_handle: str = ""  # body name of the handle
    lid_hinge_site: str = ""
    buttons: dict[str, str] = attrs.field(factory=dict)  # button name -> joint name
    rotor_joint: str = ""
    force_sensor: str = ""
    yaw_limit: float = math.pi  # symmetric objects: any yaw is the same grasp
    capped: bool = False  # a closed container: inverting it spills nothing, pouring is impossible
    heater: bool = False  # a thermal block: its slots bring their contents to its temperature
    # the interior is modelled (a tip can enter); else liquid is handled at the mouth
    hollow: bool = False
    wells: list[str] = attrs.field(factory=list)  # well sites (at each well's mouth), plates only
    well_radius: float = 0.0
    well_depth: float = 0.0
    fill_radius: float = 0.0  # inner radius where liquid stands, if wider than the opening
    bare: bool = False  # a pipette that starts without a tip
    cap_joint: str = ""  # a screw cap's turning hinge (bottles)


Builder = Callable[[mujoco.MjSpec, Entity, list[float], float], AssetInfo]

_GREY = [0.6, 0.6, 0.62, 1.0]
_DARK = [0.25, 0.25, 0.28, 1.0]
_BLUE = [0.3, 0.45, 0.8, 1.0]
_TUBE = [0.85, 0.85, 0.75, 0.9]


def _quat_z(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


def _box(
    body: mujoco.MjsBody, pos: list[float], half: list[float], rgba: list[float], **kw: object
) -> mujoco.MjsGeom:
    return body.add_geom(type=G.mjGEOM_BOX, pos=pos, size=half, rgba=rgba, **kw)


def _cup_walls(
    body: mujoco.MjsBody,
    bore: float,
    depth: float,
    rgba: list[float],
    z0: float = 0.0,
    wall: float = 0.002,
) -> None:
    """Four walls around a square bore of half-width `bore`, floor at z0."""
    zc = z0 + depth / 2
    for sign in (-1.0, 1.0):
        _box(body, [0.0, sign * (bore + wall / 2), zc], [bore + wall, wall / 2, depth / 2], rgba)
        _box(body, [sign * (bore + wall / 2), 0.0, zc], [wall / 2, bore, depth / 2], rgba)


# ---------------------------------------------------------------- fixtures


def build_table(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    body = spec.worldbody.add_body(name=entity.name, pos=[0.3, 0.0, 0.0])
    _box(body, [0.0, 0.0, -0.025], [0.55, 0.55, 0.025], [0.75, 0.7, 0.62, 1.0])
    body.add_site(name=f"{entity.name}_top", pos=[0.0, 0.0, 0.0], size=[0.005, 0, 0])
    return AssetInfo(
        entity.name, "table", entity.name, free=False, radius=0.55, top_site=f"{entity.name}_top"
    )


def build_tube_rack(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    n = int(entity.param("slots", 6))
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    pitch, bore, depth, base = 0.025, 0.0065, 0.018, 0.01
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.004, rows * pitch / 2 + 0.004
    _box(body, [0.0, 0.0, base / 2], [hx, hy, base / 2], _BLUE)
    info = AssetInfo(entity.name, "tube_rack", entity.name, free=False, radius=max(hx, hy))
    for k in range(n):
        r, c = divmod(k, cols)
        x, y = (c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch
        slot = body.add_body(name=f"{entity.name}_slot{k}", pos=[x, y, base])
        _cup_walls(slot, bore, depth, _BLUE)
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
    body = spec.worldbody.add_body(name=name, pos=pos, quat=_quat_z(yaw))
    body.add_geom(type=G.mjGEOM_CYLINDER, pos=[0, 0, 0.03], size=[housing_r, 0.03, 0], rgba=_GREY)
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
        rgba=_DARK,
    )
    info = AssetInfo(
        name, "centrifuge", name, free=False, radius=housing_r, rotor_joint=f"{name}_rotor_hinge"
    )
    bore, depth = 0.0065, 0.018
    for k in range(n):
        a = 2 * math.pi * k / n
        slot = rotor.add_body(
            name=f"{name}_slot{k}",
            pos=[ring * math.cos(a), ring * math.sin(a), 0.008],
            quat=_quat_z(a),
        )
        _cup_walls(slot, bore, depth, [0.4, 0.4, 0.45, 1.0])
        slot.add_site(name=f"{name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{name}_s{k}", bore, depth))
    # lid on a hinge at the back edge; closed = 0 rad, opens upward about -x
    lid_z = 0.13
    _box(body, [0, housing_r + 0.008, (0.06 + lid_z) / 2], [0.02, 0.008, (lid_z - 0.06) / 2], _GREY)
    lid = body.add_body(name=f"{name}_lid", pos=[0, housing_r + 0.005, lid_z])
    lid.add_joint(
        name=f"{name}_lid_hinge",
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[-1, 0, 0],
        range=[0.0, 1.9],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        damping=0.05,
        armature=0.002,
    )
    lid.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, -(housing_r + 0.005), 0],
        size=[housing_r, 0.004, 0],
        mass=0.15,
        rgba=[0.55, 0.7, 0.85, 0.5],
    )
    handle = lid.add_body(name=f"{name}_handle", pos=[0, -(2 * housing_r + 0.005 + 0.012), 0])
    _box(handle, [0, 0, 0], [0.006, 0.012, 0.010], _DARK, mass=0.01)
    handle.add_site(name=f"{name}_handle_site", size=[0.002, 0, 0])
    lid.add_site(name=f"{name}_hinge_site", size=[0.002, 0, 0])
    info.lid_joint = f"{name}_lid_hinge"
    info.lid_handle = f"{name}_handle"
    info.lid_hinge_site = f"{name}_hinge_site"
    # start button on a console in front, outside the lid's sweep
    console = body.add_body(name=f"{name}_console", pos=[0.06, -(housing_r + 0.02), 0])
    _box(console, [0, 0, 0.02], [0.03, 0.02, 0.02], _GREY)
    info.buttons["start"] = _add_button(spec, console, f"{name}_start", [0, 0, 0.04])
    return info


def _add_button(spec: mujoco.MjSpec, parent: mujoco.MjsBody, name: str, pos: list[float]) -> str:
    button = parent.add_body(name=name, pos=pos)
    button.add_joint(
        name=f"{name}_joint",
        type=mujoco.mjtJoint.mjJNT_SLIDE,
        axis=[0, 0, 1],
        range=[-0.005, 0.0],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        stiffness=200.0,
        damping=2.0,
        armature=0.2,
    )
    # collision group 2: the button meets the finger pads but not the housing it sinks into
    button.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, 0.004],
        size=[0.008, 0.004, 0],
        mass=0.005,
        rgba=[0.8, 0.2, 0.2, 1.0],
        contype=2,
        conaffinity=2,
    )
    return f"{name}_joint"


def build_thermal_block(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """An aluminium block with tube wells and a `set` button (the thermal model is in the runtime)."""
    n = int(entity.param("slots", 6))
    cols = min(n, 6)
    rows = math.ceil(n / cols)
    pitch, bore, depth = 0.025, 0.0065, 0.018
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.006, rows * pitch / 2 + 0.006
    _box(body, [0.0, 0.0, 0.01], [hx, hy + 0.02, 0.01], [0.7, 0.72, 0.75, 1.0])
    info = AssetInfo(
        entity.name, "thermal_block", entity.name, free=False, radius=max(hx, hy), heater=True
    )
    for k in range(n):
        r, c = divmod(k, cols)
        x, y = (c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch + 0.01
        slot = body.add_body(name=f"{entity.name}_slot{k}", pos=[x, y, 0.02])
        _cup_walls(slot, bore, depth, [0.75, 0.77, 0.8, 1.0])
        slot.add_site(name=f"{entity.name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", bore, depth))
    info.buttons["set"] = _add_button(
        spec, body, f"{entity.name}_set", [hx - 0.012, -hy - 0.008, 0.02]
    )
    return info


def build_scale(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=_quat_z(yaw))
    _box(body, [0, 0, 0.02], [0.07, 0.085, 0.02], _GREY)
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
    info.buttons["tare"] = _add_button(spec, body, f"{name}_tare", [0, -0.068, 0.04])
    return info


# ---------------------------------------------------------------- objects


def _free_body(spec: mujoco.MjSpec, name: str) -> mujoco.MjsBody:
    body = spec.worldbody.add_body(name=name, pos=[0, 0, 0.5])
    joint = body.add_freejoint(name=f"{name}_free")
    # a gram-scale tube has an axial inertia of ~3e-8 kg m^2: squeezed by the pads it can spin
    # up numerically; a small armature regularizes rotation (and adds ~0.1% to translation)
    joint.armature = 2e-6
    return body


def build_tube(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    r, half = 0.0054, 0.0145
    mass = float(entity.param("mass", 0.0015))
    body = _free_body(spec, entity.name)
    if int(entity.param("hollow", 0)):
        return _hollow_tube(body, entity, r, half, mass)
    body.add_geom(
        type=G.mjGEOM_CAPSULE,
        size=[r, half, 0],
        mass=mass * 0.85,
        rgba=_TUBE,
        condim=4,
        friction=[1.0, 0.01, 0.001],
    )
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, half + r - 0.002],
        size=[r + 0.0008, 0.003, 0],
        mass=mass * 0.15,
        rgba=[0.9, 0.5, 0.2, 1.0],
        condim=4,
    )
    return AssetInfo(
        entity.name,
        "tube_1_5ml",
        entity.name,
        free=True,
        radius=r,
        half_height=half + r,
        grasp_z=0.008,
        opening=0.0045,
        depth=0.035,
        capacity=1.5e-6,
        capped=bool(entity.param("capped", 1)),
        base_mass=mass,
    )


def _hollow_tube(
    body: mujoco.MjsBody, entity: Entity, r: float, half: float, mass: float
) -> AssetInfo:
    """An open tube whose bore is modelled: a flat 2 mm floor and 10 wall segments (0.9 mm)
    around a 4.5 mm bore, the solid tube's outer size, so that a pipette tip can enter it."""
    wall, nseg = 0.0009, 10
    height = 2 * (half + r)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -height / 2 + 0.001],
        size=[r, 0.001, 0],
        mass=mass * 0.25,
        rgba=_TUBE,
        condim=4,
        friction=[1.0, 0.01, 0.001],
    )
    seg_half = r * math.tan(math.pi / nseg) + 0.0003
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        body.add_geom(
            type=G.mjGEOM_BOX,
            pos=[(r - wall / 2) * math.cos(a), (r - wall / 2) * math.sin(a), 0.001],
            quat=_quat_z(a),
            size=[wall / 2, seg_half, height / 2 - 0.001],
            mass=mass * 0.75 / nseg,
            rgba=_TUBE,
            condim=4,
            friction=[1.0, 0.01, 0.001],
        )
    return AssetInfo(
        entity.name,
        "tube_1_5ml",
        entity.name,
        free=True,
        radius=r,
        half_height=half + r,
        grasp_z=0.008,
        opening=r - wall,
        depth=height - 0.002,
        capacity=1.5e-6,
        capped=False,
        base_mass=mass,
        hollow=True,
    )


def build_weight(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    mass = float(entity.param("mass", 0.02))
    # a steel cylinder three radii tall: easy to grasp from above
    r = max(0.005, (mass / (STEEL_DENSITY * math.pi * 6)) ** (1 / 3))
    half = 3 * r
    half = max(half, mass / (STEEL_DENSITY * math.pi * r * r) / 2)
    body = _free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        size=[r, half, 0],
        mass=mass,
        rgba=[0.7, 0.7, 0.72, 1.0],
        condim=4,
        friction=[1.0, 0.01, 0.001],
    )
    grasp = max(0.0, 0.009 - half)  # keep the pads' lower edge off the support
    return AssetInfo(
        entity.name,
        "weight",
        entity.name,
        free=True,
        radius=r,
        half_height=half,
        grasp_z=grasp,
        base_mass=mass,
    )


def build_beaker(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    capacity = float(entity.param("capacity", 50e-6))
    r_in = 0.02 * (capacity / 50e-6) ** (1 / 3)
    height = 1.5 * 2 * r_in
    wall, nseg = 0.0015, 16
    mass = float(entity.param("mass", 0.03))
    body = _free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -height / 2 + 0.001],
        size=[r_in + wall, 0.001, 0],
        mass=mass * 0.3,
        rgba=[0.8, 0.9, 1.0, 0.5],
        condim=4,
    )
    seg_half = (r_in + wall) * math.tan(math.pi / nseg) + 0.0005
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        body.add_geom(
            type=G.mjGEOM_BOX,
            # the walls stand on the floor disc (1 mm up): only the disc touches what the
            # beaker rests on, which keeps the contact count (and the step cost) low
            pos=[(r_in + wall / 2) * math.cos(a), (r_in + wall / 2) * math.sin(a), 0.001],
            quat=_quat_z(a),
            size=[wall / 2, seg_half, height / 2 - 0.001],
            mass=mass * 0.7 / nseg,
            rgba=[0.8, 0.9, 1.0, 0.5],
            condim=4,
            friction=[1.2, 0.01, 0.001],
        )
    return AssetInfo(
        entity.name,
        "beaker",
        entity.name,
        free=True,
        radius=r_in + wall,
        half_height=height / 2,
        grasp_z=0.0,
        opening=r_in,
        depth=height,
        capacity=capacity,
        base_mass=mass,
        yaw_limit=math.pi / nseg,
        hollow=True,
    )


def build_pipette_stand(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """Deep wells that hold pipettes upright on their tips."""
    n = int(entity.param("slots", 2))
    pitch, bore, depth, base = 0.03, 0.0085, 0.045, 0.01
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    hx, hy = n * pitch / 2 + 0.004, pitch / 2 + 0.004
    _box(body, [0.0, 0.0, base / 2], [hx, hy, base / 2], _GREY)
    info = AssetInfo(entity.name, "pipette_stand", entity.name, free=False, radius=hx)
    for k in range(n):
        slot = body.add_body(
            name=f"{entity.name}_slot{k}", pos=[(k - (n - 1) / 2) * pitch, 0, base]
        )
        _cup_walls(slot, bore, depth, _GREY)
        slot.add_site(name=f"{entity.name}_s{k}", size=[0.002, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", bore, depth))
    return info


def build_well_plate(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """An SBS-footprint plate; wells are ledger containers whose mouths are sites (the
    plate is a solid block: liquid is handled at each well's mouth)."""
    n = int(entity.param("wells", 96))
    rows, cols, pitch, radius = (8, 12, 0.009, 0.0034) if n == 96 else (4, 6, 0.0193, 0.008)
    depth = 0.0108 if n == 96 else 0.0174
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    _box(body, [0, 0, 0.0072], [0.0639, 0.0428, 0.0072], [0.92, 0.92, 0.95, 1.0])
    info = AssetInfo(
        entity.name,
        "well_plate",
        entity.name,
        free=False,
        radius=0.0639,
        well_radius=radius,
        well_depth=depth,
    )
    for k in range(n):
        r, c = divmod(k, cols)
        x, y = (c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch
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
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    colour = [0.3, 0.5, 0.3, 1.0]
    _box(body, [0, 0, wall / 2], [half, half, wall / 2], colour)
    for sign in (-1.0, 1.0):
        _box(body, [0, sign * (half - wall / 2), height / 2], [half, wall / 2, height / 2], colour)
        _box(body, [sign * (half - wall / 2), 0, height / 2], [wall / 2, half, height / 2], colour)
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


def build_vial(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A 4 mL screw-cap glass vial (capped; a solid cylinder with a cap)."""
    r, half = 0.0074, 0.0185
    mass = float(entity.param("mass", 0.008))
    body = _free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        size=[r, half, 0],
        mass=mass * 0.8,
        rgba=[0.85, 0.9, 0.95, 0.8],
        condim=4,
        friction=[1.0, 0.01, 0.001],
    )
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, half + 0.004],
        size=[r + 0.0005, 0.004, 0],
        mass=mass * 0.2,
        rgba=[0.2, 0.2, 0.25, 1.0],
        condim=4,
    )
    return AssetInfo(
        entity.name,
        "vial",
        entity.name,
        free=True,
        radius=r + 0.0005,
        half_height=half,
        grasp_z=0.006,
        opening=0.005,
        depth=2 * half,
        capacity=4e-6,
        base_mass=mass,
        capped=True,
    )


PIPETTE_BODY = (0.007, 0.035)  # radius, half length
PIPETTE_TIP = (0.0025, 0.015)


def build_pipette(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A single-channel pipette with its tip: the liquid it holds is in the ledger."""
    volume = float(entity.param("volume", 200e-9))
    (r, half), (tr, thalf) = PIPETTE_BODY, PIPETTE_TIP
    body = _free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        size=[r, half, 0],
        mass=0.04,
        rgba=[0.9, 0.9, 0.92, 1.0],
        condim=4,
        friction=[1.2, 0.01, 0.001],
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
    body = spec.worldbody.add_body(name=entity.name, pos=pos, quat=_quat_z(yaw))
    hx, hy = cols * pitch / 2 + 0.006, rows * pitch / 2 + 0.006
    _box(body, [0, 0, height / 2], [hx, hy, height / 2], [0.2, 0.45, 0.7, 1.0])
    info = AssetInfo(entity.name, "tip_box", entity.name, free=False, radius=max(hx, hy))
    for k in range(n):
        r, c = divmod(k, cols)
        x, y = (c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch
        body.add_geom(
            name=f"{entity.name}_tip{k}",
            type=G.mjGEOM_CYLINDER,
            pos=[x, y, height + TIP_TOP - thalf],
            size=[tr, thalf, 0],
            rgba=[0.95, 0.9, 0.5, 0.8],
            condim=4,
        )
        body.add_site(name=f"{entity.name}_s{k}", pos=[x, y, height + TIP_TOP], size=[0.001, 0, 0])
        info.slots.append(SlotInfo(f"{entity.name}_s{k}", 0.0015, TIP_TOP))
    return info


def build_stirrer(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A magnetic stirrer with a hot plate: a surface, a `stir` toggle and a `set` button.

    The heating and the stirring are runtime models (see docs/sim.md): a container resting
    on the plate approaches the plate's temperature, and is mixed after 5 s of stirring.
    """
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=_quat_z(yaw))
    _box(body, [0, 0, 0.03], [0.08, 0.1, 0.03], [0.9, 0.9, 0.9, 1.0])
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
    info.buttons["stir"] = _add_button(spec, body, f"{name}_stir", [-0.04, -0.078, 0.06])
    info.buttons["set"] = _add_button(spec, body, f"{name}_set", [0.04, -0.078, 0.06])
    return info


def build_flask(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """An Erlenmeyer-like flask: a wide hollow body, a flat shoulder and a narrow neck."""
    capacity = float(entity.param("capacity", 100e-6))
    mass = float(entity.param("mass", 0.06))
    r_body = 0.025 * (capacity / 100e-6) ** (1 / 3)
    h_body = 1.2 * r_body
    r_neck, h_neck, wall, nseg = 0.25 * r_body + 0.004, 0.8 * r_body, 0.0015, 16
    height = h_body + h_neck
    z0 = -height / 2
    body = _free_body(spec, entity.name)
    glass = [0.85, 0.92, 1.0, 0.5]
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, z0 + 0.001],
        size=[r_body + wall, 0.001, 0],
        mass=mass * 0.3,
        rgba=glass,
        condim=4,
    )
    for ring_r, zc, half_h, share in (
        (r_body, z0 + 0.001 + h_body / 2, h_body / 2 - 0.001, 0.45),
        (r_neck, z0 + h_body + h_neck / 2, h_neck / 2, 0.15),
    ):
        seg_half = (ring_r + wall) * math.tan(math.pi / nseg) + 0.0005
        for k in range(nseg):
            a = 2 * math.pi * k / nseg
            body.add_geom(
                type=G.mjGEOM_BOX,
                pos=[(ring_r + wall / 2) * math.cos(a), (ring_r + wall / 2) * math.sin(a), zc],
                quat=_quat_z(a),
                size=[wall / 2, seg_half, half_h],
                mass=mass * share / nseg,
                rgba=glass,
                condim=4,
                friction=[1.2, 0.01, 0.001],
            )
    # the shoulder: a flat annulus of radial boxes from the neck to the body's wall
    span = (r_body - r_neck) / 2
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        rc = r_neck + span
        body.add_geom(
            type=G.mjGEOM_BOX,
            pos=[rc * math.cos(a), rc * math.sin(a), z0 + h_body],
            quat=_quat_z(a),
            size=[span + wall, (r_body + wall) * math.tan(math.pi / nseg) + 0.0005, wall / 2],
            mass=mass * 0.1 / nseg,
            rgba=glass,
            condim=4,
        )
    return AssetInfo(
        entity.name,
        "flask",
        entity.name,
        free=True,
        radius=r_neck + wall,  # grasped at the neck
        half_height=height / 2,
        grasp_z=h_body + h_neck / 2 - height / 2,
        opening=r_neck,
        depth=height,
        capacity=capacity,
        base_mass=mass,
        yaw_limit=math.pi / nseg,
        hollow=True,
        fill_radius=r_body,
    )


CAP_OPEN_TURNS = 1.5  # turns after which the cap is free of the thread


def build_bottle(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A reagent bottle with a screw cap: the cap turns on a hinge against the thread's
    friction (its rise along the thread is not modelled); it is open after 1.5 turns."""
    capacity = float(entity.param("capacity", 100e-6))
    mass = float(entity.param("mass", 0.12))
    r_in = 0.02 * (capacity / 100e-6) ** (1 / 3)
    height = capacity / (math.pi * r_in**2) * 1.25
    wall, nseg = 0.002, 12
    body = _free_body(spec, entity.name)
    glass = [0.55, 0.35, 0.2, 0.8]
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -height / 2 + 0.002],
        size=[r_in + wall, 0.002, 0],
        mass=mass * 0.4,
        rgba=glass,
        condim=4,
        friction=[1.0, 0.3, 0.001],  # torsional friction keeps it still while the cap turns
    )
    seg_half = (r_in + wall) * math.tan(math.pi / nseg) + 0.0005
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        body.add_geom(
            type=G.mjGEOM_BOX,
            pos=[(r_in + wall / 2) * math.cos(a), (r_in + wall / 2) * math.sin(a), 0.002],
            quat=_quat_z(a),
            size=[wall / 2, seg_half, height / 2 - 0.002],
            mass=mass * 0.6 / nseg,
            rgba=glass,
            condim=4,
            friction=[1.2, 0.01, 0.001],
        )
    cap_r, cap_half = r_in + wall + 0.001, 0.008
    cap = body.add_body(name=f"{entity.name}_cap", pos=[0, 0, height / 2 + cap_half])
    cap.add_joint(
        name=f"{entity.name}_cap_turn",
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0, 0, 1],
        range=[0.0, 2 * math.pi * CAP_OPEN_TURNS + 0.5],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        frictionloss=0.0005,
        damping=0.0005,
        armature=1e-5,
    )
    cap.add_geom(
        type=G.mjGEOM_CYLINDER,
        size=[cap_r, cap_half, 0],
        mass=0.008,
        rgba=[0.15, 0.15, 0.6, 1.0],
        condim=4,
        friction=[1.5, 0.02, 0.001],
    )
    return AssetInfo(
        entity.name,
        "bottle",
        entity.name,
        free=True,
        radius=r_in + wall,
        half_height=height / 2,
        grasp_z=-height / 4,
        opening=r_in,
        depth=height,
        capacity=capacity,
        base_mass=mass,
        yaw_limit=math.pi / nseg,
        hollow=True,
        capped=True,
        cap_joint=f"{entity.name}_cap_turn",
    )


# asset kind -> builder; the kinds and their parameters are in `catalog.ASSET_KINDS`
BUILDERS: dict[str, Builder] = {
    "table": build_table,
    "tube_rack": build_tube_rack,
    "centrifuge": build_centrifuge,
    "scale": build_scale,
    "thermal_block": build_thermal_block,
    "tube_1_5ml": build_tube,
    "weight": build_weight,
    "beaker": build_beaker,
    "pipette": build_pipette,
    "well_plate": build_well_plate,
    "waste_bin": build_waste_bin,
    "vial": build_vial,
    "pipette_stand": build_pipette_stand,
    "tip_box": build_tip_box,
    "stirrer": build_stirrer,
    "flask": build_flask,
    "bottle": build_bottle,
}


def gripper_info() -> AssetInfo:
    return AssetInfo("gripper", "gripper", "hand", free=False)


# ---------------------------------------------------------------- the robot


GANTRY_Z = 0.6  # height of the z carriage's zero
TCP_DROP = 0.045  # hand origin to the pads' centre (the tool centre point)
GANTRY_YAW = 3.2  # rad: the yaw hinge turns this far either way
FINGER_MAX = 0.04


def build_gripper(spec: mujoco.MjSpec) -> None:
    """A gantry: x, y, z slides, a yaw and a tilt hinge, two force-limited finger slides.

    A gantry instead of a mocap hand: Cartesian targets map straight to joint
    servos (no IK), and the actuators' force limits keep contacts physical, so a
    gripper pushed into the table stalls instead of driving through it as a
    kinematic mocap body would.
    """
    slide, hinge = mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE
    gx = spec.worldbody.add_body(name="gantry_x", pos=[0, 0, GANTRY_Z], gravcomp=1.0)
    gx.add_joint(name="gx", type=slide, axis=[1, 0, 0], range=[-0.3, 0.9], damping=5)
    gx.mass, gx.inertia, gx.explicitinertial = 2.0, [0.01, 0.01, 0.01], True
    gy = gx.add_body(name="gantry_y", gravcomp=1.0)
    gy.add_joint(name="gy", type=slide, axis=[0, 1, 0], range=[-0.6, 0.6], damping=5)
    gy.mass, gy.inertia, gy.explicitinertial = 1.5, [0.01, 0.01, 0.01], True
    gz = gy.add_body(name="gantry_z", gravcomp=1.0)
    gz.add_joint(name="gz", type=slide, axis=[0, 0, 1], range=[-0.58, 0.0], damping=5)
    gz.mass, gz.inertia, gz.explicitinertial = 1.0, [0.01, 0.01, 0.01], True
    gz.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, 0.1],
        size=[0.008, 0.08, 0],
        contype=0,
        conaffinity=0,
        rgba=_GREY,
        mass=0,
    )
    wrist = gz.add_body(name="wrist", gravcomp=1.0)
    wrist.add_joint(
        name="gyaw", type=hinge, axis=[0, 0, 1], range=[-GANTRY_YAW, GANTRY_YAW], damping=0.2
    )
    wrist.mass, wrist.inertia, wrist.explicitinertial = 0.3, [0.001, 0.001, 0.001], True
    hand = wrist.add_body(name="hand", gravcomp=1.0)
    hand.add_joint(name="gtilt", type=hinge, axis=[1, 0, 0], range=[-2.2, 2.2], damping=0.2)
    hand.add_geom(
        type=G.mjGEOM_BOX, pos=[0, 0, -0.015], size=[0.05, 0.014, 0.008], mass=0.3, rgba=_DARK
    )
    hand.add_site(name="tcp", pos=[0, 0, -TCP_DROP], size=[0.003, 0, 0])
    for side, sign in (("l", -1.0), ("r", 1.0)):
        finger = hand.add_body(name=f"finger_{side}", pos=[sign * 0.003, 0, 0], gravcomp=1.0)
        finger.add_joint(
            name=f"f{side}",
            type=slide,
            axis=[sign, 0, 0],
            range=[0, FINGER_MAX],
            damping=1.0,
            armature=0.01,
        )
        finger.add_geom(
            name=f"pad_{side}",
            type=G.mjGEOM_BOX,
            pos=[0, 0, -0.037],
            size=[0.003, 0.009, 0.015],
            mass=0.02,
            rgba=[0.2, 0.2, 0.2, 1.0],
            friction=[1.5, 0.02, 0.002],
            condim=4,
            contype=3,
            conaffinity=3,
        )
    servo = [
        ("gx", 4000, 30),
        ("gy", 4000, 30),
        ("gz", 4000, 30),
        ("gyaw", 40, 5),
        ("gtilt", 60, 8),
        ("fl", 1000, 4),
        ("fr", 1000, 4),
    ]
    for joint, kp, limit in servo:
        act = spec.add_actuator(
            name=f"act_{joint}", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT
        )
        act.set_to_position(kp=kp, dampratio=1.0)
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-limit, limit]
    spec.add_sensor(
        name="hand_pos",
        type=mujoco.mjtSensor.mjSENS_FRAMEPOS,
        objtype=mujoco.mjtObj.mjOBJ_SITE,
        objname="tcp",
    )


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v
