"""What the runtime knows about a built entity (`AssetInfo`), the type every builder has."""

from __future__ import annotations

import math
from collections.abc import Callable

import mujoco
from attrs import define, field

from lablang.sim.model import Entity


@define
class SlotInfo:
    site: str  # the site at the centre of the slot floor, z up
    bore: float  # half-width of the square bore
    depth: float


@define
class AssetInfo:
    """What the runtime knows about one built entity."""

    name: str
    asset: str
    body: str
    free: bool  # has a free joint (can be picked)
    slots: list[SlotInfo] = field(factory=list)
    radius: float = 0.0  # footprint radius (objects) or pan/opening radius
    half_height: float = 0.0  # body origin to bottom / top (objects)
    grasp_z: float = 0.0  # grasp point above the body origin
    top_site: str = ""  # where objects are put on this entity (scale pan, surfaces)
    opening: float = 0.0  # inner radius of an open container (beaker)
    depth: float = 0.0  # inner depth of an open container
    capacity: float = 0.0  # m^3
    base_mass: float = 0.0
    lid_joint: str = ""
    lid_handle: str = ""  # body name of the handle
    lid_hinge_site: str = ""
    drawer_joint: str = ""  # a drawer's slide (its handle is `lid_handle`)
    buttons: dict[str, str] = field(factory=dict)  # button name -> joint name
    rotor_joint: str = ""
    force_sensor: str = ""
    yaw_limit: float = math.pi  # symmetric objects: any yaw is the same grasp
    capped: bool = False  # a closed container: inverting it spills nothing, pouring is impossible
    heater: bool = False  # a thermal block: its slots bring their contents to its temperature
    # the interior is modelled (a tip can enter); else liquid is handled at the mouth
    hollow: bool = False
    wells: list[str] = field(factory=list)  # well sites (at each well's mouth), plates only
    well_radius: float = 0.0
    well_depth: float = 0.0
    fill_radius: float = 0.0  # inner radius where liquid stands, if wider than the opening
    bare: bool = False  # a pipette that starts without a tip
    tip_length: float = 0.0  # a pipette's tip, part of `half_height` while it is on
    cap_joint: str = ""  # a screw cap's turning hinge (bottles)
    display: list[str] = field(factory=list)  # a scale's seven-segment geoms (`display.py`)
    label: str = ""  # a tube's label (its flag's segments are `display`)
    offset: float = 0.0  # kg a scale reads over its load (a drawn zero drift; `tare` clears it)


Builder = Callable[[mujoco.MjSpec, Entity, list[float], float], AssetInfo]
