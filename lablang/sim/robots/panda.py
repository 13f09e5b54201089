"""The Franka Emika Panda: MJCF and meshes from gymnasium-robotics, attached through MjSpec.

The arm is a *virtual gantry*: skills command the same thing they command on the gantry
(a hand pose: x, y, z, yaw about the world's vertical, tilt about the finger axis, and the
fingers' half-opening), and the Panda reaches that pose through differential inverse
kinematics (mink) once per control tick; its joints follow through position servos.
So every skill keeps its meaning and every success spec stays the same.

The model comes from `gymnasium_robotics/envs/assets/kitchen_franka/franka_assets`
(MIT; modified from Vikash Kumar's franka model, Apache-2.0), read from the installed
package: nothing is downloaded. The file is found without importing gymnasium-robotics
(whose import registers its own environments).
"""

from __future__ import annotations

import importlib.util
import math
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from lablang.sim.assets import GANTRY_Z, TCP_DROP
from lablang.sim.robots.base import WRIST_CAMERA, RobotMissing

if TYPE_CHECKING:
    from lablang.sim.runtime import Runtime

BASE_POS = (-0.18, 0.0, 0.0)  # on the table, behind the workspace: reaches x 0.05..0.55 m
ARM_JOINTS = tuple(f"panda/robot:panda0_joint{k}" for k in range(1, 8))
# the left finger slides along the hand's -x (as the gantry's left pad), the right along +x
FINGER_JOINTS = ("panda/robot:panda0_finger_joint1", "panda/robot:panda0_finger_joint2")
JOINTS = (*ARM_JOINTS, *FINGER_JOINTS)
# an elbow-up posture over the workspace: where the IK starts and what its null space rests at
HOME_Q = np.array([-0.23, -0.1, -0.27, -2.18, -0.03, 0.52, 1.09])
REST_Q = np.array([0.0, -0.1, 0.0, -2.3, 0.0, 0.8, 1.09])  # what the null space rests at
# stiff servos: a position servo lags a moving target by 2 v sqrt(I / kp); at these gains the
# hand stays within ~1 mm of its target while a skill tilts it at 0.6 rad/s
ARM_KP = (16000.0, 16000.0, 12000.0, 12000.0, 6000.0, 6000.0, 3000.0)
# torque limits at Franka's default collision thresholds (20-25 N m proximal, 6 N m at the
# wrist), not the motors' 87/12 N m: gravity is compensated, so the servos only accelerate
# the arm, and a hand driven into a fixture pushes with tens of newtons, as the gantry's
# 30 N, instead of driving through it
ARM_FORCE = (25.0, 25.0, 25.0, 25.0, 6.0, 6.0, 6.0)
PAD_Z = 0.080  # the pads' centre along a finger (the finger tips end 95 mm out)
# the hand frame's origin on link 7: TCP_DROP above the TCP, which is 7 mm above the pads' tips
HAND_Z = 0.1654 + PAD_Z + 0.015 - 0.007 - TCP_DROP
IK_ITERATIONS = 1  # per tick; more only in reset()
IK_DAMPING = 1e-3  # Levenberg-Marquardt damping of the IK's QP
LIMIT_MARGIN = 0.2  # rad from a joint limit within which the IK constrains the joints
# the servo targets change in steps once per 20 ms tick; a first-order filter of one tick's
# time constant smooths the steps, which would otherwise shake the arm at 50 Hz
TARGET_FILTER = 0.02  # s
IK_TOLERANCE = 1e-7  # rad: a step that moves no joint more has converged


def _hand_quat() -> list[float]:
    """The hand frame in link 7: z back along the approach axis, x along the right finger's
    slide (so that yaw 0 leaves joint 7 room to turn a quarter turn either way)."""
    x = np.array([-math.sqrt(0.5), -math.sqrt(0.5), 0.0])
    z = np.array([0.0, 0.0, -1.0])
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, np.column_stack([x, np.cross(z, x), z]).reshape(-1))
    return [float(v) for v in quat]


def assets_dir() -> Path:
    """The installed gymnasium-robotics Franka assets (raises `RobotMissing` if absent)."""
    try:
        found = importlib.util.find_spec("gymnasium_robotics")
    except (ImportError, ValueError):  # a broken or blocked installation
        found = None
    if found is None or not found.submodule_search_locations:
        raise RobotMissing("panda", "gymnasium-robotics")
    root = Path(next(iter(found.submodule_search_locations)))
    path = root / "envs" / "assets" / "kitchen_franka" / "franka_assets"
    if not (path / "chain.xml").is_file():
        raise RobotMissing("panda", "gymnasium-robotics")
    return path


def _include_body(path: Path) -> str:
    text = re.sub(r"<!--.*?-->", "", path.read_text(), flags=re.S)
    return re.sub(r"</?mujocoinclude>", "", text)


@cache
def _source() -> tuple[str, tuple[tuple[str, bytes], ...]]:
    root = assets_dir()
    head = _include_body(root / "assets.xml").replace('meshdir="franka_assets/meshes"', "")
    xml = f"<mujoco model='panda'>{head}<worldbody>{_include_body(root / 'chain.xml')}</worldbody></mujoco>"
    meshes = tuple(
        sorted(
            (str(p.relative_to(root / "meshes")), p.read_bytes())
            for p in (root / "meshes").rglob("*.stl")
        )
    )
    return xml, meshes


PREFIX = "panda/"


def _attach(spec: mujoco.MjSpec) -> None:
    """Attach the Panda's model at its base, then add lablang's pads, hand frame and TCP."""
    xml, meshes = _source()
    arm = mujoco.MjSpec.from_string(xml, assets=dict(meshes))
    arm.compiler.degree = False
    arm.nuser_actuator = -1  # the kitchen's actuator user data: lablang adds its own servos
    for body in arm.bodies:
        body.gravcomp = 1.0
    for joint in arm.joints:
        if "finger" in joint.name:
            joint.damping, joint.armature = [1.0, 0.0, 0.0], 0.01
        else:
            joint.damping, joint.armature = [2.0, 0.0, 0.0], 0.1
    for geom in list(arm.geoms):
        if geom.meshname.endswith("_viz") and geom.meshname != "finger_viz":
            # the detailed visual meshes (136k faces) cost 100 ms a frame in software
            # rendering: the collision meshes, shown instead, cost a few
            arm.delete(geom)
        elif geom.contype or geom.conaffinity:
            # the links' own collision group (bit 3): they meet the scene (bit 1) but not
            # each other, as a real arm's self-collision checking keeps them apart
            geom.contype, geom.conaffinity = 4, 1
            geom.group, geom.rgba = 0, [0.93, 0.93, 0.9, 1.0]
    arm.delete(arm.site("end_effector"))  # the kitchen's marker; lablang's TCP replaces it
    for mesh in list(arm.meshes):
        if mesh.name.endswith("_viz") and mesh.name != "finger_viz":
            arm.delete(mesh)
    for geom in arm.body("panda0_link0").geoms:  # the base stands on the table
        geom.contype = geom.conaffinity = 0
    for name in ("panda0_rightfinger", "panda0_leftfinger"):
        for geom in list(arm.body(name).geoms):
            if geom.type != mujoco.mjtGeom.mjGEOM_MESH:
                arm.delete(geom)  # capsules standing in for pads: lablang's pads replace them
    frame = spec.worldbody.add_frame(pos=list(BASE_POS))
    spec.attach(arm, frame=frame, prefix=PREFIX)
    for finger in ("panda0_leftfinger", "panda0_rightfinger"):
        for link in ("panda0_link5", "panda0_link6"):  # the pads against the folded wrist
            spec.add_exclude(bodyname1=f"{PREFIX}{finger}", bodyname2=f"{PREFIX}{link}")
    hand = spec.body(f"{PREFIX}panda0_link7").add_body(
        name="hand", pos=[0.0, 0.0, HAND_Z], quat=_hand_quat()
    )
    hand.add_site(name="tcp", pos=[0.0, 0.0, -TCP_DROP], size=[0.003, 0, 0])
    hand.add_camera(name="wrist", **WRIST_CAMERA)
    for name, pad, side in (
        ("panda0_leftfinger", "pad_l", 1.0),
        ("panda0_rightfinger", "pad_r", -1.0),
    ):
        spec.body(f"{PREFIX}{name}").add_geom(
            name=pad,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            # the inner face on the slide's zero, so that the joint value is the half-opening
            pos=[0.0, side * 0.003, PAD_Z],
            size=[0.009, 0.003, 0.015],
            mass=0.0,
            rgba=[0.2, 0.2, 0.2, 1.0],
            friction=[1.5, 0.02, 0.002],
            condim=4,
            contype=3,
            conaffinity=3,
            # as the gantry's pads: the finger bodies' child class (soft, with a margin)
            # must not reach them
            solref=[0.004, 1.0],
            solimp=[0.9, 0.95, 0.001, 0.5, 2.0],
            margin=0.0,
            gap=0.0,
            group=0,
        )


@cache
def _ik_model() -> mujoco.MjModel:
    """The Panda alone, placed as in every scene: the inverse kinematics' own model."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    _attach(spec)
    return spec.compile()


class PandaController:
    """Differential IK (mink, QP solved by daqp) from the commanded hand pose to joint targets.

    The IK integrates its own configuration from tick to tick (it never reads the
    simulated joints), so the joint targets depend on the commands alone: contacts that
    push the arm off its path cannot change what the next tick commands. Its state is the
    runtime's `robot_state` (checkpointed with the rest)."""

    def __init__(self, rt: Runtime) -> None:
        try:
            import mink
        except ImportError as err:
            raise RobotMissing("panda", "mink") from err
        self.rt = rt
        self.mink = mink
        model = _ik_model()
        self.config = mink.Configuration(model)
        self.task = mink.FrameTask("hand", "body", position_cost=1.0, orientation_cost=0.5)
        posture = mink.PostureTask(model, cost=np.array([1e-4] * 7 + [0.0, 0.0]))
        rest = np.zeros(model.nq)
        rest[:7] = REST_Q
        posture.set_target(rest)
        self.tasks = [self.task, posture]
        self.limits = [mink.ConfigurationLimit(model)]
        self._low, self._high = model.jnt_range[:7, 0].copy(), model.jnt_range[:7, 1].copy()
        self._nv = model.nv
        self.dt = rt.dt
        self.arm_qpos = np.array([rt.model.joint(j).qposadr[0] for j in ARM_JOINTS])
        self.finger_qpos = np.array([rt.model.joint(j).qposadr[0] for j in FINGER_JOINTS])
        self.actuators = np.array([rt.model.actuator(f"act_{j}").id for j in JOINTS])
        self._last = np.full(5, np.nan)
        self._direct = False
        self._converged = False
        self._target_of = np.full(5, np.nan)  # the command the task's target was set for

    def _solve(self, command: np.ndarray, iterations: int) -> None:
        rt, mink = self.rt, self.mink
        state = rt.robot_state
        if not np.array_equal(self.config.q, state):
            self.config.update(state)
        if not np.array_equal(command, self._target_of):
            x, y, z, yaw, tilt = (float(v) for v in command)
            cy, sy, ct, st = math.cos(yaw), math.sin(yaw), math.cos(tilt), math.sin(tilt)
            rotation = np.array([[cy, -sy * ct, sy * st], [sy, cy * ct, -cy * st], [0.0, st, ct]])
            self.task.set_target(
                mink.SE3.from_rotation_and_translation(
                    mink.SO3.from_matrix(rotation), np.array([x, y, z + GANTRY_Z])
                )
            )
            self._target_of[:] = command
        q = self.config.q[:7]
        # the joint-limit constraints only bind near a limit: far from all of them (more
        # than one tick's largest step), the QP is solved without them, which is cheaper
        near = (
            float((q - self._low).min()) < LIMIT_MARGIN
            or float((self._high - q).min()) < LIMIT_MARGIN
        )
        for _ in range(iterations):
            if near or iterations > 1:
                velocity = mink.solve_ik(
                    self.config, self.tasks, self.dt, "daqp", damping=IK_DAMPING, limits=self.limits
                )
            else:
                # no inequality can bind: the QP's minimum is where its gradient vanishes,
                # H dq = -c with mink's own objective (the tasks' terms plus the damping)
                hessian = np.zeros((self._nv, self._nv))
                linear = np.zeros(self._nv)
                for task in self.tasks:
                    h, c = task.compute_qp_objective(self.config)
                    hessian += h
                    linear += c
                hessian.flat[:: self._nv + 1] += IK_DAMPING
                velocity = -np.linalg.solve(hessian, linear) / self.dt
            self.config.integrate_inplace(velocity, self.dt)
            # converged once a step no longer moves the joints (by the IK's own measure)
            self._converged = float(np.abs(velocity).max()) * self.dt < IK_TOLERANCE
            if self._converged:
                break
        state[:] = self.config.q

    def reset(self) -> None:
        rt = self.rt
        rt.robot_state = np.zeros(self.config.model.nq)
        rt.robot_state[:7] = HOME_Q
        self._solve(rt.cmd[:5], 200)
        self._last[:] = rt.cmd[:5]
        rt.data.qpos[self.arm_qpos] = rt.robot_state[:7]
        rt.data.qpos[self.finger_qpos] = rt.cmd[5:7]
        self.write()

    def yaw_room(self, sign: float) -> float:
        """How far (rad) the hand's yaw can still turn in the direction of `sign` before
        joint 7 reaches its limit (±2.9 rad), read from the IK's own configuration.

        With the hand vertical, joint 7's axis points down the approach axis, so turning
        the hand about the world's vertical by +a turns joint 7 by -a (the other joints
        stay where they are)."""
        q7 = float(self.rt.robot_state[6])
        return q7 - float(self._low[6]) if sign > 0 else float(self._high[6]) - q7

    def drive_joints(self, joints: np.ndarray) -> None:
        """Joint targets for the next tick, within the joints' ranges (no IK this tick)."""
        model = self.config.model
        low, high = model.jnt_range[:7, 0], model.jnt_range[:7, 1]
        self.rt.robot_state[:7] = np.clip(joints, low, high)
        self._direct = True

    def write(self) -> None:
        rt = self.rt
        if self._direct:  # joint targets given for this tick
            self._direct = False
            self._last[:] = np.nan  # the next hand command is solved from these joints
            ctrl = rt.data.ctrl
            ctrl[self.actuators[:7]] = rt.robot_state[:7]
            ctrl[self.actuators[7:]] = rt.cmd[5:7]
            return
        command = rt.cmd[:5]
        # a constant command needs no new solution (holds, settles, waits)
        state = rt.robot_state
        # one IK iteration a tick while the command moves or the solution has not converged
        # (a ramp moves the target by millimetres a tick, which one iteration follows);
        # nothing while the command holds and the solution has converged
        if (
            not self._converged
            or not np.array_equal(command, self._last)
            or not np.array_equal(self.config.q, state)
        ):
            self._solve(command, IK_ITERATIONS)
            self._last[:] = command
        ctrl = rt.data.ctrl
        ctrl[self.actuators[:7]] = state[:7]
        ctrl[self.actuators[7:]] = rt.cmd[5:7]


class Panda:
    """The Franka Emika Panda with its two-finger hand, driven as a virtual gantry."""

    name = "panda"
    root_body = "panda/panda0_link0"
    nu = 9
    joints: tuple[str, ...] = JOINTS

    def build(self, spec: mujoco.MjSpec) -> None:
        """Attach the Panda to the table, with its servos and the TCP sensor."""
        try:
            import mink  # noqa: F401  (checked here, before a long compile)
        except ImportError as err:
            raise RobotMissing("panda", "mink") from err
        _attach(spec)
        for joint, kp, limit in zip(ARM_JOINTS, ARM_KP, ARM_FORCE, strict=True):
            act = spec.add_actuator(
                name=f"act_{joint}", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT
            )
            act.set_to_position(kp=kp, dampratio=1.0, timeconst=TARGET_FILTER)
            act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.forcerange = [-limit, limit]
        for joint in FINGER_JOINTS:
            act = spec.add_actuator(
                name=f"act_{joint}", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT
            )
            act.set_to_position(kp=1000, dampratio=1.0)
            act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.forcerange = [-4, 4]
        spec.add_sensor(
            name="hand_pos",
            type=mujoco.mjtSensor.mjSENS_FRAMEPOS,
            objtype=mujoco.mjtObj.mjOBJ_SITE,
            objname="tcp",
        )

    def controller(self, rt: Runtime) -> PandaController:
        return PandaController(rt)
