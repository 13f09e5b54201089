"""The simulation runtime: control ticks, grasp assistance, contents, scales, health.

One `Runtime` owns one MjModel/MjData pair. A control tick writes the gripper's
servo targets, advances physics by `substeps` steps of 2 ms, updates the scale
displays and buttons, and checks the simulator's health. Instability is raised
as `SimFault`, which the episode reports as a simulator fault, never as a
failure of the task.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np
from attrs import define, field, frozen

from lablang.sim.actors import Actors
from lablang.sim.assets import FINGER_MAX, GANTRY_Z, TCP_DROP, AssetInfo
from lablang.sim.assets.display import LIT, UNLIT, Labels, Thermometers, Timers, segments_lit
from lablang.sim.bookkeeping import Bookkeeping, journaled
from lablang.sim.build import LEVEL_SHOWN, Built
from lablang.sim.catalog import WORK_BASE
from lablang.sim.model import InSlot, OnSurface
from lablang.sim.robots import robot_named
from lablang.sim.state import SlotTarget, bottom_depth
from lablang.sim.thermal import AMBIENT, update_thermal

GRAVITY = 9.81
LIQUID_DENSITY = 1000.0  # kg/m^3; contents are water-like unless stated
SCALE_TAU = 0.25  # s, first-order display filter (Labference)
SCALE_QUANTUM_TENTHS = 1  # display quantum, in tenths of a gram (0.1 g)
SCALE_STABLE_WINDOW = 3.0  # s of constant display before a reading counts
PENETRATION_LIMIT = 0.005  # m
VELOCITY_LIMIT = 20.0  # m/s in a translational coordinate
SPIN_LIMIT = 200.0  # rad/s in a rotational one (a gram-scale tube can spin fast for real)
SETTLE_TIME = 0.3  # s of physics before the program starts
THERMAL_EVERY = 5  # ticks between thermal updates
WARNING_EVERY = 5  # ticks between reads of MuJoCo's warning counters

_BAD_WARNINGS = (
    mujoco.mjtWarning.mjWARN_BADQPOS,
    mujoco.mjtWarning.mjWARN_BADQVEL,
    mujoco.mjtWarning.mjWARN_BADQACC,
    mujoco.mjtWarning.mjWARN_BADCTRL,
    mujoco.mjtWarning.mjWARN_CONTACTFULL,
    mujoco.mjtWarning.mjWARN_CNSTRFULL,
)


def display_tenths(grams: float) -> int:
    """The scale's display in tenths of a gram: 0.1 g quantum, halves rounded up.

    >>> display_tenths(20.05), display_tenths(20.0499), display_tenths(-0.05)
    (201, 200, 0)
    """
    return math.floor(grams * 10 / SCALE_QUANTUM_TENTHS + 0.5) * SCALE_QUANTUM_TENTHS


class BudgetSpent(Exception):
    """The episode's physics work budget is spent (E0713): a bound, not a fault."""

    def __init__(self, budget: int, time: float) -> None:
        super().__init__(
            f"E0713: the episode's physics budget of {budget:,} work units is spent at "
            f"t={time:.2f} s (work = physics steps x ({WORK_BASE} + degrees of freedom + "
            "contacts); a scene this large cannot run this long)"
        )
        self.budget = budget
        self.time = time


class SimFault(Exception):
    """The simulator became unstable; the episode's outcome is not a task result."""

    def __init__(self, kind: str, detail: str, time: float) -> None:
        super().__init__(f"{kind} at t={time:.3f} s: {detail}")
        self.kind = kind
        self.detail = detail
        self.time = time


@define
class ScaleState:
    sensor_adr: int
    zero: float  # newtons subtracted before conversion (the tare point)
    filtered: float = 0.0  # grams
    display: int = 0  # tenths of a gram
    stable_since: float = 0.0
    segments: tuple[int, ...] = ()  # the display's segment geoms (`assets.display`)

    def reading(self) -> float:
        return self.display / 10


@define
class Ledger:
    """Amounts of substances carried by containers, and what was spilled."""

    amounts: dict[str, dict[str, float]] = field(factory=dict)  # container -> substance -> amount
    kinds: dict[str, str] = field(factory=dict)  # substance -> "liquid" | "powder"
    spilled: dict[str, float] = field(factory=dict)  # source container -> amount
    mixed: set[str] = field(factory=set)  # containers mixed since their contents changed

    def total(self, container: str) -> float:
        return sum(self.amounts.get(container, {}).values())

    def mass(self, container: str) -> float:
        total = 0.0
        for substance, amount in self.amounts.get(container, {}).items():
            liquid = self.kinds.get(substance, "liquid") == "liquid"
            total += amount * LIQUID_DENSITY if liquid else amount
        return total


@frozen
class Checkpoint:
    """Everything needed to continue an episode exactly: the MuJoCo integration state, the
    model fields the runtime writes (weld poses, masses), and the runtime's own state."""

    physics: np.ndarray
    eq_data: np.ndarray
    body_mass: np.ndarray
    body_inertia: np.ndarray
    geom_rgba: np.ndarray  # tips shown or hidden
    geom_contype: np.ndarray
    geom_conaffinity: np.ndarray
    runtime: dict[str, Any]  # deep copy of the runtime's own state (ledger, scales, ...)
    trace: Any  # the running trace hash (a hashlib object)
    data: Any  # a copy of the MjData (in-memory continuation); `physics` is the portable part


_RUNTIME_FIELDS = (
    "ticks",
    "physics_steps",
    "work",
    "cmd",
    "held",
    "lid_held",
    "ledger",
    "events",
    "running",
    "temperature",
    "setpoint",
    "pending_setpoint",
    "scales",
    "thermometers",
    "timers",
    "labels",
    "buttons",
    "tips",
    "boxed_tips",
    "uncapped",
    "interventions",
    "coordination",
    "lids_removed",
    "parked",
    "_geom_bits",
    "stirred",
    "robot_state",
    "_warning_bytes",
)


class Runtime(Bookkeeping, Actors):
    """A running episode: model, data, gripper command, ledger, scales, trace hash."""

    def __init__(
        self,
        built: Built,
        *,
        substeps: int = 10,
        weld_assist: bool = True,
        timestep: float | None = None,
    ) -> None:
        self.built = built
        self.model = built.model
        if timestep is not None:
            ratio = round(self.model.opt.timestep / timestep)
            self.model.opt.timestep = timestep
            substeps *= ratio
        self.data = mujoco.MjData(self.model)
        self.infos: dict[str, AssetInfo] = built.infos
        self.substeps = substeps
        self.dt = self.model.opt.timestep * substeps
        self._scale_alpha = 1.0 - math.exp(-self.dt / SCALE_TAU)  # the filter's gain per tick
        self.weld_assist = weld_assist
        self.ticks = 0
        self.physics_steps = 0
        self.work = 0  # physics work units spent (see catalog.WORK_BASE)
        self.work_budget: int | None = None  # raise BudgetSpent past it (episodes set it)
        # called after every tick (reads only): `during` specs watched while a program runs
        self.watchers: list[Callable[[], object]] = []
        self._work_base = WORK_BASE + self.model.nv
        self.cmd = np.zeros(7)  # x, y, z, yaw, tilt, finger, finger (actuator order)
        self.held: str | None = None
        self.lid_held: str | None = None
        self.ledger = Ledger()
        self.events: list[tuple[float, str, str]] = []
        self.running: set[str] = set()
        self.temperature: dict[str, float] = {}  # objects and thermal blocks, deg C
        self.setpoint: dict[str, float] = {}  # thermal blocks
        self.pending_setpoint: dict[str, float] = {}
        self.tips: dict[str, bool] = {}  # pipette -> carries a tip
        self.boxed_tips: dict[str, list[bool]] = {}  # tip box -> which positions hold a tip
        self.stirred: dict[str, float] = {}  # container -> seconds stirred since it changed
        self.uncapped: set[str] = set()  # bottles whose screw cap has come off
        self._hash = hashlib.sha256()
        m = self.model
        # geom -> owning entity index; the gripper is its own owner
        self.owner_names = [*self.infos, "gripper"]
        self.gripper_index = len(self.owner_names) - 1
        root_of = {info.body: i for i, info in enumerate(self.infos.values())}
        self.robot = robot_named(built.robot)
        root_of[self.robot.root_body] = self.gripper_index
        body_owner = np.full(m.nbody, -1, dtype=np.int64)
        for b in range(m.nbody):
            walk = b
            while walk != 0 and m.body(walk).name not in root_of:
                walk = int(m.body_parentid[walk])
            if walk != 0:
                body_owner[b] = root_of[m.body(walk).name]
        self.geom_owner = body_owner[m.geom_bodyid]
        self._owner_list: list[int] = self.geom_owner.tolist()
        self.pads = (m.geom("pad_l").id, m.geom("pad_r").id)
        self.tcp_site = m.site("tcp").id
        self.hand_body = m.body("hand").id
        self.body_ids = {name: m.body(info.body).id for name, info in self.infos.items()}
        self.entity_index = {name: i for i, name in enumerate(self.infos)}
        self.weld_ids = {
            name: m.equality(f"grasp_{name}").id for name, i in self.infos.items() if i.free
        }
        self.lid_eq = {
            name: m.equality(f"grasp_{name}_lid").id
            for name, i in self.infos.items()
            if i.lid_handle
        }
        self.scales: dict[str, ScaleState] = {}
        for name, info in self.infos.items():
            if info.force_sensor:
                pan = m.body(f"{name}_pan").id
                zero = (float(m.body_subtreemass[pan]) - info.offset) * GRAVITY
                segments = tuple(m.geom(g).id for g in info.display)
                self.scales[name] = ScaleState(
                    int(m.sensor(info.force_sensor).adr[0]), zero, segments=segments
                )
                self._show_display(self.scales[name])
        self.buttons: dict[tuple[str, str], tuple[int, bool]] = {}
        for name, info in self.infos.items():
            for button, joint in info.buttons.items():
                self.buttons[(name, button)] = (int(m.joint(joint).qposadr[0]), False)
        self.slot_sites = {
            name: np.array([m.site(slot.site).id for slot in info.slots])
            for name, info in self.infos.items()
            if info.slots
        }
        self.slot_list = [
            SlotTarget(name, k) for name, info in self.infos.items() for k in range(len(info.slots))
        ]
        self.slot_site_ids = np.array(
            [m.site(self.infos[t.container].slots[t.index].site).id for t in self.slot_list],
            dtype=np.int64,
        )
        self.site_ids = {m.site(i).name: i for i in range(m.nsite)}
        self.slot_site_index = dict(zip(self.slot_list, self.slot_site_ids.tolist(), strict=True))
        # how far an object's bottom may be from a slot's floor centre to be worth testing
        self.slot_reach = np.array(
            [
                [1.5 * (self.infos[t.container].slots[t.index].bore + 0.003)] * 2 + [0.02]
                for t in self.slot_list
            ]
        ).reshape(-1, 3)
        self._init_actors(built)
        self.heaters = [name for name, info in self.infos.items() if info.heater]
        self.thermometers = Thermometers.of(m, {h: self.infos[h].display for h in self.heaters})
        clocks = {n: i.display for n, i in self.infos.items() if i.asset == "timer"}
        self.timers = Timers.of(m, clocks)
        self.labels = Labels.of(
            m, {n: (i.label, i.display) for n, i in self.infos.items() if i.label}
        )
        self.tip_geoms = {
            name: m.geom(f"{name}_tip").id
            for name, info in self.infos.items()
            if info.asset == "pipette"
        }
        self.level_geoms = {
            name: m.geom(f"{name}_liquid").id
            for name, info in self.infos.items()
            if info.asset in LEVEL_SHOWN
        }
        self.box_tip_geoms = {
            name: [m.geom(f"{name}_tip{k}").id for k in range(len(info.slots))]
            for name, info in self.infos.items()
            if info.asset == "tip_box"
        }
        for name, info in self.infos.items():
            if info.free or info.heater:
                self.temperature[name] = AMBIENT
            if info.heater:
                self.setpoint[name] = AMBIENT
        self.thermometers.update(m, self.temperature)
        self._base_inertia = m.body_inertia.copy()
        self._base_mass = m.body_mass.copy()
        self._bad_warning_index = np.array([int(w) for w in _BAD_WARNINGS])
        self._baseline_warnings = np.zeros(len(_BAD_WARNINGS), dtype=np.int64)
        self._warning_bytes = b""
        self._qpos, self._qvel = self.data.qpos, self.data.qvel
        self.robot_state = np.zeros(0)  # the robot controller's own state (the arm's IK)
        self._robot = self.robot.controller(self)
        # a view kept once: building it through `data.warning` every check costs more
        self._warning_numbers = self.data.warning.number
        self._sensordata = self.data.sensordata
        self._velocity_limits = np.full(m.nv, SPIN_LIMIT)
        for j in range(m.njnt):
            kind, dof = m.jnt_type[j], m.jnt_dofadr[j]
            if kind == mujoco.mjtJoint.mjJNT_SLIDE:
                self._velocity_limits[dof] = VELOCITY_LIMIT
            elif kind == mujoco.mjtJoint.mjJNT_FREE:
                self._velocity_limits[dof : dof + 3] = VELOCITY_LIMIT

    # ------------------------------------------------------------ reset

    def reset(self, contents: dict[str, list[tuple[str, float, str]]]) -> None:
        """Put every object where its placement says, fill the ledger, and let it settle."""
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        for name, angle in self.built.rotor_angles.items():
            d.qpos[m.joint(self.infos[name].rotor_joint).qposadr[0]] = angle
        self.cmd[:] = [0.3, -0.25, 0.3 + TCP_DROP - GANTRY_Z, 0.0, 0.0, 0.02, 0.02]
        self._robot.reset()
        mujoco.mj_forward(m, d)
        # tips first: a bare pipette is placed by its nose
        for name, geom in self.tip_geoms.items():
            mounted = not self.infos[name].bare
            self.tips[name] = mounted
            self.show_geom(geom, mounted)
        for name, info in self.infos.items():
            if not info.free:
                continue
            placement = self.built.placements.get(name)
            pos, quat = self._placement_pose(name, placement)
            adr = m.joint(f"{name}_free").qposadr[0]
            d.qpos[adr : adr + 3] = pos
            d.qpos[adr + 3 : adr + 7] = quat
        for name, geoms in self.box_tip_geoms.items():
            self.boxed_tips[name] = [True] * len(geoms)
            for geom in geoms:
                self.show_geom(geom, True)
        for container, items in sorted(contents.items()):
            for substance, amount, kind in items:
                self.ledger.kinds[substance] = kind
                self.add_contents(container, substance, amount)
        self._park_absent()
        mujoco.mj_forward(m, d)
        self._baseline_warnings = d.warning.number[self._bad_warning_index].copy()
        self._warning_bytes = d.warning.number.tobytes()
        for _ in range(round(SETTLE_TIME / self.dt)):
            self.tick()

    def _placement_pose(
        self, name: str, placement: InSlot | OnSurface | None
    ) -> tuple[np.ndarray, np.ndarray]:
        d = self.data
        lift = bottom_depth(self, name) + 0.0008
        match placement:
            case InSlot(container=container, slot=slot):
                site = self.infos[container].slots[slot].site
                R = d.site(site).xmat.reshape(3, 3)
                pos = d.site(site).xpos + R[:, 2] * lift
                quat = np.zeros(4)
                mujoco.mju_mat2Quat(quat, d.site(site).xmat)
                return pos, quat
            case OnSurface(surface=surface, x=x, y=y, yaw=yaw):
                quat = np.array([math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)])
                top = self.infos[surface].top_site if surface in self.infos else ""
                if surface == "table" or not top:
                    return np.array([x, y, lift]), quat
                base = d.site(top).xpos
                return np.array([base[0] + x, base[1] + y, base[2] + lift]), quat
            case None:
                return np.array([0.0, 0.0, lift]), np.array([1.0, 0, 0, 0])

    # ------------------------------------------------------------ the tick

    def tick(self) -> None:
        self.ticking = True  # what changes the simulation from here on is not journaled
        try:
            self._tick()
        finally:
            self.ticking = False

    def _tick(self) -> None:
        self._robot.write()
        if self.interventions:
            self._actors_before_step(self.time + self.dt)
        mujoco.mj_step(self.model, self.data, self.substeps)  # nstep (positional: cheaper)
        self.ticks += 1
        self.physics_steps += self.substeps
        self.work += self.substeps * (self._work_base + self.data.ncon)
        if self.work_budget is not None and self.work > self.work_budget:
            raise BudgetSpent(self.work_budget, self.time)
        self._hash.update(self._qpos)
        for state in self.scales.values():
            self._update_scale(state)
        qpos = self._qpos
        for key, (adr, down) in self.buttons.items():
            pressed = bool(qpos[adr] < -0.003)
            if pressed != down:
                self.buttons[key] = (adr, pressed)
                if pressed:
                    self._on_press(*key)
        if self.interventions:
            self._actors_after_step()
        if self.heaters and self.ticks % THERMAL_EVERY == 0:
            update_thermal(self, self.dt * THERMAL_EVERY)
            self.thermometers.update(self.model, self.temperature)
        if self.timers.segments:
            self.timers.update(self.model, self.time, self.running)
        self._check_health()
        for watch in self.watchers:
            watch()

    def checkpoint(self) -> Checkpoint:
        """Save the full simulation state, including what the runtime changed in the model."""
        import copy

        m, d = self.model, self.data
        kind = mujoco.mjtState.mjSTATE_INTEGRATION
        physics = np.empty(mujoco.mj_stateSize(m, kind))
        mujoco.mj_getState(m, d, physics, kind)
        state = {name: copy.deepcopy(getattr(self, name)) for name in _RUNTIME_FIELDS}
        return Checkpoint(
            physics,
            m.eq_data.copy(),
            m.body_mass.copy(),
            m.body_inertia.copy(),
            m.geom_rgba.copy(),
            m.geom_contype.copy(),
            m.geom_conaffinity.copy(),
            state,
            self._hash.copy(),
            copy.copy(d),
        )

    def restore(self, checkpoint: Checkpoint) -> None:
        """Return to a checkpoint taken from this runtime; the continuation is bit-identical."""
        import copy

        m, d = self.model, self.data
        m.eq_data[:] = checkpoint.eq_data
        m.body_mass[:] = checkpoint.body_mass
        m.body_inertia[:] = checkpoint.body_inertia
        m.geom_rgba[:] = checkpoint.geom_rgba
        m.geom_contype[:] = checkpoint.geom_contype
        m.geom_conaffinity[:] = checkpoint.geom_conaffinity
        # a copy of the whole MjData, not only the integration state: skills read derived
        # quantities (body poses, contacts) left by the last substep, and a continuation is
        # bit-identical only if they are the same too
        self.data = copy.copy(checkpoint.data)
        d = self.data
        self._qpos, self._qvel = d.qpos, d.qvel
        self._warning_numbers = d.warning.number
        self._sensordata = d.sensordata
        # copied again, so that one checkpoint can be restored any number of times
        for name, value in copy.deepcopy(checkpoint.runtime).items():
            setattr(self, name, value)
        self._hash = checkpoint.trace.copy()
        for container in self.level_geoms:
            self._show_level(container)  # geom sizes are not part of the checkpoint

    @property
    def time(self) -> float:
        return self.ticks * self.dt

    def trace_digest(self) -> str:
        """SHA-256 over qpos after every tick: equal digests mean bit-identical trajectories."""
        return self._hash.hexdigest()

    def _check_health(self) -> None:
        # Every tick: runaway velocity (one dot product). Every WARNING_EVERY ticks (0.1 s):
        # MuJoCo's warning counters and contact penetration. Right after 10 substeps the
        # caches are cold and each numpy call costs several microseconds, so the rarer
        # checks are batched; they lose nothing but up to 0.1 s of latency, because the
        # counters are cumulative and a penetration persists. Reads only: trajectories are
        # the same whichever ticks are checked.
        # MuJoCo's dot product: numpy's (through BLAS) costs twice as much for one number
        speed2 = mujoco.mju_dot(self._qvel, self._qvel)
        if not speed2 <= VELOCITY_LIMIT**2:  # also true for NaN
            excess = np.abs(self._qvel) / self._velocity_limits
            worst = int(np.argmax(excess))
            if not excess[worst] <= 1.0:
                joint = self.model.joint(int(self.model.dof_jntid[worst])).name
                unit = "m/s" if self._velocity_limits[worst] == VELOCITY_LIMIT else "rad/s"
                raise SimFault(
                    "runaway velocity",
                    f"joint `{joint}` moves at {abs(float(self._qvel[worst])):.0f} {unit}",
                    self.time,
                )
        if self.ticks % WARNING_EVERY:
            return
        # MuJoCo's own checks (bad qpos/qvel/qacc, full contact or constraint buffers) only
        # leave a trace in the warning counters, because it auto-resets the state
        d = self.data
        numbers = self._warning_numbers
        if numbers.tobytes() != self._warning_bytes:
            grown = numbers[self._bad_warning_index] > self._baseline_warnings
            if grown.any():
                which = _BAD_WARNINGS[int(np.argmax(grown))]
                raise SimFault("warning", mujoco.mjtWarning(which).name, self.time)
            self._warning_bytes = numbers.tobytes()
        # fast path: a contact's constraint rows hold its distance, so no contact row below
        # the limit means no contact is; only then are the contacts themselves inspected.
        # Contact rows come after the equality, friction and limit rows: a joint past its
        # limit (a lid at its stop) is not a penetration and must not send the check
        # down the slow path, which costs ~100x more
        first = d.ne + d.nf + d.nl
        if d.ncon and d.nefc > first and float(d.efc_pos[first:].min()) < -PENETRATION_LIMIT:
            dists = d.contact.dist
            deepest = -float(dists.min())
            if deepest > PENETRATION_LIMIT:
                g1, g2 = d.contact.geom[int(np.argmin(dists))]
                names = [
                    self.owner_names[o] if o >= 0 else "world" for o in self.geom_owner[[g1, g2]]
                ]
                raise SimFault(
                    "penetration",
                    f"`{names[0]}` and `{names[1]}` overlap by {deepest * 1000:.1f} mm",
                    self.time,
                )

    # ------------------------------------------------------------ scales and buttons

    def _update_scale(self, state: ScaleState) -> None:
        force = float(self._sensordata[state.sensor_adr + 2])
        grams = (abs(force) - state.zero) / GRAVITY * 1000.0
        state.filtered += self._scale_alpha * (grams - state.filtered)
        display = display_tenths(state.filtered)
        if display != state.display:
            state.display = display
            state.stable_since = self.time
            self._show_display(state)

    def _show_display(self, state: ScaleState) -> None:
        """Light the display's segments for its value (what a camera reads)."""
        if state.segments:
            rgba = self.model.geom_rgba
            for geom, lit in zip(state.segments, segments_lit(state.display), strict=True):
                rgba[geom] = LIT if lit else UNLIT

    def scale_stable(self, name: str) -> bool:
        state = self.scales[name]
        return self.time - state.stable_since >= SCALE_STABLE_WINDOW - 1e-9

    def _handover_pose(self, name: str) -> np.ndarray:
        pos, quat = self._placement_pose(name, self.built.placements.get(name))
        return np.concatenate([pos, quat])

    def capped(self, name: str) -> bool:
        """Whether a container is closed now: capped by build and its cap not taken off."""
        return self.infos[name].capped and name not in self.uncapped

    @journaled("cap_off")
    def remove_cap(self, bottle: str) -> None:
        """Take a bottle's screw cap off: it is hidden and massless from now on (the removed
        cap is not simulated as a body of its own, like an ejected tip)."""
        m = self.model
        cap = m.body(f"{bottle}_cap").id
        for geom in range(m.body_geomadr[cap], m.body_geomadr[cap] + m.body_geomnum[cap]):
            self.show_geom(geom, False)
        m.body_mass[cap] = 1e-6
        m.body_inertia[cap] = 1e-10
        self.uncapped.add(bottle)
        self.events.append((self.time, f"{bottle}.cap", "removed"))

    @journaled("cap_on")
    def replace_cap(self, bottle: str, turns: float) -> None:
        """Set a removed cap back on its bottle's neck, `turns` turns out (free on the
        thread): shown, colliding and of its own mass again."""
        m, d = self.model, self.data
        cap = m.body(f"{bottle}_cap").id
        for geom in range(m.body_geomadr[cap], m.body_geomadr[cap] + m.body_geomnum[cap]):
            self.show_geom(geom, True)
        m.body_mass[cap] = self._base_mass[cap]
        m.body_inertia[cap] = self._base_inertia[cap]
        joint = m.joint(self.infos[bottle].cap_joint)
        d.qpos[joint.qposadr[0]] = 2 * math.pi * turns
        d.qvel[joint.dofadr[0]] = 0.0
        self.uncapped.discard(bottle)
        self.events.append((self.time, f"{bottle}.cap", "put back"))

    @journaled("geom")
    def show_geom(self, geom: int, shown: bool) -> None:
        """Show a geom and let it collide, or hide it and let everything pass through it."""
        m = self.model
        m.geom_rgba[geom, 3] = 0.8 if shown else 0.0
        m.geom_contype[geom] = 1 if shown else 0
        m.geom_conaffinity[geom] = 1 if shown else 0

    def _on_press(self, entity: str, button: str) -> None:
        self.events.append((self.time, f"{entity}.{button}", "pressed"))
        if button == "tare" and entity in self.scales:
            state = self.scales[entity]
            state.zero += state.filtered / 1000.0 * GRAVITY
            state.filtered = 0.0
        elif button == "start":
            self.running.add(entity)
        elif button == "stir":
            if entity in self.running:
                self.running.discard(entity)
            else:
                self.running.add(entity)
        elif button == "set" and entity in self.pending_setpoint:
            self.setpoint[entity] = self.pending_setpoint.pop(entity)

    # ------------------------------------------------------------ gripper

    def tcp(self) -> np.ndarray:
        return self.data.site_xpos[self.tcp_site]

    def set_tcp(self, xyz: np.ndarray | list[float] | tuple[float, float, float]) -> None:
        self.cmd[0] = xyz[0]
        self.cmd[1] = xyz[1]
        self.cmd[2] = xyz[2] + TCP_DROP - GANTRY_Z

    def cmd_tcp(self) -> np.ndarray:
        return np.array([self.cmd[0], self.cmd[1], self.cmd[2] - TCP_DROP + GANTRY_Z])

    def drive_joints(self, joints: np.ndarray) -> None:
        """Command the robot's arm joints directly for the next tick (no inverse kinematics)."""
        self._robot.drive_joints(joints)

    def yaw_room(self, sign: float) -> float:
        """How far (rad) the hand's yaw can still turn in the direction of `sign`
        (+1 counter-clockwise seen from above) before one of the robot's joint limits."""
        return float(self._robot.yaw_room(sign))

    def set_grip(self, half_width: float) -> None:
        q = min(max(half_width, 0.0), FINGER_MAX)
        self.cmd[5] = q
        self.cmd[6] = q

    # Contact scans use plain lists: with ~20 contacts, numpy's per-call overhead costs more
    # than the loop (these run every tick while a spec or a grasp is being checked).

    def pad_contacts(self, owner: int, geom: int = -1) -> tuple[bool, bool]:
        """Whether the left and right pads touch an entity (or one geom of it)."""
        d = self.data
        if not d.ncon:
            return False, False
        owners = self._owner_list
        pl, pr = self.pads
        left = right = False
        for a, b in d.contact.geom.tolist():
            if a in (pl, pr):
                pad, other = a, b
            elif b in (pl, pr):
                pad, other = b, a
            else:
                continue
            if (other == geom) if geom >= 0 else (owners[other] == owner):
                if pad == pl:
                    left = True
                else:
                    right = True
        return left, right

    def touching(self, entity: str) -> set[int]:
        """Owner indices of everything in contact with an entity's geoms."""
        return self._touching_index(self.entity_index[entity])

    def _touching_index(self, idx: int) -> set[int]:
        d = self.data
        out: set[int] = set()
        if not d.ncon:
            return out
        owners = self._owner_list
        for a, b in d.contact.geom.tolist():
            oa, ob = owners[a], owners[b]
            if oa == idx and ob != idx:
                out.add(ob)
            elif ob == idx and oa != idx:
                out.add(oa)
        return out

    def support_body(self, entity: str) -> int | None:
        """The body an entity rests on: the first body it touches that is not its own or the
        gripper's (its velocity is the reference for "at rest")."""
        d = self.data
        idx = self.entity_index[entity]
        owners = self._owner_list
        for a, b in d.contact.geom.tolist() if d.ncon else ():
            for mine, other in ((a, b), (b, a)):
                if owners[mine] == idx and owners[other] not in (idx, self.gripper_index):
                    return int(self.model.geom_bodyid[other])
        return None

    @journaled("weld")
    def activate_weld(self, name: str) -> None:
        m, d = self.model, self.data
        eq = self.weld_ids[name]
        body = self.body_ids[name]
        ipos, iquat, rpos, rquat = np.zeros(3), np.zeros(4), np.zeros(3), np.zeros(4)
        mujoco.mju_negPose(ipos, iquat, d.xpos[self.hand_body], d.xquat[self.hand_body])
        mujoco.mju_mulPose(rpos, rquat, ipos, iquat, d.xpos[body], d.xquat[body])
        m.eq_data[eq, 0:3] = 0.0
        m.eq_data[eq, 3:6] = rpos
        m.eq_data[eq, 6:10] = rquat
        m.eq_data[eq, 10] = 1.0
        d.eq_active[eq] = 1

    @journaled("weld_release")
    def release_weld(self, name: str) -> None:
        self.data.eq_active[self.weld_ids[name]] = 0

    def weld_active(self, name: str) -> bool:
        return name in self.weld_ids and bool(self.data.eq_active[self.weld_ids[name]])

    @journaled("lid")
    def connect_lid(self, name: str) -> None:
        m, d = self.model, self.data
        eq = self.lid_eq[name]
        handle = m.body(self.infos[name].lid_handle).id
        tcp = self.tcp()
        # anchors: the TCP in the hand frame, and the same world point in the handle frame
        m.eq_data[eq, 0:3] = [0.0, 0.0, -TCP_DROP]
        R = d.xmat[handle].reshape(3, 3)
        m.eq_data[eq, 3:6] = R.T @ (tcp - d.xpos[handle])
        d.eq_active[eq] = 1

    @journaled("lid_release")
    def release_lid(self, name: str) -> None:
        self.data.eq_active[self.lid_eq[name]] = 0

    # ------------------------------------------------------------ contents

    @journaled("contents")
    def add_contents(self, container: str, substance: str, amount: float) -> None:
        self.ledger.mixed.discard(container)
        self.stirred.pop(container, None)
        bucket = self.ledger.amounts.setdefault(container, {})
        bucket[substance] = bucket.get(substance, 0.0) + amount
        if bucket[substance] <= 1e-15:
            del bucket[substance]
        self._update_mass(container)

    def _show_level(self, container: str) -> None:
        """Draw the liquid level of a transparent container from its ledger (liquids only;
        rendering only: the geom neither collides nor weighs)."""
        geom = self.level_geoms.get(container)
        if geom is None:
            return
        m, info = self.model, self.infos[container]
        volume = sum(
            amount
            for substance, amount in self.ledger.amounts.get(container, {}).items()
            if self.ledger.kinds.get(substance, "liquid") == "liquid"
        )
        radius = float(m.geom_size[geom, 0])
        height = min(volume / (math.pi * radius * radius), info.depth - 0.004)
        m.geom_size[geom, 1] = max(height / 2, 1e-4)
        m.geom_pos[geom, 2] = -info.half_height + 0.002 + height / 2
        m.geom_rgba[geom, 3] = 0.55 if height > 1e-4 else 0.0

    def _update_mass(self, container: str) -> None:
        self._show_level(container)
        if container not in self.infos:
            return  # a well of a plate: the plate is a fixture
        m = self.model
        info = self.infos[container]
        body = self.body_ids[container]
        new = info.base_mass + self.ledger.mass(container)
        # the builder split the base mass over several geoms; scale the whole body
        base_body_mass = self._base_mass[body]
        factor = new / info.base_mass if info.base_mass > 0 else 1.0
        m.body_mass[body] = base_body_mass * factor
        m.body_inertia[body] = self._base_inertia[body] * factor

    def object_mass(self, name: str) -> float:
        return float(self.model.body_mass[self.body_ids[name]])
