"""W0703: an object that can start at its step's goal, seen statically (no success by luck).

A step whose spec already holds before it does anything passes by luck. `certify` sees
that at run time in any instance (`already_held`); `check` sees it where the scene says
so: an object declared at the place a step's spec requires (`in(tube, rack.slot[3])`
with `tube: ... in rack.slot[3]`, `on(w, scale)` with `w: ... on scale`), or a
`randomize [...] within rack.slot[a..b]` whose range includes that goal slot. Only an
object that no earlier step's program touches is considered (an earlier step may move it
away on purpose), and only the spec's conjuncts (not parts under `or` or `not`). A step
that says `may_already_hold: true` is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from lablang.diagnostics import Report
from lablang.sim import model as sm
from lablang.source import Source, Span


def check_luck(task: sm.Task, report: Report, source: Source) -> None:
    """W0703 for each step whose whole spec the scene shows holding before it starts."""
    touched: set[str] = set()
    for step in task.steps:
        found = None if step.may_already_hold else _lucky(task.scene, step.success, touched)
        if found is not None:
            (how, span), atom = found
            report.add(
                "W0703",
                f"{how}, which step `{step.name}` requires: the step can pass without "
                "doing anything",
                source,
                span or atom.span or step.span or Span(0, 0),
                label="can put it at the goal",
                notes=(f"`{step.name}` requires `{_text(atom)}`",),
                help="keep the goal out of the object's start (its placement or "
                "randomized range), or say `may_already_hold: true` in the step if "
                "that is intended",
            )
        touched |= {name for call in step.program for name in _refs(call)}


# atoms that hold of an object at rest where it was put (the scene starts at rest)
_AT_REST = ("stable", "upright")


def _lucky(
    scene: sm.Scene, spec: sm.Expr | None, touched: set[str]
) -> tuple[tuple[str, Span | None], sm.Call] | None:
    """How the spec can hold at the start: every conjunct is a placement the scene can
    start with, or a fact of an object at rest; None when one is not (or unknown)."""
    conjuncts = list(_conjuncts(spec))
    found = None
    for atom in conjuncts:
        if not isinstance(atom, sm.Call):
            return None
        if atom.func in _AT_REST:
            continue
        start = _starts_at(scene, atom, touched) if atom.func in ("in", "on") else None
        if start is None:
            return None
        found = found or (start, atom)
    return found


def _conjuncts(expr: sm.Expr | None) -> Iterator[sm.Expr]:
    match expr:
        case sm.Logic(op="and", parts=parts):
            for part in parts:
                yield from _conjuncts(part)
        case None:
            return
        case _:
            yield expr


def _starts_at(scene: sm.Scene, atom: sm.Call, touched: set[str]) -> tuple[str, Span | None] | None:
    """How the atom's object can start at the atom's goal, and where the scene says so."""
    if len(atom.args) != 2 or not all(isinstance(a, sm.Ref) for a in atom.args):
        return None
    obj, goal = atom.args
    assert isinstance(obj, sm.Ref) and isinstance(goal, sm.Ref)
    entity = scene.entity(obj.name)
    if entity is None or obj.path or obj.name in touched:
        return None
    slot = goal.path[-1] if goal.path[:1] == ("slot",) and len(goal.path) == 2 else None
    for rand in scene.randomizations:
        if (
            isinstance(rand, sm.SlotPermutation)
            and obj.name in rand.entities
            and rand.container == goal.name
            and atom.func == "in"
            and (slot is None or slot in rand.slots)
        ):
            return f"`{obj.name}` can start in `{goal.text()}` by its randomization", rand.span
    placement = entity.placement
    match placement:
        case sm.InSlot(container=container, slot=k) if atom.func == "in":
            if container == goal.name and (slot is None or slot == k):
                return f"`{obj.name}` starts in `{goal.text()}`", entity.span
        case sm.OnSurface(surface=surface) if atom.func == "on" and not goal.path:
            if surface == goal.name:
                return f"`{obj.name}` starts on `{goal.name}`", entity.span
        case _:
            pass
    return None


def _refs(call: sm.Call) -> set[str]:
    return {a.name for a in call.args if isinstance(a, sm.Ref)}


def _text(atom: sm.Call) -> str:
    """`in(tube, rack.slot[3])` (the atoms reported have two references)."""
    return f"{atom.func}({', '.join(a.text() for a in atom.args if isinstance(a, sm.Ref))})"
