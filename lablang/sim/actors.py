"""Scripted colleagues: the runtime side of scene events.

An event starts at its seeded time and runs its actions over its duration. Moves and
turns of one fixture compose: each tick the fixture's servos aim at the sum of every
event's progress times its offset, so two events on one rack end at the sum of both moves.
A colleague opening or closing a lid holds it by a joint equality whose target angle is
ramped; removing a lid hides it and takes its mass away (it is gone); an object handed
over is absent (hidden, parked off the bench, touching nothing) until its event puts it at
its declared placement; an object taken away is parked from then on; a press has the
button's effect.

Robot contact (the gripper, or the object it holds) with an event's entities or their
load is watched: contact before the start is counted, and an onset of it is *premature*
when the entity is guarded by the event (`guard:`, or by default the lid, the button or
the object a colleague is about to take) or when a step waits for the event. The expert's
own program is held to this too: an episode with a premature interaction does not
succeed.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
from attrs import define, field

from lablang.sim.assets import AssetInfo
from lablang.sim.build import Built
from lablang.sim.model import Action

LID_OPENED = 1.85  # rad: where a colleague leaves an opened lid (past upright, at its stop)
PARK = (-0.6, 0.9, 0.2)  # m: where absent objects wait, away from the bench
PARK_PITCH = 0.08  # m between parked objects


@define
class EventState:
    """One scheduled event and what the robot did around it."""

    name: str
    start: float
    duration: float
    actions: tuple[Action, ...]
    guards: tuple[str, ...]
    contact_ticks_before: int = 0  # ticks in which the robot touched its entities (or load)
    first_contact_after: float | None = None  # simulated time of the first touch after start
    armed: bool = False  # a step waits for this event: touching before it starts is premature
    touching: bool = False  # the robot touched its entities (or load) in the last tick
    started: bool = False
    finished: bool = False
    lid_from: dict[str, float] = field(factory=dict)  # lid angles when it started

    @property
    def entity(self) -> str:
        """The first entity it acts on (the one named in records)."""
        return self.actions[0].entity

    @property
    def watched(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*(a.entity for a in self.actions), *self.guards)))


class Actors:
    """The runtime's scripted colleagues (a mixin of `Runtime`)."""

    # provided by the runtime
    model: mujoco.MjModel
    data: mujoco.MjData
    infos: dict[str, AssetInfo]
    body_ids: dict[str, int]
    entity_index: dict[str, int]
    owner_names: list[str]
    gripper_index: int
    held: str | None
    lid_held: str | None
    events: list[tuple[float, str, str]]

    def _touching_index(self, idx: int) -> set[int]:
        raise NotImplementedError

    def _on_press(self, entity: str, button: str) -> None:
        raise NotImplementedError

    def release_weld(self, name: str) -> None:
        raise NotImplementedError

    def release_lid(self, name: str) -> None:
        raise NotImplementedError

    def _init_actors(self, built: Built) -> None:
        m = self.model
        self.interventions = [
            EventState(event.name, start, event.duration, event.actions, event.guards)
            for event, start in built.interventions
        ]
        # (kind, time, event, entity): "trigger" when an event starts, "premature" at each
        # onset of touching what it guards (or, while a step waits for it, what it acts on)
        # before it starts, "response" at the first touch after it started
        self.coordination: list[tuple[str, float, str, str]] = []
        self.lids_removed: set[str] = set()
        self.parked: set[str] = set()  # objects off the bench (not handed over yet, taken)
        # fixture -> (x servo or -1, turn servo or -1): the y servo follows the x one
        self._drives: dict[str, tuple[int, int]] = {}
        names = {
            a.entity for e in self.interventions for a in e.actions if a.kind in ("move", "turn")
        }
        for name in sorted(names):
            slide = m.actuator(f"{name}_move_x").id if _has(m, f"{name}_move_x") else -1
            turn = m.actuator(f"{name}_turn").id if _has(m, f"{name}_turn") else -1
            self._drives[name] = (int(slide), int(turn))
        self._lid_eq = {
            name: int(m.equality(f"colleague_{name}_lid").id)
            for e in self.interventions
            for a in e.actions
            if a.kind in ("open_lid", "close_lid")
            for name in (a.entity,)
        }
        # geoms hidden by a colleague and their collision bits, to restore them exactly
        self._geom_bits: dict[int, tuple[int, int, float]] = {}
        handed = [a.entity for e in self.interventions for a in e.actions if a.kind == "hand_over"]
        taken = [a.entity for e in self.interventions for a in e.actions if a.kind == "take_away"]
        self._park_slot = {name: k for k, name in enumerate(sorted({*handed, *taken}))}
        self._handed_over = handed

    # ------------------------------------------------------------ per tick

    def _actors_before_step(self, t: float) -> None:
        """Drive the events for the tick ending at `t` (before physics runs)."""
        d = self.data
        targets: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in self._drives}
        for event in self.interventions:
            linear = min(1.0, max(0.0, (t - event.start) / event.duration))
            progress = (1 - math.cos(math.pi * linear)) / 2  # smooth start and stop
            if linear > 0.0 and not event.started:
                event.started = True
                self._start(event)
            for action in event.actions:
                if action.kind in ("move", "turn"):
                    goal = targets[action.entity]
                    goal[0] += progress * action.dx
                    goal[1] += progress * action.dy
                    goal[2] += progress * action.turn
                elif action.kind in ("open_lid", "close_lid") and event.started:
                    self._drive_lid(event, action, progress, linear >= 1.0)
            if linear >= 1.0:
                event.finished = True
        for name, (slide, turn) in self._drives.items():
            goal = targets[name]
            if slide >= 0:
                d.ctrl[slide] = goal[0]
                d.ctrl[slide + 1] = goal[1]
            if turn >= 0:
                d.ctrl[turn] = goal[2]
        for name in self.parked:
            self._hold_parked(name)

    def _start(self, event: EventState) -> None:
        self.events.append((self.time, event.name, "intervention started"))
        self.coordination.append(("trigger", self.time, event.name, event.entity))
        for action in event.actions:
            match action.kind:
                case "remove_lid":
                    self._remove_lid(action.entity)
                case "open_lid" | "close_lid":
                    joint = self.model.joint(self.infos[action.entity].lid_joint)
                    event.lid_from[action.entity] = float(self.data.qpos[joint.qposadr[0]])
                    if self.lid_held == action.entity:
                        self.release_lid(action.entity)
                        self.lid_held = None
                    self.data.eq_active[self._lid_eq[action.entity]] = 1
                case "hand_over":
                    self._hand_over(action.entity)
                case "take_away":
                    self._take_away(action.entity)
                case "press":
                    self._on_press(action.entity, action.part)
                case _:
                    pass

    def _drive_lid(self, event: EventState, action: Action, progress: float, done: bool) -> None:
        eq = self._lid_eq[action.entity]
        start = event.lid_from[action.entity]
        goal = LID_OPENED if action.kind == "open_lid" else 0.0
        self.model.eq_data[eq, 0] = start + progress * (goal - start)
        if done:
            self.data.eq_active[eq] = 0  # the colleague lets go

    def _remove_lid(self, name: str) -> None:
        m = self.model
        if self.lid_held == name:
            self.release_lid(name)
            self.lid_held = None
        lid = m.body(f"{name}_lid").id
        for body in range(m.nbody):
            walk = body
            while walk not in (0, lid):
                walk = int(m.body_parentid[walk])
            if walk == lid:
                self._hide_body(body)
                m.body_mass[body] = 1e-6
                m.body_inertia[body] = 1e-10
        self.lids_removed.add(name)
        self.events.append((self.time, f"{name}.lid", "removed by a colleague"))

    def _hand_over(self, name: str) -> None:
        self.parked.discard(name)
        self._show_body(self.body_ids[name])
        pose = self._handover_pose(name)
        adr = self.model.joint(f"{name}_free").qposadr[0]
        self.data.qpos[adr : adr + 7] = pose
        dof = self.model.joint(f"{name}_free").dofadr[0]
        self.data.qvel[dof : dof + 6] = 0.0
        self.events.append((self.time, name, "handed over"))

    def _take_away(self, name: str) -> None:
        if self.held == name:
            self.release_weld(name)
            self.held = None
        self._park(name)
        self.events.append((self.time, name, "taken away"))

    # ------------------------------------------------------------ absent objects

    def _park_absent(self) -> None:
        """At reset: objects a colleague hands over later are not on the bench yet."""
        for name in self._handed_over:
            self._park(name)

    def absent(self, name: str) -> str | None:
        """Why an object a skill names is not on the bench, or None if it is. Reaching for
        one a colleague has yet to hand over is a premature interaction with that event."""
        if name not in self.parked:
            return None
        for event in self.interventions:
            if any(a.kind == "hand_over" and a.entity == name for a in event.actions):
                if event.started:
                    continue
                self.coordination.append(("premature", self.time, event.name, name))
                return (
                    f"`{name}` is not there: a colleague hands it over at "
                    f"{event.start:.2f} s (event `{event.name}`)"
                )
        taker = next(
            (
                e.name
                for e in self.interventions
                for a in e.actions
                if a.kind == "take_away" and a.entity == name
            ),
            "?",
        )
        return f"`{name}` is not there: a colleague took it away (event `{taker}`)"

    def _park(self, name: str) -> None:
        self.parked.add(name)
        self._hide_body(self.body_ids[name])
        self._hold_parked(name)

    def _hold_parked(self, name: str) -> None:
        m, d = self.model, self.data
        k = self._park_slot[name]
        adr = m.joint(f"{name}_free").qposadr[0]
        d.qpos[adr : adr + 3] = (PARK[0] + PARK_PITCH * k, PARK[1], PARK[2])
        d.qpos[adr + 3 : adr + 7] = (1.0, 0.0, 0.0, 0.0)
        dof = m.joint(f"{name}_free").dofadr[0]
        d.qvel[dof : dof + 6] = 0.0

    def _handover_pose(self, name: str) -> np.ndarray:
        raise NotImplementedError

    def _hide_body(self, body: int) -> None:
        m = self.model
        for geom in range(m.body_geomadr[body], m.body_geomadr[body] + m.body_geomnum[body]):
            if geom not in self._geom_bits:
                self._geom_bits[geom] = (
                    int(m.geom_contype[geom]),
                    int(m.geom_conaffinity[geom]),
                    float(m.geom_rgba[geom, 3]),
                )
            m.geom_contype[geom] = 0
            m.geom_conaffinity[geom] = 0
            m.geom_rgba[geom, 3] = 0.0

    def _show_body(self, body: int) -> None:
        m = self.model
        for geom in range(m.body_geomadr[body], m.body_geomadr[body] + m.body_geomnum[body]):
            bits = self._geom_bits.pop(geom, None)
            if bits is not None:
                m.geom_contype[geom], m.geom_conaffinity[geom], m.geom_rgba[geom, 3] = bits

    # ------------------------------------------------------------ watching the robot

    def arm(self, event_name: str) -> None:
        """A step now waits for this event: touching its fixture before it starts is premature."""
        for event in self.interventions:
            if event.name == event_name:
                event.armed = True

    def _robot_contacts(self) -> set[int]:
        """Owner indices the robot touches: with the gripper or with the object it holds."""
        touched = {o for o in self._touching_index(self.gripper_index) if o >= 0}
        if self.held is not None and self.held in self.entity_index:
            touched |= {o for o in self._touching_index(self.entity_index[self.held]) if o >= 0}
        touched.discard(self.gripper_index)
        return touched

    def _actors_after_step(self) -> None:
        touched = self._robot_contacts()
        for event in self.interventions:
            hit_guard = hit_any = False
            if touched:
                for name in event.watched:
                    if self._touches(name, touched):
                        hit_any = True
                        hit_guard = hit_guard or name in event.guards
            onset = hit_any and not event.touching
            event.touching = hit_any
            if not hit_any:
                continue
            if not event.started:
                event.contact_ticks_before += 1
                if onset and (event.armed or hit_guard):
                    self.coordination.append(("premature", self.time, event.name, event.entity))
            elif event.first_contact_after is None:
                event.first_contact_after = self.time
                self.coordination.append(("response", self.time, event.name, event.entity))

    def _touches(self, name: str, touched: set[int]) -> bool:
        """The robot touches the entity or, for a fixture, a free object over its footprint
        (its load, or one the robot brings to it)."""
        index = self.entity_index[name]
        if index in touched:
            return True
        info = self.infos[name]
        if info.free:
            return False
        d = self.data
        centre = d.xpos[self.body_ids[name]]
        reach = info.radius + 0.01
        return any(
            self.infos[self.owner_names[o]].free
            and float(np.hypot(*(d.xpos[self.body_ids[self.owner_names[o]]][:2] - centre[:2])))
            < reach
            for o in touched
            if 0 <= o < len(self.infos)
        )

    @property
    def time(self) -> float:
        raise NotImplementedError


def _has(m: mujoco.MjModel, actuator: str) -> bool:
    try:
        m.actuator(actuator)
    except KeyError:
        return False
    return True
