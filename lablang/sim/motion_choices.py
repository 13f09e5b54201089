"""Mixing, pouring, pipetting and scooping read from what the hand does (Labference's
choices).

`TransferWatch` (`lablang.sim.labference`) reads transfers, presses and lid moves; this
watcher, which it runs after every tick, reads the other operations a hand commits to by
moving a held container or pipette, whoever drives the hand:

* **Mixing** (`shake`, `swirl`, `vortex`, `invert`): a held container with contents moved
  in a mixing motion is the choice `mix(container)`: back and forth or round, travelling
  at least `MIX_PATH` within `MIX_WINDOW`, ending at most `MIX_NET` of that path from where
  it started and turning back along one axis `MIX_FLIPS` times (a shake's 12 mm at 3 Hz
  travels up to 29 cm a second, a swirl 19 cm; a carried container ends as far as it
  went, a tube lifted and set back turns once); pressed on a running vortex cup (whose
  2 mm orbit moves it less); or, capped, turned past 100 degrees (an inversion; an open
  container turned over pours). The motion is over `MIX_QUIET` after it last showed
  (shaken, or leaning past `TURNING` between inversions) or when the container is let
  go; its outcome is read `confirm_after` (`labference.CONFIRM_AFTER`) later: executed
  when the container's contents are then mixed (`mixed(container)`).
* **Pouring** (`pour`, `dispense_powder`): a held open container with contents tilted
  past `POUR_TILT` is the choice `pour(source, receiver)`, the receiver the nearest open
  container whose footprint (its radius and `POUR_MARGIN`) holds the source's lip, else
  `table`. Its outcome is read once the source is back below `UPRIGHT` (or let go),
  `confirm_after` later: executed when the receiver gained contents and nothing was
  spilled from the source meanwhile.
* **Pipetting** (`aspirate`, `dispense`; a pipette `transfer` and `mix_by_pipetting` are
  draws and expulsions): a held pipette with a tip lowered into a container (the tip
  within the container's radius, or a well's, and below its rim and `TIP_MARGIN`) is the
  choice `aspirate(pipette, container)` when the pipette holds nothing, `dispense(...)`
  when it holds liquid. Its outcome is read when the tip is lifted out, `confirm_after`
  later: executed when the pipette gained liquid (a draw) or the container did (an
  expulsion).
* **Scooping** (`scoop`, `empty_scoop`): a held scoop's bowl lowered into a container
  holding a powder (as a pipette's tip is) is the choice `scoop(scoop, source)`, executed
  when the scoop gained a dose by `confirm_after` after the bowl is lifted out; a held
  scoop with a dose tipped past `POUR_TILT` is a pour, `pour(scoop, receiver)`, the
  receiver the container whose footprint holds the bowl's floor, read as pours are.

What moves contents is the skills' model (`lablang.sim.skills`): a policy's raw actions
tilt, shake and dip as the skills do and are read as the same choices, but the runtime
moves no liquid and mixes nothing for them, so their execution is not achieved (docs/sim.md,
"Missing or partial").
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from attrs import define, field, frozen

from lablang.sim.events import Event

if TYPE_CHECKING:
    from lablang.sim.runtime import Runtime

MIX_WINDOW = 1.0  # s over which a mixing motion is read
MIX_PATH = 0.04  # m a mixing container travels in MIX_WINDOW at least...
MIX_NET = 0.25  # ...ending at most this fraction of that path from where it was...
MIX_FLIPS = 3  # ...and turning back along one axis this often (a lift and lower: once)
MIX_SPEED = 0.03  # m/s along an axis that counts for turning back
MIX_QUIET = 0.5  # s without mixing motion that end one
INVERTED = math.radians(100)  # a container turned past this is being inverted
TURNING = math.radians(10)  # an inversion goes on while the container leans past this
POUR_TILT = math.radians(45)  # a held open container tilted past this is pouring
UPRIGHT = math.radians(20)  # back below this, the pour is over
POUR_MARGIN = 0.02  # m beyond a receiver's radius that still holds a pouring lip
TIP_MARGIN = 0.005  # m above a container's rim that a lowered tip still counts as in it


@frozen
class Pending:
    """A motion choice whose outcome is not read yet, and what it is read against."""

    choice: Event
    before: float  # the amount its execution is measured against (m^3 or kg)
    spilled: float = 0.0  # the source's spilled amount at the choice (pours)


@frozen
class MotionState:
    """What a `MotionWatch` knows, as saved in a checkpoint."""

    active: tuple[tuple[str, Pending], ...] = ()
    last_motion: float = 0.0
    track: tuple[tuple[float, float, float, float, float], ...] = ()
    flips: tuple[tuple[float, int], ...] = ()
    signs: tuple[int, ...] = (0, 0, 0)
    inside: str | None = None
    pending: tuple[tuple[str, Pending], ...] = ()


@define
class MotionWatch:
    """Mixing, pouring and pipetting choices and outcomes, read after every tick.

    `choose(kind, subject, target)` records a choice and returns its event; `due(when,
    choice)` schedules its outcome, which `outcome(choice)` then reads.
    """

    rt: Runtime
    choose: Callable[[str, str, str | None], Event]
    due: Callable[[float, Event], None]
    confirm_after: float  # s after a motion is over at which its outcome is read
    active: dict[str, Pending] = field(factory=dict)  # "mix" | "pour" | "dip" -> choice
    last_motion: float = 0.0
    # the held container's (time, path travelled so far, x, y, z) over the last MIX_WINDOW
    track: deque[tuple[float, float, float, float, float]] = field(factory=deque)
    flips: deque[tuple[float, int]] = field(factory=deque)  # (time, axis) it turned back
    signs: list[int] = field(factory=lambda: [0, 0, 0])  # each axis' last direction
    inside: str | None = None  # the container the pipette's tip (a scoop's bowl) is in
    pending: dict[str, Pending] = field(factory=dict)  # by attempt, outcomes scheduled

    def __call__(self) -> None:
        rt = self.rt
        held = rt.held
        info = rt.infos.get(held) if held is not None else None
        for kind in [k for k, p in self.active.items() if p.choice.object != held]:
            self._end(kind)  # let go (or swapped): the motion is over
        if info is None:
            self._forget()
            self.inside = None
            return
        assert held is not None
        if info.asset == "pipette":
            if rt.tips.get(held, True):
                self._dipping(held, self._pipetting)
            else:
                self.inside = None
        elif info.asset == "scoop":
            self._pouring(held)  # a dose tipped out
            if "pour" not in self.active:
                self._dipping(held, self._scooping)
        elif info.capacity > 0:
            capped = rt.capped(held) or info.opening <= 0
            if not capped:
                self._pouring(held)
            # an empty container has nothing to mix
            if "pour" not in self.active and rt.ledger.total(held) > 0:
                self._mixing(held, capped)

    def state(self) -> MotionState:
        return MotionState(
            tuple(self.active.items()),
            self.last_motion,
            tuple(self.track),
            tuple(self.flips),
            tuple(self.signs),
            self.inside,
            tuple(self.pending.items()),
        )

    def restore(self, state: MotionState) -> None:
        self.active, self.last_motion = dict(state.active), state.last_motion
        self.track, self.flips = deque(state.track), deque(state.flips)
        self.signs = list(state.signs)
        self.inside, self.pending = state.inside, dict(state.pending)

    def flush(self) -> None:
        """The episode ends: every motion still going on is over now."""
        for kind in list(self.active):
            self._end(kind, at_once=True)

    def outcome(self, choice: Event) -> bool:
        """Was a motion choice executed: its effect is in the ledger now?"""
        rt = self.rt
        pending = self.pending.pop(choice.attempt)
        kind = choice.operation.split("(", 1)[0]
        assert choice.object is not None
        if kind == "mix":
            return choice.object in rt.ledger.mixed
        if kind == "pour":
            gained = rt.ledger.total(choice.target or "") > pending.before + 1e-12
            spilled = rt.ledger.spilled.get(choice.object, 0.0) > pending.spilled + 1e-15
            return gained and not spilled
        if kind in ("aspirate", "scoop"):  # the tool gained (liquid, m^3; a dose, kg)
            return rt.ledger.total(choice.object) > pending.before + 1e-15
        return rt.ledger.total(choice.target or "") > pending.before + 1e-15

    # ------------------------------------------------------------ internals

    def _start(self, kind: str, op: str, subject: str, target: str | None, before: float) -> None:
        choice = self.choose(op, subject, target)
        spilled = self.rt.ledger.spilled.get(subject, 0.0)
        self.active[kind] = Pending(choice, before, spilled)

    def _end(self, kind: str, at_once: bool = False) -> None:
        pending = self.active.pop(kind)
        self.pending[pending.choice.attempt] = pending
        self.due(self.rt.time + (0.0 if at_once else self.confirm_after), pending.choice)

    def _mixing(self, held: str, capped: bool) -> None:
        from lablang.sim.state import tilt

        rt = self.rt
        now = rt.time
        x, y, z = (float(v) for v in rt.data.xpos[rt.body_ids[held]])
        track, flips = self.track, self.flips
        path = track[-1][1] + math.dist(track[-1][2:], (x, y, z)) if track else 0.0
        if track and now > track[-1][0]:
            for axis, v in enumerate(((x, y, z)[a] - track[-1][2 + a]) / (now - track[-1][0])
                                     for a in range(3)):  # fmt: skip
                if abs(v) >= MIX_SPEED:
                    sign = 1 if v > 0 else -1
                    if self.signs[axis] == -sign:
                        flips.append((now, axis))
                    self.signs[axis] = sign
        track.append((now, path, x, y, z))
        while now - track[0][0] > MIX_WINDOW + 1e-9:
            track.popleft()
        while flips and now - flips[0][0] > MIX_WINDOW + 1e-9:
            flips.popleft()
        travelled = path - track[0][1]
        net = math.dist(track[0][2:], (x, y, z))
        shaking = (
            now - track[0][0] >= MIX_WINDOW - 1e-9
            and travelled >= MIX_PATH
            and net <= MIX_NET * travelled
            and max(sum(a == k for _, a in flips) for k in range(3)) >= MIX_FLIPS
        ) or self._on_running_cup(held)
        lean = tilt(rt, held) if capped else 0.0  # an open container turned over pours
        if "mix" not in self.active and (shaking or lean > INVERTED):
            self._start("mix", "mix", held, None, 0.0)
        if "mix" in self.active:
            if shaking or lean > TURNING:  # still shaken, or still turning over
                self.last_motion = now
            elif now - self.last_motion >= MIX_QUIET:
                self._end("mix")

    def _on_running_cup(self, held: str) -> bool:
        """Is the held container pressed on a vortex mixer's running cup (which orbits it)?"""
        rt = self.rt
        touching: set[int] | None = None
        for (entity, button), (_adr, down) in rt.buttons.items():
            if button == "cup" and down:
                touching = rt.touching(held) if touching is None else touching
                if rt.entity_index[entity] in touching:
                    return True
        return False

    def _pouring(self, held: str) -> None:
        from lablang.sim.skills.base import object_frame
        from lablang.sim.skills.pouring import lip_of
        from lablang.sim.skills.scooping import bowl_of
        from lablang.sim.state import tilt

        rt = self.rt
        incline = tilt(rt, held)
        if "pour" not in self.active and incline > POUR_TILT and rt.ledger.total(held) > 0:
            pos, R = object_frame(rt, held)
            info = rt.infos[held]
            if info.asset == "scoop":  # the dose leaves the bowl, at the handle's far end
                lip = bowl_of(rt, held)[0]
            else:
                lip = lip_of(pos, R[:, 2], info.half_height, info.opening)
            receiver = receiver_at(rt, lip[:2], held, POUR_MARGIN)
            before = rt.ledger.total(receiver) if receiver != "table" else 0.0
            self._start("pour", "pour", held, receiver, before)
            self._forget()  # a pour's tilting and standing up again is no shaking
        elif "pour" in self.active and incline < UPRIGHT:
            self._end("pour")
            self._forget()

    def _forget(self) -> None:
        self.track.clear()
        self.flips.clear()
        self.signs = [0, 0, 0]

    def _dipping(
        self, tool: str, operation: Callable[[str, str], tuple[str, float] | None]
    ) -> None:
        """A held tool's lower end lowered into a container is the choice `operation`
        names (with the amount its outcome is read against), if any; lifting it out ends
        that choice."""
        where = dipped_into(self.rt, tool, TIP_MARGIN)
        if where == self.inside:
            return
        if self.inside is not None and "dip" in self.active:
            self._end("dip")
        self.inside = where
        chosen = operation(tool, where) if where is not None else None
        if chosen is not None:
            self._start("dip", chosen[0], tool, where, chosen[1])

    def _pipetting(self, pipette: str, where: str) -> tuple[str, float]:
        """A tip lowered into `where`: a draw when the pipette holds nothing, else an
        expulsion."""
        holds = self.rt.ledger.total(pipette)
        if holds > 1e-15:
            return "dispense", self.rt.ledger.total(where)
        return "aspirate", holds

    def _scooping(self, scoop: str, where: str) -> tuple[str, float] | None:
        """A bowl lowered into `where`: a draw when `where` holds a powder, else none."""
        ledger = self.rt.ledger
        if any(ledger.kinds.get(s) == "powder" for s in ledger.amounts.get(where, {})):
            return "scoop", ledger.total(scoop)
        return None


def receiver_at(rt: Runtime, point: np.ndarray, exclude: str, margin: float) -> str:
    """The nearest open container whose footprint (its radius and `margin`) holds `point`
    (x, y), else `table`."""
    best: tuple[float, str] | None = None
    for name, info in rt.infos.items():
        if name == exclude or info.opening <= 0:
            continue
        centre = rt.data.xpos[rt.body_ids[name]] if info.free else None
        if centre is None:
            continue
        gap = float(np.hypot(*(centre[:2] - point)))
        if gap <= max(info.radius, info.opening) + margin and (best is None or gap < best[0]):
            best = (gap, name)
    return best[1] if best is not None else "table"


def dipped_into(rt: Runtime, pipette: str, margin: float) -> str | None:
    """The container (or a plate's well) a held pipette's tip (a scoop's bowl: the tool's
    lower end) is lowered into: within its radius (a well's) and below its rim and
    `margin`; None when it is in none."""
    from lablang.sim.skills.base import object_frame
    from lablang.sim.state import bottom_depth

    pos, R = object_frame(rt, pipette)
    tip = pos - R[:, 2] * bottom_depth(rt, pipette)
    d = rt.data
    for name, info in rt.infos.items():
        if name == pipette:
            continue
        if info.wells:
            for k, site in enumerate(info.wells):
                mouth = d.site(site).xpos
                near = float(np.hypot(*(mouth[:2] - tip[:2]))) <= info.well_radius
                if near and tip[2] < mouth[2] + margin:
                    return f"{name}.well[{k}]"
        elif info.free and info.capacity > 0:
            cpos, cR = object_frame(rt, name)
            rim = cpos + cR[:, 2] * info.half_height
            near = float(np.hypot(*(rim[:2] - tip[:2]))) <= max(info.radius, info.opening)
            if near and tip[2] < rim[2] + margin:
                return name
    return None


__all__ = ["MotionState", "MotionWatch", "Pending", "dipped_into", "receiver_at"]
