"""The Franka Emika Panda: MJCF and meshes from gymnasium-robotics, attached through MjSpec.

The arm is a *virtual gantry*: skills command the same thing they command on the gantry
(a hand pose: x, y, z, yaw about the world's vertical, tilt about the finger axis, and the
fingers' half-opening), and the Panda reaches that pose through differential inverse
kinematics (mink) every other control tick (25 Hz), its servo targets interpolated
between solutions; its joints follow through position servos.
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
from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np

from lablang.sim.assets import GANTRY_Z, TCP_DROP
from lablang.sim.robots.base import WRIST_CAMERA, RobotMissing

if TYPE_CHECKING:
    from lablang.sim.rig import Rig

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
IK_ITERATIONS = 1  # per solve; more only in reset()
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


_lie: Any
try:  # mink's compiled SE(3) operations, when its FrameTask computes with them
    from mink.tasks import frame_task as _frame_task

    _lie = _frame_task._native
except ImportError:  # mink absent (a Panda scene then stops with RobotMissing)
    _lie = None

try:  # what np.linalg.solve computes with (LAPACK's gesv), without its checks and wrapping
    from numpy.linalg import _umath_linalg

    def _solve_linear(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """`np.linalg.solve(a, b)` for a float64 matrix and vector (the same numbers): its
        Python wrapper cost several times the solve itself, in a tick's cold caches."""
        return _umath_linalg.solve1(a, b, signature="dd->d")

except ImportError:  # a numpy that moved it
    _solve_linear = np.linalg.solve


# the frame task's costs per error coordinate (position, then orientation), as mink's
# FrameTask(position_cost=1.0, orientation_cost=0.5) weighs them
FRAME_COST = np.array([1.0, 1.0, 1.0, 0.5, 0.5, 0.5])
FRAME_COLUMN = FRAME_COST[:, None]
NEG_FRAME_COST = -FRAME_COST
POSTURE_COST = np.array([1e-4] * 7 + [0.0, 0.0])


@cache
def _home_solution(command: tuple[float, ...], dt: float) -> tuple[np.ndarray, bool]:
    """The IK's configuration after its reset solve from `HOME_Q` for a command, and whether
    it converged: a pure function of the command and the tick (every runtime resets to the
    same ones), so each process solves it once, not once per episode (200 QP iterations)."""
    controller = _Solver(dt)
    state = np.zeros(controller.config.model.nq)
    state[:7] = HOME_Q
    controller.solve(state, list(command), 200)
    state.flags.writeable = False
    return state, controller.converged


def _same(a: float, b: float) -> bool:
    """Whether two floats are the same number, a signed zero included (-0.0 is not 0.0:
    it can change the sign of a zero in the target's quaternion)."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


class _Solver:
    """Differential IK from a hand pose to the arm's configuration, one step at a time.

    The objective is mink's: a frame task on the hand, a light posture task and
    Levenberg-Marquardt damping. Near a joint limit (and in the reset's many iterations)
    mink's QP with the joint limits as constraints (daqp) solves it; far from every limit no
    constraint can bind, so the QP's minimum is where its gradient vanishes, H dq = -c,
    computed here with the same operations as mink's FrameTask, PostureTask and
    solve_ik (so the same numbers) without their per-call layers, which cost as much as
    the arithmetic once ten physics substeps have left the caches cold."""

    def __init__(self, dt: float) -> None:
        import mink

        self.mink = mink
        self.dt = dt
        model = _ik_model()
        self.model = model
        self.config = mink.Configuration(model)
        self.data = self.config.data
        self.task = mink.FrameTask("hand", "body", position_cost=1.0, orientation_cost=0.5)
        posture = mink.PostureTask(model, cost=POSTURE_COST)
        self.rest = np.zeros(model.nq)
        self.rest[:7] = REST_Q
        posture.set_target(self.rest)
        self.tasks = [self.task, posture]
        self.limits = [mink.ConfigurationLimit(model)]
        # every joint is a hinge or a slide with a range, so mink's limit constrains every
        # coordinate of the step with its own lower and upper bounds
        assert model.nq == model.nv and len(self.limits[0].indices) == model.nv
        self.low, self.high = model.jnt_range[:7, 0].copy(), model.jnt_range[:7, 1].copy()
        self.low_list, self.high_list = self.low.tolist(), self.high.tolist()
        self.nv = model.nv
        self.hand = model.body("hand").id
        # the posture task's Hessian: its Jacobian is the identity, so H = diag(cost^2)
        self.posture_hessian = np.diag(POSTURE_COST * POSTURE_COST)
        self.jac = np.empty((6, model.nv))
        # views kept once (MuJoCo's arrays stay where they are): reading them through
        # `data` builds a new view each time
        self.jacp, self.jacr = self.jac[:3], self.jac[3:]
        self.qpos = self.data.qpos
        self.xmat, self.xpos = self.data.xmat[self.hand], self.data.xpos[self.hand]
        assert model.neq == 0  # (so a configuration update is kinematics and com positions)
        self.rotation = np.empty(9)
        # the objective's arrays, written in place (its callers use them before the next)
        self.spatial, self.unsigned, self.weighted = (np.empty((6, model.nv)) for _ in range(3))
        self.hessian, self.linear = np.empty((model.nv, model.nv)), np.empty(model.nv)
        self.diagonal = self.hessian.reshape(-1)[:: model.nv + 1]
        self.weighted_t = self.weighted.T
        self.neg_dt = -dt
        self.target = np.zeros(7)  # the frame task's target, wxyz_xyz
        self.target_of: list[float] | None = None  # the command it was set for
        self.task_target_of: list[float] | None = None  # the one mink's FrameTask has
        self.converged = False

    def set_command(self, command: list[float]) -> None:
        """The frame task's target for a hand command (x, y, z, yaw, tilt), as mink's
        `SE3.from_rotation_and_translation(SO3.from_matrix(R), p)` makes it."""
        if command == self.target_of:
            return
        x, y, z, yaw, tilt = command
        target = np.empty(7)
        last = self.target_of
        if last is not None and _same(last[3], yaw) and _same(last[4], tilt):
            target[:4] = self.target[:4]  # a move without a turn: the same orientation
        else:
            cy, sy, ct, st = math.cos(yaw), math.sin(yaw), math.cos(tilt), math.sin(tilt)
            rotation = self.rotation
            rotation[:] = (cy, -sy * ct, sy * st, sy, cy * ct, -cy * st, 0.0, st, ct)
            mujoco.mju_mat2Quat(target[:4], rotation)
        target[4:] = (x, y, z + GANTRY_Z)
        self.target = target
        self.target_of = command
        self.task_target_of = None  # mink's FrameTask gets it when the QP needs it

    def _sync_task(self) -> None:
        """Give mink's FrameTask the target (only its QP and the generic path read it)."""
        if self.task_target_of != self.target_of:
            self.task.set_target(self.mink.SE3(wxyz_xyz=self.target))
            self.task_target_of = self.target_of

    def _qp_velocity(self) -> np.ndarray:
        """The step's velocity from mink's QP, with the joint limits as constraints."""
        self._sync_task()
        return self.mink.solve_ik(
            self.config, self.tasks, self.dt, "daqp", damping=IK_DAMPING, limits=self.limits
        )

    def _objective(self) -> tuple[np.ndarray, np.ndarray]:
        """mink's QP objective (H, c) for the frame and posture tasks, plus the damping."""
        if _lie is None:  # mink's own, through its task objects
            self._sync_task()
            hessian = np.zeros((self.nv, self.nv))
            linear = np.zeros(self.nv)
            for task in self.tasks:
                h, c = task.compute_qp_objective(self.config)
                hessian += h
                linear += c
            hessian.flat[:: self.nv + 1] += IK_DAMPING
            return hessian, linear
        target, xmat = self.target, self.xmat
        frame = _lie.xmat_xpos_to_wxyz_xyz(xmat, self.xpos)
        error = _lie.se3_rminus(target, frame)  # FrameTask.compute_error
        # FrameTask.compute_jacobian, through Configuration.get_frame_jacobian, is
        # -jlog(T_tb) @ adjoint @ jac; its sign is folded into the linear term below (a
        # negation is exact, so the numbers are mink's), which saves three array calls
        mujoco.mj_jacBody(self.model, self.data, self.jacp, self.jacr, self.hand)
        np.matmul(_lie.se3_rotation_adjoint_from_xmat(xmat), self.jac, out=self.spatial)
        np.matmul(
            _lie.se3_jlog(_lie.se3_inverse_multiply(target, frame)), self.spatial, out=self.unsigned
        )
        # Task._assemble_qp (gain 1, no LM term), with W the frame costs and J = -unsigned:
        # H = (W J)^T (W J) = (W unsigned)^T (W unsigned), c = -(W (-e)) @ (W J) = (-W e) @ (W unsigned)
        weighted = np.multiply(FRAME_COLUMN, self.unsigned, out=self.weighted)
        hessian = np.matmul(self.weighted_t, weighted, out=self.hessian)
        linear = np.matmul(NEG_FRAME_COST * error, weighted, out=self.linear)
        # the posture task (Jacobian I): H = diag(cost^2), c = cost (cost (q - rest))
        linear += (POSTURE_COST * (self.qpos - self.rest)) * POSTURE_COST
        hessian += self.posture_hessian
        self.diagonal += IK_DAMPING  # a view of the Hessian's diagonal
        return hessian, linear

    def _feasible(self, solution: np.ndarray) -> bool:
        """Whether the step `-solution` keeps within mink's joint-limit constraints
        (`ConfigurationLimit`: gain (q_max - q) >= step >= -gain (q - q_min)). If it does,
        it is the QP's solution too: the QP is strictly convex, so a feasible minimum of
        its objective is its minimum under the constraints."""
        limit = self.limits[0]
        q = self.qpos
        step = -solution
        return bool(
            np.all(step <= limit.gain * (limit.upper - q))
            and np.all(step >= -limit.gain * (q - limit.lower))
        )

    def synced(self, state: np.ndarray) -> bool:
        """Whether the IK's configuration is `state` (not after a checkpoint's restore)."""
        return self.qpos.tobytes() == state.tobytes()

    def solve(
        self, state: np.ndarray, command: list[float], iterations: int, synced: bool = False
    ) -> None:
        """Iterate the IK from `state` (the configuration, updated in place) to `command`."""
        config, dt, model, data, qpos = self.config, self.dt, self.model, self.data, self.qpos
        if not synced and not self.synced(state):
            config.update(state)
        self.set_command(command)
        # the joint-limit constraints only bind near a limit: far from all of them (more
        # than one tick's largest step), the QP is solved without them, which is cheaper
        near = False
        for v, low, high in zip(qpos[:7].tolist(), self.low_list, self.high_list, strict=True):
            if v - low < LIMIT_MARGIN or high - v < LIMIT_MARGIN:
                near = True
                break
        for _ in range(iterations):
            if iterations > 1:
                velocity = self._qp_velocity()
            else:
                hessian, linear = self._objective()
                solution = _solve_linear(hessian, linear)  # the step is -solution
                if near and not self._feasible(solution):
                    velocity = self._qp_velocity()  # a joint limit binds: mink's QP
                else:
                    # -x / dt, as x / -dt (the same number: division is symmetric in sign)
                    velocity = solution / self.neg_dt
            # Configuration.integrate_inplace: integrate, then kinematics and com positions
            mujoco.mj_integratePos(model, qpos, velocity, dt)
            mujoco.mj_kinematics(model, data)
            mujoco.mj_comPos(model, data)
            # converged once a step no longer moves the joints (by the IK's own measure)
            self.converged = max(map(abs, velocity.tolist())) * dt < IK_TOLERANCE
            if self.converged:
                break
        state[:] = qpos


class PandaController:
    """Differential IK (mink) from the commanded hand pose to joint targets, at 25 Hz.

    The IK integrates its own configuration from solve to solve (it never reads the
    simulated joints), so the joint targets depend on the commands alone: contacts that
    push the arm off its path cannot change what the next tick commands. It solves every
    other control tick (skills' commands move by millimetres a tick, which one iteration
    follows over two), and the servo targets interpolate between solutions, one tick
    behind: the midpoint of the last two on a solving tick, the newest on the next. Its
    state is the runtime's `robot_state` (checkpointed with the rest): the IK's
    configuration, the previous solution's arm joints and the phase."""

    def __init__(self, rt: Rig) -> None:
        try:
            self.solver = _Solver(rt.dt)
        except ImportError as err:
            raise RobotMissing("panda", "mink") from err
        self.rt = rt
        self.nq = self.solver.model.nq
        self.arm_qpos = np.array([rt.model.joint(j).qposadr[0] for j in ARM_JOINTS])
        self.finger_qpos = np.array([rt.model.joint(j).qposadr[0] for j in FINGER_JOINTS])
        ids = [rt.model.actuator(f"act_{j}").id for j in JOINTS]
        # the robot's actuators come first, in joint order (`Panda.build`): slices of ctrl
        assert ids == list(range(len(JOINTS)))
        self.arm_ctrl, self.finger_ctrl = slice(0, 7), slice(7, 9)
        self._last: list[float] | None = None  # the command last solved for
        self._direct = False
        # the robot state whose configuration the IK's own data holds, if known: a new state
        # object (a restore) or joints driven directly are compared (or solved from) again
        self._synced: np.ndarray | None = None
        self._state: np.ndarray | None = None
        self._data: mujoco.MjData | None = None

    def reset(self) -> None:
        rt = self.rt
        solution, converged = _home_solution(tuple(rt.cmd[:5].tolist()), rt.dt)
        nq = self.nq
        rt.robot_state = np.zeros(nq + 8)  # configuration, previous arm solution, phase
        rt.robot_state[:nq] = solution
        rt.robot_state[nq : nq + 7] = solution[:7]
        solver = self.solver
        solver.config.update(solution)
        solver.set_command(rt.cmd[:5].tolist())
        solver.converged = converged
        self._synced = rt.robot_state
        self._last = rt.cmd[:5].tolist()
        rt.data.qpos[self.arm_qpos] = solution[:7]
        rt.data.qpos[self.finger_qpos] = rt.cmd[5:7]
        self.write()

    def yaw_room(self, sign: float) -> float:
        """How far (rad) the hand's yaw can still turn in the direction of `sign` before
        joint 7 reaches its limit (±2.9 rad), read from the IK's own configuration.

        With the hand vertical, joint 7's axis points down the approach axis, so turning
        the hand about the world's vertical by +a turns joint 7 by -a (the other joints
        stay where they are)."""
        q7 = float(self.rt.robot_state[6])
        solver = self.solver
        return q7 - float(solver.low[6]) if sign > 0 else float(solver.high[6]) - q7

    def drive_joints(self, joints: np.ndarray) -> None:
        """Joint targets for the next tick, within the joints' ranges (no IK this tick)."""
        solver = self.solver
        self.rt.robot_state[:7] = np.clip(joints, solver.low, solver.high)
        self._direct = True
        self._synced = None

    def _bind(self, state: np.ndarray, data: mujoco.MjData) -> None:
        """Views of a new robot state (a reset's or a restore's) and MjData, kept once:
        building them every tick costs more than the arithmetic in a tick's cold caches."""
        nq = self.nq
        self._state, self._data = state, data
        self._configuration, self._arm = state[:nq], state[:7]
        self._previous = state[nq : nq + 7]
        self._phase = nq + 7
        self._ctrl_arm, self._ctrl_finger = data.ctrl[self.arm_ctrl], data.ctrl[self.finger_ctrl]

    def write(self) -> None:
        rt = self.rt
        state = rt.robot_state
        if state is not self._state or rt.data is not self._data:
            self._bind(state, rt.data)
        arm, previous, ctrl_arm = self._arm, self._previous, self._ctrl_arm
        if self._direct:  # joint targets given for this tick: the servos take them as is
            self._direct = False
            self._last = None  # the next hand command is solved from these joints
            previous[:] = arm
            state[self._phase] = 0.0
            ctrl_arm[:] = arm
        elif state[self._phase] == 0.0:  # a solving tick
            configuration = self._configuration
            previous[:] = arm
            command = rt.cmd[:5].tolist()
            # one IK iteration while the command moves or the solution has not converged;
            # nothing while the command holds and the solution has converged (holds,
            # settles, waits), unless the state was restored from a checkpoint
            solver = self.solver
            synced = self._synced is state or solver.synced(configuration)
            if not solver.converged or command != self._last or not synced:
                solver.solve(configuration, command, IK_ITERATIONS, synced)
                self._last = command
            self._synced = state  # the IK's configuration is this state's (until it changes)
            state[self._phase] = 1.0
            np.add(previous, arm, out=ctrl_arm)  # (previous + newest) * 0.5, in place
            ctrl_arm *= 0.5
        else:  # the tick after: the newest solution
            state[self._phase] = 0.0
            ctrl_arm[:] = arm
        self._ctrl_finger[:] = rt.cmd[5:7]


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

    def controller(self, rt: Rig) -> PandaController:
        return PandaController(rt)
