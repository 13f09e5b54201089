"""State queries shared by the runtime, the skills and the success predicates.

The layer below all three: the part targets a reference resolves to (a slot, a well,
a button), the contents ledger's key, and the geometric facts read from the simulator
(an object's tilt, which slot it sits in, what it rests on, a lid's angle, a cap's
turns, a rotor's balance). Each query reads a `Scene`: the model, the data and the
index tables a `Runtime` keeps; nothing here advances physics or changes state.
Tolerances come from the assets' geometry (a slot's bore and depth, a pan's radius).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import mujoco
import numpy as np
from attrs import frozen

from lablang.sim.assets import CAP_OPEN_TURNS, AssetInfo

UPRIGHT_TILT = math.radians(15)
STABLE_SPEED = 0.01  # m/s relative to the support
STABLE_SPIN = 0.3  # rad/s relative to the support
LID_OPEN = math.radians(75)
LID_CLOSED = math.radians(3)
DRAWER_OPEN = 0.10  # m a drawer's tray is out when it counts as open (it pulls out 12 cm)
DRAWER_CLOSED = 0.005  # m from home at most: closed
CAP_CLOSED_TURNS = 0.05  # a screw cap at most this far from home is closed
BALANCE_TOL = 0.1e-3  # kg: the imbalance a centrifuge tolerates (0.1 g at unit radius)

__all__ = [
    "BALANCE_TOL",
    "CAP_CLOSED_TURNS",
    "CAP_OPEN_TURNS",
    "DRAWER_CLOSED",
    "DRAWER_OPEN",
    "LID_CLOSED",
    "LID_OPEN",
    "STABLE_SPEED",
    "STABLE_SPIN",
    "UPRIGHT_TILT",
    "ButtonTarget",
    "Scene",
    "SlotTarget",
    "WellTarget",
    "at_rest",
    "balanced",
    "bottom_depth",
    "cap_turns",
    "closure_closed",
    "closure_open",
    "drawer_travel",
    "grasped",
    "in_slot",
    "ledger_key",
    "lid_angle",
    "lowest_point",
    "on",
    "slot_of",
    "tilt",
    "upright",
]


# ---------------------------------------------------------------- targets


@frozen
class SlotTarget:
    container: str
    index: int


@frozen
class WellTarget:
    plate: str
    index: int

    @property
    def key(self) -> str:
        """The well's name in the contents ledger."""
        return f"{self.plate}.well[{self.index}]"


@frozen
class ButtonTarget:
    entity: str
    button: str


def ledger_key(container: Any) -> str:
    """The contents ledger's key of a container: its name, or a well's `plate.well[k]`."""
    return container.key if isinstance(container, WellTarget) else str(container)


# ---------------------------------------------------------------- the scene read


class Scene(Protocol):
    """What the queries read: a `Runtime` is one (its model, data and index tables)."""

    @property
    def model(self) -> mujoco.MjModel: ...
    @property
    def data(self) -> mujoco.MjData: ...
    @property
    def infos(self) -> dict[str, AssetInfo]: ...
    @property
    def body_ids(self) -> dict[str, int]: ...
    @property
    def entity_index(self) -> dict[str, int]: ...
    @property
    def gripper_index(self) -> int: ...
    @property
    def slot_list(self) -> list[SlotTarget]: ...
    @property
    def slot_site_ids(self) -> np.ndarray: ...
    @property
    def slot_site_index(self) -> dict[SlotTarget, int]: ...
    @property
    def slot_reach(self) -> np.ndarray: ...
    @property
    def site_ids(self) -> dict[str, int]: ...
    @property
    def tips(self) -> dict[str, bool]: ...

    def touching(self, entity: str) -> set[int]: ...
    def pad_contacts(self, owner: int, geom: int = -1) -> tuple[bool, bool]: ...
    def support_body(self, entity: str) -> int | None: ...
    def object_mass(self, name: str) -> float: ...


# ---------------------------------------------------------------- geometry


def bottom_depth(rt: Scene, name: str) -> float:
    """How far below its body's origin, along its axis, an object ends now: its
    `half_height`, less a pipette's tip while the pipette is bare (a bare pipette stands
    on its nose, so reading its bottom at the tip's end put it 3 cm into a stand's floor)."""
    info = rt.infos[name]
    if info.tip_length and not rt.tips.get(name, True):
        return info.half_height - info.tip_length
    return info.half_height


def lowest_point(rt: Scene, name: str) -> float:
    """The height of an object's lowest point (above the table top, m), its axis leaning."""
    info = rt.infos[name]
    d = rt.data
    axis_z = abs(float(d.xmat[rt.body_ids[name], 8]))
    reach = bottom_depth(rt, name) * axis_z + info.radius * math.sqrt(max(0.0, 1 - axis_z**2))
    return float(d.xpos[rt.body_ids[name]][2]) - reach


def tilt(rt: Scene, name: str) -> float:
    R = rt.data.xmat[rt.body_ids[name]]
    return math.acos(max(-1.0, min(1.0, float(R[8]))))


def in_slot(rt: Scene, name: str, target: SlotTarget) -> bool:
    """The object's bottom sits in the slot's bore, leaning no more than the bore allows,
    touching the container and not the gripper."""
    info = rt.infos[name]
    slot = rt.infos[target.container].slots[target.index]
    d = rt.data
    site = rt.slot_site_index[target]  # index access: named access builds a view object
    site_pos = d.site_xpos[site]
    site_R = d.site_xmat[site].reshape(3, 3)
    body = rt.body_ids[name]
    pos = d.xpos[body]
    axis = d.xmat[body, 2::3]
    # centre of the bottom hemisphere / bottom face, in the slot frame
    bottom = site_R.T @ (pos - axis * (bottom_depth(rt, name) - info.radius) - site_pos)
    play = slot.bore - info.radius + 0.001
    if abs(bottom[0]) > play or abs(bottom[1]) > play:
        return False
    if not -0.003 <= bottom[2] <= info.radius + 0.006:
        return False
    # the steepest lean the bore allows: the top of the bore against the far wall
    lean = math.atan2(2 * (slot.bore - info.radius) + 0.002, slot.depth) + math.radians(3)
    cos_tilt = float(np.dot(axis, site_R[:, 2]))
    if cos_tilt < math.cos(lean):
        return False
    touching = rt.touching(name)
    return rt.entity_index[target.container] in touching and rt.gripper_index not in touching


def slot_of(rt: Scene, name: str) -> SlotTarget | None:
    """The slot an object actually sits in: the one whose `in` predicate holds (never nearest).

    Only slots whose bore could contain the object's bottom are tested.
    """
    if not rt.slot_list:
        return None
    info = rt.infos[name]
    d = rt.data
    body = rt.body_ids[name]
    bottom = d.xpos[body] - d.xmat[body, 2::3] * (bottom_depth(rt, name) - info.radius)
    # one vectorized pass over every slot of every container, then the predicate proper
    offsets = np.abs(d.site_xpos[rt.slot_site_ids] - bottom)
    near = np.flatnonzero((offsets <= rt.slot_reach).all(axis=1))
    for k in near.tolist():
        target = rt.slot_list[k]
        if in_slot(rt, name, target):
            return target
    return None


def on(rt: Scene, name: str, surface: str) -> bool:
    """Resting on the surface: in contact, above its top, within its footprint, not held."""
    touching = rt.touching(name)
    if rt.entity_index.get(surface) not in touching or rt.gripper_index in touching:
        return False
    info = rt.infos[surface]
    pos = rt.data.xpos[rt.body_ids[name]]
    if info.top_site:
        top = rt.data.site_xpos[rt.site_ids[info.top_site]]
        if pos[2] < top[2]:
            return False
        return float(np.hypot(pos[0] - top[0], pos[1] - top[1])) <= info.radius
    return True


def grasped(rt: Scene, name: str) -> bool:
    """Both finger pads touch the object (the two-sided check robosuite uses)."""
    left, right = rt.pad_contacts(rt.entity_index[name])
    return left and right


def upright(rt: Scene, name: str) -> bool:
    return tilt(rt, name) <= UPRIGHT_TILT


def lid_angle(rt: Scene, name: str) -> float:
    joint = rt.infos[name].lid_joint
    return float(rt.data.qpos[rt.model.joint(joint).qposadr[0]])


def drawer_travel(rt: Scene, name: str) -> float:
    """How far (m) a drawer's tray is pulled out of its cabinet."""
    joint = rt.infos[name].drawer_joint
    return float(rt.data.qpos[rt.model.joint(joint).qposadr[0]])


def closure_open(rt: Scene, name: str) -> bool:
    """A hinged lid or door swung open, or a drawer pulled out (what a handle works)."""
    if rt.infos[name].drawer_joint:
        return drawer_travel(rt, name) >= DRAWER_OPEN
    return lid_angle(rt, name) >= LID_OPEN


def closure_closed(rt: Scene, name: str) -> bool:
    """A hinged lid or door shut, or a drawer pushed home."""
    if rt.infos[name].drawer_joint:
        return drawer_travel(rt, name) <= DRAWER_CLOSED
    return lid_angle(rt, name) <= LID_CLOSED


def at_rest(rt: Scene, name: str) -> bool:
    """Slow relative to whatever supports it, and not touched by the gripper."""
    touching = rt.touching(name)
    if rt.gripper_index in touching:
        return False
    m, d = rt.model, rt.data
    v = np.zeros(6)
    mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, rt.body_ids[name], v, 0)
    support = np.zeros(6)
    body = rt.support_body(name)
    if body is not None:
        mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, body, support, 0)
    rel = v - support
    return (
        float(np.linalg.norm(rel[3:])) < STABLE_SPEED
        and float(np.linalg.norm(rel[:3])) < STABLE_SPIN
    )


def balanced(rt: Scene, name: str) -> bool:
    """The loaded tubes' mass moments about the rotor axis cancel within 0.1 g."""
    rt.infos[name]
    d = rt.data
    rotor_axis = d.xpos[rt.body_ids[name]]
    moment = np.zeros(2)
    for other, oinfo in rt.infos.items():
        if not oinfo.free:
            continue
        where = slot_of(rt, other)
        if where is None or where.container != name:
            continue
        p = d.site_xpos[rt.slot_site_index[where]] - rotor_axis
        direction = p[:2] / max(float(np.linalg.norm(p[:2])), 1e-9)
        moment += rt.object_mass(other) * direction
    return float(np.linalg.norm(moment)) <= BALANCE_TOL + 1e-12


def cap_turns(rt: Scene, bottle: str) -> float:
    """How many turns a bottle's screw cap has been unscrewed."""
    joint = rt.model.joint(rt.infos[bottle].cap_joint)
    return float(rt.data.qpos[joint.qposadr[0]]) / (2 * math.pi)
