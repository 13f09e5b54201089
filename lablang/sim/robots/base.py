"""What every robot offers the runtime: a build, a reset, and a command-to-servo map.

Skills command a *hand pose* on the runtime (`Runtime.cmd`: the gantry's coordinates x, y,
z, yaw, tilt and the two fingers' half-openings); each robot turns that command into its
own actuators' controls once per control tick. The hand frame (body `hand`), its tool
centre point (site `tcp`, `TCP_DROP` below the hand), the finger pads (geoms `pad_l`,
`pad_r`) and the TCP sensor (`hand_pos`) carry the same names on every robot, so grasp
checks, welds and predicates read the same things whichever robot runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import mujoco

    from lablang.sim.rig import Rig

__all__ = ["WRIST_CAMERA", "Robot", "RobotMissing"]

# in the hand frame: 6 cm beside the fingers, looking down past them at what they hold
WRIST_CAMERA: dict[str, Any] = {
    "pos": [0.0, -0.06, 0.0],
    "xyaxes": [1.0, 0.0, 0.0, 0.0, 0.94, 0.35],
    "fovy": 75.0,
}


class RobotMissing(Exception):
    """A robot needs packages of an extra that is not installed."""

    def __init__(self, robot: str, package: str) -> None:
        super().__init__(
            f"the `{robot}` robot needs `{package}`, which is not installed; "
            "install lablang's `robot` extra: pip install 'lablang[robot]'"
        )
        self.robot = robot
        self.package = package


class Robot(Protocol):
    """A robot the runtime can drive (see the module docstring for the shared names)."""

    name: str
    root_body: str  # every body under it belongs to the robot (the "gripper" owner)
    nu: int  # its actuators come first, in this many controls
    joints: tuple[str, ...]  # the joints reported as proprioception, in order

    def build(self, spec: mujoco.MjSpec) -> None:
        """Add the robot, its actuators and the `hand_pos` sensor to a scene's spec."""

    def controller(self, rt: Rig) -> Any:
        """A per-runtime object with `reset()` (pose the robot at `rt.cmd` before the
        first step), `write()` (turn `rt.cmd` into `rt.data.ctrl`) and `drive_joints(q)`
        (joint targets for the arm on the next tick instead of the hand command) and
        `yaw_room(sign)` (how far, in rad, the hand's yaw can still turn in the direction
        of `sign` before a joint limit: a screw cap's strokes need a quarter turn)."""
