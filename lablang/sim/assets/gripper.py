"""The gantry gripper: x, y, z slides, yaw and tilt hinges, two force-limited fingers."""

from __future__ import annotations

import mujoco

from lablang.sim.assets.parts import DARK, GREY, G

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
        rgba=GREY,
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
        type=G.mjGEOM_BOX, pos=[0, 0, -0.015], size=[0.05, 0.014, 0.008], mass=0.3, rgba=DARK
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
