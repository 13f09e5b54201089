"""Free objects the gripper picks up: tubes, calibration weights, the glassware
(beakers, vials, flasks, screw-cap bottles) and a powder scoop."""

from __future__ import annotations

import math

import mujoco

from lablang.sim.assets.display import LABEL, add_display
from lablang.sim.assets.info import AssetInfo
from lablang.sim.assets.parts import TUBE, G, free_body, quat_z, round_wall, wall_ring
from lablang.sim.catalog import ASSET_KINDS, SCOOP_WALL, STEEL_DENSITY, TUBES, scoop_bowl
from lablang.sim.model import Entity


def build_tube(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A microtube (`tube_1_5ml`, `tube_2ml`: its size from `catalog.TUBES`) with its cap,
    and, if it has a `label`, a flag above the cap that shows it (visual geoms only)."""
    body = free_body(spec, entity.name)
    info = _tube_body(body, entity)
    label = str(entity.param("label", ""))
    if label:
        info.label = label
        top = info.half_height + 0.04  # the flag's centre, 4 cm above the cap's centre
        info.display = add_display(
            body, f"{entity.name}_label", [info.radius + 0.003, 0, top], LABEL
        )
    return info


def _tube_body(body: mujoco.MjsBody, entity: Entity) -> AssetInfo:
    shape = TUBES[entity.asset]
    r, half = shape.radius, shape.half
    mass = float(entity.param("mass", ASSET_KINDS[entity.asset].params["mass"].default))
    if int(entity.param("hollow", 0)):
        return _hollow_tube(body, entity, r, half, mass)
    body.add_geom(
        type=G.mjGEOM_CAPSULE,
        size=[r, half, 0],
        mass=mass * 0.85,
        rgba=TUBE,
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
        entity.asset,
        entity.name,
        free=True,
        radius=r,
        half_height=half + r,
        grasp_z=0.008,
        opening=0.0045 + (r - 0.0054),  # exactly the 1.5 mL tube's figures for it
        depth=0.035 + 2 * (half - 0.0145),
        capacity=shape.capacity,
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
        rgba=TUBE,
        condim=4,
        friction=[1.0, 0.01, 0.001],
    )
    seg_half = r * math.tan(math.pi / nseg) + 0.0003
    wall_ring(
        body,
        nseg,
        r - wall / 2,
        [wall / 2, seg_half, height / 2 - 0.001],
        0.001,
        mass * 0.75 / nseg,
        TUBE,
        [1.0, 0.01, 0.001],
    )
    return AssetInfo(
        entity.name,
        entity.asset,
        entity.name,
        free=True,
        radius=r,
        half_height=half + r,
        grasp_z=0.008,
        opening=r - wall,
        depth=height - 0.002,
        capacity=TUBES[entity.asset].capacity,
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
    body = free_body(spec, entity.name)
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
    body = free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -height / 2 + 0.001],
        size=[r_in + wall, 0.001, 0],
        mass=mass * 0.3,
        rgba=[0.8, 0.9, 1.0, 0.5],
        condim=4,
    )
    # the walls stand on the floor disc (1 mm up): only the disc touches what the beaker
    # rests on, which keeps the contact count (and the step cost) low
    round_wall(
        body,
        nseg,
        r_in,
        wall,
        (0.001, height / 2 - 0.001),
        mass * 0.7 / nseg,
        [0.8, 0.9, 1.0, 0.5],
        [1.2, 0.01, 0.001],
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


def build_vial(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A 4 mL screw-cap glass vial (capped; a solid cylinder with a cap)."""
    r, half = 0.0074, 0.0185
    mass = float(entity.param("mass", 0.008))
    body = free_body(spec, entity.name)
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


def build_flask(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """An Erlenmeyer-like flask: a wide hollow body, a flat shoulder and a narrow neck."""
    capacity = float(entity.param("capacity", 100e-6))
    mass = float(entity.param("mass", 0.06))
    r_body = 0.025 * (capacity / 100e-6) ** (1 / 3)
    h_body = 1.2 * r_body
    r_neck, h_neck, wall, nseg = 0.25 * r_body + 0.004, 0.8 * r_body, 0.0015, 16
    height = h_body + h_neck
    z0 = -height / 2
    body = free_body(spec, entity.name)
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
        round_wall(
            body, nseg, ring_r, wall, (zc, half_h), mass * share / nseg, glass, [1.2, 0.01, 0.001]
        )
    # the shoulder: a flat annulus of radial boxes from the neck to the body's wall
    span = (r_body - r_neck) / 2
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        rc = r_neck + span
        body.add_geom(
            type=G.mjGEOM_BOX,
            pos=[rc * math.cos(a), rc * math.sin(a), z0 + h_body],
            quat=quat_z(a),
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
    body = free_body(spec, entity.name)
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
    round_wall(
        body,
        nseg,
        r_in,
        wall,
        (0.002, height / 2 - 0.002),
        mass * 0.6 / nseg,
        glass,
        [1.2, 0.01, 0.001],
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


SCOOP_HANDLE = (0.007, 0.035)  # radius, half length of the handle (a pipette's shaft)
SCOOP_NECK = (0.0025, 0.05)  # radius, length of the neck from the handle to the bowl's rim


def build_scoop(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A powder scoop standing on its bowl: a handle held like a pipette's shaft, a thin
    neck, and at its lower end a round bowl (`catalog.scoop_bowl`); most of its 20 g is in
    the bowl's floor, so it stands. The dose it carries is in the ledger, not drawn."""
    r_in, depth = scoop_bowl(float(entity.param("capacity", 2e-6)))
    (hr, hh), (nr, neck) = SCOOP_HANDLE, SCOOP_NECK
    bottom = hh + neck + depth + SCOOP_WALL  # the body's origin (the handle's centre) to it
    body = free_body(spec, entity.name)
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        size=[hr, hh, 0],
        mass=0.004,
        rgba=[0.3, 0.45, 0.8, 1.0],
        condim=4,
        friction=[1.2, 0.01, 0.001],
    )
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -hh - (neck + depth) / 2],
        size=[nr, (neck + depth) / 2, 0],
        mass=0.002,
        rgba=[0.75, 0.75, 0.78, 1.0],
    )
    body.add_geom(
        type=G.mjGEOM_CYLINDER,
        pos=[0, 0, -bottom + SCOOP_WALL / 2],
        size=[r_in + SCOOP_WALL, SCOOP_WALL / 2, 0],
        mass=0.011,
        rgba=[0.75, 0.75, 0.78, 1.0],
        condim=4,
    )
    nseg = 12
    steel = [0.75, 0.75, 0.78, 1.0]
    z = (-bottom + SCOOP_WALL + depth / 2, depth / 2)
    round_wall(body, nseg, r_in, SCOOP_WALL, z, 0.003 / nseg, steel, [1.0, 0.01, 0.001], 0.0003)
    return AssetInfo(
        entity.name,
        "scoop",
        entity.name,
        free=True,
        radius=r_in + SCOOP_WALL,
        half_height=bottom,
        grasp_z=0.02,
        depth=depth,
        capacity=float(entity.param("capacity", 2e-6)),
        fill_radius=r_in,
        base_mass=0.02,
        yaw_limit=math.pi / nseg,
    )
