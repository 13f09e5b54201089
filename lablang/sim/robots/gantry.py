"""The gantry: Cartesian slides and wrist hinges whose servo targets are the command itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from lablang.sim.assets import GANTRY_YAW, build_gripper
from lablang.sim.robots.base import WRIST_CAMERA

if TYPE_CHECKING:
    from lablang.sim.rig import Rig

JOINTS = ("gx", "gy", "gz", "gyaw", "gtilt", "fl", "fr")


class GantryController:
    def __init__(self, rt: Rig) -> None:
        self.rt = rt

    def reset(self) -> None:
        rt = self.rt
        for i, joint in enumerate(JOINTS):
            rt.data.qpos[rt.model.joint(joint).qposadr[0]] = rt.cmd[i]

    def yaw_room(self, sign: float) -> float:
        """How far (rad) the yaw hinge can still turn in the direction of `sign`."""
        yaw = float(self.rt.cmd[3])
        return GANTRY_YAW - yaw if sign > 0 else yaw + GANTRY_YAW

    def drive_joints(self, joints: np.ndarray) -> None:
        """The axes' targets are the command itself: x, y, z (carriage), yaw, tilt."""
        self.rt.cmd[:5] = joints

    def write(self) -> None:
        self.rt.data.ctrl[:7] = self.rt.cmd


class Gantry:
    """x, y, z slides, a yaw and a tilt hinge, two force-limited finger slides (the default)."""

    name = "gantry"
    root_body = "gantry_x"
    nu = 7
    joints: tuple[str, ...] = JOINTS

    def build(self, spec: mujoco.MjSpec) -> None:
        build_gripper(spec)
        spec.body("hand").add_camera(name="wrist", **WRIST_CAMERA)

    def controller(self, rt: Rig) -> GantryController:
        return GantryController(rt)
