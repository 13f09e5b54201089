"""The front end of scene events: scripted colleagues (`event NAME at T { ACTION }`).

An event holds one or more actions, performed together over its duration (1 s unless
`for T` says otherwise), and an optional `guard: [entity, ...]`:

    event slide at 9 s .. 11 s { move(rack, by: (10 cm, 6 cm)) }
    event spin at 4 s .. 6 s for 2 s { turn(rack, by: 90 deg) }
    event lid_off at 2 s .. 6 s { remove_lid(centrifuge) }
    event handover at 3 s .. 5 s { hand_over(tube) }    # absent until then
    event tare_it at 1 s { press(scale.tare) }

Every problem is a diagnostic; the actions are checked against the scene once its
entities are known (`check_events`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lablang import ast
from lablang.sim import catalog
from lablang.sim import model as sm
from lablang.source import Span

USAGE = "write `event NAME at 9 s .. 12 s { move(rack, by: (8 cm, 0 cm)) }`"
MAX_MOVE = 0.3  # m per action
MAX_TURN = math.pi  # rad per action
MAX_DURATION = 60.0  # s
# the entities an action guards by default: touching them before the event is premature
_GUARDED_BY_DEFAULT = ("remove_lid", "open_lid", "close_lid", "take_away", "press")

Error = Callable[..., None]
Number = Callable[[ast.Expr, str], "float | None"]


def parse_event(entry: ast.Entry, error: Error, number: Number) -> sm.Intervention | None:
    """An `event` entry as an intervention, or None after reporting what is wrong."""
    at = next((c.value for c in entry.clauses if c.keyword == "at"), None)
    low = high = None
    if isinstance(at, ast.Binary) and at.op == "..":
        low, high = number(at.left, "time"), number(at.right, "time")
    elif at is not None and not isinstance(at, ast.Assignment):
        low = high = number(at, "time")
    duration: float | None = 1.0
    for clause in entry.clauses:
        if clause.keyword == "for" and not isinstance(clause.value, ast.Assignment):
            duration = number(clause.value, "time")
            if duration is None or not 0 < duration <= MAX_DURATION:
                error(
                    "E0708",
                    f"an event lasts more than 0 s and at most {MAX_DURATION:g} s",
                    clause.span,
                )
                return None
        elif clause.keyword not in ("at", "for"):
            error("E0708", f"{USAGE} (an event takes `at` and `for` clauses)", clause.span)
            return None
    members = entry.body.members if entry.body else ()
    if low is None or high is None or not 0 <= low <= high <= catalog.MAX_WAIT:
        error("E0708", USAGE, entry.span)
        return None
    actions: list[sm.Action] = []
    guards: list[str] = []
    for member in members:
        if isinstance(member, ast.Field) and member.key == "guard":
            names = _names(member.value)
            if names is None:
                error("E0708", "write `guard: [centrifuge, tube]` (entities)", member.value.span)
                return None
            guards += names
            continue
        action = _action(member, error, number)
        if action is None:
            return None
        actions.append(action)
    if not actions or len(actions) > catalog.MAX_EVENT_ACTIONS:
        error("E0708", f"{USAGE} (1 to {catalog.MAX_EVENT_ACTIONS} actions)", entry.span)
        return None
    for action in actions:
        if action.kind in _GUARDED_BY_DEFAULT:
            guards.append(action.entity)
    assert duration is not None
    return sm.Intervention(
        entry.name or "event",
        low,
        high,
        tuple(actions),
        duration,
        tuple(dict.fromkeys(guards)),
        span=entry.span,
    )


def _names(value: ast.Expr) -> list[str] | None:
    items = value.items if isinstance(value, ast.ListExpr) else (value,)
    if not all(isinstance(i, ast.Name) for i in items):
        return None
    return [i.id for i in items if isinstance(i, ast.Name)]


def _action(member: ast.Member, error: Error, number: Number) -> sm.Action | None:
    call = member.value if isinstance(member, ast.ExprStmt) else None
    kinds = ", ".join(f"`{k}`" for k in sm.ACTION_KINDS)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        error("E0708", f"an event holds actions ({kinds}) and `guard: [...]`", member.span)
        return None
    kind = call.func.id
    if kind not in sm.ACTION_KINDS:
        error("E0708", f"`{kind}` is not an event action (actions: {kinds})", call.func.span)
        return None
    positional = [a.value for a in call.args if a.name is None]
    named = {a.name: a.value for a in call.args if a.name is not None}
    usage = {
        "move": "`move(rack, by: (10 cm, 0 cm)[, turn: 30 deg])`",
        "turn": "`turn(rack, by: 30 deg)`",
        "press": "`press(scale.tare)`",
    }.get(kind, f"`{kind}(entity)`")
    allowed = {"move": {"by", "turn"}, "turn": {"by"}}.get(kind, set())
    if len(positional) != 1 or set(named) - allowed:
        error("E0708", f"write {usage}", call.span)
        return None
    target = positional[0]
    if kind == "press":
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
            error("E0708", f"write {usage}", target.span)
            return None
        return sm.Action("press", target.value.id, part=target.name)
    if not isinstance(target, ast.Name):
        error("E0708", f"write {usage}: an entity's name", target.span)
        return None
    if kind == "move":
        by = named.get("by")
        items = by.items if isinstance(by, ast.TupleExpr) else ()
        xy = [number(i, "length") for i in items] if len(items) == 2 else [None]
        turn = _angle(named.get("turn"), error, number) if "turn" in named else 0.0
        if None in xy or turn is None:
            if None in xy:
                error("E0708", f"write {usage}", call.span)
            return None
        dx, dy = float(xy[0] or 0.0), float(xy[1] or 0.0)
        if math.hypot(dx, dy) > MAX_MOVE:
            error("E0708", "an event moves a fixture by at most 30 cm", call.span)
            return None
        return sm.Action("move", target.id, dx, dy, turn)
    if kind == "turn":
        turn = _angle(named.get("by"), error, number)
        if turn is None:
            return None
        return sm.Action("turn", target.id, turn=turn)
    return sm.Action(kind, target.id)


def _angle(expr: ast.Expr | None, error: Error, number: Number) -> float | None:
    value = number(expr, "angle") if expr is not None else None
    if value is None or abs(value) > MAX_TURN + 1e-12:
        span = expr.span if expr is not None else Span(0, 0)
        error("E0708", "an event turns a fixture by an angle of at most 180 deg", span)
        return None
    return value


def check_events(scene: sm.Scene, error: Error, unknown: Callable[[str, Span], None]) -> None:
    """Each action fits the entity it acts on; each object appears or leaves once at most."""
    moved_objects: dict[str, str] = {}
    for event in scene.interventions:
        span = event.span or Span(0, 0)
        for name in (*event.entities, *event.guards):
            if scene.entity(name) is None:
                unknown(name, span)
        for action in event.actions:
            host = scene.entity(action.entity)
            if host is None:
                continue
            kind = catalog.ASSET_KINDS[host.asset]
            if action.kind in ("move", "turn") and kind.role != "fixture":
                error(
                    "E0714",
                    f"an event moves a fixture; `{action.entity}` is a {host.asset}",
                    span,
                    help="move or turn a rack, a centrifuge or another fixture",
                )
            elif action.kind in ("remove_lid", "open_lid", "close_lid") and not (
                kind.lid and kind.role == "fixture"
            ):
                error(
                    "E0714",
                    f"`{action.entity}` ({host.asset}) has no lid to {action.kind.split('_')[0]}",
                    span,
                    help="a colleague works the lid of a centrifuge",
                )
            elif action.kind in ("hand_over", "take_away"):
                if kind.role != "object":
                    error(
                        "E0714",
                        f"a colleague hands over or takes away objects; "
                        f"`{action.entity}` is a {host.asset}",
                        span,
                        help="name a tube, a beaker or another object",
                    )
                elif action.entity in moved_objects:
                    error(
                        "E0714",
                        f"`{action.entity}` is already handed over or taken away "
                        f"by `{moved_objects[action.entity]}` (once per object)",
                        span,
                        help="keep one of the two events",
                    )
                else:
                    moved_objects[action.entity] = event.name
            elif action.kind == "press" and action.part not in kind.parts:
                parts = ", ".join(f"`{p}`" for p in kind.parts) or "none"
                error(
                    "E0714",
                    f"`{action.entity}` ({host.asset}) has no button "
                    f"`{action.part}` (buttons: {parts})",
                    span,
                    help="press a button the entity has, such as `scale.tare`",
                )
