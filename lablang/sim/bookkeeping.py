"""Bookkeeping: the changes skills make to the simulation other than through the hand.

Most skills act only through the hand's commands, which a demonstration's actions carry.
Some also change the simulation by *bookkeeping*: `pour` and `aspirate` move contents
between ledgers (and so the containers' masses), `attach_tip` and `eject_tip` show and hide
tips, `twist_cap` lifts a cap off and `close_cap` sets it back, `open_lid` carries a lid by a
constraint, `pick` engages the weld assist, `set_temperature` dials a setpoint. Each such
change is one *operation* on the runtime (the table `OPS`), made between two ticks.

While a runtime's `journal` is a list, every operation a skill makes between ticks is
appended to it as `(op, args)` (operations made inside a tick, by scripted colleagues, are
not: a replay's ticks make them again). A demonstration stores them per tick, and a replay
applies them (`apply`) before the tick's action, at the point of the tick sequence where the
skill made them, so the replayed trajectory is the recorded one bit for bit.

The operations read back from a file are untrusted: `apply` checks each one's name,
argument count and types, and that the entities, geoms and amounts exist and are finite,
and raises `ValueError` naming the operation otherwise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lablang.sim.assets import CAP_OPEN_TURNS

if TYPE_CHECKING:
    from lablang.sim.rig import Rig

F = TypeVar("F", bound=Callable[..., Any])

MAX_OPS_PER_TICK = 64  # a replay refuses a tick with more (no skill makes more than a few)
MAX_NAME = 128  # characters of an entity, ledger key or substance name
MAX_AMOUNT = 10.0  # m^3 or kg: a bound on one contents change (a bench holds litres)

# op -> (the runtime method it calls, its argument kinds)
OPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "contents": ("add_contents", ("key", "name", "amount")),
    "spill": ("spill", ("key", "amount")),
    "kind": ("set_kind", ("name", "kind")),
    "mixed": ("mark_mixed", ("key",)),
    "geom": ("show_geom", ("geom", "bool")),
    "tip": ("set_tip", ("pipette", "bool")),
    "boxed_tip": ("take_boxed_tip", ("tip_box", "index")),
    "cap_off": ("remove_cap", ("bottle",)),
    "cap_on": ("replace_cap", ("bottle", "turns")),
    "lid": ("connect_lid", ("lid",)),
    "lid_release": ("release_lid", ("lid",)),
    "lid_held": ("set_lid_held", ("lid_or_none",)),
    "weld": ("activate_weld", ("weldable",)),
    "weld_release": ("release_weld", ("weldable",)),
    "held": ("set_held", ("entity_or_none",)),
    "setpoint": ("set_pending_setpoint", ("entity", "celsius")),
}


def journaled(op: str) -> Callable[[F], F]:
    """Make a runtime method an operation: called between ticks while the runtime keeps a
    journal, it is appended to it (the operations it calls in turn are not: they are part
    of it)."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def noted(self: Any, *args: Any) -> Any:
            journal = self.journal
            if journal is None or self.ticking or self.journal_depth:
                return method(self, *args)
            journal.append((op, args))
            self.journal_depth += 1
            try:
                return method(self, *args)
            finally:
                self.journal_depth -= 1

        return noted  # type: ignore[return-value]

    return wrap


class Bookkeeping:
    """The runtime's bookkeeping operations that are plain field writes (a mixin of
    `Runtime`; the others, such as `add_contents` and `remove_cap`, live with the state
    they change)."""

    journal: list[tuple[str, tuple[Any, ...]]] | None = None
    ticking = False
    journal_depth = 0
    # provided by the runtime
    ledger: Any
    tips: dict[str, bool]
    boxed_tips: dict[str, list[bool]]
    held: str | None
    lid_held: str | None
    pending_setpoint: dict[str, float]

    @journaled("spill")
    def spill(self, source: str, amount: float) -> None:
        """Record `amount` as spilled from `source`."""
        self.ledger.spilled[source] = self.ledger.spilled.get(source, 0.0) + amount

    @journaled("kind")
    def set_kind(self, substance: str, kind: str) -> None:
        """A substance's kind, unless it has one already."""
        self.ledger.kinds.setdefault(substance, kind)

    @journaled("mixed")
    def mark_mixed(self, key: str) -> None:
        self.ledger.mixed.add(key)

    @journaled("tip")
    def set_tip(self, pipette: str, on: bool) -> None:
        self.tips[pipette] = on

    @journaled("boxed_tip")
    def take_boxed_tip(self, box: str, index: int) -> None:
        self.boxed_tips[box][index] = False

    @journaled("held")
    def set_held(self, name: str | None) -> None:
        self.held = name

    @journaled("lid_held")
    def set_lid_held(self, name: str | None) -> None:
        self.lid_held = name

    @journaled("setpoint")
    def set_pending_setpoint(self, entity: str, celsius: float) -> None:
        self.pending_setpoint[entity] = celsius


def to_json(op: str, args: tuple[Any, ...]) -> list[Any]:
    """An operation as a JSON value: `[op, arg, ...]` (floats round-trip exactly)."""
    return [
        op,
        *(int(a) if hasattr(a, "__index__") and not isinstance(a, bool) else a for a in args),
    ]


def apply(rt: Rig, entries: list[Any]) -> None:
    """Apply operations read back from a demonstration (untrusted) to a runtime, in order."""
    if len(entries) > MAX_OPS_PER_TICK:
        raise ValueError(
            f"{len(entries)} bookkeeping operations in one tick (at most {MAX_OPS_PER_TICK})"
        )
    for entry in entries:
        if not (isinstance(entry, list) and entry and isinstance(entry[0], str)):
            raise ValueError(f"a bookkeeping operation is `[op, args...]`, not {entry!r:.80}")
        op, args = entry[0], entry[1:]
        if op not in OPS:
            raise ValueError(f"unknown bookkeeping operation `{op:.40}` (known: {', '.join(OPS)})")
        method, kinds = OPS[op]
        if len(args) != len(kinds):
            raise ValueError(f"bookkeeping operation `{op}` takes {len(kinds)} arguments")
        checked = tuple(_check(rt, op, k, v) for k, v in zip(kinds, args, strict=True))
        if op == "boxed_tip" and checked[1] >= len(rt.boxed_tips[checked[0]]):
            raise ValueError(
                f"bookkeeping operation `boxed_tip`: `{checked[0]}` has no position {checked[1]}"
            )
        getattr(rt, method)(*checked)


def _check(rt: Rig, op: str, kind: str, value: Any) -> Any:
    infos = rt.infos
    problem = ""
    if kind in ("name", "key") and not (isinstance(value, str) and 0 < len(value) <= MAX_NAME):
        problem = "a name"
    elif kind == "key" and value not in infos and value.split(".well[")[0] not in infos:
        problem = "a container of the scene"
    elif kind in ("amount", "turns", "celsius"):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            problem = "a finite number"
        elif kind == "amount" and abs(value) > MAX_AMOUNT:
            problem = f"an amount of at most {MAX_AMOUNT:g}"
        elif kind == "turns" and not 0.0 <= value <= CAP_OPEN_TURNS:
            problem = f"a number of turns from 0 to {CAP_OPEN_TURNS:g}"
        elif kind == "celsius" and not 4.0 <= value <= 99.0:
            problem = "a setpoint from 4 to 99 C"
        else:
            value = float(value)
    elif kind == "kind" and value not in ("liquid", "powder"):
        problem = "`liquid` or `powder`"
    elif kind == "bool" and not isinstance(value, bool):
        problem = "true or false"
    elif kind == "geom" and not (
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value < rt.model.ngeom
    ):
        problem = "a geom of the model"
    elif kind == "index" and not (
        isinstance(value, int) and not isinstance(value, bool) and value >= 0
    ):
        problem = "a position"
    elif kind in ("entity_or_none", "lid_or_none") and value is None:
        pass
    elif kind in _ENTITY_KINDS and not _entity_fits(rt, kind, value):
        problem = _ENTITY_KINDS[kind]
    if problem:
        raise ValueError(f"bookkeeping operation `{op}`: {value!r:.60} is not {problem}")
    return value


_ENTITY_KINDS = {
    "entity": "an entity of the scene",
    "entity_or_none": "an entity of the scene",
    "pipette": "a pipette of the scene",
    "tip_box": "a tip box of the scene",
    "bottle": "a bottle of the scene",
    "lid": "a centrifuge of the scene",
    "lid_or_none": "a centrifuge of the scene",
    "weldable": "an object the gripper can hold",
}


def _entity_fits(rt: Rig, kind: str, value: Any) -> bool:
    if not isinstance(value, str) or value not in rt.infos:
        return False
    info = rt.infos[value]
    match kind:
        case "pipette":
            return value in rt.tips
        case "tip_box":
            return value in rt.boxed_tips
        case "bottle":
            return bool(info.cap_joint)
        case "lid" | "lid_or_none":
            return value in rt.lid_eq
        case "weldable":
            return value in rt.weld_ids
    return True
