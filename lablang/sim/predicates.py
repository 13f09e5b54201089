"""Success predicates evaluated from simulator state, and the spec evaluator.

The geometric facts they test live in `lablang.sim.state` (shared with the skills),
with tolerances from the assets' geometry. Temporal predicates (`stable`, `reading`) keep timers
in the `Evaluator`, which is evaluated once per control tick.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from lablang.sim.model import Bool, Call, Compare, Expr, Logic, Not, Num, Ref, Text
from lablang.sim.runtime import Runtime
from lablang.sim.state import (
    CAP_CLOSED_TURNS,
    CAP_OPEN_TURNS,
    DRAWER_CLOSED,
    DRAWER_OPEN,
    LID_CLOSED,
    LID_OPEN,
    ButtonTarget,
    SlotTarget,
    WellTarget,
    at_rest,
    balanced,
    cap_turns,
    drawer_travel,
    grasped,
    in_slot,
    ledger_key,
    lid_angle,
    lowest_point,
    on,
    slot_of,
    upright,
)
from lablang.syntax.strings import quote

DEFAULT_READING_TOL = 0.05  # g: the display must show the target exactly


class SpecError(Exception):
    """A success spec or program refers to something this scene cannot evaluate."""


def not_spilled(rt: Runtime, name: str | None = None) -> bool:
    spilled = rt.ledger.spilled
    return (spilled.get(name, 0.0) if name else sum(spilled.values())) <= 0.0


# ---------------------------------------------------------------- the evaluator


class Evaluator:
    """Evaluates a success spec once per tick, keeping the timers of temporal predicates."""

    def __init__(self, rt: Runtime, instant: bool = False) -> None:
        """`instant`: temporal predicates read their condition now (`stable(x, 0.5 s)` is
        "at rest now"), to ask whether a spec already holds when its step starts; a hold
        of some time (`during(c, min: 15 s)`, `throughout(c, 15 s)`), measured within
        the step, does not hold yet."""
        self.rt = rt
        self.instant = instant
        self.since: dict[Expr, float] = {}
        self.last: dict[str, bool] = {}  # atom text -> value at the last evaluation
        # `during` atoms whose condition failed once, and when it failed
        self.broken: dict[Expr, float] = {}
        # when the step's program started (`during` counts from then; else from the
        # atom's first evaluation)
        self.started: float | None = None
        # holds (`during(.., min: T)`, `throughout(.., T)`) that are false: atom text ->
        # (the longest time the condition held, the time asked for)
        self.held: dict[str, tuple[float, float]] = {}
        self._longest: dict[Expr, float] = {}

    def copy(self) -> Evaluator:
        """An evaluator of the same runtime with the same timers, advancing apart from this
        one (saved at a checkpoint)."""
        other = Evaluator(self.rt, self.instant)
        other.since, other.last, other.broken = dict(self.since), dict(self.last), dict(self.broken)
        other.started, other.held, other._longest = (
            self.started,
            dict(self.held),
            dict(self._longest),
        )
        return other

    def holds(self, expr: Expr) -> bool:
        value = self.value(expr)
        if not isinstance(value, bool):
            raise SpecError(f"`{_text(expr)}` is not a condition")
        return value

    def value(self, expr: Expr) -> Any:
        match expr:
            case Logic(op="and", parts=parts):
                # every part is evaluated so that the timers of all of them advance
                results = [self.holds(p) for p in parts]
                return all(results)
            case Logic(op="or", parts=parts):
                results = [self.holds(p) for p in parts]
                return any(results)
            case Logic():
                raise SpecError(f"unknown connective `{expr.op}`")
            case Not(operand=operand):
                return not self.holds(operand)
            case Compare(op=op, left=left, right=right):
                a, b = self.value(left), self.value(right)
                if a is None or b is None:
                    return False
                result = _COMPARE[op](a, b)
                self.last[_text(expr)] = result
                return result
            case Call():
                return self._call(expr)
            case Ref():
                return resolve_ref(self.rt, expr)
            case Num(value=value) | Bool(value=value):
                return value
            case Text(value=value):
                return value

    def _call(self, call: Call) -> Any:
        rt = self.rt
        args = [self.value(a) for a in call.args]
        kwargs = {k: self.value(v) for k, v in call.kwargs}
        func = call.func
        if func == "stable":
            _arity(call, args, 1, 2)
            window = float(args[1]) if len(args) > 1 else float(kwargs.get("for", 0.5))
            now = at_rest(rt, _entity(rt, call, args[0]))
            result = self._timer(call, now, window)
        elif func == "throughout":
            # `throughout(cond, 30 s)`: the condition held at every tick of the last 30 s
            # (the episode evaluates it each tick of the step's program too)
            _arity(call, args, 2, 2)
            asked = float(args[1])
            if self.instant:  # a hold of some time is measured within the step: not yet
                return self._record(call, asked <= 0 and _condition(call, args[0]))
            result = self._timer(call, _condition(call, args[0]), asked)
            self._hold(call, result, asked)
        elif func == "during":
            # `during(cond[, min: T])`: the condition held at every tick since the step's
            # program started (the episode evaluates it each tick while the program runs),
            # and for at least T
            _arity(call, args, 1, 1)
            now = _condition(call, args[0])
            least = float(kwargs.get("min", 0.0))
            if self.instant:
                return self._record(call, least <= 0 and now)
            start = (
                self.started if self.started is not None else self.since.setdefault(call, rt.time)
            )
            if not now and call not in self.broken:
                self.broken[call] = rt.time
            held = self.broken.get(call, rt.time) - start
            self._longest[call] = held
            result = call not in self.broken and held >= least - 1e-9
            self._hold(call, result, least)
        elif func in PREDICATES:
            result = PREDICATES[func](rt, call, args, kwargs)
        elif func in FUNCTIONS:
            return FUNCTIONS[func](rt, call, args, kwargs)
        else:
            raise SpecError(f"unknown predicate `{func}`")
        return self._record(call, result)

    def _record(self, call: Call, result: Any) -> Any:
        self.last[_text(call)] = result
        return result

    def _hold(self, call: Call, result: bool, asked: float) -> None:
        """Keep what a failing hold lasted, for the step's failure reason."""
        text = _text(call)
        if result or asked <= 0:
            self.held.pop(text, None)
        else:
            self.held[text] = (self._longest.get(call, 0.0), asked)

    def false_literals(self, expr: Expr, positive: bool = True) -> list[str]:
        """The literals of `expr` (an atom, or `not` an atom) that were false at the last
        evaluation, each written as the spec writes it: a failing `not has_tip(p)` is
        `not has_tip(p)`, and a passing one is not listed (the atom's own value is the
        negation of the literal's)."""
        match expr:
            case Logic(parts=parts):
                return [text for part in parts for text in self.false_literals(part, positive)]
            case Not(operand=operand):
                return self.false_literals(operand, not positive)
            case Call() | Compare() | Bool():
                text = _text(expr)
                value = expr.value if isinstance(expr, Bool) else self.last.get(text)
                if value is None or value == positive:
                    return []
                return [text if positive else f"not {text}"]
            case _:
                return []

    def _timer(self, node: Expr, now: bool, window: float) -> bool:
        if self.instant:
            return now
        if not now:
            self.since.pop(node, None)
            return False
        start = self.since.setdefault(node, self.rt.time)
        held = self.rt.time - start
        self._longest[node] = max(self._longest.get(node, 0.0), held)
        return held >= window - 1e-9


def during_atoms(expr: Expr | None) -> list[Call]:
    """The holds of a spec, `during(...)` and `throughout(...)`: evaluated every tick
    while the program runs, so that the program's time counts."""
    match expr:
        case Call(func="during" | "throughout"):
            return [expr]
        case Call(args=args):
            return [c for a in args for c in during_atoms(a)]
        case Logic(parts=parts):
            return [c for p in parts for c in during_atoms(p)]
        case Not(operand=operand):
            return during_atoms(operand)
        case _:
            return []


def held_text(evaluator: Evaluator) -> str:
    """What the failing holds lasted: "`during(c, min: 15 s)` held 7.02 s of 15 s"."""
    return "; ".join(
        f"`{text}` held {held:.2f} s of {asked:g} s"
        for text, (held, asked) in sorted(evaluator.held.items())
    )


def _condition(call: Call, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SpecError(f"`{call.func}` needs a condition, got `{value}`")
    return value


def _arity(call: Call, args: list[Any], low: int, high: int) -> None:
    if not low <= len(args) <= high:
        raise SpecError(f"`{call.func}` takes {low} to {high} arguments, got {len(args)}")


def _entity(rt: Runtime, call: Call, value: Any) -> str:
    if isinstance(value, str) and value in rt.infos:
        return value
    raise SpecError(f"`{call.func}` needs an entity, got `{value}`")


def resolve_ref(rt: Runtime, ref: Ref) -> Any:
    """An entity name, a slot, or a button from a reference like `rotor.slot[3]`."""
    if ref.name not in rt.infos:
        return ref.name  # a substance or a symbolic name; the predicate decides
    match ref.path:
        case ():
            return ref.name
        case ("slot", int(k)):
            if not 0 <= k < len(rt.infos[ref.name].slots):
                raise SpecError(
                    f"`{ref.text()}`: `{ref.name}` has {len(rt.infos[ref.name].slots)} slots"
                )
            return SlotTarget(ref.name, k)
        case ("well", int(k)):
            if not 0 <= k < len(rt.infos[ref.name].wells):
                raise SpecError(
                    f"`{ref.text()}`: `{ref.name}` has {len(rt.infos[ref.name].wells)} wells"
                )
            return WellTarget(ref.name, k)
        case (str(button),) if button in rt.infos[ref.name].buttons:
            return ButtonTarget(ref.name, button)
        case _:
            raise SpecError(f"`{ref.text()}` does not name a part of `{ref.name}`")


def _p_in(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 2, 2)
    obj, target = _entity(rt, call, args[0]), args[1]
    if target is None:
        return False
    if isinstance(target, SlotTarget):
        return in_slot(rt, obj, target)
    if isinstance(target, str) and target in rt.infos and rt.infos[target].slots:
        where = slot_of(rt, obj)
        return where is not None and where.container == target
    raise SpecError(f"`in` needs a slot or a container with slots, got `{target}`")


def _p_on(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 2, 2)
    return on(rt, _entity(rt, call, args[0]), _entity(rt, call, args[1]))


def _one(fn: Callable[[Runtime, str], bool]) -> Callable[..., bool]:
    def predicate(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
        _arity(call, args, 1, 1)
        return fn(rt, _entity(rt, call, args[0]))

    return predicate


def _p_open(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 1, 1)
    name = _entity(rt, call, args[0])
    if rt.infos[name].cap_joint:
        return name in rt.uncapped or cap_turns(rt, name) >= CAP_OPEN_TURNS - 0.02
    if rt.infos[name].drawer_joint:
        return drawer_travel(rt, name) >= DRAWER_OPEN
    if not rt.infos[name].lid_joint:
        raise SpecError(f"`{name}` has no lid")
    return name in rt.lids_removed or lid_angle(rt, name) >= LID_OPEN


def _p_closed(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 1, 1)
    name = _entity(rt, call, args[0])
    if rt.infos[name].cap_joint:
        return name not in rt.uncapped and cap_turns(rt, name) <= CAP_CLOSED_TURNS
    if rt.infos[name].drawer_joint:
        return drawer_travel(rt, name) <= DRAWER_CLOSED
    if not rt.infos[name].lid_joint:
        raise SpecError(f"`{name}` has no lid")
    return name not in rt.lids_removed and lid_angle(rt, name) <= LID_CLOSED


def _p_balanced(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 1, 1)
    name = _entity(rt, call, args[0])
    if not rt.infos[name].slots or not rt.infos[name].rotor_joint:
        raise SpecError(f"`{name}` is not a centrifuge")
    return balanced(rt, name)


def _p_not_spilled(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 0, 1)
    return not_spilled(rt, _entity(rt, call, args[0]) if args else None)


def _p_reading(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> Any:
    """`reading(scale)` is the stable display in grams (none while unstable);
    `reading(scale, 20 g, within: 0.1 g)` is the completion condition."""
    _arity(call, args, 1, 2)
    name = _entity(rt, call, args[0])
    if name not in rt.scales:
        raise SpecError(f"`{name}` is not a scale")
    grams = rt.scales[name].reading() if rt.scale_stable(name) else None
    if len(args) == 1:
        return None if grams is None else grams / 1000.0
    target_g = float(args[1]) * 1000.0
    tol_g = float(kw.get("within", DEFAULT_READING_TOL / 1000.0)) * 1000.0
    return grams is not None and abs(grams - target_g) <= tol_g + 1e-9


def _p_contains(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    """`contains(beaker, water, 20 mL, within: 0.5 mL)`; without an amount, any amount.
    The container may be a well: `contains(plate.well[3], buffer, 10 uL)`."""
    _arity(call, args, 2, 3)
    container = args[0] if isinstance(args[0], WellTarget) else _entity(rt, call, args[0])
    substance = args[1]
    have = rt.ledger.amounts.get(ledger_key(container), {}).get(str(substance), 0.0)
    if len(args) == 2:
        return have > 0.0
    tol = float(kw.get("within", 0.0))
    return abs(have - float(args[2])) <= tol + 1e-12


def _p_started(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 1, 1)
    return _entity(rt, call, args[0]) in rt.running


def _p_mixed(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> bool:
    _arity(call, args, 1, 1)
    return _entity(rt, call, args[0]) in rt.ledger.mixed


def _p_temperature(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> Any:
    """`temperature(x)` in deg C; `temperature(x, 37 C, within: 1 C)` (default within 0.5 C)."""
    _arity(call, args, 1, 2)
    name = _entity(rt, call, args[0])
    if name not in rt.temperature:
        raise SpecError(f"`{name}` has no temperature (objects and thermal blocks do)")
    value = rt.temperature[name]
    if len(args) == 1:
        return value
    return abs(value - float(args[1])) <= float(kw.get("within", 0.5)) + 1e-9


def _f_slot_of(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> Any:
    _arity(call, args, 1, 1)
    return slot_of(rt, _entity(rt, call, args[0]))


def _f_opposite(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> Any:
    _arity(call, args, 2, 2)
    name = _entity(rt, call, args[0])
    slot = args[1]
    if slot is None:
        return None
    if isinstance(slot, SlotTarget) and slot.container != name:
        return None  # a slot of another container (a tube still in the rack) has no opposite
    n = len(rt.infos[name].slots)
    index = slot.index if isinstance(slot, SlotTarget) else int(slot)
    return SlotTarget(name, (index + n // 2) % n)


def _f_height(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> float:
    """The height of an object's lowest point above the table top, in metres."""
    _arity(call, args, 1, 1)
    return lowest_point(rt, _entity(rt, call, args[0]))


def _f_mass(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> float:
    _arity(call, args, 1, 1)
    return rt.object_mass(_entity(rt, call, args[0]))


PredicateFn = Callable[[Runtime, Call, list[Any], dict[str, Any]], Any]
PREDICATES: dict[str, PredicateFn] = {
    "in": _p_in,
    "on": _p_on,
    "grasped": _one(grasped),
    "upright": _one(upright),
    "open": _p_open,
    "closed": _p_closed,
    "balanced": _p_balanced,
    "not_spilled": _p_not_spilled,
    "reading": _p_reading,
    "contains": _p_contains,
    "started": _p_started,
    "mixed": _p_mixed,
    "temperature": _p_temperature,
    "has_tip": _one(lambda rt, name: rt.tips.get(name, False)),
}


def _f_label(rt: Runtime, call: Call, args: list[Any], kw: dict[str, Any]) -> Any:
    """`label(tube)`: the label its flag shows now (none for a tube without one)."""
    _arity(call, args, 1, 1)
    return rt.labels.text.get(_entity(rt, call, args[0]))


FUNCTIONS: dict[str, PredicateFn] = {
    "slot_of": _f_slot_of,
    "opposite": _f_opposite,
    "mass": _f_mass,
    "height": _f_height,
    "label": _f_label,
}
TEMPORAL = ("stable", "throughout", "during")
ALL_PREDICATES = (*PREDICATES, *TEMPORAL)

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


_DISPLAY_UNITS = {
    "temperature": (1.0, "C"),
    "volume": (1e6, "mL"),
    "mass": (1e3, "g"),
    "time": (1.0, "s"),
    "length": (1.0, "m"),
    "angle": (180 / math.pi, "deg"),
}


def _text(expr: Expr) -> str:
    match expr:
        case Ref():
            return expr.text()
        case Num(value=value, dimension=dim):
            scale, unit = _DISPLAY_UNITS.get(dim, (1.0, ""))
            return f"{value * scale:g}{' ' + unit if unit else ''}"
        case Bool(value=value):
            return "true" if value else "false"
        case Text(value=value):
            return quote(value)
        case Call(func=func, args=args, kwargs=kwargs):
            inner = [_text(a) for a in args] + [f"{k}: {_text(v)}" for k, v in kwargs]
            return f"{func}({', '.join(inner)})"
        case Logic(op=op, parts=parts):
            return f" {op} ".join(_text(p) for p in parts)
        case Not(operand=operand):
            return f"not {_text(operand)}"
        case Compare(op=op, left=left, right=right):
            return f"{_text(left)} {op} {_text(right)}"


expr_text = _text
