"""Compile a `Scene` into a MuJoCo model: one MjSpec per episode, randomized poses baked in."""

from __future__ import annotations

import math
from typing import assert_never

import mujoco
import numpy as np
from attrs import define, evolve, field

from lablang.sim.assets import BUILDERS, AssetInfo, build_table
from lablang.sim.catalog import ASSET_KINDS
from lablang.sim.model import (
    Entity,
    InSlot,
    Intervention,
    LabelChoice,
    OffsetChoice,
    OnSurface,
    PoseRandomization,
    RoleBinding,
    Scene,
    SlotPermutation,
    SurfaceChoice,
)
from lablang.sim.robots import robot_named

PHYSICS_DT = 0.002


@define
class Built:
    """A compiled scene and what each entity is made of."""

    spec: mujoco.MjSpec
    model: mujoco.MjModel
    infos: dict[str, AssetInfo]
    placements: dict[str, InSlot | OnSurface]  # after randomization
    rotor_angles: dict[str, float]
    interventions: list[tuple[Intervention, float]] = field(factory=list)  # with start times
    bindings: dict[str, str] = field(factory=dict)  # role -> entity, drawn per instance
    robot: str = "gantry"


# containers whose contents show through their walls (a liquid level is drawn in them)
LEVEL_SHOWN = ("tube_1_5ml", "beaker", "flask", "bottle", "vial")


def _base_spec() -> mujoco.MjSpec:
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    spec.option.timestep = PHYSICS_DT
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.option.impratio = 10
    spec.default.geom.solref = [0.004, 1.0]
    spec.default.joint.armature = 0.001
    spec.visual.global_.offwidth = 1280  # the largest camera image (`cameras.MAX_SIZE`)
    spec.visual.global_.offheight = 960
    spec.worldbody.add_geom(
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        pos=[0, 0, -0.75],
        size=[3, 3, 0.1],
        rgba=[0.35, 0.35, 0.38, 1],
    )
    spec.worldbody.add_light(pos=[0.3, -0.4, 1.6], dir=[0, 0.2, -1])
    spec.worldbody.add_camera(
        name="overview", pos=[0.3, -0.85, 0.75], xyaxes=[1, 0, 0, 0, 0.6, 0.8]
    )
    # across the table, facing the robot (what a policy's third-person camera sees)
    spec.worldbody.add_camera(
        name="front", pos=[1.25, 0.0, 0.85], xyaxes=[0, 1, 0, -0.555, 0, 0.832], fovy=55
    )
    return spec


def compile_scene(scene: Scene, rng: np.random.Generator) -> Built:
    """Build the scene's MjSpec with this instance's randomization drawn from `rng`."""
    spec = _base_spec()
    infos: dict[str, AssetInfo] = {}
    placements: dict[str, InSlot | OnSurface] = {}
    bindings: dict[str, str] = {}
    labels: dict[str, str] = {}  # tube -> the label this instance drew
    offsets: dict[str, float] = {}  # scale -> the reading offset (kg) this instance drew
    for entity in scene.entities:
        if entity.placement is not None:
            placements[entity.name] = entity.placement
    # randomization is drawn in declaration order so that a seed fixes every instance
    for rand in scene.randomizations:
        match rand:
            case PoseRandomization():
                base = placements.get(rand.entity)
                if isinstance(base, OnSurface):
                    placements[rand.entity] = evolve(
                        base,
                        x=base.x + float(rng.uniform(-rand.x, rand.x)),
                        y=base.y + float(rng.uniform(-rand.y, rand.y)),
                        yaw=base.yaw + float(rng.uniform(-rand.yaw, rand.yaw)),
                    )
            case SlotPermutation():
                chosen = rng.permutation(np.array(rand.slots))[: len(rand.entities)]
                for name, slot in zip(rand.entities, chosen, strict=False):
                    placements[name] = InSlot(rand.container, int(slot))
            case RoleBinding():
                bindings[rand.role] = rand.candidates[int(rng.integers(len(rand.candidates)))]
            case SurfaceChoice():
                surface = rand.surfaces[int(rng.integers(len(rand.surfaces)))]
                if surface != rand.surfaces[0]:  # the first keeps the declared place
                    placements[rand.entity] = OnSurface(surface, 0.0, 0.0)
            case LabelChoice():
                labels[rand.entity] = rand.labels[int(rng.integers(len(rand.labels)))]
            case OffsetChoice():
                offsets[rand.entity] = rand.offsets[int(rng.integers(len(rand.offsets)))]
            case _:
                assert_never(rand)
    if scene.entity("table") is None:
        infos["table"] = build_table(spec, Entity("table", "table"), [0, 0, 0], 0.0)
    for entity in scene.entities:
        builder, kind = BUILDERS[entity.asset], ASSET_KINDS[entity.asset].role
        if entity.name in labels:
            params = dict(entity.params) | {"label": labels[entity.name]}
            entity = evolve(entity, params=tuple(params.items()))
        placement = placements.get(entity.name)
        if kind == "fixture" and entity.asset != "table":
            x, y, yaw = 0.3, 0.0, 0.0
            if isinstance(placement, OnSurface):
                x, y, yaw = placement.x, placement.y, placement.yaw
            infos[entity.name] = builder(spec, entity, [x, y, 0.0], yaw)
        else:
            infos[entity.name] = builder(spec, entity, [0.0, 0.0, 0.0], 0.0)
        infos[entity.name].offset = offsets.get(entity.name, 0.0)
    robot_named(scene.robot).build(spec)
    actions = [a for event in scene.interventions for a in event.actions]
    moved = sorted({a.entity for a in actions if a.kind == "move" and (a.dx or a.dy)})
    turned = sorted({a.entity for a in actions if a.kind in ("move", "turn") and a.turn})
    for name in moved:
        # a fixture that someone moves gets x/y slides driven by stiff position servos (added
        # after the gripper's actuators): as a mocap body it would have no velocity, and its
        # contacts would drag on what it carries instead of pushing it along
        body = spec.body(infos[name].body)
        yaw = 2 * math.atan2(body.quat[3], body.quat[0])
        for axis_name, world in (("x", (1.0, 0.0)), ("y", (0.0, 1.0))):
            local = [
                math.cos(yaw) * world[0] + math.sin(yaw) * world[1],
                -math.sin(yaw) * world[0] + math.cos(yaw) * world[1],
                0.0,
            ]
            body.add_joint(
                name=f"{name}_move_{axis_name}",
                type=mujoco.mjtJoint.mjJNT_SLIDE,
                axis=local,
                range=[-0.35, 0.35],
                damping=5.0,
            )
            act = spec.add_actuator(
                name=f"{name}_move_{axis_name}",
                target=f"{name}_move_{axis_name}",
                trntype=mujoco.mjtTrn.mjTRN_JOINT,
            )
            act.set_to_position(kp=20000, dampratio=1.0)
    for name in turned:
        # turned about the vertical axis through the fixture's origin (after any slides)
        spec.body(infos[name].body).add_joint(
            name=f"{name}_turn",
            type=mujoco.mjtJoint.mjJNT_HINGE,
            axis=[0.0, 0.0, 1.0],
            damping=2.0,
            armature=0.01,
        )
        act = spec.add_actuator(
            name=f"{name}_turn", target=f"{name}_turn", trntype=mujoco.mjtTrn.mjTRN_JOINT
        )
        act.set_to_position(kp=400, dampratio=1.0)
    for name in sorted({a.entity for a in actions if a.kind in ("open_lid", "close_lid")}):
        # a colleague's hand on the lid: a joint equality whose target angle the runtime
        # ramps while the event runs (inactive otherwise)
        spec.add_equality(
            name=f"colleague_{name}_lid",
            type=mujoco.mjtEq.mjEQ_JOINT,
            objtype=mujoco.mjtObj.mjOBJ_JOINT,
            name1=infos[name].lid_joint,
            active=0,
            data=[0.0] * 12,
            solref=[0.02, 1.0],
        )
    for name, info in infos.items():
        if info.asset in LEVEL_SHOWN:
            # the liquid level, shown in transparent containers: a visual cylinder that
            # neither collides nor weighs, resized by the runtime as the contents change
            spec.body(info.body).add_geom(
                name=f"{name}_liquid",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[(info.fill_radius or info.opening) - 0.0008, 1e-4, 0],
                pos=[0.0, 0.0, -info.half_height + 0.002],
                rgba=[0.25, 0.5, 0.95, 0.0],
                contype=0,
                conaffinity=0,
                density=0.0,
                group=1,
            )
    for name, info in infos.items():
        if info.free:
            spec.add_equality(
                name=f"grasp_{name}",
                type=mujoco.mjtEq.mjEQ_WELD,
                objtype=mujoco.mjtObj.mjOBJ_BODY,
                name1="hand",
                name2=info.body,
                active=0,
                solref=[0.01, 1.0],
            )
    for name, info in infos.items():
        if info.lid_handle:
            spec.add_equality(
                name=f"grasp_{name}_lid",
                type=mujoco.mjtEq.mjEQ_CONNECT,
                objtype=mujoco.mjtObj.mjOBJ_BODY,
                name1="hand",
                name2=info.lid_handle,
                active=0,
                solref=[0.01, 1.0],
            )
    model = spec.compile()
    rotor_angles = {
        name: float(rng.uniform(0.0, 2 * math.pi))
        for name, info in infos.items()
        if info.rotor_joint
    }
    interventions = [
        (event, float(rng.uniform(event.start_low, event.start_high)))
        for event in scene.interventions
    ]
    return Built(spec, model, infos, placements, rotor_angles, interventions, bindings, scene.robot)
