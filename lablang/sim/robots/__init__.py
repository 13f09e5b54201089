"""Robots behind one interface: the gantry (default, fast) and the Franka Panda arm.

`robot_named(name)` returns the robot; `ROBOTS` lists the names a scene's `robot:` entry
or a task option (`--robot`) may use. The Panda needs the `robot` extra (gymnasium-robotics
for its MJCF and meshes, mink for inverse kinematics); without it, building a Panda scene
raises `RobotMissing`, which names the extra.
"""

from __future__ import annotations

from attrs import evolve

from lablang.sim.model import Task
from lablang.sim.robots.base import Robot, RobotMissing

ROBOTS = ("gantry", "panda")
DEFAULT_ROBOT = "gantry"

__all__ = ["DEFAULT_ROBOT", "ROBOTS", "Robot", "RobotMissing", "robot_named", "with_robot"]


def robot_named(name: str) -> Robot:
    """The robot called `name` (one of `ROBOTS`)."""
    if name == "gantry":
        from lablang.sim.robots.gantry import Gantry

        return Gantry()
    if name == "panda":
        from lablang.sim.robots.panda import Panda

        return Panda()
    raise ValueError(f"unknown robot `{name}` (known: {', '.join(ROBOTS)})")


def with_robot(task: Task, robot: str | None) -> Task:
    """The task run by another robot (a task option); `None` keeps the scene's choice.

    >>> from lablang.sim.model import Scene
    >>> with_robot(Task("t", Scene("s", ()), ()), "panda").scene.robot
    'panda'
    """
    if robot is None or robot == task.scene.robot:
        return task
    if robot not in ROBOTS:
        raise ValueError(f"unknown robot `{robot}` (known: {', '.join(ROBOTS)})")
    return evolve(task, scene=evolve(task.scene, robot=robot))
