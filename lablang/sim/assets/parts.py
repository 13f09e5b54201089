"""The primitives the builders share: colours, a yaw quaternion, boxes, square cups, a
push button, a free body."""

from __future__ import annotations

import math

import mujoco

G = mujoco.mjtGeom
GREY = [0.6, 0.6, 0.62, 1.0]
DARK = [0.25, 0.25, 0.28, 1.0]
BLUE = [0.3, 0.45, 0.8, 1.0]
TUBE = [0.85, 0.85, 0.75, 0.9]


def quat_z(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


def box(
    body: mujoco.MjsBody, pos: list[float], half: list[float], rgba: list[float], **kw: object
) -> mujoco.MjsGeom:
    return body.add_geom(type=G.mjGEOM_BOX, pos=pos, size=half, rgba=rgba, **kw)


def cup_walls(
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
        box(body, [0.0, sign * (bore + wall / 2), zc], [bore + wall, wall / 2, depth / 2], rgba)
        box(body, [sign * (bore + wall / 2), 0.0, zc], [wall / 2, bore, depth / 2], rgba)


def add_button(
    spec: mujoco.MjSpec,
    parent: mujoco.MjsBody,
    name: str,
    pos: list[float],
    radius: float = 0.008,
    **geom: object,
) -> str:
    """A push button on a sprung 5 mm slide (it registers 3 mm down); `geom` overrides the
    cap's defaults (a vortex mixer's cup is a wide button that meets tubes too)."""
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
    cap: dict[str, object] = {
        "mass": 0.005,
        "rgba": [0.8, 0.2, 0.2, 1.0],
        "contype": 2,
        "conaffinity": 2,
        **geom,
    }
    button.add_geom(type=G.mjGEOM_CYLINDER, pos=[0, 0, 0.004], size=[radius, 0.004, 0], **cap)
    return f"{name}_joint"


def hinged_lid(parent: mujoco.MjsBody, name: str, pos: list[float]) -> mujoco.MjsBody:
    """A lid's body (`NAME_lid`) on a hinge at its back edge (`NAME_lid_hinge`): closed at
    0 rad, it opens upward about -x, to a stop at 1.9 rad."""
    lid = parent.add_body(name=f"{name}_lid", pos=pos)
    lid.add_joint(
        name=f"{name}_lid_hinge",
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[-1, 0, 0],
        range=[0.0, 1.9],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        damping=0.05,
        armature=0.002,
    )
    return lid


def lid_handle(lid: mujoco.MjsBody, name: str, pos: list[float]) -> mujoco.MjsBody:
    """The handle the gripper takes a lid by (`NAME_handle`, 12 x 24 x 20 mm)."""
    handle = lid.add_body(name=f"{name}_handle", pos=pos)
    box(handle, [0, 0, 0], [0.006, 0.012, 0.010], DARK, mass=0.01)
    return handle


def free_body(spec: mujoco.MjSpec, name: str) -> mujoco.MjsBody:
    body = spec.worldbody.add_body(name=name, pos=[0, 0, 0.5])
    joint = body.add_freejoint(name=f"{name}_free")
    # a gram-scale tube has an axial inertia of ~3e-8 kg m^2: squeezed by the pads it can spin
    # up numerically; a small armature regularizes rotation (and adds ~0.1% to translation)
    joint.armature = 2e-6
    return body


def grid(n: int, cols: int, pitch: float) -> list[tuple[float, float]]:
    """The centres of `n` positions in rows of `cols` at `pitch`, centred on the origin,
    the first row at the back (+y), each row from left to right."""
    rows = math.ceil(n / cols)
    return [
        ((c - (cols - 1) / 2) * pitch, ((rows - 1) / 2 - r) * pitch)
        for r, c in (divmod(k, cols) for k in range(n))
    ]


def wall_ring(
    body: mujoco.MjsBody,
    nseg: int,
    centre: float,
    size: list[float],
    z: float,
    mass: float,
    rgba: list[float],
    friction: list[float],
) -> None:
    """A round wall of `nseg` boxes (half sizes `size`: thickness, width, height) standing
    around a circle of radius `centre` (the wall's mid-line) at height `z`, of `mass` each."""
    for k in range(nseg):
        a = 2 * math.pi * k / nseg
        body.add_geom(
            type=G.mjGEOM_BOX,
            pos=[centre * math.cos(a), centre * math.sin(a), z],
            quat=quat_z(a),
            size=size,
            mass=mass,
            rgba=rgba,
            condim=4,
            friction=friction,
        )


def round_wall(
    body: mujoco.MjsBody,
    nseg: int,
    inner: float,
    wall: float,
    z: tuple[float, float],
    mass: float,
    rgba: list[float],
    friction: list[float],
    overlap: float = 0.0005,
) -> None:
    """A glass wall of `wall` thickness around an inner radius (a `wall_ring` whose boxes
    overlap by `overlap` at the seams so nothing slips between them); `z` is the wall's
    centre height and half height, `mass` each box's."""
    seg_half = (inner + wall) * math.tan(math.pi / nseg) + overlap
    wall_ring(body, nseg, inner + wall / 2, [wall / 2, seg_half, z[1]], z[0], mass, rgba, friction)
