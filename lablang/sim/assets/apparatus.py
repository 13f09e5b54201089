"""Bench apparatus worked by its moving parts: a vortex mixer (a sprung cup a tube is
pressed on), a drawer (a tray that slides out of a cabinet), an incubator (a heated
chamber under a hinged door) and a timer (a start button)."""

from __future__ import annotations

import mujoco

from lablang.sim.assets.display import add_display
from lablang.sim.assets.info import AssetInfo
from lablang.sim.assets.parts import DARK, GREY, add_button, box, hinged_lid, lid_handle, quat_z
from lablang.sim.model import Entity

# The drawer's tray slides out along the cabinet's -y: open from `DRAWER_OPEN` (m) out,
# closed within `DRAWER_CLOSED` of home (`state.drawer_travel`).
DRAWER_TRAVEL = 0.13
# A fixture's moving part on a joint is a child of a body welded to the world, which
# MuJoCo's parent filter does not exempt: its geoms and the housing's carry bits that
# miss each other (and meet everything else: objects and pads on bit 1, an arm's links
# on bit 4).
HOUSING = {"contype": 16, "conaffinity": 5}
MOVING = {"contype": 8, "conaffinity": 5}
CABINET_HALF = 0.075
CABINET_HEIGHT = 0.10


def build_vortex_mixer(
    spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float
) -> AssetInfo:
    """A housing with a rubber cup on top, on a sprung vertical slide (a touch-started
    vortex mixer: pressing a tube on the cup runs it). The cup is a part, `mixer.cup`."""
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, 0.035], [0.05, 0.06, 0.035], [0.85, 0.85, 0.88, 1.0], **HOUSING)
    joint = add_button(
        spec,
        body,
        f"{name}_cup",
        [0, 0.01, 0.07],
        radius=0.015,
        mass=0.01,
        rgba=[0.2, 0.2, 0.22, 1.0],
        condim=4,
        friction=[1.2, 0.01, 0.001],
        **MOVING,
    )
    cup = spec.body(f"{name}_cup")
    cup.add_site(name=f"{name}_cup_top", pos=[0, 0, 0.008], size=[0.002, 0, 0])
    info = AssetInfo(name, "vortex_mixer", name, free=False, radius=0.015)
    info.buttons["cup"] = joint
    return info


def build_drawer(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A cabinet with a tray that slides out of its front (-y) on a damped slide, a handle
    standing out of the tray's front face. Objects are put on the open tray's floor
    (`place(beaker, drawer)`) and ride in with it."""
    name = entity.name
    h, height, wall = CABINET_HALF, CABINET_HEIGHT, 0.003
    colour = [0.55, 0.5, 0.45, 1.0]
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, wall], [h, h, wall], colour, **HOUSING)
    for sign in (-1.0, 1.0):
        box(body, [sign * (h - wall), 0, height / 2], [wall, h, height / 2], colour, **HOUSING)
    box(body, [0, h - wall, height / 2], [h, wall, height / 2], colour, **HOUSING)
    # the roof stops 1.5 cm short of the front, so the hand clears it at the handle
    box(body, [0, 0.0075, height + wall], [h, h - 0.0075, wall], colour, **HOUSING)
    tray = body.add_body(name=f"{name}_tray", pos=[0, 0, 2 * wall])
    tray.add_joint(
        name=f"{name}_slide",
        type=mujoco.mjtJoint.mjJNT_SLIDE,
        axis=[0, -1, 0],
        range=[0.0, DRAWER_TRAVEL],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        damping=5.0,
        frictionloss=0.3,
        armature=0.05,
    )
    inner, rim = h - 0.009, 0.02
    tray_colour = [0.8, 0.78, 0.72, 1.0]
    floor = [inner, inner, wall]
    box(tray, [0, 0, wall], floor, tray_colour, mass=0.1, friction=[1.0, 0.01, 0.001], **MOVING)
    for sign in (-1.0, 1.0):
        side = [sign * (inner - wall), 0, rim]
        box(tray, side, [wall, inner, rim], tray_colour, mass=0.02, **MOVING)
    box(tray, [0, inner - wall, rim], [inner, wall, rim], tray_colour, mass=0.02, **MOVING)
    face_y = -(h - 0.006)
    box(tray, [0, face_y, 0.04], [h - 0.004, wall, 0.04], colour, mass=0.05, **MOVING)
    box(tray, [0, face_y - 0.007, 0.07], [0.004, 0.004, 0.004], DARK, mass=0.005, **MOVING)
    handle = tray.add_body(name=f"{name}_handle", pos=[0, face_y - 0.02, 0.07])
    box(handle, [0, 0, 0], [0.006, 0.012, 0.010], DARK, mass=0.01, **MOVING)
    tray.add_site(name=f"{name}_top", pos=[0, 0, 2 * wall], size=[0.002, 0, 0])
    return AssetInfo(
        name,
        "drawer",
        name,
        free=False,
        radius=inner - 0.02,
        top_site=f"{name}_top",
        lid_handle=f"{name}_handle",
        drawer_joint=f"{name}_slide",
        depth=height - 2 * wall,
    )


def build_incubator(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A heated chamber under a door hinged at its back edge (it swings up, as a
    centrifuge's lid does), with a `set` button on a console in front. A container on the
    chamber's floor approaches the chamber's temperature (the runtime's plate model)."""
    name = entity.name
    h, height, wall = 0.08, 0.13, 0.006
    colour = [0.92, 0.92, 0.9, 1.0]
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, wall / 2], [h, h, wall / 2], colour)
    for sign in (-1.0, 1.0):
        box(body, [sign * (h - wall / 2), 0, height / 2], [wall / 2, h, height / 2], colour)
        box(body, [0, sign * (h - wall / 2), height / 2], [h, wall / 2, height / 2], colour)
    body.add_site(name=f"{name}_top", pos=[0, 0, wall], size=[0.002, 0, 0])
    door_z = height + 0.005  # 1 mm above the walls' rim when closed
    # the hinge's bracket on the back wall, below the door's sweep
    box(body, [0, h + 0.004, height - 0.016], [0.02, 0.004, 0.014], GREY)
    door = hinged_lid(body, name, [0, h + 0.005, door_z])
    box(door, [0, -(h + 0.005), 0], [h + 0.004, h + 0.005, 0.004], [0.6, 0.7, 0.8, 0.6], mass=0.15)
    # the handle sits left of centre, so that the hand pressing `set` clears it
    lid_handle(door, name, [-0.05, -(2 * h + 0.01 + 0.012), 0])
    door.add_site(name=f"{name}_hinge_site", size=[0.002, 0, 0])
    console = body.add_body(name=f"{name}_console", pos=[0.055, -(h + 0.03), 0])
    box(console, [0, 0, 0.02], [0.025, 0.02, 0.02], GREY)
    info = AssetInfo(
        name,
        "incubator",
        name,
        free=False,
        radius=h - wall - 0.015,
        top_site=f"{name}_top",
        heater=True,
        lid_joint=f"{name}_lid_hinge",
        lid_handle=f"{name}_handle",
        lid_hinge_site=f"{name}_hinge_site",
        depth=height - wall,
    )
    info.buttons["set"] = add_button(spec, console, f"{name}_set", [0, 0, 0.04])
    return info


def build_timer(spec: mujoco.MjSpec, entity: Entity, pos: list[float], yaw: float) -> AssetInfo:
    """A bench timer: a box with a `start` button; a press starts it (`started(timer)`),
    and a seven-segment display upright on its +x edge, facing the `front` camera, counts
    the seconds since (visual geoms only: `assets.display.Timers`)."""
    name = entity.name
    body = spec.worldbody.add_body(name=name, pos=pos, quat=quat_z(yaw))
    box(body, [0, 0, 0.02], [0.04, 0.03, 0.02], [0.95, 0.85, 0.3, 1.0])
    info = AssetInfo(name, "timer", name, free=False, radius=0.03)
    info.buttons["start"] = add_button(spec, body, f"{name}_start", [0, 0, 0.04])
    info.display = add_display(body, f"{name}_display", [0.045, 0.0, 0.094])
    return info
