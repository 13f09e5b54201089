"""Side effects: objects a step did not act on that moved, fell or tipped over.

A step's success spec says what it must achieve, not what it must leave alone; success
by luck (a weight knocked over while another is put on the pan, the reading still
right) is caught here, as LIBERO-style checks do. At a step's start the pose of every free
object is taken in the frame of what it rests on; at its end, each object that none of the
step's calls names and that no colleague moved meanwhile is compared: it *fell* when it
is more than 1 cm lower in that frame and no longer rests on it (*fell off*), *tipped
over* when it was upright and now leans past 30 degrees, *moved* when it is more than
1.5 cm away. The step's `may_move: [...]`
field allows it for the objects it lists.

The objects a step names are meant to move, but not to fall over: one that stood upright
when the step started and, not held, leans past 30 degrees at its end fails the step
("`dest` tipped over during `pour`"), unless `may_move` lists it (before, a pour passed
with the receiving bottle on its side, since the check skipped every object it named).
"""

from __future__ import annotations

import math

from attrs import frozen

from lablang.sim.model import Call, Ref, Step
from lablang.sim.runtime import Runtime
from lablang.sim.state import UPRIGHT_TILT, tilt

FELL = 0.01  # m lower in its support's frame
TIPPED = math.radians(30)
MOVED = 0.015  # m


@frozen
class Pose:
    support: int  # the body it rested on (0: the world)
    position: tuple[float, float, float]  # in the support's frame
    tilt: float


def watched(rt: Runtime, step: Step) -> list[str]:
    """The free objects a step's calls do not name (its side effects are looked for)."""
    named = {name for call in step.all_calls for name in _refs(call)} | set(step.may_move)
    return [n for n, info in rt.infos.items() if info.free and n not in named]


# skills that throw an object away (the argument at this index may land any way up)
THROWN = {"discard": 0}


def named(rt: Runtime, step: Step) -> list[str]:
    """The free objects a step's calls name and its `may_move` does not list: they must
    not tip over (an object the step discards into a bin may)."""
    thrown = {
        name
        for call in step.program
        if call.func in THROWN and len(call.args) > THROWN[call.func]
        for name in _refs(call.args[THROWN[call.func]])
    }
    names = {name for call in step.program for name in _refs(call)} - set(step.may_move) - thrown
    return [n for n, info in rt.infos.items() if info.free and n in names]


def tipped(rt: Runtime, before: dict[str, Pose], step: str, moved_by_events: set[str]) -> list[str]:
    """The named objects that stood upright at the step's start and lie tipped at its end."""
    return [
        f"`{name}` tipped over during `{step}`"
        for name, was in before.items()
        if name not in rt.parked
        and name not in moved_by_events
        and name != rt.held
        and was.tilt <= UPRIGHT_TILT
        and tilt(rt, name) > TIPPED
    ]


def snapshot(rt: Runtime, names: list[str]) -> dict[str, Pose]:
    """The poses of the objects now, each in the frame of what it rests on."""
    return {
        name: _pose(rt, name, rt.support_body(name) or 0) for name in names if name not in rt.parked
    }


def disturbed(
    rt: Runtime, before: dict[str, Pose], step: str, moved_by_events: set[str]
) -> list[str]:
    """What happened to each watched object since `before`: "`w5` tipped over during `add_2`"."""
    found = []
    for name, was in before.items():
        if name in rt.parked or name in moved_by_events or name == rt.held:
            continue
        now = _pose(rt, name, was.support)
        dz = now.position[2] - was.position[2]
        shift = math.dist(now.position, was.position)
        resting = rt.support_body(name) or 0
        if dz < -FELL and resting != was.support:
            what = f"fell off `{_owner(rt, was.support)}`"
        elif was.tilt <= UPRIGHT_TILT and now.tilt > TIPPED:
            what = "tipped over"
        elif dz < -FELL:
            what = "fell"
        elif shift > MOVED:
            what = f"moved by {shift * 100:.1f} cm"
        else:
            continue
        found.append(f"`{name}` {what} during `{step}`")
    return found


def _owner(rt: Runtime, body: int) -> str:
    geoms = [g for g in range(rt.model.ngeom) if int(rt.model.geom_bodyid[g]) == body]
    owner = int(rt.geom_owner[geoms[0]]) if geoms else -1
    return rt.owner_names[owner] if owner >= 0 else "the table"


def _pose(rt: Runtime, name: str, support: int) -> Pose:
    d = rt.data
    pos = d.xpos[rt.body_ids[name]]
    R = d.xmat[support].reshape(3, 3)
    local = R.T @ (pos - d.xpos[support])
    return Pose(support, (float(local[0]), float(local[1]), float(local[2])), tilt(rt, name))


def _refs(expr: object) -> set[str]:
    match expr:
        case Ref(name=name):
            return {name}
        case Call(args=args, kwargs=kwargs):
            return {n for a in (*args, *(v for _, v in kwargs)) for n in _refs(a)}
        case _:
            return set()
