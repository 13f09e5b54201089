"""What a robot controller and the bookkeeping journal need of the runtime: the layer
below `runtime`, as `state` is for predicates and skills.

A `Runtime` is a `Rig` (checked by mypy where the runtime passes itself to a robot's
controller and to `bookkeeping.apply`); the robots and the journal annotate with `Rig`,
so none of them imports the runtime, which imports them (`tests/sim/test_layers.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import mujoco
    import numpy as np

    from lablang.sim.assets import AssetInfo

__all__ = ["Rig"]


class Rig(Protocol):
    """The runtime's state a robot drives and a journal replay checks against."""

    model: mujoco.MjModel
    data: mujoco.MjData
    dt: float  # s per control tick
    cmd: np.ndarray  # the hand command: x, y, z, yaw, tilt, finger, finger
    robot_state: np.ndarray  # the robot controller's own state (the arm's IK)
    infos: dict[str, AssetInfo]
    tips: dict[str, bool]  # pipette -> carries a tip
    boxed_tips: dict[str, list[bool]]  # tip box -> which positions hold a tip
    weld_ids: dict[str, int]  # free object -> its grasp weld
    lid_eq: dict[str, int]  # apparatus -> the connect constraint that carries its lid
